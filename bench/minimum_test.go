package bench

import (
	"testing"

	"github.com/mlange-42/arche/generic"
	c "github.com/netsmooth/netsmooth/components"
)

// TestMinimumAgrees: the lower bound draws what the pipeline draws on the
// steady scenario, frame by frame (position and rotation, every entity),
// so the ratios against it compare the same output.
func TestMinimumAgrees(t *testing.T) {
	const n = 64
	pipe, low := NewPipeline(n), NewMinimum(n)
	rp := newRun(pipe, NewStream(n), FPS, FramesPerTick)
	rl := newRun(low, NewStream(n), FPS, FramesPerTick)
	renders := generic.NewMap1[c.Render](pipe.World())
	compared := 0
	for frame := range 60 * FramesPerTick {
		rp.frames(1)
		rl.frames(1)
		for id := c.NetID(1); id <= n; id++ {
			e, ok := pipe.Pipeline().Lookup(id)
			want := renders.Get(e)
			got := low.Render(id)
			if !ok || want.Flags&c.Visible == 0 {
				if got.Flags&c.Visible != 0 && frame > 10 {
					t.Fatalf("frame %d entity %d: drawn by the lower bound only", frame, id)
				}
				continue
			}
			if got.Flags&c.Visible == 0 {
				t.Fatalf("frame %d entity %d: drawn by the pipeline only", frame, id)
			}
			if d := got.Pos.Sub(want.Pos).Len(); d > 1e-4 {
				t.Fatalf("frame %d entity %d: pipeline at %v, lower bound at %v", frame, id, want.Pos, got.Pos)
			}
			if d := got.Rot.Dot(want.Rot); d < 1-1e-5 {
				t.Fatalf("frame %d entity %d: pipeline turned %v, lower bound %v", frame, id, want.Rot, got.Rot)
			}
			compared++
		}
	}
	if compared < 50*FramesPerTick*n {
		t.Fatalf("compared %d entity-frames, want most of %d", compared, 60*FramesPerTick*n)
	}
}

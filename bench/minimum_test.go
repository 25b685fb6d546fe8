package bench

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/generic"
	c "github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/netsim/scenario"
)

// TestMinimumAgrees: the lower bound draws what the pipeline draws on the
// steady scenario, frame by frame (position and rotation, every entity),
// so the ratios against it compare the same output.
func TestMinimumAgrees(t *testing.T) {
	t.Run("turning", func(t *testing.T) { minimumAgrees(t, false) })
	t.Run("position only", func(t *testing.T) { minimumAgrees(t, true) })
}

// minimumAgrees compares the lower bound with the pipeline on the steady
// stream, or on the stream that never sets a rotation.
func minimumAgrees(t *testing.T, positionOnly bool) {
	const n = 64
	pipe, low := NewPipeline(n), NewMinimum(n)
	rp, rl := steadyRun(pipe, n, positionOnly), steadyRun(low, n, positionOnly)
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
			if positionOnly && got.Rot != mgl32.QuatIdent() {
				t.Fatalf("frame %d entity %d: turned %v on a stream without rotations", frame, id, got.Rot)
			}
			compared++
		}
	}
	if compared < 50*FramesPerTick*n {
		t.Fatalf("compared %d entity-frames, want most of %d", compared, 60*FramesPerTick*n)
	}
}

// TestMinimumOnArcheAgrees: the lower bound on arche draws exactly what
// the lower bound draws, frame by frame, so the two differ only in where
// the rings are kept.
func TestMinimumOnArcheAgrees(t *testing.T) {
	for _, positionOnly := range []bool{false, true} {
		const n = 64
		low, on := NewMinimum(n), NewMinimumOnArche(n)
		rl, ro := steadyRun(low, n, positionOnly), steadyRun(on, n, positionOnly)
		drawn := 0
		for frame := range 60 * FramesPerTick {
			rl.frames(1)
			ro.frames(1)
			for id := c.NetID(1); id <= n; id++ {
				if want, got := low.Render(id), on.Render(id); got != want {
					t.Fatalf("position only %v, frame %d entity %d: lower bound drew %+v, on arche %+v", positionOnly, frame, id, want, got)
				} else if got.Flags&c.Visible != 0 {
					drawn++
				}
			}
		}
		if drawn < 50*FramesPerTick*n {
			t.Fatalf("position only %v: %d entity-frames drawn, want most of %d", positionOnly, drawn, 60*FramesPerTick*n)
		}
	}
}

// steadyRun runs impl on a steady stream of n entities of its own, at the
// benchmarks' frame rate, for the tests that compare implementations
// frame by frame.
func steadyRun(impl scenario.Client, n int, positionOnly bool) *run {
	s := NewStream(n)
	s.PositionOnly = positionOnly
	return newRun(impl, s, FPS, FramesPerTick)
}

package systems_test

import (
	"math"
	"strings"
	"testing"

	nsecs "github.com/netsmooth/netsmooth/ecs"
)

// TestTimelineCountsFramesAndPublishesTheClock: each frame is counted and
// the render time the systems use is the clock's.
func TestTimelineCountsFramesAndPublishesTheClock(t *testing.T) {
	r := newRig(t, cfgAt(20, 2))
	r.Push(snap(1, 100, 0))
	for i := 0; i < 4; i++ {
		r.Frame(1.0 / 20)
	}
	m := r.Pipe.Metrics()
	if m.Frames != 4 || m.RenderTick != r.RenderTick() || m.RenderTick != 101 {
		t.Fatalf("frames %d, render tick %v (clock %v); want 4 and 101", m.Frames, m.RenderTick, r.RenderTick())
	}
	if m.Delay != 0.1 {
		t.Fatalf("delay %v s, want two ticks at 20 Hz", m.Delay)
	}
}

// TestTickRateMismatchReported: a pipeline told 20 ticks per second by a
// game whose server ticks at 60 (sending every third tick, 20 snapshots a
// second) accepts most of its snapshots (some run past the future limit),
// but cannot draw them right: Metrics measures the server's rate and
// flags the mismatch, and WriteTo says what to change. The same stream
// read at 60 is accepted whole and flagged nowhere.
func TestTickRateMismatchReported(t *testing.T) {
	for _, tc := range []struct {
		configured float64
		mismatch   bool
	}{{20, true}, {60, false}} {
		r := newRig(t, nsecs.DefaultConfig().WithTickRate(tc.configured))
		tick := uint32(1000)
		for frame := range 60 * 12 {
			if frame%3 == 0 {
				tick += 3
				r.Push(snap(1, tick, float32(tick)/60))
			}
			r.Frame(1.0 / 60)
		}
		m := r.Pipe.Metrics()
		if m.TickRateMismatch != tc.mismatch || math.Abs(m.ServerTickRate-60) > 0.6 || m.TickRate != tc.configured {
			t.Fatalf("configured %v: measured %.2f ticks/s, mismatch %v; want 60 and %v", tc.configured, m.ServerTickRate, m.TickRateMismatch, tc.mismatch)
		}
		if !tc.mismatch && m.RejectedTotal() != 0 {
			t.Fatalf("configured %v: rejected %v", tc.configured, m.Rejected)
		}
		var b strings.Builder
		m.WriteTo(&b)
		if got := strings.Contains(b.String(), "MISMATCH"); got != tc.mismatch {
			t.Fatalf("configured %v: WriteTo says mismatch %v:\n%s", tc.configured, got, b.String())
		}
	}
}

package systems_test

import "testing"

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

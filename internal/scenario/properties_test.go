package scenario

import (
	"math"
	"testing"

	"github.com/netsmooth/netsmooth/systems"
)

// checked wraps netsmooth's client and checks invariants every frame: the
// render time never decreases, and every message handed over is counted
// exactly once (accepted or rejected with a reason).
type checked struct {
	*NetSmooth
	t        *testing.T
	name     string
	handed   uint64
	prevRT   float64
	synced   bool
	failures int
}

func (c *checked) Receive(msgs []systems.Message) {
	c.handed += uint64(len(msgs))
	c.NetSmooth.Receive(msgs)
}

func (c *checked) Frame(dt float64) {
	c.NetSmooth.Frame(dt)
	clock := c.Pipeline().Clock()
	if clock.Synced() {
		rt := clock.RenderTick()
		if c.synced && rt < c.prevRT && c.failures == 0 {
			c.t.Errorf("%s: render time went back from %v to %v", c.name, c.prevRT, rt)
			c.failures++
		}
		c.prevRT, c.synced = rt, true
	}
	if got := c.Pipeline().Metrics().Received(); got != c.handed && c.failures == 0 {
		c.t.Errorf("%s: %d messages handed over, %d counted", c.name, c.handed, got)
		c.failures++
	}
}

func checkedDefault(t *testing.T) Factory {
	d := Default()
	return Factory{Name: d.Name, New: func(sc *Scenario) Client {
		return &checked{NetSmooth: d.New(sc).(*NetSmooth), t: t, name: sc.Name}
	}}
}

func byName(t *testing.T, name string) Scenario {
	for _, sc := range Standard() {
		if sc.Name == name {
			return sc
		}
	}
	t.Fatalf("no scenario %q", name)
	return Scenario{}
}

// TestStandardInvariants runs every standard scenario with netsmooth's
// defaults: render time never decreases, every message counted once, no
// entity ever moves backwards against its true direction, and nothing
// non-finite is drawn.
func TestStandardInvariants(t *testing.T) {
	for _, sc := range Standard() {
		if testing.Short() && sc.Seconds > 60 {
			sc.Seconds = 60
		}
		r := Run(sc, checkedDefault(t))
		if r.Backward != 0 {
			t.Errorf("%s: %d entity-frames moved backwards", sc.Name, r.Backward)
		}
		if math.IsNaN(r.RMS) || math.IsInf(r.Max, 0) || r.EntityFrames == 0 {
			t.Errorf("%s: RMS %v, max %v over %d entity-frames", sc.Name, r.RMS, r.Max, r.EntityFrames)
		}
	}
}

// TestNoJumpsOnCleanAndJitteryLinks: when nothing is lost, drawn motion
// never exceeds the true motion by more than the slewing allowance, and the
// render time runs past the newest data rarely (the delay buys one interval
// and the measured lateness, not a second interval). On the ±40 ms link the
// first quarter second, before the fastest packets have been seen, catches
// up a little faster.
func TestNoJumpsOnCleanAndJitteryLinks(t *testing.T) {
	for _, tc := range []struct {
		name           string
		jump, underrun float64
	}{
		{"clean 20 Hz", 1.05, 0.005},
		{"jitter ±40 ms", 1.3, 0.01},
		{"10 Hz snapshots", 1.05, 0.005},
		{"5% duplication", 1.05, 0.005},
	} {
		r := Run(byName(t, tc.name), checkedDefault(t))
		if r.MaxJump > tc.jump {
			t.Errorf("%s: largest per-frame move %.3f × the true motion, want <= %v", tc.name, r.MaxJump, tc.jump)
		}
		if r.Underrun > tc.underrun {
			t.Errorf("%s: %.2f%% underruns, want <= %.2f%%", tc.name, 100*r.Underrun, 100*tc.underrun)
		}
		if r.Backward != 0 {
			t.Errorf("%s: %d backward frames", tc.name, r.Backward)
		}
		// 10 units/s on a circle of radius 8: chord error at 20 Hz ≈ 0.004.
		if r.RMS > 0.02 {
			t.Errorf("%s: RMS error %.4f", tc.name, r.RMS)
		}
	}
}

// TestDelayBoundedUnderDrift: ten minutes with the server's clock 1% fast:
// the delay stays where it started (no accumulation).
func TestDelayBoundedUnderDrift(t *testing.T) {
	sc := byName(t, "1% clock drift, 10 min")
	if testing.Short() {
		sc.Seconds = 120
	}
	r := Run(sc, checkedDefault(t))
	n := len(r.Trace.Delay)
	early, late := meanOf(r.Trace.Delay[n/20:n/10]), meanOf(r.Trace.Delay[n-n/10:])
	if math.Abs(late-early) > 0.02 {
		t.Fatalf("presentation delay drifted from %.0f ms to %.0f ms", 1000*early, 1000*late)
	}
	if r.P99Delay > 0.3 {
		t.Fatalf("p99 presentation delay %.0f ms", 1000*r.P99Delay)
	}
}

// TestRecoveryAfterSuspendAndBurstLoss: back to the pre-disturbance error
// and delay within a second.
func TestRecoveryAfterSuspendAndBurstLoss(t *testing.T) {
	for _, name := range []string{"3 s suspend", "300 ms burst loss"} {
		r := Run(byName(t, name), checkedDefault(t))
		if !(r.Recovery <= 1) {
			t.Errorf("%s: recovered after %v s, want <= 1 s", name, r.Recovery)
		}
	}
}

// TestTeleportsAreCutsNotSlides: with a teleport every 2 s, no frame moves
// an entity by more than its true motion (the cut itself is excluded from
// the jump measure, the slide across it would not be).
func TestTeleportsAreCutsNotSlides(t *testing.T) {
	r := Run(byName(t, "teleports every 2 s"), checkedDefault(t))
	if r.MaxJump > 1.1 {
		t.Fatalf("largest per-frame move %.2f × true motion: a teleport slid", r.MaxJump)
	}
	if r.Max > 0.6 {
		t.Fatalf("max error %.3f: more than the one-interval hold across a cut allows", r.Max)
	}
}

func TestPredictedPlayer(t *testing.T) {
	ps := StandardPredicted()
	ours := RunPredicted(ps, PredictedClients()[0])
	snap := RunPredicted(ps, PredictedClients()[1])
	if ours.MaxJump >= snap.MaxJump {
		t.Fatalf("smoothing does not reduce the largest jump: %.2f vs %.2f without", ours.MaxJump, snap.MaxJump)
	}
	if ours.RMS > 0.1 || ours.Backward > snap.Backward {
		t.Fatalf("predicted: RMS %.3f, backward %d (snap: %d)", ours.RMS, ours.Backward, snap.Backward)
	}
	if ours.MeanDelay > 1.0/60+1e-3 { // drawn between the last two ticks: at most one tick behind
		t.Fatalf("predicted player drawn %.1f ms behind its newest tick", 1000*ours.MeanDelay)
	}
}

func meanOf(xs []float64) float64 {
	var s float64
	n := 0
	for _, x := range xs {
		if !math.IsNaN(x) {
			s += x
			n++
		}
	}
	return s / float64(n)
}

// TestMixedSendRates: with half the entities sent at 5 Hz, those are drawn
// with their own buffering (few underruns, no steps), and the 20 Hz ones
// keep the delay they have when everything is sent at 20 Hz.
func TestMixedSendRates(t *testing.T) {
	r := Run(byName(t, "half at 5 Hz"), checkedDefault(t))
	if len(r.Groups) != 2 {
		t.Fatalf("%d groups, want 2", len(r.Groups))
	}
	fast, slow := r.Groups[0], r.Groups[1]
	if slow.Underrun > 0.01 || slow.MaxJump > 1.5 || slow.Backward != 0 {
		t.Errorf("5 Hz entities: %.2f%% underruns, max jump %.2f, %d backward frames; want <= 1%%, <= 1.5, 0", 100*slow.Underrun, slow.MaxJump, slow.Backward)
	}
	clean := Run(byName(t, "clean 20 Hz"), Default())
	if d := math.Abs(fast.MeanDelay - clean.MeanDelay); d > 0.010 {
		t.Errorf("20 Hz entities: delay %.0f ms next to 5 Hz ones, %.0f ms alone; want within 10 ms", 1000*fast.MeanDelay, 1000*clean.MeanDelay)
	}
}

// TestSentOnChange: entities the server sends only when they move, with a
// Complete marker every tick, are drawn still while they stand still (not
// extrapolated, no underrun), never backwards.
func TestSentOnChange(t *testing.T) {
	r := Run(byName(t, "sent on change"), checkedDefault(t))
	clean := Run(byName(t, "clean 20 Hz"), Default())
	if r.Underrun > clean.Underrun+0.001 || r.Backward != 0 || r.MaxJump > 1.2 {
		t.Errorf("%.2f%% underruns (clean link: %.2f%%), %d backward frames, max jump %.2f", 100*r.Underrun, 100*clean.Underrun, r.Backward, r.MaxJump)
	}
	if r.RMS > 0.02 {
		t.Errorf("RMS error %.4f", r.RMS)
	}
}

// TestBurstLossResync: after Gilbert–Elliott bursts longer than
// extrapolation covers, nothing drawn jumps (at most 3 times the true
// motion, never backwards) and the delay is back within a second.
func TestBurstLossResync(t *testing.T) {
	r := Run(byName(t, "burst loss, 200 entities"), checkedDefault(t))
	if r.MaxJump > 3 || r.Backward != 0 || !(r.Recovery <= 1) {
		t.Errorf("max jump %.2f, %d backward frames, recovery %.2f s; want <= 3, 0, <= 1 s", r.MaxJump, r.Backward, r.Recovery)
	}
}

package budgetscene

import "testing"

// 2,000 relevant entities squeezed into 256 kbit/s: the budget holds,
// near entities are sent far more often than far ones, nothing is drawn
// moving backwards, and no entity is drawn moving much faster than it
// does.
func TestSqueezed(t *testing.T) {
	if testing.Short() {
		// A long scene on one goroutine, where the race detector has
		// nothing to see: -short (CI's run under it) leaves it to the
		// full run.
		t.Skip("a long single-goroutine scene, run without -short")
	}
	r, err := Run(Default())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%.0f B/s (peak %.0f, budget %d; %.0f without a budget)", r.BytesPerSecond, r.PeakBytesPerSecond, r.Config.BytesPerSecond, r.Unbudgeted)
	for _, g := range []struct {
		name string
		g    Group
	}{{"all", r.All}, {"near", r.NearGroup}, {"far", r.FarGroup}} {
		t.Logf("%s: %d entities, interval %.0f ms, lag %.0f ms, max jump %.2f, backward %d, underrun %.2f%%",
			g.name, g.g.Entities, 1000*g.g.Interval, 1000*g.g.Lag, g.g.MaxJump, g.g.Backward, 100*g.g.Underrun)
		if g.g.Backward != 0 {
			t.Errorf("%s: %d backward frames", g.name, g.g.Backward)
		}
		if g.g.EntityFrames == 0 {
			t.Errorf("%s: nothing measured", g.name)
		}
	}
	if r.PeakBytesPerSecond > float64(r.Config.BytesPerSecond)*1.01 {
		t.Errorf("peak %.0f B/s over the budget of %d", r.PeakBytesPerSecond, r.Config.BytesPerSecond)
	}
	if r.Unbudgeted < 5*float64(r.Config.BytesPerSecond) {
		t.Errorf("the world costs %.0f B/s unbudgeted: no squeeze", r.Unbudgeted)
	}
	if !(r.NearGroup.Interval < r.FarGroup.Interval/3) {
		t.Errorf("near entities every %.3f s, far every %.3f s", r.NearGroup.Interval, r.FarGroup.Interval)
	}
	// The near ones at nearly full rate are drawn within 1.5 times their
	// true speed; the far ones, whose updates come at irregular intervals,
	// are sometimes extrapolated past a late one and corrected, slightly
	// faster (see DESIGN.md).
	if r.NearGroup.MaxJump > 1.5 || r.All.MaxJump > 1.7 {
		t.Errorf("max jump %.2f near, %.2f overall", r.NearGroup.MaxJump, r.All.MaxJump)
	}
	if r.All.Underrun > 0.01 {
		t.Errorf("%.2f%% of entity-frames extrapolated", 100*r.All.Underrun)
	}
}

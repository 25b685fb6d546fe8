package timeline

import (
	"github.com/netsmooth/netsmooth/internal/limits"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// newTestClock returns a clock at rate with the delay policy and the
// defaults otherwise, with no buffer to respect and a render time that
// never runs past the newest tick.
func newTestClock(t testing.TB, rate float64, delay DelayPolicy) *Clock {
	t.Helper()
	c, err := newClock(rate, 0, 0, Config{Delay: delay})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		mutate func(*Config)
		want   string
	}{
		{func(c *Config) { c.MaxCatchUp = -0.1 }, "MaxCatchUp"},
		{func(c *Config) { c.MaxSlowDown = 1 }, "MaxSlowDown"},
		{func(c *Config) { c.SlewTime = -1 }, "SlewTime"},
		{func(c *Config) { c.ResetThreshold = math.Inf(1) }, "ResetThreshold"},
		{func(c *Config) { c.EnvelopeWindow = 61 }, "EnvelopeWindow"},
		{func(c *Config) { c.WaitWindow = -1 }, "WaitWindow"},
		{func(c *Config) { c.DelayFall = math.NaN() }, "DelayFall"},
		{func(c *Config) { c.MaxAhead = math.Inf(1) }, "MaxAhead"},
		{func(c *Config) { c.Delay = FixedDelay(-0.1) }, "FixedDelay"},
		{func(c *Config) { c.Delay = FixedDelay(math.NaN()) }, "FixedDelay"},
		{func(c *Config) { d := FixedDelay(math.Inf(1)); c.Delay = &d }, "FixedDelay"},
		{func(c *Config) { c.Delay = AdaptiveDelay{Quantile: 0, Max: 0.4} }, "Quantile"},
		{func(c *Config) { c.Delay = AdaptiveDelay{Quantile: 1.5, Max: 0.4} }, "Quantile"},
		{func(c *Config) { c.Delay = AdaptiveDelay{Quantile: 0.9, Margin: math.NaN(), Max: 0.4} }, "Margin"},
		{func(c *Config) { c.Delay = &AdaptiveDelay{Quantile: 0.9, Min: 0.5, Max: 0.4} }, "Min"},
		{func(c *Config) { c.Delay = AdaptiveDelay{Quantile: 0.9, Min: -1, Max: 0.4} }, "Min"},
		{func(c *Config) { c.Delay = AdaptiveDelay{Quantile: 0.9, Max: math.Inf(1)} }, "Max"},
		{func(c *Config) { c.Delay = AdaptiveDelay{Quantile: 0.9, Max: -0.1} }, "Max"},
		{func(c *Config) { c.Delay = AdaptiveDelay{Quantile: 0.9, Min: math.Inf(1)} }, "Min"},
		{func(c *Config) { c.Delay = (*FixedDelay)(nil) }, "nil"},
		{func(c *Config) { c.Delay = (*AdaptiveDelay)(nil) }, "nil"},
	} {
		var cfg Config
		tc.mutate(&cfg)
		_, err := newClock(20, 0, 0, cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want one naming %s", err, tc.want)
		}
	}
	for _, rate := range []float64{0, -20, math.NaN(), math.Inf(1)} {
		if _, err := newClock(rate, 0, 0, Config{}); err == nil || !strings.Contains(err.Error(), "tick rate") {
			t.Errorf("tick rate %v: error %v, want one naming the tick rate", rate, err)
		}
	}
	// The built-in policies in range, and one of the game's own, pass.
	for _, p := range []DelayPolicy{FixedDelay(0), FixedDelay(0.1), DefaultAdaptiveDelay(), AdaptiveDelay{Quantile: 1}, AdaptiveDelay{Quantile: 0.99, Min: 0.05}, ownDelay{}} {
		if _, err := newClock(20, 0, 0, Config{Delay: p}); err != nil {
			t.Errorf("delay policy %v: %v", p, err)
		}
	}
	// A zero Config is the defaults.
	c, err := newClock(60, 0, 0, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Config(), DefaultConfig(); got != want {
		t.Errorf("a zero Config runs as %+v, want the defaults %+v", got, want)
	}
}

func TestSyncOnFirstArrival(t *testing.T) {
	c := newTestClock(t, 20, FixedDelay(0.1))
	c.beginFrame(0.016)
	c.advance()
	if c.Synced() {
		t.Fatal("synced without arrivals")
	}
	c.beginFrame(0.016)
	c.observeN(500, 1)
	c.observeN(498, 1) // out of order, same frame
	c.advance()
	if !c.Synced() || c.RenderTick() != 498 {
		t.Fatalf("synced %v, render tick %v; want 500 - 2 = 498", c.Synced(), c.RenderTick())
	}
	if s := c.Stats(); s.Arrivals != 2 {
		t.Fatalf("arrivals = %d, want 2", s.Arrivals)
	}
}

// feed simulates a server at rate sending every tick over a link with the
// given latency and jitter function, and a client rendering at fps, for
// seconds of local time. It calls check after every frame.
func feed(c *Clock, rate, fps, seconds, latency float64, jitter func() float64, check func(frame int)) {
	type arrival struct {
		at   float64
		tick uint32
	}
	var queue []arrival
	sent := 0
	dt := 1 / fps
	local := 0.0
	for f := 0; float64(f)*dt < seconds; f++ {
		local += dt
		for float64(sent)/rate <= local {
			queue = append(queue, arrival{at: float64(sent)/rate + latency + jitter(), tick: uint32(sent + 1000)})
			sent++
		}
		c.beginFrame(dt)
		kept := queue[:0]
		for _, a := range queue {
			if a.at <= local {
				c.observeN(a.tick, 1)
			} else {
				kept = append(kept, a)
			}
		}
		queue = kept
		c.advance()
		check(f)
	}
}

func TestSteadyLinkRealTime(t *testing.T) {
	c := newTestClock(t, 20, FixedDelay(0.1))
	prev := math.Inf(-1)
	feed(c, 20, 60, 10, 0.05, func() float64 { return 0 }, func(f int) {
		if !c.Synced() {
			return
		}
		rt := c.RenderTick()
		if f > 120 {
			// server time at the newest arrival is (local-latency)*rate+1000;
			// rendered 2 ticks behind it, within a tick of frame phase.
			want := (c.local-0.05)*20 + 1000 - 2
			if math.Abs(rt-want) > 1.01 {
				t.Fatalf("frame %d: render %v, want %v ± 1", f, rt, want)
			}
			if step := rt - prev; math.Abs(step-20.0/60) > 0.05*20/60+1e-9 {
				t.Fatalf("frame %d: render advanced %v ticks, want %v ± 5%%", f, step, 20.0/60)
			}
		}
		prev = rt
	})
	if c.Resets() != 0 {
		t.Fatalf("resets = %d on a steady link", c.Resets())
	}
}

func TestJitterNeverReversesAndStaysBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	c := newTestClock(t, 20, FixedDelay(0.1))
	prev := math.Inf(-1)
	var clamps uint64
	feed(c, 20, 60, 30, 0.08, func() float64 { return (rng.Float64()*2 - 1) * 0.04 }, func(f int) {
		if !c.Synced() {
			return
		}
		rt := c.RenderTick()
		if rt < prev {
			t.Fatalf("frame %d: render time went back from %v to %v", f, prev, rt)
		}
		// Below the slew bounds only when the clamp window held it at the
		// newest sample.
		if s, cfg := c.Scale(), c.Config(); (s < 1-cfg.MaxSlowDown-1e-12 && c.Clamps() == clamps) || s > 1+cfg.MaxCatchUp+1e-12 {
			t.Fatalf("frame %d: time scale %v outside [%v, %v]", f, s, 1-cfg.MaxSlowDown, 1+cfg.MaxCatchUp)
		}
		clamps = c.Clamps()
		if f > 300 {
			// Latency 40 to 120 ms: the estimate follows the fastest
			// arrivals, so render ~ (local-0.05)*20+1000-2, within a tick
			// and a half of envelope noise and frame phase.
			want := (c.local-0.05)*20 + 1000 - 2
			if math.Abs(rt-want) > 1.5 {
				t.Fatalf("frame %d: render %v, want %v ± 1.5", f, rt, want)
			}
		}
		prev = rt
	})
	if c.Resets() != 0 {
		t.Fatalf("resets = %d under ±40 ms jitter", c.Resets())
	}
	if j := c.Stats().Jitter; j < 0.2 || j > 0.8 {
		t.Fatalf("jitter estimate %v ticks, want about 0.46 (40 ms uniform: sd 23 ms)", j)
	}
	if iv := c.Stats().Interval; math.Abs(iv-1) > 0.05 {
		t.Fatalf("interval estimate %v ticks, want 1", iv)
	}
}

func TestDiscontinuityResets(t *testing.T) {
	c := newTestClock(t, 20, FixedDelay(0.1))
	c.beginFrame(0)
	c.observeN(100, 1)
	c.advance() // render 98
	// A suspend reported honestly: one frame of 3 s; the server moved on by
	// 60 ticks. Local time and server time agree: no discontinuity.
	c.beginFrame(3)
	c.observeN(160, 1)
	c.advance()
	if rt := c.RenderTick(); math.Abs(rt-158) > 1e-9 || c.Resets() != 0 {
		t.Fatalf("after a 3 s frame: render %v (want 158), resets %d (want 0)", rt, c.Resets())
	}
	// A suspend the frame time hides (the game clamped dt to 0.1 s): the
	// server moved on 3 s, local time 0.1 s. The offset re-anchors and the
	// render time jumps forward, counted.
	c.beginFrame(0.1)
	c.observeN(222, 1)
	c.advance()
	if rt := c.RenderTick(); math.Abs(rt-220) > 1e-9 || c.Resets() != 1 || c.Reanchors() != 1 {
		t.Fatalf("after a hidden suspend: render %v (want 220), resets %d, reanchors %d", rt, c.Resets(), c.Reanchors())
	}
}

func TestLateArrivalsHoldNeverReverse(t *testing.T) {
	c := newTestClock(t, 20, FixedDelay(0.1))
	c.beginFrame(0)
	c.observeN(100, 1)
	c.advance() // render 98
	// Two seconds later only tick 101 has arrived: the link now delays by
	// about two seconds. The target falls 39 ticks behind; the render time
	// stands still rather than reverse.
	c.beginFrame(2)
	c.observeN(101, 1)
	c.advance()
	if rt := c.RenderTick(); rt != 98 || c.Holds() != 1 || c.Reanchors() != 1 {
		t.Fatalf("render %v (want 98 held), holds %d, reanchors %d", rt, c.Holds(), c.Reanchors())
	}
	prev := c.RenderTick()
	for i := 0; i < 120; i++ {
		c.beginFrame(1.0 / 60)
		if i%3 == 0 {
			c.observeN(uint32(102+i/3), 1)
		}
		c.advance()
		if c.RenderTick() < prev {
			t.Fatalf("render went back from %v to %v", prev, c.RenderTick())
		}
		prev = c.RenderTick()
	}
}

func TestSmallErrorsAreSlewedNotJumped(t *testing.T) {
	c := newTestClock(t, 20, FixedDelay(0.1))
	c.beginFrame(0)
	c.observeN(100, 1)
	c.advance()
	// Arrivals suddenly 100 ms earlier than expected (latency dropped): the
	// target moves 2 ticks ahead; render must catch up at most MaxCatchUp
	// faster.
	for i := 1; i <= 600; i++ {
		before := c.RenderTick()
		c.beginFrame(1.0 / 60)
		if i%3 == 0 {
			c.observeN(uint32(100+i/3+2), 1)
		}
		c.advance()
		step := c.RenderTick() - before
		if cfg := c.Config(); step < 20.0/60*(1-cfg.MaxSlowDown)-1e-9 || step > 20.0/60*(1+cfg.MaxCatchUp)+1e-9 {
			t.Fatalf("frame %d: render advanced %v ticks, outside the slew bounds around %v", i, step, 20.0/60)
		}
	}
	want := float64(100+200+2) - 2
	if math.Abs(c.RenderTick()-want) > 0.5 {
		t.Fatalf("render %v, want converged near %v", c.RenderTick(), want)
	}
}

func TestBadFrameTimes(t *testing.T) {
	c := newTestClock(t, 20, FixedDelay(0.1))
	c.beginFrame(0)
	c.observeN(100, 1)
	c.advance()
	for _, dt := range []float64{math.NaN(), -1, math.Inf(-1)} {
		before := c.RenderTick()
		c.beginFrame(dt)
		c.advance()
		if rt := c.RenderTick(); rt != before || math.IsNaN(rt) {
			t.Fatalf("dt %v moved render time from %v to %v", dt, before, rt)
		}
	}
	// Infinite and absurdly long frames count as limits.MaxFrameDt: local time and
	// everything derived from it stay finite, however often it happens.
	for i, dt := range []float64{math.Inf(1), 1e307, 1e300, math.MaxFloat64} {
		c.beginFrame(dt)
		c.advance()
		if got := c.local; got != float64(i+1)*limits.MaxFrameDt {
			t.Fatalf("after dt %v local time is %v, want %v", dt, got, float64(i+1)*limits.MaxFrameDt)
		}
		if rt := c.RenderTick(); math.IsNaN(rt) || math.IsInf(rt, 0) || math.IsNaN(c.ActualDelay()) || math.IsInf(c.ActualDelay(), 0) {
			t.Fatalf("after dt %v render tick %v, actual delay %v", dt, rt, c.ActualDelay())
		}
	}
	// A sane stream afterwards is followed again.
	for tick := uint32(101); tick < 160; tick++ {
		c.beginFrame(0.05)
		c.observeN(tick, 1)
		c.advance()
	}
	if rt := c.RenderTick(); math.Abs(rt-157) > 2 {
		t.Fatalf("render tick %v after a sane stream up to 159, want about 157", rt)
	}
}

// nanDelay is a misbehaving policy.
type nanDelay struct{}

func (nanDelay) Delay(*Stats) float64 { return math.NaN() }

func TestMisbehavingDelayPolicy(t *testing.T) {
	c := newTestClock(t, 20, nanDelay{})
	c.beginFrame(0)
	c.observeN(100, 1)
	c.advance()
	if rt := c.RenderTick(); rt != 100 || c.Delay() != 0 {
		t.Fatalf("render %v, delay %v; want 100 and 0", rt, c.Delay())
	}
}

// TestAbsurdFirstTickRecovers: a corrupted first tick (4e9) must not hold
// the timeline forever: the real stream re-anchors it within a few frames.
func TestAbsurdFirstTickRecovers(t *testing.T) {
	c := newTestClock(t, 20, FixedDelay(0.1))
	c.beginFrame(0)
	c.observeN(4_000_000_000, 1)
	c.advance()
	tick := uint32(1000)
	for f := 1; f <= 30; f++ {
		c.beginFrame(1.0 / 60)
		if f%3 == 0 {
			c.observeN(tick, 1)
			tick++
		}
		c.advance()
	}
	if rt := c.RenderTick(); rt < 995 || rt > 1010 || c.Reanchors() != 1 {
		t.Fatalf("render tick %v after the real stream (want near %d), reanchors %d", rt, tick-2, c.Reanchors())
	}
}

// TestResetRespectsClamp: a forward reset never puts the render time past
// the newest sample plus MaxAhead.
func TestResetRespectsClamp(t *testing.T) {
	c, err := newClock(20, 0, 0.25, Config{Delay: FixedDelay(0.1)})
	if err != nil {
		t.Fatal(err)
	}
	c.beginFrame(0)
	c.observeN(100, 1)
	c.advance()
	c.beginFrame(3) // a 3 s frame with nothing new: an outage
	c.advance()
	if limit := 100 + 0.25*20; c.RenderTick() > limit+1e-9 {
		t.Fatalf("render tick %v beyond newest + MaxAhead = %v", c.RenderTick(), limit)
	}
}

// TestDelayCappedByBuffer: the delay never exceeds what the entities'
// buffers hold.
func TestDelayCappedByBuffer(t *testing.T) {
	c, _ := newClock(60, 16, 0, Config{Delay: FixedDelay(0.35)}) // 21 ticks of delay, 16 samples
	for i := 0; i < 10; i++ {
		c.beginFrame(1.0 / 60)
		c.observeN(uint32(100+i), 1)
		c.advance()
	}
	if d := c.Delay(); d > 14+1e-9 {
		t.Fatalf("delay %v ticks, want at most 14 (16 samples of 1 tick, minus 2)", d)
	}
}

// TestIntervalFollowsRateChange: after a change of send rate the interval
// estimate gets there.
func TestIntervalFollowsRateChange(t *testing.T) {
	c := newTestClock(t, 60, FixedDelay(0.1))
	tick := uint32(0)
	for i := 0; i < 40; i++ { // every tick
		c.beginFrame(1.0 / 60)
		c.observeN(tick, 1)
		tick++
		c.advance()
	}
	for i := 0; i < 200; i++ { // every 6th tick
		c.beginFrame(0.1)
		tick += 6
		c.observeN(tick, 1)
		c.advance()
	}
	if iv := c.Stats().Interval; math.Abs(iv-6) > 0.3 {
		t.Fatalf("interval %v ticks, want about 6", iv)
	}
}

// TestRefusedFutureReanchors: ticks refused as future-dated, the only
// arrivals for three frames in a row over a quarter of a second, move the
// clock forward to them; a single one does not.
func TestRefusedFutureReanchors(t *testing.T) {
	c := newTestClock(t, 20, FixedDelay(0.1))
	c.beginFrame(0)
	c.observeN(100, 1)
	c.advance()
	c.beginFrame(1.0 / 60)
	c.refusedFutureN(5000, 1) // noise
	c.advance()
	c.beginFrame(1.0 / 60)
	c.observeN(101, 1)
	c.advance()
	if c.Reanchors() != 0 {
		t.Fatal("one refused tick re-anchored the clock")
	}
	for i := 0; i < 3; i++ {
		c.beginFrame(0.125)
		c.refusedFutureN(uint32(200+i), 1)
		c.advance()
	}
	if c.Reanchors() != 1 || c.ServerTick() < 200 {
		t.Fatalf("reanchors %d, server tick %v; want 1 and about 202", c.Reanchors(), c.ServerTick())
	}
}

// TestRefusedArrivalsSync: a stream the pipeline refuses from its first
// message on still syncs the clock (so that whatever refuses it can be
// judged against server time); after sync, refused arrivals no longer
// move the estimate.
func TestRefusedArrivalsSync(t *testing.T) {
	c := newTestClock(t, 20, FixedDelay(0.1))
	for i := range 3 {
		c.beginFrame(0.05)
		c.refusedN(uint32(5000+i), 3)
		c.advance()
	}
	if !c.Synced() || math.Abs(c.ServerTick()-5002) > 1 {
		t.Fatalf("synced %v at server tick %v; want synced near 5002", c.Synced(), c.ServerTick())
	}
	c.beginFrame(0.05)
	c.refusedN(9000, 1) // one refused arrival far ahead: not an estimate
	c.advance()
	if c.ServerTick() > 5010 {
		t.Fatalf("a refused arrival after sync moved the estimate to %v", c.ServerTick())
	}
}

// TestLongFrameTakesUpTarget checks that a frame that hid a suspend (3 s,
// reported honestly) leaves the render time at its target even when the
// server's ticks over the pause were a little more or fewer than local
// time says: slewing through the pause would stretch the small error over
// 3 s and leave ticks to catch up (or to wait for) once drawing resumes.
func TestLongFrameTakesUpTarget(t *testing.T) {
	for _, moved := range []uint32{57, 59, 61} {
		c := newTestClock(t, 20, FixedDelay(0.1))
		c.beginFrame(0)
		c.observeN(100, 1)
		c.advance() // render 98
		c.beginFrame(3)
		c.observeN(100+moved, 1)
		c.advance()
		want := float64(100+moved) - 2
		if rt := c.RenderTick(); math.Abs(rt-want) > 1e-9 || c.Scale() != 1 {
			t.Errorf("server moved %d ticks in a 3 s frame: render %v at scale %v, want %v at 1", moved, rt, c.Scale(), want)
		}
	}
}

// TestSeenTicks: the clock tells which of the recent ticks arrived.
func TestSeenTicks(t *testing.T) {
	c := newTestClock(t, 20, FixedDelay(0.1))
	c.beginFrame(0)
	for _, tick := range []uint32{100, 101, 103, 106} {
		c.observeN(tick, 1)
	}
	c.advance()
	for tick, want := range map[uint32]bool{99: false, 100: true, 101: true, 102: false, 103: true, 105: false, 106: true, 107: false} {
		if got := c.Seen(tick); got != want {
			t.Errorf("Seen(%d) = %v, want %v", tick, got, want)
		}
	}
}

// ownDelay is a game's own delay policy: not checked by Validate.
type ownDelay struct{}

func (ownDelay) Delay(*Stats) float64 { return -1 }

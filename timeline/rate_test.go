package timeline

import (
	"math"
	"math/rand/v2"
	"testing"
)

// fixed is a constant latency.
func fixed(d float64) func(float64) float64 { return func(float64) float64 { return d } }

// The measured rate is the server's, whatever the client was told, and a
// mismatch is flagged only when there is one: on a clean link, on a poor
// one (60 ms of jitter, 10% loss), and both ways round.
func TestMeasuredTickRate(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		configured           float64
		link                 testServer
		wantMismatch         bool
		tolerance            float64 // of the server's rate
		measuredWithinSecond float64
	}{
		{"agree, clean", 20, testServer{rate: 20}, false, 0.005, 7},
		{"agree, poor link", 20, testServer{rate: 20, jitter: 0.06, loss: 0.1}, false, 0.02, 7},
		{"agree, 60 Hz sent at 20", 60, testServer{rate: 60, every: 3, jitter: 0.03}, false, 0.02, 7},
		{"server 60, told 20", 20, testServer{rate: 60, every: 3, jitter: 0.03, loss: 0.05}, true, 0.02, 7},
		{"server 20, told 60", 60, testServer{rate: 20, jitter: 0.03, loss: 0.05}, true, 0.02, 7},
		{"server 64, told 60", 60, testServer{rate: 64, every: 2, jitter: 0.02}, true, 0.02, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestClock(t, tc.configured, FixedDelay(0.1))
			first := math.Inf(1)
			tc.link.run(c, 30, nil, func(local float64) {
				r := c.MeasuredTickRate()
				if r == 0 {
					return
				}
				first = min(first, local)
				if math.Abs(r-tc.link.rate) > tc.tolerance*tc.link.rate {
					t.Fatalf("at %.1f s: measured %.2f ticks/s, server ticks at %v (±%.1f%%)", local, r, tc.link.rate, 100*tc.tolerance)
				}
				if got := c.RateMismatch(); got != tc.wantMismatch {
					t.Fatalf("at %.1f s: mismatch %v with %v configured, %.2f measured", local, got, tc.configured, r)
				}
			})
			if first > tc.measuredWithinSecond {
				t.Fatalf("first measured at %.1f s, want within %v s", first, tc.measuredWithinSecond)
			}
		})
	}
}

// A restart (ticks from 1 again), a jump forward of a minute's ticks and
// a suspend of the game (one frame of 5 s, the arrivals queued meanwhile
// all at once) never show as a rate: the measured rate stays the
// server's throughout, and no mismatch is reported.
func TestMeasuredTickRateIgnoresDiscontinuities(t *testing.T) {
	const rate = 30
	for _, tc := range []struct {
		name               string
		at                 func(s float64) uint32
		suspendAt, suspend float64
	}{
		{"restart", func(s float64) uint32 {
			if s > 11 {
				return uint32((s-11)*rate) + 1
			}
			return uint32(s*rate) + 5000
		}, 0, 0},
		{"jump forward", func(s float64) uint32 {
			if s > 11 {
				return uint32((s+60)*rate) + 1000
			}
			return uint32(s*rate) + 1000
		}, 0, 0},
		{"suspend", nil, 11, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestClock(t, rate, FixedDelay(0.1))
			l := testServer{rate: rate, latency: fixed(0.04), jitter: 0.03, tick: tc.at, stallAt: tc.suspendAt, stall: tc.suspend}
			measured := false
			l.run(c, 40, nil, func(local float64) {
				r := c.MeasuredTickRate()
				if r == 0 {
					return
				}
				measured = true
				if math.Abs(r-rate) > 0.02*rate || c.RateMismatch() {
					t.Fatalf("at %.2f s: measured %.2f ticks/s (mismatch %v), server ticks at %v", local, r, c.RateMismatch(), rate)
				}
			})
			if !measured {
				t.Fatal("never measured")
			}
		})
	}
}

// Nothing measured before anything arrived, and a silence keeps the last
// measurement.
func TestMeasuredTickRateSilence(t *testing.T) {
	c := newTestClock(t, 20, FixedDelay(0.1))
	for range 600 {
		c.beginFrame(1.0 / 60)
		c.advance()
	}
	if r := c.MeasuredTickRate(); r != 0 || c.RateMismatch() {
		t.Fatalf("measured %v ticks/s (mismatch %v) with nothing received", r, c.RateMismatch())
	}
	(&testServer{rate: 20}).run(c, 10, nil, nil)
	silence := func(seconds float64) {
		for range int(seconds * 60) {
			c.beginFrame(1.0 / 60)
			c.advance()
		}
	}
	silence(rateWindow) // the last window with arrivals closes
	r := c.MeasuredTickRate()
	if math.Abs(r-20) > 0.1 {
		t.Fatalf("measured %v ticks/s, want 20", r)
	}
	silence(10)
	if c.MeasuredTickRate() != r {
		t.Fatalf("silence changed the measured rate from %v to %v", r, c.MeasuredTickRate())
	}
}

// A hostile server mixing early-stamped messages into a sane stream (an
// accepted tick up to half a second ahead once per window, its lead
// ramping so that consecutive windows would agree; or refused messages at
// random ticks ten times a second) neither moves the measured rate nor
// raises a false mismatch.
func TestMeasuredTickRateHostile(t *testing.T) {
	const rate = 20
	for _, tc := range []struct {
		name    string
		every   float64 // seconds between hostile messages
		refused bool
	}{
		{"early-stamped ramp, accepted", rateWindow, false},
		{"random ticks, refused", 0.1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestClock(t, rate, FixedDelay(0.1))
			rng := rand.New(rand.NewPCG(3, 5))
			next, k := 1.0, 0
			l := testServer{rate: rate, jitter: 0.03, loss: 0.05}
			measured := false
			l.run(c, 120, nil, func(local float64) {
				if local >= next && c.Synced() {
					next += tc.every
					if tc.refused {
						c.refusedN(uint32(c.ServerTick()+rng.Float64()*rate), 1)
					} else {
						// 6% of the rate further ahead each window, within 0.5 s.
						c.observeN(uint32(c.ServerTick()+float64(k%4)*0.06*rateWindow*rate), 1)
						k++
					}
				}
				r := c.MeasuredTickRate()
				if r == 0 {
					return
				}
				measured = true
				if math.Abs(r-rate) > 0.02*rate || c.RateMismatch() {
					t.Fatalf("at %.1f s: measured %.2f ticks/s (mismatch %v), server ticks at %v", local, r, c.RateMismatch(), rate)
				}
			})
			if !measured {
				t.Fatal("never measured")
			}
		})
	}
}

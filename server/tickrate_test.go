package server

import (
	"math"
	"testing"
)

// TestMeasuredTickRate: a game that begins ticks at 60 Hz on a session
// left at the default 20 is told so within a few seconds; one ticking at
// its configured rate, with a stall and a clock that jumps back, is not.
func TestMeasuredTickRate(t *testing.T) {
	run := func(cfgRate, gameRate float64, seconds int, stall bool) (float64, bool) {
		s := newServer(t, SessionConfig{TickRate: cfgRate})
		for id := ClientID(1); id <= 3; id++ {
			if err := s.Connect(id); err != nil {
				t.Fatal(err)
			}
		}
		if r, m := s.MeasuredTickRate(); r != 0 || m {
			t.Fatalf("before any tick: %v %v, want 0 false", r, m)
		}
		n := int(gameRate) * seconds
		for k := 1; k <= n; k++ {
			now := uint32(math.Round(float64(k) * 1000 / gameRate))
			if stall && k > n/2 {
				now += 300 // the server fell behind once
			}
			if stall && k == n/3 {
				now -= 5000 // a clock stepped back
			}
			if err := s.BeginTick(uint32(k)); err != nil {
				t.Fatal(err)
			}
			for id := ClientID(1); id <= 3; id++ {
				if _, err := s.Snapshot(id, now, nil); err != nil {
					t.Fatal(err)
				}
			}
		}
		return s.MeasuredTickRate()
	}
	if r, m := run(0, 60, 5, false); !m || math.Abs(r-60) > 1 {
		t.Errorf("60 Hz game on the default rate: measured %.2f, mismatch %v; want about 60, true", r, m)
	}
	if r, m := run(60, 60, 5, true); m || math.Abs(r-60) > 10 {
		t.Errorf("60 Hz game on 60 with a stall: measured %.2f, mismatch %v; want about 60, false", r, m)
	}
	if r, m := run(20, 20, 1, false); r != 0 || m {
		t.Errorf("after one second: %.2f %v, want 0 false (not measured yet)", r, m)
	}
	if r, m := run(30, 20, 6, false); !m || math.Abs(r-20) > 1 {
		t.Errorf("20 Hz game on 30: measured %.2f, mismatch %v; want about 20, true", r, m)
	}
	// A pause without a tick (the server idle, or stalled for a moment),
	// then ticks again: no mismatch, however long the pause or wherever
	// it falls in the count.
	for _, pause := range []uint32{1500, 2500, 60_000} {
		for _, at := range []uint32{50, 70} {
			paused(t, pause, at)
		}
	}
}

// paused runs a 20 Hz session that stops ticking for pause milliseconds
// after tick at, and checks that no mismatch is reported.
func paused(t *testing.T, pause, at uint32) {
	t.Helper()
	s := newServer(t, SessionConfig{TickRate: 20})
	if err := s.Connect(1); err != nil {
		t.Fatal(err)
	}
	for k := uint32(1); k <= 150; k++ {
		now := k * 50
		if k > at {
			now += pause
		}
		if err := s.BeginTick(k); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Snapshot(1, now, nil); err != nil {
			t.Fatal(err)
		}
		if r, m := s.MeasuredTickRate(); m {
			t.Fatalf("tick %d, after a pause of %d ms after tick %d: measured %.2f, mismatch", k, pause, at, r)
		}
	}
}

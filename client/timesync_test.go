package client

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/netsmooth/netsmooth/netsim"
)

// syncError is how far a client's estimates are from the truth after
// running a pair for d.
type syncError struct {
	latency, rtt, offset, tick float64 // estimate - truth; rtt is the estimate
}

func measureSync(t *testing.T, link netsim.Config, seed uint64, every, d time.Duration) syncError {
	t.Helper()
	p := newPair(t, link, seed, 10, SessionConfig{})
	p.inputEvery = every
	p.run(d)
	s, ok := p.cli.Sync()
	if !ok {
		t.Fatalf("seed %d: no estimate after %v", seed, d)
	}
	now := p.cliMs(p.now)
	tick, ok := p.cli.ServerTick(now)
	if !ok {
		t.Fatal("no server tick estimate")
	}
	srvMs, _ := p.cli.ServerMs(now)
	if d := int32(srvMs - p.srvMs(p.now)); d < -10 || d > 10 {
		t.Fatalf("ServerMs off by %d ms", d)
	}
	// The server's tick k was produced at true time (k-1)·50 ms.
	trueTick := float64(p.now.Milliseconds())/50 + 1
	return syncError{
		latency: s.Latency - float64(link.Latency.Milliseconds()),
		rtt:     s.RTT,
		offset:  s.Offset - float64(int32(p.srvBase-p.cliBase)),
		tick:    tick - trueTick,
	}
}

// The time-sync figures: netsim in both directions (uniform one-way delay
// 50 ± jitter ms), snapshots at 20 Hz, an input packet every 16 ms (60 Hz)
// or 50 ms (20 Hz), ten seeds, estimates read after 5 s. The worst
// errors over the seeds must stay within the bounds asserted; the table
// is logged (go test -run TestSyncAccuracy -v).
func TestSyncAccuracy(t *testing.T) {
	for _, tc := range []struct {
		jitter, every, after  time.Duration
		latency, offset, tick float64 // bounds on |error|: ms, ms, ticks
		rttMin, rttMax        float64 // the RTT estimate's range, ms (true mean 100)
	}{
		{0, 16 * time.Millisecond, 5 * time.Second, 0.5, 0.5, 0.01, 100, 100},
		{10 * time.Millisecond, 16 * time.Millisecond, 5 * time.Second, 2.5, 1.5, 0.03, 94, 100},
		{20 * time.Millisecond, 16 * time.Millisecond, time.Second, 9, 9, 0.18, 85, 100},
		{20 * time.Millisecond, 16 * time.Millisecond, 5 * time.Second, 4, 3, 0.07, 86, 96},
		{20 * time.Millisecond, 50 * time.Millisecond, 5 * time.Second, 4, 3, 0.07, 87, 98},
		{40 * time.Millisecond, 16 * time.Millisecond, 5 * time.Second, 7.5, 6, 0.12, 70, 86},
	} {
		link := netsim.Config{Latency: 50 * time.Millisecond, Jitter: tc.jitter}
		var worst syncError
		rttLo, rttHi := math.Inf(1), math.Inf(-1)
		for seed := uint64(1); seed <= 10; seed++ {
			e := measureSync(t, link, seed, tc.every, tc.after)
			worst.latency = max(worst.latency, math.Abs(e.latency))
			worst.offset = max(worst.offset, math.Abs(e.offset))
			worst.tick = max(worst.tick, math.Abs(e.tick))
			rttLo, rttHi = min(rttLo, e.rtt), max(rttHi, e.rtt)
		}
		name := fmt.Sprintf("50±%v ms, inputs every %v, after %v", tc.jitter.Milliseconds(), tc.every, tc.after)
		t.Logf("%-42s latency err ≤ %4.1f ms, offset err ≤ %4.1f ms, tick err ≤ %.3f, RTT %5.1f..%5.1f ms (true mean 100)",
			name, worst.latency, worst.offset, worst.tick, rttLo, rttHi)
		if worst.latency > tc.latency || worst.offset > tc.offset || worst.tick > tc.tick || rttLo < tc.rttMin || rttHi > tc.rttMax {
			t.Errorf("%s: worst latency err %.1f (bound %v), offset err %.1f (bound %v), tick err %.3f (bound %v), RTT %.1f..%.1f (bounds %v..%v)",
				name, worst.latency, tc.latency, worst.offset, tc.offset, worst.tick, tc.tick, rttLo, rttHi, tc.rttMin, tc.rttMax)
		}
	}
}

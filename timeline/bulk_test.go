package timeline

import (
	"math"
	"testing"
)

// A message stamped ahead of the estimate, among ticks of 50, does not
// move it; the same early message in a stream whose every tick is one
// message is the stream itself, and moves it. A link that gets 100 ms
// faster moves it either way.
func TestMinorEarlyRunsDoNotMoveTheEstimate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		size  int
		moves bool
	}{{"runs of 50", 50, false}, {"runs of 1", 1, true}} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestClock(t, 20, FixedDelay(0.1))
			ts := &testServer{rate: 20, size: func(int) int { return tc.size }, latency: fixed(0.08)}
			ts.run(c, 5, nil, nil)
			before := c.ServerTick() - c.local*20
			frame := 0
			ts.run(c, 5, func() {
				if frame++; frame%30 == 0 {
					c.observeN(uint32(c.ServerTick()+8), 1) // 0.4 s early, twice a second
				}
			}, nil)
			moved := c.ServerTick() - c.local*20 - before
			if got := math.Abs(moved) > 1; got != tc.moves {
				t.Fatalf("the estimate moved by %.2f ticks; want it moved: %v", moved, tc.moves)
			}
		})
	}
	for _, size := range []int{1, 50} {
		c := newTestClock(t, 20, FixedDelay(0.1))
		ts := &testServer{rate: 20, size: func(int) int { return size }, latency: func(s float64) float64 {
			if s > 2 {
				return 0.08
			}
			return 0.18
		}}
		ts.run(c, 5, nil, nil)
		// 100 ms faster: the estimate is 2 ticks further on.
		if got := ts.offBy(c); math.Abs(got) > 0.5 {
			t.Fatalf("runs of %d: the estimate is %.2f ticks off after the link got faster", size, got)
		}
	}
}

// A frame's messages are weighed by tick, however the pipeline split them
// into runs: with every tick's 50 messages split around a refused one, an
// early-stamped message twice a second still does not move the estimate.
// And a priority packet of 3 messages running 60 ms ahead of the bulk of
// 100 is confirmed by it: the estimate follows the priority packets, as
// the fastest data, just as it would without the bulk rule.
func TestBulkWeighsTicksNotRuns(t *testing.T) {
	c := newTestClock(t, 20, FixedDelay(0.1))
	ts := &testServer{rate: 20, size: func(int) int { return 25 }, latency: fixed(0.08), prio: 25, split: true}
	ts.run(c, 5, nil, nil)
	before := c.ServerTick() - c.local*20
	frame := 0
	ts.run(c, 5, func() {
		if frame++; frame%30 == 0 {
			c.observeN(uint32(c.ServerTick()+8), 1)
		}
	}, nil)
	if moved := c.ServerTick() - c.local*20 - before; math.Abs(moved) > 0.5 {
		t.Fatalf("split ticks: an early message moved the estimate by %.2f ticks", moved)
	}

	c = newTestClock(t, 20, FixedDelay(0.1))
	ts = &testServer{rate: 20, size: func(int) int { return 100 }, latency: fixed(0.08), prio: 3, lead: 0.06, split: true}
	ts.run(c, 10, nil, nil)
	// The priority packets travel 20 ms: the estimate is that far behind
	// the server, not the bulk's 80 ms.
	if got := c.ServerTick() - (c.local-0.02)*20 - 1000; math.Abs(got) > 0.5 {
		t.Fatalf("priority packets 60 ms ahead of the bulk: the estimate is %.2f ticks off the fastest data", got)
	}
}

// A stall longer than the envelope window at 60 Hz delivers over a hundred
// ticks in one frame: the newest of them still seed the estimate (the
// frame's table keeps the highest), and no new timeline starts.
func TestBulkAfterALongStall(t *testing.T) {
	c := newTestClock(t, 60, FixedDelay(0.1))
	ts := &testServer{rate: 60, size: func(int) int { return 50 }, stallAt: 5, stall: 2.5}
	ts.run(c, 5, nil, nil)
	anchors := c.Reanchors()
	ts.run(c, 3, nil, nil)
	if got := ts.offBy(c); math.Abs(got) > 1.5 || c.Reanchors() != anchors {
		t.Fatalf("after a 2.5 s stall: estimate %.2f ticks off, %d new timelines", got, c.Reanchors()-anchors)
	}
}

// A server that sends only what changed, 40 entities for a second and then
// one or two for three, is still followed when the link gets 100 ms
// faster in a quiet stretch, where no tick is bulk: the fallback lets the
// faster small ticks in.
func TestBulkFollowsQuietStreams(t *testing.T) {
	c := newTestClock(t, 60, FixedDelay(0.1))
	lat := func(s float64) float64 {
		jitter := float64(int(s*60)*37%11) / 1000 // 0 to 10 ms
		if s > 6 {
			return 0.05 + jitter
		}
		return 0.15 + jitter
	}
	size := func(k int) int {
		if k%240 < 60 {
			return 40
		}
		return 1 + k%2
	}
	ts := &testServer{rate: 60, size: size, latency: lat}
	ts.run(c, 8.5, nil, nil)
	if got := ts.offBy(c); math.Abs(got) > 1 {
		t.Fatalf("2.5 s after the link got 100 ms faster, in a quiet stretch: estimate %.2f ticks off", got)
	}
}

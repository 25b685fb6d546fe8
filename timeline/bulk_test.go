package timeline

import (
	"math"
	"testing"
)

// tickStream is a 20 Hz server whose packets take latency(s) seconds
// (s: the send time), each tick one run of size messages.
type tickStream struct {
	size    int
	latency func(s float64) float64
	sent    int
	queue   []tickArrival
}

type tickArrival struct {
	at   float64
	tick uint32
}

// run feeds the stream to c at 60 frames per second for seconds; extra,
// if set, is called before each frame's arrivals.
func (st *tickStream) run(c *Clock, seconds float64, extra func()) {
	for end := c.Local() + seconds; c.Local() < end; {
		local := c.Local() + 1.0/60
		for ; float64(st.sent)/20 <= local; st.sent++ {
			s := float64(st.sent) / 20
			st.queue = append(st.queue, tickArrival{s + st.latency(s), uint32(1000 + st.sent)})
		}
		c.BeginFrame(1.0 / 60)
		if extra != nil {
			extra()
		}
		kept := st.queue[:0]
		for _, a := range st.queue {
			if a.at <= c.Local() {
				c.ObserveN(a.tick, st.size)
			} else {
				kept = append(kept, a)
			}
		}
		st.queue = kept
		c.Advance()
	}
}

// A message stamped ahead of the estimate, among ticks of 50, does not
// move it; the same early message in a stream whose every tick is one
// message is the stream itself, and moves it. A link that gets 100 ms
// faster moves it either way.
func TestMinorEarlyRunsDoNotMoveTheEstimate(t *testing.T) {
	steady := func(float64) float64 { return 0.08 }
	for _, tc := range []struct {
		name  string
		size  int
		moves bool
	}{{"runs of 50", 50, false}, {"runs of 1", 1, true}} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestClock(t, 20, FixedDelay(0.1))
			st := &tickStream{size: tc.size, latency: steady}
			st.run(c, 5, nil)
			before := c.ServerTick() - c.Local()*20
			frame := 0
			st.run(c, 5, func() {
				if frame++; frame%30 == 0 {
					c.ObserveN(uint32(c.ServerTick()+8), 1) // 0.4 s early, twice a second
				}
			})
			moved := c.ServerTick() - c.Local()*20 - before
			if got := math.Abs(moved) > 1; got != tc.moves {
				t.Fatalf("the estimate moved by %.2f ticks; want it moved: %v", moved, tc.moves)
			}
		})
	}
	for _, size := range []int{1, 50} {
		c := newTestClock(t, 20, FixedDelay(0.1))
		st := &tickStream{size: size, latency: func(s float64) float64 {
			if s > 2 {
				return 0.08
			}
			return 0.18
		}}
		st.run(c, 5, nil)
		// 100 ms faster: the estimate is 2 ticks further on.
		if got := c.ServerTick() - (c.Local()-0.08)*20 - 1000; math.Abs(got) > 0.5 {
			t.Fatalf("runs of %d: the estimate is %.2f ticks off after the link got faster", size, got)
		}
	}
}

// splitStream is a 20 Hz server whose ticks arrive as a priority packet of
// small messages lead seconds before the bulk of big ones; the pipeline
// reports each as runs split by a refused message (a predicted player's
// state in the middle of the packet).
func splitStream(c *Clock, seconds, lead float64, small, big int, extra func()) {
	type part struct {
		at   float64
		tick uint32
		n    int
	}
	var queue []part
	sent := int(c.Local()*20) + 1
	for end := c.Local() + seconds; c.Local() < end; {
		local := c.Local() + 1.0/60
		for ; float64(sent)/20 <= local; sent++ {
			s := float64(sent) / 20
			queue = append(queue, part{s + 0.08 - lead, uint32(1000 + sent), small}, part{s + 0.08, uint32(1000 + sent), big})
		}
		c.BeginFrame(1.0 / 60)
		if extra != nil {
			extra()
		}
		kept := queue[:0]
		for _, p := range queue {
			if p.at <= c.Local() {
				c.ObserveN(p.tick, 1)
				c.RefusedN(p.tick, 1)
				c.ObserveN(p.tick, p.n-1)
			} else {
				kept = append(kept, p)
			}
		}
		queue = kept
		c.Advance()
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
	splitStream(c, 5, 0, 25, 25, nil)
	before := c.ServerTick() - c.Local()*20
	frame := 0
	splitStream(c, 5, 0, 25, 25, func() {
		if frame++; frame%30 == 0 {
			c.ObserveN(uint32(c.ServerTick()+8), 1)
		}
	})
	if moved := c.ServerTick() - c.Local()*20 - before; math.Abs(moved) > 0.5 {
		t.Fatalf("split ticks: an early message moved the estimate by %.2f ticks", moved)
	}

	c = newTestClock(t, 20, FixedDelay(0.1))
	splitStream(c, 10, 0.06, 3, 100, nil)
	// The priority packets travel 20 ms: the estimate is that far behind
	// the server, not the bulk's 80 ms.
	if got := c.ServerTick() - (c.Local()-0.02)*20 - 1000; math.Abs(got) > 0.5 {
		t.Fatalf("priority packets 60 ms ahead of the bulk: the estimate is %.2f ticks off the fastest data", got)
	}
}

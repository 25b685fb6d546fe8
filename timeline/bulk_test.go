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

// tickFeed is a server at rate whose tick k carries size(k) messages and
// takes latency(s) seconds (s: the send time); a client frame that would
// start at stallAt lasts stall seconds instead (the game stalled), and
// everything queued meanwhile arrives in it.
type tickFeed struct {
	rate           float64
	size           func(k int) int
	latency        func(s float64) float64
	stallAt, stall float64
	sent           int
	queue          []tickArrival
	sizes          []int
}

// run feeds c at 60 frames per second for seconds and returns the
// estimate's error, in ticks, against the server's clock seen through the
// least latency at the end.
func (f *tickFeed) run(c *Clock, seconds float64) float64 {
	for end := c.Local() + seconds; c.Local() < end; {
		dt := 1.0 / 60
		if f.stall > 0 && c.Local() < f.stallAt && c.Local()+dt >= f.stallAt {
			dt = f.stall
		}
		local := c.Local() + dt
		for ; float64(f.sent)/f.rate <= local; f.sent++ {
			s := float64(f.sent) / f.rate
			f.queue = append(f.queue, tickArrival{s + f.latency(s), uint32(1000 + f.sent)})
			f.sizes = append(f.sizes, f.size(f.sent))
		}
		c.BeginFrame(dt)
		keptQ, keptS := f.queue[:0], f.sizes[:0]
		for i, a := range f.queue {
			if a.at <= c.Local() {
				c.ObserveN(a.tick, f.sizes[i])
			} else {
				keptQ, keptS = append(keptQ, a), append(keptS, f.sizes[i])
			}
		}
		f.queue, f.sizes = keptQ, keptS
		c.Advance()
	}
	return c.ServerTick() - (c.Local()-f.base(c.Local()))*f.rate - 1000
}

// base is the feed's least latency around send time s: the latency less
// its jitter, which repeats every 11 ticks.
func (f *tickFeed) base(s float64) float64 {
	lo := f.latency(s)
	for k := 1; k <= 11; k++ {
		lo = min(lo, f.latency(s-float64(k)/f.rate))
	}
	return lo
}

// A stall longer than the envelope window at 60 Hz delivers over a hundred
// ticks in one frame: the newest of them still seed the estimate (the
// frame's table keeps the highest), and no new timeline starts.
func TestBulkAfterALongStall(t *testing.T) {
	c := newTestClock(t, 60, FixedDelay(0.1))
	f := &tickFeed{rate: 60, size: func(int) int { return 50 }, latency: func(float64) float64 { return 0.05 }, stallAt: 5, stall: 2.5}
	f.run(c, 5)
	anchors := c.Reanchors()
	if got := f.run(c, 3); math.Abs(got) > 1.5 || c.Reanchors() != anchors {
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
	f := &tickFeed{rate: 60, size: size, latency: lat}
	f.run(c, 6)
	if got := f.run(c, 2.5); math.Abs(got) > 1 {
		t.Fatalf("2.5 s after the link got 100 ms faster, in a quiet stretch: estimate %.2f ticks off", got)
	}
}

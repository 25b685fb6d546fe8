package timeline

import (
	"math"
	"math/rand/v2"
)

// testServer is a server as the clock's tests see it. It ticks at rate and
// sends a packet every every ticks (default 1): size(k) messages (default
// 1) stamped tick(s) (default 1000 + s*rate, s the send time in seconds),
// which take latency(s) seconds (default 0.05) plus up to jitter more, or
// are lost with probability loss. With prio > 0 every tick also sends a
// priority packet of prio messages that arrives lead seconds before the
// rest. With split, each packet reaches the clock as runs split by one
// refused message, as a predicted player's state splits it in the
// pipeline. Its time is the clock's local time, so it may be run again
// on the same clock.
type testServer struct {
	rate           float64
	every          int
	size           func(k int) int
	tick           func(s float64) uint32
	latency        func(s float64) float64
	jitter, loss   float64
	prio           int
	lead           float64
	split          bool
	stallAt, stall float64 // the client frame that would start at stallAt lasts stall seconds

	rng   *rand.Rand
	sent  int
	queue []testPacket
}

type testPacket struct {
	at   float64
	tick uint32
	n    int
}

// run plays the server to c at 60 frames per second for seconds of local
// time. before, if set, runs after each BeginFrame and before the frame's
// arrivals; after, if set, after each Advance, with the local time.
func (ts *testServer) run(c *Clock, seconds float64, before func(), after func(local float64)) {
	if ts.rng == nil {
		ts.rng = rand.New(rand.NewPCG(7, 11))
		ts.every = max(ts.every, 1)
		if ts.size == nil {
			ts.size = func(int) int { return 1 }
		}
		if ts.tick == nil {
			ts.tick = func(s float64) uint32 { return uint32(math.Round(s*ts.rate)) + 1000 }
		}
		if ts.latency == nil {
			ts.latency = func(float64) float64 { return 0.05 }
		}
		ts.sent = int(math.Ceil(c.local * ts.rate / float64(ts.every)))
	}
	sendDt := float64(ts.every) / ts.rate
	for end := c.local + seconds; c.local < end; {
		dt := 1.0 / 60
		if ts.stall > 0 && c.local < ts.stallAt && c.local+dt >= ts.stallAt {
			dt = ts.stall
		}
		for local := c.local + dt; float64(ts.sent)*sendDt <= local; ts.sent++ {
			if ts.rng.Float64() < ts.loss {
				continue
			}
			s := float64(ts.sent) * sendDt
			p := testPacket{at: s + ts.latency(s) + ts.jitter*ts.rng.Float64(), tick: ts.tick(s), n: ts.size(ts.sent)}
			if ts.prio > 0 {
				ts.queue = append(ts.queue, testPacket{at: p.at - ts.lead, tick: p.tick, n: ts.prio})
			}
			ts.queue = append(ts.queue, p)
		}
		c.beginFrame(dt)
		if before != nil {
			before()
		}
		kept := ts.queue[:0]
		for _, p := range ts.queue {
			switch {
			case p.at > c.local:
				kept = append(kept, p)
			case ts.split && p.n > 1:
				c.observeN(p.tick, 1)
				c.refusedN(p.tick, 1)
				c.observeN(p.tick, p.n-1)
			default:
				c.observeN(p.tick, p.n)
			}
		}
		ts.queue = kept
		c.advance()
		if after != nil {
			after(c.local)
		}
	}
}

// offBy returns how far, in ticks, c's estimate is from the server's clock
// seen through the least latency of the last dozen ticks (the latency less
// any jitter it carries).
func (ts *testServer) offBy(c *Clock) float64 {
	lo := math.Inf(1)
	for k := range 12 {
		lo = min(lo, ts.latency(c.local-float64(k)/ts.rate))
	}
	return c.ServerTick() - (c.local-lo)*ts.rate - 1000
}

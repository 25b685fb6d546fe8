package timeline

import "math"

// Bulk weighing: which of a frame's arrivals may move the server-time
// estimate.
//
// An arrival stamped ahead of the server's clock looks like the fastest
// packet yet, and within the future limit it is accepted. If it fed the
// envelope, one entity stamped a few hundred milliseconds ahead once a
// second would raise the estimate, and with it the future limit for the
// next one: the estimate ratcheted 1.2 s ahead at one such message a
// second, 20 s at twenty. A server's real ticks arrive in bulk, many
// entities per tick. So the clock sums each frame's accepted messages by
// tick (however the pipeline split them into runs) and lets a tick move
// the estimate at once only if it carries at least 1/bulkShare of the
// largest such sum of the last two seconds, or is no newer than the newest
// tick that did, or lies no higher than the estimate already is. A smaller
// tick, newer and higher, is a few entities in a packet of their own or an
// early-stamped message. If it is the next tick after the newest bulk one
// (within a send interval), it waits up to confirmWindow for a bulk tick at
// least as new, and then moves the estimate with the arrival time it had:
// an honest priority packet running ahead of the bulk is confirmed, so the
// estimate still follows the fastest data. Anything newer is dropped: the
// bulk reaches it only when the server's clock does. An early-stamped
// message can so move the estimate by about one send interval at most. If
// no tick has moved the estimate for fallbackTime (a restart with fewer
// entities, a server that now sends only a few), the old sizes are
// forgotten and every tick moves it again.

// bulkShare: a frame's messages for one tick form a bulk tick when they
// number at least 1/bulkShare of the largest frame-tick of the last two
// seconds.
const bulkShare = 4

const (
	frameTicks   = 64  // distinct ticks weighed per frame; beyond, the lowest give way (a flood)
	pendingTicks = 8   // small ticks awaiting confirmation
	fallbackTime = 0.3 // seconds without any tick moving the estimate before every tick does again
	sizeWindow   = 2.0 // seconds over which the largest frame-tick is kept
)

// frameTick is one tick's accepted messages in this frame: how many, and
// x = tick - local*rate.
type frameTick struct {
	tick uint32
	x    float64
	n    int
}

// pendingTick is a small tick waiting for a bulk tick to confirm it, with
// its x and the local time it arrived.
type pendingTick struct {
	tick uint32
	x    float64
	at   float64
}

// bulkWeigher weighs each frame's arrivals by tick before they feed the
// server-time estimate (see the overview above).
type bulkWeigher struct {
	frame   [frameTicks]frameTick
	nFrame  int
	pending [pendingTicks]pendingTick
	nPend   int

	sizes envelope // frame-tick sizes over sizeWindow, for their largest

	newest   uint32  // newest tick that moved the estimate in bulk
	lastFeed float64 // local time a tick last fed the envelope above the estimate, or in bulk
	fed      bool    // whether any did since the start or the last fallback
}

// note records n accepted messages for tick, x = tick - local*rate, in
// this frame.
func (b *bulkWeigher) note(tick uint32, x float64, n int) {
	low := 0 // the entry with the lowest x, for a full table
	for i := range b.frame[:b.nFrame] {
		f := &b.frame[i]
		if f.tick == tick {
			f.n += n
			f.x = math.Max(f.x, x)
			return
		}
		if f.x < b.frame[low].x {
			low = i
		}
	}
	switch {
	case b.nFrame < frameTicks:
		b.frame[b.nFrame] = frameTick{tick, x, n}
		b.nFrame++
	case x > b.frame[low].x:
		// A flood of distinct ticks in one frame: the table keeps the
		// highest, so that stale ticks sent first cannot hide the real
		// one.
		b.frame[low] = frameTick{tick, x, n}
	}
}

// more adds n messages to tick, already noted this frame (nothing if it
// was not: it lay behind the estimate, or the frame had too many ticks).
func (b *bulkWeigher) more(tick uint32, n int) {
	for i := range b.frame[:b.nFrame] {
		if b.frame[i].tick == tick {
			b.frame[i].n += n
			return
		}
	}
}

// settle feeds env what this frame's arrivals may add to it, at local
// time now. gate is false while every tick moves the estimate (before
// sync, after a silence); offset is the estimate, which a small tick not
// above it cannot raise; a small tick above it waits up to window seconds
// for a bulk tick to confirm it, if it is at most step ticks (a send
// interval) newer than the newest bulk tick: a priority packet carries
// the next tick, an early-stamped message any.
func (b *bulkWeigher) settle(env *envelope, now float64, gate bool, offset, window float64, step uint32) {
	frameMax := 0
	for _, f := range b.frame[:b.nFrame] {
		frameMax = max(frameMax, f.n)
	}
	b.sizes.advance(now)
	if b.fed && now-b.lastFeed >= fallbackTime {
		// Nothing moved the estimate for a while: the ticks that arrive
		// now are the stream (a restart with fewer entities, a server
		// that now sends only a few), whatever came before.
		b.sizes.reset(now)
		b.fed = false
	}
	b.sizes.add(float64(frameMax))
	big := int(b.sizes.largest())
	gate = gate && b.fed
	fed, bulkMax := false, uint32(0)
	for _, f := range b.frame[:b.nFrame] {
		if !gate || f.n*bulkShare >= big {
			env.add(f.x)
			bulkMax, fed = max(bulkMax, f.tick), true
		}
	}
	switch {
	case fed && gate:
		b.newest = max(b.newest, bulkMax)
	case fed:
		b.newest = bulkMax // ungated: what arrived is the stream, wherever it is
	}
	if gate {
		for _, f := range b.frame[:b.nFrame] {
			switch {
			case f.n*bulkShare >= big:
			case f.tick <= b.newest || f.x <= offset:
				// It cannot raise the estimate. Only one above it counts
				// as moving it: small ticks below it must not hold off
				// the fallback while every higher one is dropped.
				env.add(f.x)
				fed = fed || f.x > offset
			case f.tick-b.newest <= step && b.nPend < pendingTicks:
				b.pending[b.nPend] = pendingTick{f.tick, f.x, now}
				b.nPend++
			}
		}
	}
	kept := 0
	for _, p := range b.pending[:b.nPend] {
		switch {
		case now-p.at > window:
		case p.tick <= b.newest:
			env.add(p.x)
			fed = true
		default:
			b.pending[kept] = p
			kept++
		}
	}
	b.nPend = kept
	if fed {
		b.lastFeed, b.fed = now, true
	}
	b.nFrame = 0
}

// restart forgets the newest bulk tick and what waits for confirmation:
// the clock took up a new timeline at tick.
func (b *bulkWeigher) restart(tick uint32) {
	b.newest, b.nPend = tick, 0
}

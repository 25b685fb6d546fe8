package server

import "math"

// rateWindow is how long, in milliseconds of the clock Snapshot is given,
// the session counts ticks over to measure the game's tick rate.
const rateWindow = 2000

// rateTolerance is how far, as a share of SessionConfig.TickRate, the
// measured tick rate may lie from it before MeasuredTickRate reports a
// mismatch: a server that falls behind for a moment stays well within it,
// a game ticking at 60 Hz on the default of 20 does not.
const rateTolerance = 0.25

// rateProbe measures the rate at which the game begins ticks, from the
// tick and the clock of the first Snapshot of each tick: SessionConfig.
// TickRate must be that rate, since the budget's bytes per tick,
// MaxInterval, the lost-record timeout and the relevance refresh are all
// counted in ticks from it.
type rateProbe struct {
	tick, now uint32 // where the current window began
	began     bool   // the window has begun
	last      uint32 // the tick last observed
	lastNow   uint32 // and when
	measured  float64
}

// ratePause is the longest gap, in milliseconds, between two ticks
// observed that does not start the count over: more than the second a
// game at the least tick rate leaves between its ticks.
const ratePause = 1500

// observe notes that tick is being sent at now (milliseconds).
func (p *rateProbe) observe(tick, now uint32) {
	if p.began && tick == p.last {
		return // another client's snapshot of the same tick
	}
	gap := now - p.lastNow
	p.last, p.lastNow = tick, now
	ms, ticks := now-p.now, tick-p.tick
	switch {
	case !p.began || int32(ms) < 0 || int32(ticks) <= 0 || gap > ratePause:
		// The first tick, a clock or tick that went back, or a pause (no
		// snapshot sent for a while): start over.
		p.tick, p.now, p.began = tick, now, true
	case ms >= rateWindow:
		p.measured = float64(ticks) * 1000 / float64(ms)
		p.tick, p.now = tick, now
	}
}

// MeasuredTickRate returns the rate, in ticks per second, at which the
// game began the ticks it sent over its latest two seconds of snapshots
// (counted from the ticks of BeginTick and the clock given to Snapshot; 0
// until two seconds have passed; a pause in the snapshots starts the
// count over, and the last measure stands meanwhile), and whether it lies
// more than 25% from SessionConfig.TickRate. A mismatch means TickRate is
// not the game's (left at its default of 20, say, in a game ticking at
// 60): the budget then sends a multiple of BytesPerSecond, and records
// are taken for lost before their acknowledgement can arrive. A game
// checks it, or logs it, once its clients are playing.
func (s *Session) MeasuredTickRate() (rate float64, mismatch bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rate = s.rate.measured
	return rate, rate != 0 && math.Abs(rate/s.cfg.TickRate-1) > rateTolerance
}

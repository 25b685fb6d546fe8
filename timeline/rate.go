package timeline

import "math"

// RateWindow is how long, in seconds of local time, the tick-rate meter
// collects arrivals before it compares them with the previous window's: a
// measurement takes two windows and is reported once two in a row agree.
const RateWindow = 2.0

// RateTolerance is how far, as a fraction, the measured server tick rate
// may differ from the configured one before [Clock.RateMismatch] says so.
// Real server clocks drift by parts per million and a loaded server that
// skips ticks by a few percent; a configuration error (a 60 Hz server
// read as 20 Hz, or 64 as 60) is off by more.
const RateTolerance = 0.05

// rateMeter measures how fast the server's ticks advance in local time,
// from the arrivals alone, so that a client configured with another tick
// rate than the server's finds out. Everything about time in the pipeline
// converts ticks with the configured rate; with the wrong one the render
// time can never keep up (or keeps running into the clamp), and the game
// sees only underruns and a growing delay.
//
// Each window of RateWindow seconds keeps its least delayed arrival: the
// one with the largest tick - local*ref, as the server-time envelope picks
// them, so jitter hardly moves it (ref is the measured rate once known, at
// first the configured one). The ticks between the least delayed
// arrivals of two consecutive windows, over the local time between them,
// are a candidate rate. A pair that spans a restart, a wrap, a suspend or
// a hostile jump gives an odd candidate, which the next pair does not
// confirm: only a candidate within RateTolerance/2 of the one before
// changes the measured rate.
type rateMeter struct {
	nominal          float64 // configured ticks per second
	start            float64 // local time the current window began
	tick             float64 // the current window's least delayed arrival: its tick
	at               float64 // and its local time
	any              bool    // whether the current window has an arrival
	ref              float64 // the rate arrivals are compared at
	prevTick, prevAt float64 // the previous window's least delayed arrival
	hasPrev          bool
	cand             float64 // the last candidate rate, ticks per second (0: none)
	rate             float64 // the measured rate, ticks per second (0: not yet)
}

// add records an arrival of tick at local time.
func (m *rateMeter) add(local float64, tick uint32) {
	t := float64(tick)
	if !m.any || t-local*m.ref > m.tick-m.at*m.ref {
		m.tick, m.at, m.any = t, local, true
	}
}

// advance closes the current window once it is RateWindow long, at local
// time now. A window without arrivals (silence) starts the measurement
// over; the measured rate so far stands.
func (m *rateMeter) advance(now float64) {
	if now-m.start < RateWindow {
		return
	}
	switch {
	case !m.any:
		m.cand = 0
	case m.hasPrev && m.at > m.prevAt:
		r := (m.tick - m.prevTick) / (m.at - m.prevAt)
		if m.cand > 0 && math.Abs(r-m.cand) <= RateTolerance/2*m.cand {
			if m.rate == 0 {
				m.rate = r
			} else {
				m.rate += 0.5 * (r - m.rate)
			}
			m.ref = m.rate
		}
		m.cand = 0
		if r > 0 {
			m.cand = r
		}
	}
	m.prevTick, m.prevAt, m.hasPrev = m.tick, m.at, m.any
	m.start, m.any = now, false
}

// MeasuredTickRate returns the rate, in ticks per second of local time, at
// which the server's ticks have been arriving: about the configured
// TickRate when client and server agree. It is zero until measured (about
// three RateWindows of arrivals) and is not reset by a new timeline.
func (c *Clock) MeasuredTickRate() float64 { return c.rate.rate }

// RateMismatch reports whether the measured tick rate differs from the
// configured TickRate by more than RateTolerance: the server ticks at
// another rate than the client was told, so the render time cannot follow
// it (and a predicted entity steps at the wrong rate). Set the client's
// tick rate to [Clock.MeasuredTickRate], rounded to the server's.
func (c *Clock) RateMismatch() bool {
	r := c.rate.rate
	return r > 0 && math.Abs(r-c.cfg.TickRate) > RateTolerance*c.cfg.TickRate
}

package timeline

import (
	"math"
	"slices"
)

// rateWindow is how long, in seconds of local time, the tick-rate meter
// collects arrivals before it compares them with the previous window's: a
// measurement takes two windows and is reported once two in a row agree.
const rateWindow = 2.0

// RateTolerance is how far, as a fraction, the measured server tick rate
// may differ from the configured one before [Clock.RateMismatch] says so.
// Real server clocks drift by parts per million and a loaded server that
// skips ticks by a few percent; a configuration error (a 60 Hz server
// read as 20 Hz, or 64 as 60) is off by more.
const RateTolerance = 0.05

// rateBuckets is how many parts a window of the tick-rate meter is cut
// into, each keeping its least delayed arrival.
const rateBuckets = 8

// rateMeter measures how fast the server's ticks advance in local time,
// from the accepted arrivals alone, so that a client configured with
// another tick rate than the server's finds out. Everything about time in
// the pipeline converts ticks with the configured rate; with the wrong one
// the render time can never keep up (or keeps running into the clamp), and
// the game sees only underruns and a growing delay.
//
// Each window of rateWindow seconds is cut into rateBuckets parts, each
// keeping its least delayed arrival (the largest tick - local*ref, where
// ref is the measured rate once known, at first the configured one), so
// that jitter hardly moves it. Pairs of a kept arrival of the previous
// window and one of the current window give slopes, ticks over local time;
// their median is a candidate rate, if the slopes agree. An early-stamped
// message (a hostile one, within the future limit) in one of the parts
// tilts only the slopes it takes part in, some up and some down, and
// leaves the median among the others; in many parts, it spreads the slopes
// and there is no candidate. Windows that span a restart, a wrap or a
// suspend give no candidate or an odd one, which the next pair does not
// confirm: only a candidate within RateTolerance/2 of the one before
// counts. A confirmed candidate more than RateTolerance from the measured
// rate replaces it (the server's rate changed, or this is the first
// measurement); a closer one moves it halfway.
//
// Refused arrivals are left out: the estimate does not trust them either,
// and a hostile server can send any number of them.
type rateMeter struct {
	start  float64                                      // local time the current window began
	cur    [rateBuckets]rateArrival                     // the current window, in parts
	prev   [rateBuckets]rateArrival                     // the previous window
	slopes [rateBuckets * (rateBuckets + 1) / 2]float64 // scratch for the median
	ref    float64                                      // the rate arrivals are compared at
	cand   float64                                      // the last candidate rate, ticks per second (0: none)
	rate   float64                                      // the measured rate, ticks per second (0: not yet)
}

// rateArrival is an arrival the meter kept: its tick, its local time.
type rateArrival struct {
	tick, at float64
	ok       bool
}

// add records an arrival of tick at local time.
func (m *rateMeter) add(local float64, tick uint32) {
	k := min(max(int((local-m.start)*rateBuckets/rateWindow), 0), rateBuckets-1)
	t, b := float64(tick), &m.cur[k]
	if !b.ok || t-local*m.ref > b.tick-b.at*m.ref {
		*b = rateArrival{tick: t, at: local, ok: true}
	}
}

// candidate returns the median slope between the previous window's kept
// arrivals and the current one's, taking pairs at least about a window
// apart (part j of the current window with parts 0 to j of the previous),
// so that an arrival's jitter moves a slope little. It returns 0 if there
// are fewer than three such pairs (a snapshot a second or less, where one
// arrival's jitter would decide), or if the middle half of the slopes
// spreads over more than RateTolerance: the windows then straddle a
// discontinuity, or early-stamped messages tilt too many of the slopes to
// tell.
func (m *rateMeter) candidate() float64 {
	n := 0
	for j, b := range m.cur {
		for _, a := range m.prev[:j+1] {
			if a.ok && b.ok {
				// b lies in a later window than a: b.at > a.at.
				m.slopes[n] = (b.tick - a.tick) / (b.at - a.at)
				n++
			}
		}
	}
	if n < 3 {
		return 0 // too few to tell a slope from the jitter in it
	}
	s := m.slopes[:n]
	slices.Sort(s)
	median := s[n/2]
	if s[3*n/4]-s[n/4] > RateTolerance*median {
		return 0
	}
	return median
}

// advance closes the current window once it is rateWindow long, at local
// time now. A window without arrivals (silence) starts the measurement
// over; the measured rate so far stands.
func (m *rateMeter) advance(now float64) {
	if now-m.start < rateWindow {
		return
	}
	r := m.candidate()
	if r > 0 && m.cand > 0 && math.Abs(r-m.cand) <= RateTolerance/2*m.cand {
		if m.rate == 0 || math.Abs(r-m.rate) > RateTolerance*m.rate {
			m.rate = r
		} else {
			m.rate += 0.5 * (r - m.rate)
		}
		m.ref = m.rate
	}
	m.cand = max(r, 0)
	m.prev, m.cur, m.start = m.cur, [rateBuckets]rateArrival{}, now
}

// MeasuredTickRate returns the rate, in ticks per second of local time, at
// which the server's ticks have been arriving: about the configured
// TickRate when client and server agree. It is zero until measured (about
// three rateWindows of arrivals) and is not reset by a new timeline.
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

package timeline

import "math"

// envBuckets is the number of time buckets of the envelope window.
const envBuckets = 8

// envelope estimates the server clock offset from arrivals: the upper
// envelope of x = tick - local*rate, the arrivals that travelled fastest.
// A packet can be late but never early, so the envelope is where the
// server's clock is (minus the fastest trip), and how far below it an
// arrival lies is how late it came.
//
// The window is split into buckets by local time, each holding the largest
// x seen in it. The estimate is the second largest bucket maximum: one
// early-stamped packet (corrupted, hostile, or a tick the server sent
// ahead of its clock) lifts one bucket only and changes nothing, and every
// bucket expires after the window, so an old fast packet does not hold the
// estimate up once the link is slower (or the clocks drift apart).
type envelope struct {
	max   [envBuckets]float64 // -Inf when the bucket is empty
	cur   int                 // bucket being filled
	start float64             // local time the current bucket began
	width float64             // seconds per bucket
}

func newEnvelope(window float64) envelope {
	e := envelope{width: window / envBuckets}
	e.reset(0)
	return e
}

// reset empties every bucket; the current one starts at local time now.
func (e *envelope) reset(now float64) {
	for i := range e.max {
		e.max[i] = math.Inf(-1)
	}
	e.cur, e.start = 0, now
}

// advance moves the current bucket to local time now, emptying the buckets
// that have expired on the way.
func (e *envelope) advance(now float64) {
	steps := int((now - e.start) / e.width)
	if steps <= 0 {
		return
	}
	if steps >= envBuckets {
		e.reset(now)
		return
	}
	for k := 0; k < steps; k++ {
		e.cur = (e.cur + 1) % envBuckets
		e.max[e.cur] = math.Inf(-1)
	}
	e.start += float64(steps) * e.width
}

// add records an arrival whose x is tick - local*rate.
func (e *envelope) add(x float64) {
	e.max[e.cur] = math.Max(e.max[e.cur], x)
}

// value returns the estimate: the second largest bucket maximum, or the
// largest while only one bucket has arrivals. ok is false when every
// bucket is empty (nothing arrived for a whole window).
func (e *envelope) value() (x float64, ok bool) {
	first, second := math.Inf(-1), math.Inf(-1)
	for _, m := range e.max {
		switch {
		case m > first:
			first, second = m, first
		case m > second:
			second = m
		}
	}
	switch {
	case math.IsInf(first, -1):
		return 0, false
	case math.IsInf(second, -1):
		return first, true
	}
	return second, true
}

// largest returns the largest bucket maximum, 0 when every bucket is
// empty.
func (e *envelope) largest() float64 {
	m := math.Inf(-1)
	for _, b := range e.max {
		m = math.Max(m, b)
	}
	if math.IsInf(m, -1) {
		return 0
	}
	return m
}

package timeline

import (
	"math"
	"slices"
)

// ageSamples is how many recent waits the statistics keep: about six
// seconds of a 20 Hz stream.
const ageSamples = 128

// outageFactor: a wait longer than this many times the median is an
// outage or a burst of losses, which extrapolation covers; it is not
// buffered for.
const outageFactor = 3

// ages keeps, for the recent arrivals of new ticks, how old the newest
// data had become by then: the estimated server time minus the previous
// newest tick, in ticks. That is the longest the render time would have
// had to stay behind to never run out of data during that wait: one send
// interval, plus how late the new tick came, plus the frame it waited to
// be seen. A delay that covers a high quantile of it leaves the render
// time past the newest data only rarely, whatever the shape of the
// jitter, and covers a single lost snapshot when losses are common enough
// to matter.
type ages struct {
	age    [ageSamples]float64
	at     [ageSamples]float64 // local time of the arrival
	next   int
	n      int
	sorted [ageSamples]float64 // this frame's recent waits, outages excluded, ascending
	ns     int
}

func (a *ages) add(age, now float64) {
	a.age[a.next], a.at[a.next] = math.Max(0, age), now
	a.next = (a.next + 1) % ageSamples
	a.n = min(a.n+1, ageSamples)
}

func (a *ages) reset() { a.n, a.ns = 0, 0 }

// update sorts the waits of the last window seconds, drops those longer
// than outageFactor times their median, and returns the standard
// deviation of the rest.
func (a *ages) update(now, window float64) (sd float64) {
	a.ns = 0
	for i := 0; i < a.n; i++ {
		if now-a.at[i] <= window {
			a.sorted[a.ns] = a.age[i]
			a.ns++
		}
	}
	s := a.sorted[:a.ns]
	slices.Sort(s)
	if a.ns == 0 {
		return 0
	}
	cut := outageFactor * s[a.ns/2]
	for a.ns > 1 && s[a.ns-1] > cut {
		a.ns--
	}
	s = s[:a.ns]
	var sum, sq float64
	for _, v := range s {
		sum += v
		sq += v * v
	}
	mean := sum / float64(a.ns)
	return math.Sqrt(math.Max(0, sq/float64(a.ns)-mean*mean))
}

// quantile returns the q-quantile of sorted (0 when empty).
func quantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 || !(q > 0) {
		return 0
	}
	if q >= 1 {
		return sorted[n-1]
	}
	// The smallest value with at least q of the samples at or below it.
	k := int(math.Ceil(q*float64(n))) - 1
	return sorted[max(k, 0)]
}

package timeline

import "fmt"

// DelayPolicy chooses the interpolation delay once per frame from the
// arrival statistics gathered by the [Clock]. A fixed delay ([FixedDelay])
// is the simplest; an adaptive policy follows the measured jitter.
type DelayPolicy interface {
	// Delay returns the interpolation delay in ticks.
	Delay(s *Stats) float64
}

// FixedDelay is a constant interpolation delay in seconds. About two
// snapshot intervals (100 ms at 20 Hz) lets the render time nearly always
// have a sample on each side on a network with moderate jitter.
type FixedDelay float64

// Delay implements [DelayPolicy].
func (d FixedDelay) Delay(s *Stats) float64 { return float64(d) * s.TickRate }

// String implements fmt.Stringer.
func (d FixedDelay) String() string { return fmt.Sprintf("fixed %.0f ms", float64(d)*1000) }

// AdaptiveDelay follows the network: the delay target is a multiple of the
// measured snapshot interval plus a multiple of the measured arrival jitter
// (standard deviation), kept within [Min, Max] seconds. The clock slews the
// render time toward it, so the delay changes gradually.
//
// Defaults ([DefaultAdaptiveDelay]): 2 intervals + 2.5 standard deviations,
// at least 50 ms and at most 400 ms. How others choose:
//
//   - Mirror: buffer time = send interval × bufferTimeMultiplier (2), with
//     an optional dynamic adjustment from the delivery-time deviation;
//     catch-up 2%, slow-down 4%, thresholds of about one send interval.
//   - Unity Netcode for Entities: 2 network ticks of interpolation delay by
//     default; with the adaptive option the target comes from the
//     measured arrival deviation × 1.25, capped at a maximum of interpolation
//     ticks.
//   - lightyear: 1.7 send intervals + 4 × jitter + 1 tick.
//
// Two intervals absorb a single lost snapshot; 2.5 standard deviations of
// jitter keep nearly all samples arriving before they are needed. Raise
// Jitters for smoother motion on bad links at the cost of delay.
type AdaptiveDelay struct {
	// Intervals multiplies the measured snapshot interval.
	Intervals float64
	// Jitters multiplies the measured arrival jitter (standard deviation).
	Jitters float64
	// Min and Max bound the delay, in seconds.
	Min, Max float64
}

// DefaultAdaptiveDelay returns the recommended adaptive policy: 2 intervals
// + 2.5 jitter deviations, within [50 ms, 400 ms].
func DefaultAdaptiveDelay() AdaptiveDelay {
	return AdaptiveDelay{Intervals: 2, Jitters: 2.5, Min: 0.05, Max: 0.4}
}

// Delay implements [DelayPolicy].
func (a AdaptiveDelay) Delay(s *Stats) float64 {
	interval := s.Interval
	if !(interval > 0) {
		interval = 1
	}
	d := a.Intervals*interval + a.Jitters*s.Jitter
	lo, hi := a.Min*s.TickRate, a.Max*s.TickRate
	if hi > 0 && d > hi {
		d = hi
	}
	if d < lo {
		d = lo
	}
	return d
}

// String implements fmt.Stringer.
func (a AdaptiveDelay) String() string {
	return fmt.Sprintf("adaptive %.3g intervals + %.3g jitter in [%.0f, %.0f] ms", a.Intervals, a.Jitters, a.Min*1000, a.Max*1000)
}

package timeline

import (
	"fmt"
	"math"
)

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

// AdaptiveDelay follows the network: the delay target is a high quantile
// of how long the newest snapshot has had to last before a newer one
// arrived ([Stats.Wait]: one send interval plus how late snapshots come
// plus the frame they wait to be seen), plus a margin, kept within
// [Min, Max] seconds. The clock slews the render time toward it, so the
// delay changes gradually.
//
// Measuring the wait itself, rather than adding multiples of a standard
// deviation to a number of intervals, buffers exactly what the link needs:
// one interval and a little on a clean link, two intervals when single
// losses are common, more on a jittery one, and never the shape of the
// jitter assumed. Outages and bursts of losses are not buffered for (that
// would cost the delay for seconds afterwards): bounded extrapolation
// covers them, and its error is smoothed away when the real sample lands.
// Defaults ([DefaultAdaptiveDelay]): the 99th percentile of the wait plus
// 5 ms, at least 20 ms and at most 400 ms. How others choose:
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
// Raise Quantile or Margin for fewer underruns at the cost of delay.
type AdaptiveDelay struct {
	// Quantile is the share of waits the delay should cover
	// (0 < Quantile <= 1).
	Quantile float64
	// Margin is added, in seconds.
	Margin float64
	// Min and Max bound the delay, in seconds; a zero Max bounds it only
	// by the samples the entities keep.
	Min, Max float64
}

// DefaultAdaptiveDelay returns the recommended adaptive policy: the 99th
// percentile of the wait plus 5 ms, within [20 ms, 400 ms].
func DefaultAdaptiveDelay() AdaptiveDelay {
	return AdaptiveDelay{Quantile: 0.99, Margin: 0.005, Min: 0.02, Max: 0.4}
}

// Delay implements [DelayPolicy].
func (a AdaptiveDelay) Delay(s *Stats) float64 {
	d := s.Wait(a.Quantile)
	if s.WaitSamples() < settledWaits {
		// Too few waits measured to trust a high quantile: at least one
		// and a half send intervals until then. The clock lets the delay
		// shrink from there only slowly.
		interval := s.Interval
		if !(interval > 0) {
			interval = 1
		}
		d = max(d, 1.5*interval)
	}
	d += a.Margin * s.TickRate
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
	return fmt.Sprintf("adaptive p%.3g wait + %.0f ms in [%.0f, %.0f] ms", a.Quantile*100, a.Margin*1000, a.Min*1000, a.Max*1000)
}

// checkDelay reports a built-in delay policy whose settings are out of
// range. A policy of the game's own is not checked: the clock takes a
// delay it returns that is negative or not finite as zero.
func checkDelay(p DelayPolicy) error {
	switch d := p.(type) {
	case FixedDelay:
		return checkFixed(d)
	case *FixedDelay:
		if d == nil {
			return fmt.Errorf("timeline: Delay is a nil *FixedDelay: give a FixedDelay value")
		}
		return checkFixed(*d)
	case AdaptiveDelay:
		return checkAdaptive(&d)
	case *AdaptiveDelay:
		if d == nil {
			return fmt.Errorf("timeline: Delay is a nil *AdaptiveDelay: give an AdaptiveDelay value, or leave Delay nil for DefaultAdaptiveDelay()")
		}
		return checkAdaptive(d)
	}
	return nil
}

// checkFixed reports a FixedDelay that is negative or not finite.
func checkFixed(d FixedDelay) error {
	if !(d >= 0) || math.IsInf(float64(d), 0) {
		return fmt.Errorf("timeline: Delay: FixedDelay must be finite seconds, at least 0, got %v: 0.1 is two snapshots at 20 Hz", float64(d))
	}
	return nil
}

// checkAdaptive reports an AdaptiveDelay whose settings are out of range.
func checkAdaptive(a *AdaptiveDelay) error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case !(a.Quantile > 0 && a.Quantile <= 1):
		return fmt.Errorf("timeline: Delay: AdaptiveDelay.Quantile must be in (0, 1], got %v: DefaultAdaptiveDelay uses 0.99", a.Quantile)
	case !finite(a.Margin):
		return fmt.Errorf("timeline: Delay: AdaptiveDelay.Margin must be finite seconds, got %v", a.Margin)
	case !(a.Min >= 0) || !finite(a.Min) || !finite(a.Max) || a.Max < 0 || a.Max != 0 && a.Max < a.Min:
		return fmt.Errorf("timeline: Delay: AdaptiveDelay needs finite seconds 0 <= Min <= Max (or Max 0 for no bound), got Min %v, Max %v", a.Min, a.Max)
	}
	return nil
}

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

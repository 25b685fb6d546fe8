package netsim

import (
	"fmt"
	"math"
	"time"
)

// ppbScale is one billion: PPB is in parts per this.
const ppbScale = 1_000_000_000

// DriftClock maps true virtual time to the reading of a clock that runs at a
// slightly different rate and is set to a different time: the clock of a
// simulated server, say, next to the client's.
//
// Real clocks drift: crystals are specified to tens of parts per million,
// and virtual machines and power-saving CPUs do worse. A client that
// estimates the server's clock from snapshot timestamps must keep tracking
// it, not just measure it once. A test harness exercises that by ticking
// its simulated server on a DriftClock instead of the true clock; use one
// when the test needs the exact, platform-independent integer mapping below.
// (The scorecard harness in internal/scenario does not: it models drift with a
// floating-point rate factor, Scenario.Drift.) Exaggerated drift (0.1 % to
// 1 %) makes the effect visible in a short test.
//
// The mapping is
//
//	At(t) = Offset + floor(t * (1e9 + PPB) / 1e9)
//
// computed exactly in integer arithmetic (no floating point, no rounding
// beyond the final floor), so it is identical on every platform and exact
// over any span: 10 minutes at 1 % fast gain exactly 6 s. The zero
// DriftClock is the identity. DriftClock is a plain value: its methods are
// pure functions of the receiver and argument.
type DriftClock struct {
	// Offset is the drifting clock's reading at true time 0.
	Offset time.Duration

	// PPB is the clock's rate error in parts per billion, that is,
	// nanoseconds gained per second of true time: 10_000_000 runs 1 % fast,
	// -50_000 runs 50 ppm slow, 0 runs at the true rate. Values at or
	// below -1e9 (a clock that stops or runs backwards) are treated as
	// -999_999_999, a clock that advances 1 ns per true second.
	PPB int64
}

// NewDriftClock returns a DriftClock that runs rate times as fast as true
// time (1.01 runs 1 % fast, 0.9999 runs 100 ppm slow) and reads offset at
// true time 0. The rate is rounded to the nearest part per billion; after
// that, all arithmetic is exact. It returns an error if rate is not a
// finite number greater than zero, or is too large or too small to express.
func NewDriftClock(rate float64, offset time.Duration) (DriftClock, error) {
	if math.IsNaN(rate) || math.IsInf(rate, 0) || rate <= 0 {
		return DriftClock{}, fmt.Errorf("netsim: NewDriftClock rate must be a finite number > 0, got %v", rate)
	}
	ppb := math.Round((rate - 1) * ppbScale)
	if ppb <= -ppbScale || ppb >= math.MaxInt64 {
		return DriftClock{}, fmt.Errorf("netsim: NewDriftClock rate %v is out of range (1e-9 to 9.2e9)", rate)
	}
	return DriftClock{Offset: offset, PPB: int64(ppb)}, nil
}

// Rate returns how many times as fast as true time the clock runs,
// 1 + PPB/1e9, for display.
func (d DriftClock) Rate() float64 {
	return float64(d.scale()) / ppbScale
}

// At returns the drifting clock's reading at true time t. It is
// non-decreasing in t, and strictly increasing if PPB >= 0. Readings beyond
// the range of a Duration saturate.
func (d DriftClock) At(t time.Duration) time.Duration {
	v, ok := wideOf(int64(t)).mulDiv(d.scale(), ppbScale, false)
	if !ok {
		return time.Duration(v.saturated())
	}
	r, ok := v.add(wideOf(int64(d.Offset)))
	if !ok {
		return time.Duration(r.saturated())
	}
	return time.Duration(r.clamp())
}

// TrueTime is the inverse of At: it returns the earliest true time at which
// the drifting clock reads reading or later. A harness uses it to schedule
// an event on the drifting clock, such as server tick k at reading
// k*tickInterval, on the true clock that drives the [Link].
//
// It round-trips exactly where the mapping allows: TrueTime(At(t)) == t
// for every t when PPB >= 0 (a clock at the true rate or fast never repeats
// a reading), and At(TrueTime(r)) == r for every r when PPB <= 0 (a slow
// clock never skips one). In the other direction the error is below one
// nanosecond step of the faster clock: a fast clock skips readings, so
// 0 <= At(TrueTime(r)) - r < Rate() ns, and a slow clock holds a reading
// for several true nanoseconds, so 0 <= t - TrueTime(At(t)) < 1/Rate() ns.
// Results beyond the range of a Duration saturate.
func (d DriftClock) TrueTime(reading time.Duration) time.Duration {
	// At(t) >= r  <=>  floor(t*s/1e9) >= r-Offset  <=>  t >= (r-Offset)*1e9/s,
	// so the earliest such t is ceil((r-Offset)*1e9/s).
	// The difference of two int64 values always fits a wide.
	x, _ := wideOf(int64(reading)).add(wideOf(int64(d.Offset)).negate())
	v, ok := x.mulDiv(ppbScale, d.scale(), true)
	if !ok {
		return time.Duration(v.saturated())
	}
	return time.Duration(v.clamp())
}

// scale returns 1e9 + PPB, the clock's rate in parts per billion, which is
// at least 1.
func (d DriftClock) scale() uint64 {
	// In uint64, so that a huge PPB cannot overflow; a negative PPB wraps
	// and the addition wraps back.
	return ppbScale + uint64(max(d.PPB, 1-ppbScale))
}

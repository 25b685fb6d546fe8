package blend

import "fmt"

// Extrapolation is the policy for the render time running past an entity's
// newest sample (the next snapshot is late or lost). Each policy turns the
// time ahead of the newest sample into a distance travelled along the
// entity's velocity, bounded by a limit; past the limit the entity holds
// still until data arrives.
//
// Which to choose:
//
//   - [Coast] (the default) keeps moving but eases to a stop at the limit:
//     position is continuous and never reverses, so a lost packet shows as a
//     short glide instead of a freeze or a rubber-band. When the real sample
//     arrives, the Smooth system absorbs the difference.
//   - [Hold] never invents motion: the entity freezes on its newest sample.
//     Pick it when a wrong guess is worse than a stall (e.g. competitive
//     shooters deciding hits from what is drawn).
//   - [Linear] moves at full velocity up to the limit, then holds: classic
//     dead reckoning, as in the Source engine's cl_extrapolate (whose limit,
//     cl_extrapolate_amount, defaults to 0.25 s). Accurate for straight
//     motion, overshoots on turns and stops.
//   - [DampedReturn] travels v*ahead*(1-ahead/limit): it moves out along the
//     velocity and comes back, reaching the newest sample again at the limit
//     and freezing there, so a long gap ends on real data rather than on a
//     guess; the backward half of the motion is visible on screen.
type Extrapolation uint8

const (
	// Coast integrates a velocity that fades linearly to zero at the limit:
	// travel = ahead - ahead²/(2·limit), then limit/2. Continuous, monotonic,
	// bounded.
	Coast Extrapolation = iota
	// Hold does not extrapolate.
	Hold
	// Linear travels min(ahead, limit) seconds of velocity.
	Linear
	// DampedReturn is a damped extrapolation that returns to the newest
	// sample: it travels ahead·(1-ahead/limit) before the limit, a parabola
	// that peaks at limit/4 when ahead is limit/2 and is back at 0 at the
	// limit, and nothing after it, so the entity freezes on its newest
	// sample. The name says both halves: damped (bounded, slowing) and
	// return (it ends where the data ends).
	//
	// Pick it when a short gap should show some motion but a long one must
	// end on authoritative data rather than on a guess, and the visible
	// out-and-back of the second half is acceptable (it suits slow entities
	// and short limits best). Otherwise prefer [Coast], which never
	// reverses.
	DampedReturn
)

// Travel returns how many seconds' worth of velocity to add to the newest
// sample's position when the render time is ahead seconds past it. limit is
// the extrapolation limit in seconds; ahead <= 0 or limit <= 0 gives 0.
func (e Extrapolation) Travel(ahead, limit float32) float32 {
	if !(ahead > 0) || !(limit > 0) {
		return 0
	}
	switch e {
	case Linear:
		if ahead > limit {
			return limit
		}
		return ahead
	case DampedReturn:
		if ahead >= limit {
			return 0
		}
		return ahead * (1 - ahead/limit)
	case Coast:
		if ahead >= limit {
			return limit / 2
		}
		return ahead - ahead*ahead/(2*limit)
	}
	return 0
}

// Moving reports whether, ahead seconds past the newest sample, the policy is
// still changing the position (as opposed to holding it).
func (e Extrapolation) Moving(ahead, limit float32) bool {
	return e != Hold && e <= DampedReturn && ahead >= 0 && ahead < limit && limit > 0
}

// String returns the policy's name.
func (e Extrapolation) String() string {
	switch e {
	case Coast:
		return "coast"
	case Hold:
		return "hold"
	case Linear:
		return "linear"
	case DampedReturn:
		return "damped-return"
	}
	return fmt.Sprintf("Extrapolation(%d)", uint8(e))
}

// ParseExtrapolation returns the policy named by s, as printed by String.
func ParseExtrapolation(s string) (Extrapolation, error) {
	for _, e := range []Extrapolation{Coast, Hold, Linear, DampedReturn} {
		if e.String() == s {
			return e, nil
		}
	}
	return Coast, fmt.Errorf("blend: unknown extrapolation policy %q (want coast, hold, linear or damped-return)", s)
}

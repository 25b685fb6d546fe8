package netsim

import (
	"math"
	"math/bits"
)

// Integer helpers for computations whose intermediate results do not fit in
// 64 bits. The package avoids floating point on its per-packet and clock
// paths so that results are bit-identical on every platform.

// mulDivFloor returns floor(a*b/d) for d > 0, computed exactly in 128 bits,
// saturating at the largest uint64.
func mulDivFloor(a, b, d uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi >= d {
		return math.MaxUint64
	}
	q, _ := bits.Div64(hi, lo, d)
	return q
}

// wide is a signed integer in sign-magnitude form, with a 64-bit magnitude:
// it holds every difference and sum of two int64 values exactly.
type wide struct {
	neg bool
	mag uint64
}

// wideOf returns x as a wide.
func wideOf(x int64) wide {
	if x < 0 {
		return wide{neg: true, mag: -uint64(x)}
	}
	return wide{mag: uint64(x)}
}

// negate returns -w.
func (w wide) negate() wide {
	return wide{neg: !w.neg && w.mag != 0, mag: w.mag}
}

// add returns w+v and true, or false if the magnitude overflows 64 bits.
func (w wide) add(v wide) (wide, bool) {
	if w.neg == v.neg {
		s, carry := bits.Add64(w.mag, v.mag, 0)
		return wide{neg: w.neg, mag: s}, carry == 0
	}
	if w.mag >= v.mag {
		return wide{neg: w.neg && w.mag != v.mag, mag: w.mag - v.mag}, true
	}
	return wide{neg: v.neg, mag: v.mag - w.mag}, true
}

// mulDiv returns w*m/d for d > 0, rounded down (towards -∞) or, if ceil, up
// (towards +∞), and true; or false if the result's magnitude overflows 64
// bits, in which case its sign is still correct.
func (w wide) mulDiv(m, d uint64, ceil bool) (wide, bool) {
	hi, lo := bits.Mul64(w.mag, m)
	if hi >= d {
		return wide{neg: w.neg}, false
	}
	q, r := bits.Div64(hi, lo, d)
	// Truncation rounds the magnitude down; rounding the value up for a
	// positive w, or down for a negative one, needs the magnitude rounded up.
	if r != 0 && ceil != w.neg {
		if q == math.MaxUint64 {
			return wide{neg: w.neg}, false
		}
		q++
	}
	return wide{neg: w.neg && q != 0, mag: q}, true
}

// clamp returns w as an int64, saturating at the int64 range.
func (w wide) clamp() int64 {
	if w.neg {
		if w.mag >= 1<<63 {
			return math.MinInt64
		}
		return -int64(w.mag)
	}
	if w.mag > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(w.mag)
}

// saturated returns the int64 limit in the direction of w's sign, for
// results too large to represent.
func (w wide) saturated() int64 {
	if w.neg {
		return math.MinInt64
	}
	return math.MaxInt64
}

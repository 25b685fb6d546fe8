package wire

import (
	"fmt"
	"math"
)

// MaxFields is the number of custom field values an entity record carries
// at most: the size of [Entity.Fields] and [Record.Fields]. A game
// declares how many it uses, and how each is quantised, in
// [Quantizer.Fields]; records of a game that declares none send none.
// Every record holds room for them (4 bytes each), so the constant trades
// fields for the size of every state table; it must stay at most 8 (the
// field mask is a byte) and equal systems.MaxFields.
const MaxFields = 4

// maxFieldSteps bounds a field's number of steps, so that a difference of
// two steps always fits a 32-bit varint.
const maxFieldSteps = 1 << 30

// FieldSpec says how one custom field value (a size, a health, an angle)
// is quantised on the wire: a value in [Min, Max] is sent as the nearest of
// the steps of at most Precision that divide the range evenly, so the
// error is at most half a step. A value outside the range, or NaN, is
// refused ([ErrRange]) like a position that cannot be quantised, except
// with Wrap, which makes the range a period (an angle from -π to π):
// values wrap into it, and a change across the wrap is sent as the short
// way round.
type FieldSpec struct {
	// Min and Max bound the value, Min < Max, both finite. A record the
	// baseline does not hold is delta-encoded against Min.
	Min, Max float32
	// Precision is the largest step, in the value's units: the range is
	// divided into ceil((Max-Min)/Precision) equal steps, at most 2^30.
	Precision float32
	// Wrap makes the range a period: Max is the same value as Min.
	Wrap bool

	// n and step are Steps() and Step(), worked out once by the
	// quantizer's normalisation (the Quantizer of a Config that an
	// Encoder or Decoder holds), so that quantising a record does not
	// divide and round per field; zero in a spec as the game wrote it.
	n    int32
	step float64
}

// Steps returns the number of steps the range is divided into: a value is
// sent as an integer in 0..Steps (0..Steps-1 with Wrap).
func (f FieldSpec) Steps() int32 {
	if f.n != 0 {
		return f.n
	}
	return f.steps()
}

// steps works out Steps.
func (f FieldSpec) steps() int32 {
	return int32(math.Ceil(float64(f.Max-f.Min)/float64(f.Precision) - 1e-9))
}

// Step returns the size of one step in the value's units.
func (f FieldSpec) Step() float64 {
	if f.n != 0 {
		return f.step
	}
	return float64(f.Max-f.Min) / float64(f.steps())
}

// cached returns f with Steps and Step worked out; f is valid.
func (f FieldSpec) cached() FieldSpec {
	f.n = f.steps()
	f.step = float64(f.Max-f.Min) / float64(f.n)
	return f
}

// validate reports whether the spec is usable, naming field i.
func (f FieldSpec) validate(i int) error {
	finite := func(v float32) bool { return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) }
	switch {
	case !finite(f.Min) || !finite(f.Max) || !(f.Min < f.Max):
		return fmt.Errorf("%w: Quantizer.Fields[%d]: range [%v, %v], want finite Min < Max", ErrConfig, i, f.Min, f.Max)
	case !(f.Precision > 0) || !finite(f.Precision):
		return fmt.Errorf("%w: Quantizer.Fields[%d].Precision = %v, want a finite step > 0", ErrConfig, i, f.Precision)
	case float64(f.Max-f.Min)/float64(f.Precision) > maxFieldSteps:
		return fmt.Errorf("%w: Quantizer.Fields[%d]: (Max-Min)/Precision = %v steps > 2^30", ErrConfig, i, float64(f.Max-f.Min)/float64(f.Precision))
	case f.steps() < 1:
		// A Precision far above the range rounds to no step at all: the
		// step would be infinite and every value NaN.
		return fmt.Errorf("%w: Quantizer.Fields[%d]: Precision %v leaves range [%v, %v] no step", ErrConfig, i, f.Precision, f.Min, f.Max)
	}
	return nil
}

// Quantize returns the step of value v, or an error wrapping [ErrRange]
// for NaN, or a value outside [Min, Max] without Wrap.
func (f FieldSpec) Quantize(v float32) (int32, error) {
	n := f.Steps()
	x := (float64(v) - float64(f.Min)) / f.Step()
	if f.Wrap {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("%w: field value %v is not finite", ErrRange, v)
		}
		x = math.Mod(x, float64(n))
		if x < 0 {
			x += float64(n)
		}
		s := int32(math.Round(x))
		if s >= n {
			s -= n
		}
		return s, nil
	}
	if !(v >= f.Min && v <= f.Max) { // false for NaN too
		return 0, fmt.Errorf("%w: field value %v outside [%v, %v]", ErrRange, v, f.Min, f.Max)
	}
	return min(max(int32(math.Round(x)), 0), n), nil
}

// Value returns the value of step s.
func (f FieldSpec) Value(s int32) float32 {
	return float32(float64(f.Min) + float64(s)*f.Step())
}

// inRange reports whether s is a step a record may hold.
func (f FieldSpec) inRange(s int32) bool {
	n := f.Steps()
	if f.Wrap {
		return s >= 0 && s < n
	}
	return s >= 0 && s <= n
}

// delta returns the difference cur - ref sent on the wire: with Wrap, the
// short way round the period.
func (f FieldSpec) delta(cur, ref int32) int32 {
	d := cur - ref
	if f.Wrap {
		n := f.Steps()
		if d > n/2 {
			d -= n
		} else if d < -(n-1)/2 {
			d += n
		}
	}
	return d
}

// apply returns ref moved by the wire difference d, and whether the result
// is in range (and, with Wrap, d the short way round).
func (f FieldSpec) apply(ref, d int32) (int32, bool) {
	s := int64(ref) + int64(d)
	if f.Wrap {
		n := int64(f.Steps())
		if d > int32(n/2) || d < -int32((n-1)/2) {
			return 0, false // not the short way: not canonical
		}
		s = ((s % n) + n) % n
		return int32(s), true
	}
	if s < 0 || s > int64(f.Steps()) {
		return 0, false
	}
	return int32(s), true
}

// The field mask is one byte.
var _ [8 - MaxFields]struct{}

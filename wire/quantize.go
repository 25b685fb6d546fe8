package wire

import (
	"fmt"
	"math"
	"slices"
)

// Quantizer turns world-unit values into the integer steps the wire carries
// and back. Positions and velocities are rounded to the nearest multiple of
// their step (error at most half a step), rotations are packed with the
// smallest-three scheme at RotBits bits per component. Server and client
// must use the same Quantizer. The zero value of each field means its
// default: 1/256 unit, 1/256 unit per second, 10 bits.
type Quantizer struct {
	// PosStep is the size of one position step in world units (default
	// 1/256). Positions must stay within ±2^31 steps (±8 million units at
	// the default).
	PosStep float32
	// VelStep is the size of one velocity step in world units per second
	// (default 1/256).
	VelStep float32
	// RotBits is the number of bits per smallest-three component, 4..20
	// (default 10: 2+3·10 = 32 bits, 4 bytes per rotation, at most 0.37°
	// of error; each further bit halves it).
	RotBits int
	// Fields declares the game's custom field values, at most [MaxFields]:
	// Entity.Fields[i] is quantised by Fields[i]. None by default.
	Fields []FieldSpec
}

// DefaultQuantizer returns the quantizer with every default filled in.
func DefaultQuantizer() Quantizer {
	q, _ := Quantizer{}.normalize()
	return q
}

// Validate reports whether the fields are in range (zero meaning the
// default), wrapping [ErrConfig].
func (q Quantizer) Validate() error {
	_, err := q.fill()
	return err
}

// normalize returns q with its defaults filled in and its fields' steps
// worked out (see withSteps), or an error naming the first field out of
// range: for the quantizer a Config holds, which its encoder, decoder and
// session use for every record.
func (q Quantizer) normalize() (Quantizer, error) {
	q, err := q.fill()
	if err != nil {
		return q, err
	}
	return q.withSteps(), nil
}

// fill returns q with its defaults filled in, or an error naming the
// first field out of range; it keeps the game's Fields slice and
// allocates nothing.
func (q Quantizer) fill() (Quantizer, error) {
	if q.PosStep == 0 {
		q.PosStep = DefaultPosStep
	}
	if q.VelStep == 0 {
		q.VelStep = DefaultVelStep
	}
	if q.RotBits == 0 {
		q.RotBits = DefaultRotBits
	}
	for _, s := range [...]struct {
		name string
		v    float32
	}{{"PosStep", q.PosStep}, {"VelStep", q.VelStep}} {
		if !(s.v >= 1e-9 && s.v <= 1e9) {
			return q, fmt.Errorf("%w: Quantizer.%s = %v, want a step in [1e-9, 1e9]", ErrConfig, s.name, s.v)
		}
	}
	if q.RotBits < 4 || q.RotBits > 20 {
		return q, fmt.Errorf("%w: Quantizer.RotBits = %d, want 4..20", ErrConfig, q.RotBits)
	}
	if len(q.Fields) > MaxFields {
		return q, fmt.Errorf("%w: %d Quantizer.Fields, want at most %d", ErrConfig, len(q.Fields), MaxFields)
	}
	for i, f := range q.Fields {
		if err := f.validate(i); err != nil {
			return q, err
		}
	}
	return q, nil
}

// withSteps returns q, valid, with a copy of its fields whose steps are
// worked out once (the game's slice is its own).
func (q Quantizer) withSteps() Quantizer {
	if !slices.ContainsFunc(q.Fields, func(f FieldSpec) bool { return f.n == 0 }) {
		return q
	}
	fields := make([]FieldSpec, len(q.Fields))
	for i, f := range q.Fields {
		fields[i] = f.cached()
	}
	q.Fields = fields
	return q
}

// mustNorm returns q normalised, or the defaults where q is invalid; the
// conversion methods use it so that they never fail on configuration.
func (q Quantizer) mustNorm() Quantizer {
	if q.PosStep >= 1e-9 && q.PosStep <= 1e9 && q.VelStep >= 1e-9 && q.VelStep <= 1e9 && q.RotBits >= 4 && q.RotBits <= 20 && fieldsValid(q.Fields) {
		return q // normalised already: what every call but the first sees
	}
	n, err := q.fill()
	if err == nil {
		return n
	}
	if !fieldsValid(q.Fields) { // keep the valid steps, drop the fields
		q.Fields = nil
		if n, err = q.fill(); err == nil {
			return n
		}
	}
	return DefaultQuantizer()
}

// fieldsValid reports whether fields fit a record and each is usable:
// the conversions index records by them and divide by their steps.
func fieldsValid(fields []FieldSpec) bool {
	if len(fields) > MaxFields {
		return false
	}
	for i := range fields {
		if fields[i].n == 0 && fields[i].validate(i) != nil {
			return false // not normalised, and not valid
		}
	}
	return true
}

// steps quantises one value to the nearest multiple of step, reporting
// false for a non-finite value or one beyond ±2^31 steps.
func steps(v, step float32) (int32, bool) {
	x := float64(v) / float64(step)
	// math.Round(x) is within int32 exactly when x lies in this open
	// interval (false for NaN too). Inside it, x less its integer part is
	// exact, and rounding half away from zero adds one toward the sign
	// when that fraction reaches a half: a server quantises every
	// coordinate of its world every tick, and math.Round, a call that
	// takes the float apart bit by bit, cost more.
	if !(x > math.MinInt32-0.5 && x < math.MaxInt32+0.5) {
		return 0, false
	}
	i := int64(x) // toward zero
	d := x - float64(i)
	// Flags rather than branches: the fraction of a moving entity's
	// coordinate is as likely below a half as above.
	up, down := int64(0), int64(0)
	if d >= 0.5 {
		up = 1
	}
	if d <= -0.5 {
		down = 1
	}
	return int32(i + up - down), true
}

// rangeErr is the error of a value steps refused: field i of axisNames.
func rangeErr(netID uint32, vel, i int, v, step float32) error {
	return fmt.Errorf("%w: NetID %d %s = %v is not finite or beyond ±2^31 steps of %v", ErrRange, netID, axisNames[vel][i], v, step)
}

var axisNames = [2][3]string{{"Pos.X", "Pos.Y", "Pos.Z"}, {"Vel.X", "Vel.Y", "Vel.Z"}}

// Record quantises e. Events in e.Flags (Spawn, Despawn, Teleport) are not
// part of a record and are dropped; the velocity is quantised only with
// HasVelocity (otherwise it is zero). It fails with [ErrRange] for a
// non-finite or too distant position or velocity, a non-finite rotation,
// or a custom field value its [FieldSpec] refuses, and with [ErrConfig]
// when q's Fields are not valid (more than [MaxFields], or one a
// [Quantizer.Validate] refuses).
func (q Quantizer) Record(e Entity) (Record, error) {
	var r Record
	err := q.RecordTo(&r, &e)
	return r, err
}

// RecordTo is [Quantizer.Record] writing into *r, which it leaves
// unchanged on error: a server quantising its whole world every tick
// writes each record in place, without copying entities and records
// through the stack.
func (q *Quantizer) RecordTo(r *Record, e *Entity) error {
	if q.normal() {
		return q.recordTo(r, e)
	}
	n := q.mustNorm()
	if len(n.Fields) != len(q.Fields) { // invalid fields, dropped
		return fmt.Errorf("NetID %d: %w", e.NetID, q.Validate())
	}
	return n.recordTo(r, e)
}

// normal reports, without copying q, whether q is normalised with its
// fields' steps worked out: the quantizer of a Config, which a server
// uses for every entity of every tick.
func (q *Quantizer) normal() bool {
	if !(q.PosStep >= 1e-9 && q.PosStep <= 1e9 && q.VelStep >= 1e-9 && q.VelStep <= 1e9 && q.RotBits >= 4 && q.RotBits <= 20 && len(q.Fields) <= MaxFields) {
		return false
	}
	for i := range q.Fields {
		if q.Fields[i].n == 0 {
			return false
		}
	}
	return true
}

// recordTo is RecordTo with q normalised (or with valid fields).
func (q *Quantizer) recordTo(r *Record, e *Entity) error {
	var out Record
	out.NetID, out.State, out.Epoch, out.Flags = e.NetID, e.State, e.Epoch, e.Flags&HasVelocity
	// The axes written out: a server quantises every entity every tick.
	var okX, okY, okZ bool
	out.Pos[0], okX = steps(e.Pos[0], q.PosStep)
	out.Pos[1], okY = steps(e.Pos[1], q.PosStep)
	out.Pos[2], okZ = steps(e.Pos[2], q.PosStep)
	if !(okX && okY && okZ) {
		i := 2 // the first axis refused
		switch {
		case !okX:
			i = 0
		case !okY:
			i = 1
		}
		return rangeErr(e.NetID, 0, i, e.Pos[i], q.PosStep)
	}
	var ok bool
	if out.Flags&HasVelocity != 0 {
		for i := range 3 {
			if out.Vel[i], ok = steps(e.Vel[i], q.VelStep); !ok {
				return rangeErr(e.NetID, 1, i, e.Vel[i], q.VelStep)
			}
		}
	}
	var err error
	if zeroRotation(&e.Rot) {
		out.Rot = identityBits(q.RotBits)
	} else if out.Rot, err = q.packAny(&e.Rot); err != nil {
		return fmt.Errorf("NetID %d: %w", e.NetID, err)
	}
	for i := range q.Fields {
		if out.Fields[i], err = q.Fields[i].Quantize(e.Fields[i]); err != nil {
			return fmt.Errorf("NetID %d Fields[%d]: %w", e.NetID, i, err)
		}
	}
	*r = out
	return nil
}

// Entity converts r back to world units. Flags keeps HasVelocity; a packed
// rotation that is not valid for this quantizer gives the identity.
func (q Quantizer) Entity(r Record) Entity {
	q = q.mustNorm()
	if q.checkRotation(r.Rot) != nil {
		r.Rot = q.identity()
	}
	return q.entity(&r)
}

// entity converts r, whose rotation is valid, with q normalised.
func (q *Quantizer) entity(r *Record) Entity {
	e := Entity{NetID: r.NetID, State: r.State, Epoch: r.Epoch, Flags: r.Flags & HasVelocity}
	ps, vs := float64(q.PosStep), float64(q.VelStep)
	for i := range 3 {
		e.Pos[i] = float32(float64(r.Pos[i]) * ps)
		e.Vel[i] = float32(float64(r.Vel[i]) * vs)
	}
	e.Rot = q.unpack(r.Rot)
	for i, f := range q.Fields {
		e.Fields[i] = f.Value(r.Fields[i])
	}
	return e
}

// Zero returns the record an entity is delta-encoded against when the
// baseline does not hold it: position and velocity zero, identity rotation,
// state and epoch zero, no velocity, custom fields at step 0 (their Min).
// Fields equal to these are omitted from full records too.
func (q Quantizer) Zero(netID uint32) Record {
	return Record{NetID: netID, Rot: q.mustNorm().identity()}
}

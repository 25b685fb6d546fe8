package systems

import (
	"fmt"
	"math"

	"github.com/mlange-42/arche/ecs"
	"github.com/netsmooth/netsmooth/blend"
	c "github.com/netsmooth/netsmooth/components"
)

// Vec is the constraint of a vector field's component: an array of 2 to 4
// float32 (a colour, a 2D offset), carried in as many consecutive field
// values.
type Vec interface {
	~[2]float32 | ~[3]float32 | ~[4]float32
}

// VecFieldConfig declares a vector custom field: the component type T a
// game reads (type Tint [4]float32), the wire field values that carry it,
// and how it is drawn.
type VecFieldConfig[T Vec] struct {
	// Index is the position of T's first component in FieldMessage.Values;
	// the others follow (Index+len(T) <= MaxFields).
	Index int
	// Blend is Linear (per component), Discrete or Func; a vector has no
	// Angle.
	Blend FieldBlend
	// Min and Max bound every component: a message with one outside, or
	// not finite, is refused and counted. Both zero: any finite value.
	Min, Max float32
	// Func blends two samples' values at factor t in [0, 1], for Blend
	// Func; called once per entity per frame, it must not allocate.
	Func func(a, b T, t float32) T
	// Extrapolate makes a Linear field follow the pipeline's extrapolation
	// policy past the newest sample, along the slope of its last two
	// values, each component stopping at Min or Max when Min < Max;
	// otherwise it holds.
	Extrapolate bool
}

// Validate reports whether the configuration is usable.
func (cfg *VecFieldConfig[T]) Validate() error {
	var zero T
	finite := func(v float32) bool { return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) }
	switch {
	case cfg.Index < 0 || cfg.Index+len(zero) > MaxFields:
		return fmt.Errorf("systems: VecFieldConfig.Index = %d for %d components, want Index+%d <= %d", cfg.Index, len(zero), len(zero), MaxFields)
	case cfg.Blend != Linear && cfg.Blend != Discrete && cfg.Blend != Func:
		return fmt.Errorf("systems: VecFieldConfig.Blend = %v, want linear, discrete or func", cfg.Blend)
	case cfg.Blend == Func && cfg.Func == nil:
		return fmt.Errorf("systems: VecFieldConfig.Blend is Func but Func is nil")
	case !finite(cfg.Min) || !finite(cfg.Max) || cfg.Min > cfg.Max:
		return fmt.Errorf("systems: VecFieldConfig range [%v, %v], want finite Min <= Max", cfg.Min, cfg.Max)
	}
	return nil
}

// VecField is [Field] for a vector component T: it buffers each entity's
// values in a [c.FieldRing] of T and draws T on the render time and
// between the samples the entity's position used this frame.
type VecField[T Vec] struct {
	cfg    VecFieldConfig[T]
	interp *Interpolate
	inbox  *FieldInbox

	fieldWorld
}

// NewVecField returns the VecField system of cfg (see [NewField]).
func NewVecField[T Vec](cfg VecFieldConfig[T], inbox *FieldInbox, interp *Interpolate) (*VecField[T], error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if inbox == nil {
		return nil, fmt.Errorf("systems: NewVecField needs the FieldInbox")
	}
	return &VecField[T]{cfg: cfg, interp: interp, inbox: inbox}, nil
}

// Config returns the field's configuration.
func (s *VecField[T]) Config() VecFieldConfig[T] { return s.cfg }

// Initialize implements the arche-model System interface.
func (s *VecField[T]) Initialize(w *ecs.World) {
	s.attach(w, ecs.ComponentID[c.FieldRing[T]](w), ecs.ComponentID[T](w))
}

// Finalize implements the arche-model System interface.
func (s *VecField[T]) Finalize(w *ecs.World) {
	s.detach(w)
}

// Update implements the arche-model System interface.
func (s *VecField[T]) Update(w *ecs.World) {
	s.store(w)
	s.drawAll(w)
}

// store buffers this frame's values (see Field.store).
func (s *VecField[T]) store(w *ecs.World) {
	msgs := s.inbox.frame
	later := s.later[:0]
	for i := range msgs {
		fe := &msgs[i]
		if !w.Has(fe.e, s.ringID) {
			later = append(later, int32(i))
			continue
		}
		s.put(w, fe.e, &fe.m)
	}
	for _, i := range later {
		fe := &msgs[i]
		if !w.Has(fe.e, s.ringID) {
			addFieldComponents(w, fe.e, s.ringID, s.valID)
		}
		s.put(w, fe.e, &fe.m)
	}
	s.later = later[:0]
}

// put buffers msg's value of the field, or refuses and counts it.
func (s *VecField[T]) put(w *ecs.World, e ecs.Entity, msg *FieldMessage) {
	var v T
	for k := 0; k < len(v); k++ {
		x := msg.Values[s.cfg.Index+k]
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			s.metrics.FieldsRejected[RejectNonFinite]++
			return
		}
		if s.cfg.Min < s.cfg.Max && !(x >= s.cfg.Min && x <= s.cfg.Max) {
			s.metrics.FieldsRejected[RejectInvalid]++
			return
		}
		v[k] = x
	}
	if (*c.FieldRing[T])(w.Get(e, s.ringID)).Put(msg.Tick, v) {
		s.metrics.FieldsAccepted++
	} else {
		s.metrics.FieldsRejected[RejectStale]++
	}
}

// drawAll draws T for every remote entity with the field (see
// Field.drawAll).
func (s *VecField[T]) drawAll(w *ecs.World) {
	base := s.clock.RenderTick()
	complete, rate := s.clock.Complete(), s.clock.TickRate()
	extrapolate := s.interp != nil && s.cfg.Extrapolate && s.cfg.Blend == Linear
	var policy blend.Extrapolation
	var limit float32
	if extrapolate {
		policy, limit = s.interp.cfg.Extrapolation, float32(s.interp.cfg.ExtrapolationLimit)
	}
	q := w.Query(&s.cached)
	for q.Next() {
		span := (*c.Span)(q.Get(s.spanID))
		ring := (*c.FieldRing[T])(q.Get(s.ringID))
		out := (*T)(q.Get(s.valID))
		if span.Mode == c.SpanEmpty || ring.Len() == 0 {
			continue
		}
		rt := base - float64(span.Lag)
		if span.Mode == c.SpanLerp {
			a, b, ok := ring.Cached(span.From, span.To)
			if !ok {
				i, j := ring.Bracket(span.From, span.To)
				_, a = ring.At(max(i, 0))
				b = a
				if j > i && s.cfg.Blend != Discrete {
					_, b = ring.At(j)
				}
				ring.Cache(span.From, span.To, a, b)
			}
			t := float32(min(max((rt-float64(span.From))*float64(span.Inv), 0), 1))
			switch {
			case a == b:
				*out = a
			case s.cfg.Blend == Func:
				*out = s.cfg.Func(a, b, t)
			default:
				*out = lerpVec(a, b, t)
			}
			continue
		}
		i, _ := ring.Bracket(span.From, span.From)
		i = max(i, 0)
		t0, a := ring.At(i)
		*out = a
		if span.Mode != c.SpanPast || !extrapolate || i == 0 || complete > span.From {
			continue
		}
		travel := policy.Travel(float32((rt-float64(span.From))/rate), limit)
		if travel == 0 {
			continue
		}
		tp, p := ring.At(i - 1)
		k := float64(travel) * rate / float64(t0-tp)
		v := a
		for n := 0; n < len(v); n++ {
			x := float64(a[n]) + (float64(a[n])-float64(p[n]))*k
			if !(x >= -math.MaxFloat32 && x <= math.MaxFloat32) {
				v = a // a slope the float cannot follow: hold
				break
			}
			if s.cfg.Min < s.cfg.Max { // never a value the field refuses
				x = min(max(x, float64(s.cfg.Min)), float64(s.cfg.Max))
			}
			v[n] = float32(x)
		}
		*out = v
	}
}

// lerpVec blends a and b per component, in float64 (see fieldDraw.blend).
func lerpVec[T Vec](a, b T, t float32) T {
	var out T
	for n := 0; n < len(a); n++ {
		out[n] = float32(float64(a[n]) + (float64(b[n])-float64(a[n]))*float64(t))
	}
	return out
}

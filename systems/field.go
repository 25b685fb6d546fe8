package systems

import (
	"fmt"
	"math"
	"sync"

	"github.com/mlange-42/arche/ecs"
	"github.com/netsmooth/netsmooth/blend"
	c "github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/timeline"
)

// MaxFields is the number of custom field values a [FieldMessage] carries:
// the wire's MaxFields.
const MaxFields = 4

// FieldMessage is what a transport pushes into the [FieldInbox]: the
// custom field values of one remote entity at one server tick, in the
// order the server declares them (wire.Quantizer.Fields). A transport
// pushes one for every snapshot Message of an entity whose game declares
// fields; the [Field] systems buffer each value with the entity's samples.
type FieldMessage struct {
	// NetID is the server's identity of the entity.
	NetID c.NetID
	// Tick is the server tick the values belong to.
	Tick uint32
	// Values are the field values; those beyond the fields declared are
	// ignored.
	Values [MaxFields]float32
}

// fieldRetainFrames is how many frames a field message waits for its
// entity: a transport pushes the entity's snapshot and its fields one
// after the other, and a frame may drain the first but not the second.
const fieldRetainFrames = 3

// FieldInbox is where transports put custom field values for the client,
// from any goroutine, like the [Inbox] of positions: bounded (what does
// not fit is dropped and counted as Metrics.FieldsRejected[RejectInboxFull])
// and allocation-free in steady state. The [FieldReceive] system drains it
// once per frame; the [Field] systems read what it drained.
type FieldInbox struct {
	mu       sync.Mutex
	pending  []FieldMessage
	capacity int
	dropped  uint64

	// frame is this frame's messages whose entity exists, with the
	// entity, for the Field systems; wait holds those whose entity does
	// not yet, with their age in frames.
	frame       []fieldEntry
	spare       []FieldMessage
	wait, wait2 []waitingField
}

// fieldEntry is a message of the frame and its entity.
type fieldEntry struct {
	e ecs.Entity
	m FieldMessage
}

type waitingField struct {
	m   FieldMessage
	age uint8
}

// NewFieldInbox returns a field inbox that holds at most capacity messages
// between frames; capacity <= 0 means [DefaultInboxCapacity].
func NewFieldInbox(capacity int) *FieldInbox {
	if capacity <= 0 {
		capacity = DefaultInboxCapacity
	}
	return &FieldInbox{capacity: capacity}
}

// PushBatch queues ms for the next frame under one lock and returns how
// many were queued; the rest were dropped because the inbox was full.
func (in *FieldInbox) PushBatch(ms []FieldMessage) int {
	in.mu.Lock()
	n := max(min(len(ms), in.capacity-len(in.pending)), 0)
	in.pending = append(in.pending, ms[:n]...)
	in.dropped += uint64(len(ms) - n)
	in.mu.Unlock()
	return n
}

// Push queues m for the next frame; false when the inbox was full and m
// was dropped.
func (in *FieldInbox) Push(m FieldMessage) bool {
	return in.PushBatch([]FieldMessage{m}) == 1
}

// Drain hands every waiting message to the caller and the count of
// messages dropped since the last drain, like [Inbox.Drain]: spare is the
// buffer the inbox keeps for the next pushes. The pipeline's FieldReceive
// drains it; a transport's tests may too.
func (in *FieldInbox) Drain(spare []FieldMessage) (msgs []FieldMessage, dropped uint64) {
	in.mu.Lock()
	msgs, in.pending = in.pending, spare[:0]
	dropped, in.dropped = in.dropped, 0
	in.mu.Unlock()
	return msgs, dropped
}

// Len returns the number of messages waiting to be drained.
func (in *FieldInbox) Len() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.pending)
}

// FieldReceive drains the [FieldInbox] once per frame, after Interpolate:
// it keeps the messages whose entity exists for the frame's [Field]
// systems, and lets those whose entity has not been spawned yet wait a few
// frames for it before they are refused (RejectUnknown). A pipeline adds
// it with its first field (ecs.AddField).
type FieldReceive struct {
	inbox   *FieldInbox
	index   *Index
	metrics *Metrics
	predID  ecs.ID
}

// NewFieldReceive returns the system that drains inbox.
func NewFieldReceive(inbox *FieldInbox) *FieldReceive { return &FieldReceive{inbox: inbox} }

// Initialize implements the arche-model System interface.
func (s *FieldReceive) Initialize(w *ecs.World) {
	s.index = mustResource[Index](w)
	s.metrics = mustResource[Metrics](w)
	s.predID = ecs.ComponentID[c.Predicted](w)
}

// Update implements the arche-model System interface.
func (s *FieldReceive) Update(w *ecs.World) {
	in := s.inbox
	msgs, dropped := in.Drain(in.spare)
	s.metrics.FieldsRejected[RejectInboxFull] += dropped

	frame := in.frame[:0]
	wait := in.wait2[:0]
	for _, wf := range in.wait {
		if e, ok := s.lookup(w, wf.m.NetID); ok {
			frame = s.take(w, frame, e, &wf.m)
		} else if wf.age+1 < fieldRetainFrames {
			wait = append(wait, waitingField{wf.m, wf.age + 1})
		} else {
			s.metrics.FieldsRejected[RejectUnknown]++
		}
	}
	for i := range msgs {
		if msgs[i].NetID == 0 { // names no entity, and none will come for it
			s.metrics.FieldsRejected[RejectNetID]++
		} else if e, ok := s.lookup(w, msgs[i].NetID); ok {
			frame = s.take(w, frame, e, &msgs[i])
		} else {
			wait = append(wait, waitingField{msgs[i], 0})
		}
	}
	in.wait2, in.wait = in.wait[:0], wait
	in.frame = frame
	in.spare = msgs[:0]
}

// take appends m for entity e to the frame's messages, unless e is
// predicted (its fields come with its authoritative state).
func (s *FieldReceive) take(w *ecs.World, frame []fieldEntry, e ecs.Entity, m *FieldMessage) []fieldEntry {
	if w.Has(e, s.predID) {
		s.metrics.FieldsRejected[RejectPredicted]++
		return frame
	}
	return append(frame, fieldEntry{e, *m})
}

// lookup returns the live entity of id.
func (s *FieldReceive) lookup(w *ecs.World, id c.NetID) (ecs.Entity, bool) {
	e, ok := s.index.Lookup(id)
	return e, ok && w.Alive(e)
}

// Finalize implements the arche-model System interface.
func (s *FieldReceive) Finalize(w *ecs.World) {}

// FieldBlend says how a custom field is drawn between two samples.
type FieldBlend uint8

const (
	// Linear blends the two samples' values linearly.
	Linear FieldBlend = iota
	// Angle blends the short way round the period Max-Min, and draws
	// values wrapped into [Min, Max): an aim angle in radians is Min -π,
	// Max π.
	Angle
	// Discrete holds the older sample's value and switches to the newer
	// one at its tick, like the state word: a team, a weapon.
	Discrete
	// Func blends with the game's FieldConfig.Func.
	Func
)

// String returns the blend's name.
func (b FieldBlend) String() string {
	switch b {
	case Linear:
		return "linear"
	case Angle:
		return "angle"
	case Discrete:
		return "discrete"
	case Func:
		return "func"
	}
	return fmt.Sprintf("FieldBlend(%d)", uint8(b))
}

// FieldConfig declares a custom field: the component type T a game reads
// (type Scale float32, type Health float32, type Aim float32), which of
// the wire's field values carries it, and how it is drawn.
type FieldConfig[T ~float32] struct {
	// Index is the position of the field in FieldMessage.Values (the
	// server's wire.Quantizer.Fields), 0..MaxFields-1.
	Index int
	// Blend says how the field is drawn between two samples.
	Blend FieldBlend
	// Min and Max bound the values accepted: one outside [Min, Max], or
	// NaN or infinite, is refused and counted
	// (Metrics.FieldsRejected[RejectInvalid], [RejectNonFinite]). Both zero:
	// any finite value. Angle requires Min < Max, its period.
	Min, Max float32
	// Func blends two samples' values at factor t in [0, 1], for Blend
	// Func. It is called once per entity per frame: it must not allocate.
	Func func(a, b T, t float32) T
	// Extrapolate makes the field follow the pipeline's extrapolation
	// policy past the entity's newest sample, along the slope of its last
	// two values (Linear and Angle only), within [Min, Max] when Min <
	// Max (a Linear field stops at the bound, an Angle wraps); otherwise
	// it holds the newest value, as it always does when the server said
	// the entity was unchanged (a Complete snapshot).
	Extrapolate bool
}

// Validate reports whether the configuration is usable.
func (cfg *FieldConfig[T]) Validate() error {
	finite := func(v float32) bool { return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) }
	switch {
	case cfg.Index < 0 || cfg.Index >= MaxFields:
		return fmt.Errorf("systems: FieldConfig.Index = %d, want 0..%d", cfg.Index, MaxFields-1)
	case cfg.Blend > Func:
		return fmt.Errorf("systems: FieldConfig.Blend = %v, unknown", cfg.Blend)
	case cfg.Blend == Func && cfg.Func == nil:
		return fmt.Errorf("systems: FieldConfig.Blend is Func but Func is nil")
	case !finite(cfg.Min) || !finite(cfg.Max) || cfg.Min > cfg.Max:
		return fmt.Errorf("systems: FieldConfig range [%v, %v], want finite Min <= Max", cfg.Min, cfg.Max)
	case cfg.Blend == Angle && !(cfg.Min < cfg.Max):
		return fmt.Errorf("systems: an Angle field needs Min < Max (its period), got [%v, %v]", cfg.Min, cfg.Max)
	}
	return nil
}

// Field buffers and draws one custom field of the remote entities, as the
// component T: each frame, after Interpolate, it stores the field values
// FieldReceive drained into each entity's [c.FieldRing] of T (adding the
// ring, and T unless the game gave it T, to an entity the first time),
// then draws T for every remote entity at the render time and between the
// samples its [c.Span] used for the position this frame: blended across a
// Lerp span, held across a discontinuity or before the first sample, and
// past the newest sample extrapolated per the pipeline's policy
// (FieldConfig.Extrapolate) or held. A game that declares no field runs
// no Field system, and its entities carry no field component.
type Field[T ~float32] struct {
	cfg    FieldConfig[T]
	interp *Interpolate
	inbox  *FieldInbox

	fieldWorld
}

// fieldWorld is what Field and VecField hold of the world: its
// resources, the IDs of the field's ring, value and the entity's span,
// and the cached filter of the remote, interpolated entities that have
// both.
type fieldWorld struct {
	clock   *timeline.Clock
	metrics *Metrics
	ringID  ecs.ID
	valID   ecs.ID
	spanID  ecs.ID
	cached  ecs.CachedFilter
	later   []int32 // this frame's messages of entities without the ring yet
	ready   bool
}

// attach looks up the world's resources and registers the filter of the
// entities with ring ringID and value valID, once.
func (f *fieldWorld) attach(w *ecs.World, ringID, valID ecs.ID) {
	if f.ready {
		return
	}
	f.clock = mustResource[timeline.Clock](w)
	f.metrics = mustResource[Metrics](w)
	f.ringID, f.valID = ringID, valID
	f.spanID = ecs.ComponentID[c.Span](w)
	filter := ecs.All(f.spanID, f.ringID, f.valID, ecs.ComponentID[c.Remote](w)).Without(ecs.ComponentID[c.Predicted](w))
	f.cached = w.Cache().Register(&filter)
	f.ready = true
}

// detach unregisters the filter attach registered.
func (f *fieldWorld) detach(w *ecs.World) {
	if f.ready {
		w.Cache().Unregister(&f.cached)
		f.ready = false
	}
}

// NewField returns the Field system of cfg, reading what FieldReceive
// drained from inbox; interp is the pipeline's Interpolate, whose
// extrapolation policy and limit it follows (nil: hold).
func NewField[T ~float32](cfg FieldConfig[T], inbox *FieldInbox, interp *Interpolate) (*Field[T], error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if inbox == nil {
		return nil, fmt.Errorf("systems: NewField needs the FieldInbox")
	}
	return &Field[T]{cfg: cfg, interp: interp, inbox: inbox}, nil
}

// Config returns the field's configuration.
func (s *Field[T]) Config() FieldConfig[T] { return s.cfg }

// Initialize implements the arche-model System interface.
func (s *Field[T]) Initialize(w *ecs.World) {
	s.attach(w, ecs.ComponentID[c.FieldRing[T]](w), ecs.ComponentID[T](w))
}

// Finalize implements the arche-model System interface.
func (s *Field[T]) Finalize(w *ecs.World) {
	s.detach(w)
}

// Update implements the arche-model System interface.
func (s *Field[T]) Update(w *ecs.World) {
	s.store(w)
	s.drawAll(w)
}

// check reports why v is refused, or false.
func (s *Field[T]) check(v float32) (RejectReason, bool) {
	if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
		return RejectNonFinite, true
	}
	if s.cfg.Min < s.cfg.Max && !(v >= s.cfg.Min && v <= s.cfg.Max) {
		return RejectInvalid, true
	}
	return 0, false
}

// store buffers this frame's field values of the field's index: into the
// entities' rings, after giving the ring and T to the entities that lack
// them (once per entity: the first frame it has field values).
func (s *Field[T]) store(w *ecs.World) {
	msgs := s.inbox.frame
	if len(msgs) == 0 {
		return
	}
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
		if !w.Has(fe.e, s.ringID) { // an entity named twice is given them once
			addFieldComponents(w, fe.e, s.ringID, s.valID)
		}
		s.put(w, fe.e, &fe.m)
	}
	s.later = later[:0]
}

// addFieldComponents gives e the ring, and T unless the game gave it T
// already (adding a component twice panics in arche).
func addFieldComponents(w *ecs.World, e ecs.Entity, ringID, valID ecs.ID) {
	if w.Has(e, valID) {
		w.Add(e, ringID)
	} else {
		w.Add(e, ringID, valID)
	}
}

// put buffers msg's value of the field, or refuses and counts it.
func (s *Field[T]) put(w *ecs.World, e ecs.Entity, msg *FieldMessage) {
	v := msg.Values[s.cfg.Index]
	if r, bad := s.check(v); bad {
		s.metrics.FieldsRejected[r]++
		return
	}
	if (*c.FieldRing[T])(w.Get(e, s.ringID)).Put(msg.Tick, T(v)) {
		s.metrics.FieldsAccepted++
	} else {
		s.metrics.FieldsRejected[RejectStale]++
	}
}

// drawAll draws T for every remote entity with the field.
func (s *Field[T]) drawAll(w *ecs.World) {
	base := s.clock.RenderTick()
	d := fieldDraw[T]{cfg: &s.cfg, complete: s.clock.Complete(), rate: s.clock.TickRate()}
	if s.interp != nil && s.cfg.Extrapolate && (s.cfg.Blend == Linear || s.cfg.Blend == Angle) {
		d.extrapolate = true
		d.policy, d.limit = s.interp.cfg.Extrapolation, float32(s.interp.cfg.ExtrapolationLimit)
	}
	q := w.Query(&s.cached)
	linear := s.cfg.Blend == Linear
	for q.Next() {
		span := (*c.Span)(q.Get(s.spanID))
		ring := (*c.FieldRing[T])(q.Get(s.ringID))
		out := (*T)(q.Get(s.valID))
		rt := base - float64(span.Lag)
		if linear && span.Mode == c.SpanLerp {
			// The common case, inline: a Linear field across a Lerp span
			// whose values are at hand.
			if a, b, ok := ring.Cached(span.From, span.To); ok {
				t := min(max((rt-float64(span.From))*float64(span.Inv), 0), 1)
				*out = T(float64(a) + (float64(b)-float64(a))*t)
				continue
			}
		}
		d.draw(span, ring, out, rt)
	}
}

// fieldDraw holds a frame's constants for drawing one field.
type fieldDraw[T ~float32] struct {
	cfg         *FieldConfig[T]
	complete    uint32 // the newest tick the server said was complete
	rate        float64
	extrapolate bool
	policy      blend.Extrapolation
	limit       float32
}

// draw writes the field's value at render tick rt for an entity whose
// position span this frame is span.
func (d *fieldDraw[T]) draw(span *c.Span, ring *c.FieldRing[T], out *T, rt float64) {
	switch span.Mode {
	case c.SpanLerp:
		a, b, ok := ring.Cached(span.From, span.To)
		if !ok {
			if ring.Len() == 0 {
				return
			}
			i, j := ring.Bracket(span.From, span.To)
			_, a = ring.At(max(i, 0)) // none as old as the span: the oldest
			b = a
			if j > i && d.cfg.Blend != Discrete {
				_, b = ring.At(j)
			}
			ring.Cache(span.From, span.To, a, b)
		}
		if a == b {
			*out = a
			return
		}
		t := float32((rt - float64(span.From)) * float64(span.Inv))
		*out = d.blend(a, b, min(max(t, 0), 1))
	case c.SpanEmpty:
	default:
		d.hold(span, ring, out, rt)
	}
}

// hold draws a span that holds a sample: Step and Before hold it, Past
// extrapolates from it when the field and the server allow.
func (d *fieldDraw[T]) hold(span *c.Span, ring *c.FieldRing[T], out *T, rt float64) {
	if ring.Len() == 0 {
		return
	}
	i, _ := ring.Bracket(span.From, span.From)
	i = max(i, 0)
	t0, a := ring.At(i)
	*out = a
	if span.Mode != c.SpanPast || !d.extrapolate || i == 0 || d.complete > span.From {
		return
	}
	tp, p := ring.At(i - 1)
	ahead := float32((rt - float64(span.From)) / d.rate)
	travel := d.policy.Travel(ahead, d.limit) // seconds along the slope
	if travel == 0 {
		return
	}
	perTick := float64(d.diff(p, a)) / float64(t0-tp)
	v := float64(a) + perTick*float64(travel)*d.rate
	if !(v >= -math.MaxFloat32 && v <= math.MaxFloat32) {
		return // hold: a slope the float cannot follow
	}
	if d.cfg.Blend == Linear && d.cfg.Min < d.cfg.Max {
		// Past the newest sample as within: never a value the field
		// refuses.
		v = min(max(v, float64(d.cfg.Min)), float64(d.cfg.Max))
	}
	*out = d.wrap(T(v))
}

// diff returns b - a: for an Angle, the short way round.
func (d *fieldDraw[T]) diff(a, b T) float32 {
	x := float32(b - a)
	if d.cfg.Blend == Angle {
		period := float64(d.cfg.Max - d.cfg.Min)
		x = float32(float64(x) - period*math.Round(float64(x)/period))
	}
	return x
}

// wrap returns v wrapped into an Angle's [Min, Max); other values as
// they are.
func (d *fieldDraw[T]) wrap(v T) T {
	if d.cfg.Blend != Angle || (v >= T(d.cfg.Min) && v < T(d.cfg.Max)) {
		return v
	}
	period := float64(d.cfg.Max - d.cfg.Min)
	x := float64(v) - float64(d.cfg.Min)
	return T(float64(d.cfg.Min) + x - period*math.Floor(x/period))
}

// blend returns the value at factor t between a and b.
func (d *fieldDraw[T]) blend(a, b T, t float32) T {
	switch d.cfg.Blend {
	case Angle:
		return d.wrap(a + T(d.diff(a, b)*t))
	case Func:
		return d.cfg.Func(a, b, t)
	}
	// In float64: the difference of two far-apart finite values
	// overflows float32.
	return T(float64(a) + (float64(b)-float64(a))*float64(t))
}

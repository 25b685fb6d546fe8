package systems

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/blend"
	c "github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/timeline"
)

// ReceiveConfig sets up the [Receive] system.
type ReceiveConfig struct {
	// SpawnOnFirstSnapshot creates an entity for a snapshot of an unknown
	// NetID. When false, only Spawn messages create entities and snapshots
	// of unknown ids are rejected (RejectUnknown).
	SpawnOnFirstSnapshot bool
	// MaxEntities bounds the number of remote entities; spawns beyond it are
	// rejected (RejectEntityLimit).
	MaxEntities int
	// MaxFuture is how far, in seconds, a tick may lie ahead of the
	// estimated server time before it is rejected (RejectFuture).
	MaxFuture float64
	// MaxAbs bounds every coordinate of positions and velocities; larger
	// values are rejected (RejectInvalid) so that no later arithmetic can
	// overflow.
	MaxAbs float32
	// DenseIDs and Tombstones size the NetID index (see [NewIndex]).
	DenseIDs, Tombstones int
	// OnSpawn, if set, is called right after a remote entity is created, on
	// the world's goroutine and outside any query, so it may add the game's
	// own components (a sprite, a mesh) to e.
	OnSpawn func(w *ecs.World, e ecs.Entity, id c.NetID)
	// OnDespawn, if set, is called right before a remote entity is removed.
	OnDespawn func(w *ecs.World, e ecs.Entity, id c.NetID)
}

// DefaultReceiveConfig returns the defaults: spawn on first snapshot, up to
// one million entities, ticks at most 0.5 s ahead of the estimated server
// time, coordinates within ±1e9.
func DefaultReceiveConfig() ReceiveConfig {
	return ReceiveConfig{
		SpawnOnFirstSnapshot: true,
		MaxEntities:          1 << 20,
		MaxFuture:            0.5,
		MaxAbs:               1e9,
		DenseIDs:             DefaultDenseIDs,
		Tombstones:           DefaultTombstones,
	}
}

// Validate reports the first setting that is out of range.
func (cfg *ReceiveConfig) Validate() error {
	switch {
	case cfg.MaxEntities <= 0:
		return fmt.Errorf("systems: ReceiveConfig.MaxEntities must be positive, got %d", cfg.MaxEntities)
	case !(cfg.MaxFuture > 0) || math.IsInf(cfg.MaxFuture, 0):
		return fmt.Errorf("systems: ReceiveConfig.MaxFuture must be positive seconds, got %v", cfg.MaxFuture)
	case !(cfg.MaxAbs > 0 && cfg.MaxAbs <= 1e15):
		return fmt.Errorf("systems: ReceiveConfig.MaxAbs must be in (0, 1e15] so that no later arithmetic can overflow, got %v", cfg.MaxAbs)
	case cfg.DenseIDs < 0 || cfg.Tombstones < 0:
		return fmt.Errorf("systems: ReceiveConfig.DenseIDs and Tombstones must not be negative")
	}
	return nil
}

type scheduledDespawn struct {
	id     c.NetID
	entity ecs.Entity
	tick   uint32
}

// Receive is the first system of a frame. It advances the clock by the
// frame's dt, drains the [Inbox], maps NetIDs to entities (spawning on first
// sight or on Spawn), inserts each sample into its entity's ring at its tick
// position, counts every message as accepted or rejected with a reason,
// feeds arrivals to the clock, then advances the render time and removes
// entities whose despawn tick the render time has reached.
type Receive struct {
	cfg ReceiveConfig

	inbox   *Inbox
	index   *Index
	clock   *timeline.Clock
	metrics *Metrics
	frame   *Frame

	cols      columns
	remoteIDs []ecs.ID
	netIDs    generic.Map1[c.NetID]
	renders   generic.Map1[c.Render]

	buf         []Message
	despawns    []scheduledDespawn
	detached    int     // old lives still playing out after a new one took their NetID
	maxFuture   float64 // ticks
	futureLimit float64 // this frame's limit, in ticks
	recount     bool
	ready       bool
}

// NewReceive returns the Receive system for cfg, or the configuration error.
func NewReceive(cfg ReceiveConfig) (*Receive, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Receive{cfg: cfg}, nil
}

// Initialize implements the arche-model System interface. It looks up the
// resources the pipeline added; calling it again is harmless.
func (r *Receive) Initialize(w *ecs.World) {
	if r.ready {
		return
	}
	r.inbox = mustResource[Inbox](w)
	r.index = mustResource[Index](w)
	r.clock = mustResource[timeline.Clock](w)
	r.metrics = mustResource[Metrics](w)
	r.frame = mustResource[Frame](w)
	r.cols = newColumns(w)
	r.remoteIDs = r.cols.remoteIDs(w)
	r.netIDs = generic.NewMap1[c.NetID](w)
	r.renders = generic.NewMap1[c.Render](w)
	r.maxFuture = r.cfg.MaxFuture * r.clock.TickRate()
	r.ready = true
}

// Update implements the arche-model System interface.
func (r *Receive) Update(w *ecs.World) {
	m := r.metrics
	m.Frames++
	m.FrameCorrections, m.FrameTeleports, m.FrameMaxCorrection = 0, 0, 0
	r.clock.BeginFrame(r.frame.Dt)

	// Ticks beyond this are future-dated (none before the clock has synced).
	r.futureLimit = math.Inf(1)
	if r.clock.Synced() {
		r.futureLimit = r.clock.ServerTick() + r.maxFuture
	}
	msgs, dropped := r.inbox.Drain(r.buf)
	m.Rejected[RejectInboxFull] += dropped
	for i := range msgs {
		r.handle(w, &msgs[i])
	}
	r.buf = msgs

	r.clock.Advance()
	m.RenderTick = r.clock.RenderTick()
	m.Delay = r.clock.DelaySeconds()
	m.ActualDelay = r.clock.ActualDelay()
	m.PresentationDelay = r.clock.PresentationDelay()
	m.NewestAge = r.clock.NewestAge()
	m.ClockResets = r.clock.Resets()
	m.ClockHolds = r.clock.Holds()
	m.ClockClamps = r.clock.Clamps()
	r.applyDespawns(w)
	m.Entities = r.index.Remote() + r.detached
	if r.recount {
		r.recountOccupancy(w)
		r.recount = false
	}
}

// recountOccupancy rebuilds the occupancy histogram from the rings. It runs
// only after the game removed remote entities itself (instead of through a
// Despawn message), which the incremental count cannot see.
func (r *Receive) recountOccupancy(w *ecs.World) {
	r.metrics.Occupancy = [c.RingCapacity + 1]int{}
	q := generic.NewFilter1[c.Span]().With(generic.T[c.Remote]()).Query(w)
	for q.Next() {
		r.metrics.Occupancy[q.Get().Ring.Len()]++
	}
}

// renderPassed reports whether the render time has reached the span's first
// sample, so that anything older can no longer be shown.
func renderPassed(s *c.Span) bool {
	return s.Mode == c.SpanLerp || s.Mode == c.SpanStep || s.Mode == c.SpanPast
}

// Finalize implements the arche-model System interface.
func (r *Receive) Finalize(w *ecs.World) {}

// Index returns the NetID index this system maintains.
func (r *Receive) Index() *Index { return r.index }

func (r *Receive) handle(w *ecs.World, msg *Message) {
	m := r.metrics
	if msg.Kind >= numKinds {
		m.reject(RejectInvalid)
		return
	}
	rot := msg.Rot
	if msg.Kind != Despawn {
		if reason := r.check(msg, &rot); reason != accept {
			m.reject(reason)
			return
		}
	}
	entry := r.index.get(msg.NetID)
	if entry.state.alive() && !w.Alive(entry.entity) {
		// The game removed the entity itself: forget it.
		r.index.put(msg.NetID, indexEntry{})
		entry = indexEntry{}
		r.recount = true
	}
	if entry.state == entryPredicted {
		m.reject(RejectPredicted)
		return
	}
	if float64(msg.Tick) > r.futureLimit {
		m.reject(RejectFuture)
		r.clock.RefusedFuture(msg.Tick)
		return
	}
	if msg.Kind == Despawn {
		r.scheduleDespawn(msg, entry)
		return
	}

	replacing := false
	switch {
	case entry.state == entryDead && msg.Tick <= entry.despawnTick,
		entry.state == entryLive && msg.Tick < entry.bornTick:
		m.reject(RejectDespawned) // a late sample of an earlier life
		return
	case entry.state == entryDespawning && msg.Tick > entry.despawnTick:
		// A new life while the old one still plays out its last moments:
		// the old entity leaves the index (its despawn is scheduled by
		// handle) and a new one starts.
		if msg.Kind != Spawn && !r.cfg.SpawnOnFirstSnapshot {
			m.reject(RejectDespawned)
			return
		}
		entry = indexEntry{state: entryDead, despawnTick: entry.despawnTick}
		replacing = true
	}
	spawned := false
	if !entry.state.alive() {
		if msg.Kind != Spawn && !r.cfg.SpawnOnFirstSnapshot {
			m.reject(RejectUnknown)
			return
		}
		if r.index.Remote() >= r.cfg.MaxEntities {
			m.reject(RejectEntityLimit)
			return
		}
		// Samples older than this life's start belong to an earlier one:
		// after a despawn, anything up to its tick; for an explicit Spawn,
		// anything before it. A NetID seen for the first time keeps older,
		// out-of-order samples.
		var born uint32
		switch {
		case msg.Kind == Spawn:
			born = msg.Tick
		case entry.state == entryDead:
			born = entry.despawnTick + 1
		}
		e, alive := r.spawn(w, msg.NetID, born)
		if replacing {
			r.detached++ // the old life left the index, still in the world
		}
		if !alive {
			m.Accepted++ // the game's OnSpawn removed it again; nothing to store
			return
		}
		entry = indexEntry{entity: e, state: entryLive, bornTick: born}
		spawned = true
	}

	e := entry.entity
	span := (*c.Span)(w.GetUnchecked(e, r.cols.span))
	if renderPassed(span) && msg.Tick < span.From {
		m.reject(RejectStale) // the render time has already passed it
		return
	}
	head := &span.Ring
	before := head.Len()
	// A full ring evicts its oldest sample; if the span uses it, rebuild.
	evictsSpan := before == c.RingCapacity && holdsSpan(span) && head.Logical(int(span.ToPhys)) <= 1
	if newest, ok := head.NewestTick(); !ok || msg.Tick > newest {
		// The common case: a sample newer than all others, one slot write.
		if evictsSpan {
			span.Flags |= c.SpanDirty
		}
		phys, evicted := head.Append(msg.Tick)
		fill(r.cols.slot(w, e, phys), msg, &rot, spawned)
		if evicted {
			m.Evicted++
		}
	} else if msg.Tick == newest {
		m.reject(RejectDuplicate)
		return
	} else {
		if evictsSpan {
			span.Flags |= c.SpanDirty
		}
		var sample c.Sample
		fill(&sample, msg, &rot, spawned)
		ring := r.cols.view(w, e, head)
		switch ring.Insert(sample) {
		case c.Duplicate:
			m.reject(RejectDuplicate)
			return
		case c.TooOld:
			m.reject(RejectStale)
			return
		case c.InsertedEvicting:
			m.Evicted++
		}
	}
	m.Accepted++
	m.occupancyMove(before, head.Len())
	switch span.Mode {
	case c.SpanEmpty, c.SpanPast:
		span.Flags |= c.SpanDirty
	case c.SpanBefore:
		if msg.Tick < span.From {
			span.Flags |= c.SpanDirty
		}
	default:
		if msg.Tick < span.To {
			span.Flags |= c.SpanDirty
		}
	}
	r.clock.Observe(msg.Tick)
}

// holdsSpan reports whether the span refers to samples in the ring by slot
// (so that evicting them must rebuild it).
func holdsSpan(s *c.Span) bool {
	return s.Mode == c.SpanLerp || s.Mode == c.SpanStep || s.Mode == c.SpanBefore
}

// accept is check's verdict for a good message (not a reason).
const accept = NumRejectReasons

// check validates a snapshot's numbers and normalises its rotation into rot.
func (r *Receive) check(msg *Message, rot *mgl32.Quat) RejectReason {
	// One comparison per number catches NaN, infinities and out-of-range
	// values at once; only a failing message is examined further.
	lim := r.cfg.MaxAbs
	p, v, q := &msg.Pos, &msg.Vel, &msg.Rot
	if !(abs32(p[0]) <= lim && abs32(p[1]) <= lim && abs32(p[2]) <= lim &&
		abs32(v[0]) <= lim && abs32(v[1]) <= lim && abs32(v[2]) <= lim &&
		abs32(q.W) <= 2 && abs32(q.V[0]) <= 2 && abs32(q.V[1]) <= 2 && abs32(q.V[2]) <= 2) {
		for _, x := range [...]float32{p[0], p[1], p[2], v[0], v[1], v[2], q.W, q.V[0], q.V[1], q.V[2]} {
			if !finite32(x) {
				return RejectNonFinite
			}
		}
		if !(abs32(p[0]) <= lim && abs32(p[1]) <= lim && abs32(p[2]) <= lim &&
			abs32(v[0]) <= lim && abs32(v[1]) <= lim && abs32(v[2]) <= lim) {
			return RejectInvalid
		}
	}
	// Servers send unit quaternions (or none, zero): skip the square root.
	if n := q.W*q.W + q.V[0]*q.V[0] + q.V[1]*q.V[1] + q.V[2]*q.V[2]; n > 0.99999 && n < 1.00001 {
		return accept
	}
	var ok bool
	if *rot, ok = blend.Normalize(*q); !ok {
		return RejectInvalid
	}
	return accept
}

// fill writes msg as a ring sample into s.
func fill(s *c.Sample, msg *Message, rot *mgl32.Quat, spawned bool) {
	s.Tick, s.State, s.Epoch, s.Pos, s.Rot = msg.Tick, msg.State, msg.Epoch, msg.Pos, *rot
	s.Flags = 0
	if msg.HasVelocity {
		s.Vel = msg.Vel
		s.Flags |= c.HasVelocity
	} else {
		s.Vel = mgl32.Vec3{}
	}
	if msg.Kind == Teleport {
		s.Flags |= c.Cut
	}
	if spawned {
		s.Flags |= c.Spawn
	}
}

func (r *Receive) spawn(w *ecs.World, id c.NetID, born uint32) (ecs.Entity, bool) {
	e := w.NewEntity(r.remoteIDs...)
	*r.netIDs.Get(e) = id
	r.renders.Get(e).Rot = mgl32.QuatIdent()
	r.index.put(id, indexEntry{entity: e, state: entryLive, bornTick: born})
	r.metrics.Spawned++
	r.metrics.Occupancy[0]++
	if r.cfg.OnSpawn != nil {
		r.cfg.OnSpawn(w, e, id)
		if !w.Alive(e) {
			r.index.put(id, indexEntry{})
			r.metrics.Occupancy[0]--
			return e, false
		}
	}
	return e, true
}

func (r *Receive) scheduleDespawn(msg *Message, entry indexEntry) {
	m := r.metrics
	switch entry.state {
	case entryLive:
		if msg.Tick < entry.bornTick {
			m.reject(RejectDespawned) // ends an earlier life
			return
		}
		entry.state, entry.despawnTick = entryDespawning, msg.Tick
		r.index.put(msg.NetID, entry)
		r.despawns = append(r.despawns, scheduledDespawn{id: msg.NetID, entity: entry.entity, tick: msg.Tick})
		m.Accepted++
	case entryDespawning, entryDead:
		m.reject(RejectDuplicate)
	default:
		// A despawn overtook its spawn (reordering): remember it, so that the
		// spawn and snapshots of that life, when they come, are refused
		// instead of creating an entity nobody will remove.
		r.index.put(msg.NetID, indexEntry{despawnTick: msg.Tick, state: entryDead})
		m.Accepted++
	}
}

// applyDespawns removes the entities whose despawn tick the render time has
// reached.
func (r *Receive) applyDespawns(w *ecs.World) {
	rt := r.clock.RenderTick()
	kept := r.despawns[:0]
	for _, d := range r.despawns {
		if float64(d.tick) > rt {
			kept = append(kept, d)
			continue
		}
		if w.Alive(d.entity) {
			span := (*c.Span)(w.GetUnchecked(d.entity, r.cols.span))
			r.metrics.Occupancy[span.Ring.Len()]--
			if r.cfg.OnDespawn != nil {
				r.cfg.OnDespawn(w, d.entity, d.id)
			}
			if w.Alive(d.entity) {
				w.RemoveEntity(d.entity)
			}
		} else {
			r.recount = true
		}
		// The index still names this life unless a new one has begun.
		if entry := r.index.get(d.id); entry.state == entryDespawning && entry.entity == d.entity {
			r.index.put(d.id, indexEntry{despawnTick: d.tick, state: entryDead})
		} else {
			r.detached--
		}
		r.metrics.Despawned++
	}
	r.despawns = kept
}

// finite32 reports whether x is neither NaN nor infinite (its exponent bits
// are not all ones).
func finite32(x float32) bool { return math.Float32bits(x)&0x7f800000 != 0x7f800000 }

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

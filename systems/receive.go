package systems

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	c "github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/internal/sampling"
	"github.com/netsmooth/netsmooth/timeline"
)

// ReceiveConfig sets up the [Receive] system. A zero field means its
// default (see [DefaultReceiveConfig]).
type ReceiveConfig struct {
	// RequireSpawn makes only Spawn messages create entities: a snapshot of
	// an unknown NetID is refused (RejectUnknown). By default the first
	// snapshot of an unknown NetID creates its entity.
	RequireSpawn bool
	// MaxEntities bounds the number of remote entities alive in the world,
	// old lives still waiting for their despawn tick included; spawns
	// beyond it are rejected (RejectEntityLimit). Each remote entity takes
	// about 1.4 KB of heap (components and index), so the default,
	// DefaultMaxEntities (262144), bounds a flood of new NetIDs at about
	// 370 MB.
	MaxEntities int
	// MaxFuture is how far, in seconds, a tick may lie ahead of the
	// estimated server time before it is stored; 0.5 by default. A
	// message up to twice as far ahead is held for later frames (a client
	// whose clock fell behind the server's catches up, and the despawns
	// it refused would otherwise be lost: the server counts their ticks
	// acknowledged); it is rejected (RejectFuture) if still ahead after
	// 2 seconds of frames, or when 8192 messages are held already
	// (Metrics.HeldFuture). One further ahead is rejected at once.
	MaxFuture float64
	// MaxAbs bounds every coordinate of positions and velocities; larger
	// values are rejected (RejectInvalid) so that no later arithmetic can
	// overflow. 1e9 by default.
	MaxAbs float32
	// DenseIDs and Tombstones size the NetID index (see [NewIndex]):
	// NetIDs below DenseIDs are found in a direct table (DefaultDenseIDs
	// by default, none if negative), and Tombstones despawned NetIDs
	// beyond it are remembered (DefaultTombstones by default).
	DenseIDs, Tombstones int
	// OnSpawn, if set, is called right after a remote entity is created, on
	// the world's goroutine and outside any query, so it may add the game's
	// own components (a sprite, a mesh) to e. With Workers > 1 it is called
	// after the frame's snapshots of the entities already known were stored
	// (on every goroutine): it must then not remove or change other remote
	// entities, whose later snapshots of the frame may already be stored,
	// and it may see their samples from later in the frame than the spawn.
	OnSpawn func(w *ecs.World, e ecs.Entity, id c.NetID)
	// OnDespawn, if set, is called right before a remote entity is removed
	// by the [Retire] system, on the world's goroutine and outside any
	// query.
	OnDespawn func(w *ecs.World, e ecs.Entity, id c.NetID)
	// Workers, when above 1, stores a frame's snapshots on that many
	// goroutines at once: the world's goroutine and worker goroutines
	// Receive starts (and Finalize stops), each storing the messages of a
	// share of the NetIDs. What is stored, counted and told to the clock is
	// identical to a single goroutine's (unless OnSpawn changes other
	// remote entities: see OnSpawn). Storing is bound by the memory it
	// streams, so whether it gains depends on the machine (DESIGN.md,
	// "Receive on several cores"); measure before setting it. A frame
	// with fewer than ParallelMin messages stays on one goroutine. Zero or
	// 1: the world's goroutine alone (the default).
	Workers int
	// ParallelMin is the message count per frame from which Workers apply
	// (DefaultReceiveParallelMin by default).
	ParallelMin int
}

// DefaultMaxEntities is the default bound on remote entities.
const DefaultMaxEntities = 1 << 18

// DefaultReceiveConfig returns the defaults a zero ReceiveConfig stands
// for: spawn on first snapshot, up to 262144 remote entities, ticks at
// most 0.5 s ahead of the estimated server time, coordinates within ±1e9,
// the index's default sizes, one goroutine.
func DefaultReceiveConfig() ReceiveConfig {
	return ReceiveConfig{
		MaxEntities: DefaultMaxEntities,
		MaxFuture:   0.5,
		MaxAbs:      1e9,
		DenseIDs:    DefaultDenseIDs,
		Tombstones:  DefaultTombstones,
		ParallelMin: DefaultReceiveParallelMin,
	}
}

// WithDefaults returns cfg with every zero field set to its default.
func (cfg ReceiveConfig) WithDefaults() ReceiveConfig {
	d := DefaultReceiveConfig()
	cfg.MaxEntities = or(cfg.MaxEntities, d.MaxEntities)
	cfg.MaxFuture = or(cfg.MaxFuture, d.MaxFuture)
	cfg.MaxAbs = or(cfg.MaxAbs, d.MaxAbs)
	cfg.DenseIDs = or(cfg.DenseIDs, d.DenseIDs)
	cfg.Tombstones = or(cfg.Tombstones, d.Tombstones)
	cfg.ParallelMin = or(cfg.ParallelMin, d.ParallelMin)
	return cfg
}

// or returns v, or def if v is zero.
func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Validate reports the first setting that is out of range, its defaults
// filled in first.
func (cfg *ReceiveConfig) Validate() error {
	d := cfg.WithDefaults()
	switch {
	case d.MaxEntities < 0:
		return fmt.Errorf("systems: ReceiveConfig.MaxEntities must be positive, got %d: leave it zero for %d", cfg.MaxEntities, DefaultMaxEntities)
	case !(d.MaxFuture > 0) || math.IsInf(d.MaxFuture, 0):
		return fmt.Errorf("systems: ReceiveConfig.MaxFuture must be positive seconds, got %v: leave it zero for 0.5", cfg.MaxFuture)
	case !(d.MaxAbs > 0 && d.MaxAbs <= 1e15):
		return fmt.Errorf("systems: ReceiveConfig.MaxAbs must be in (0, 1e15] so that no later arithmetic can overflow, got %v: leave it zero for 1e9", cfg.MaxAbs)
	case d.Tombstones < 0:
		return fmt.Errorf("systems: ReceiveConfig.Tombstones must not be negative, got %d: leave it zero for %d", cfg.Tombstones, DefaultTombstones)
	case d.Workers < 0 || d.Workers > MaxWorkers:
		return fmt.Errorf("systems: ReceiveConfig.Workers must be in [0, %d], got %d", MaxWorkers, cfg.Workers)
	case d.ParallelMin < 0:
		return fmt.Errorf("systems: ReceiveConfig.ParallelMin must not be negative, got %d: leave it zero for %d", cfg.ParallelMin, DefaultReceiveParallelMin)
	}
	return nil
}

// Receive is the first system of a frame. It drains the [Inbox], maps
// NetIDs to entities (spawning on first sight or on Spawn), inserts each
// sample into its entity's ring at its tick position, schedules despawns
// (carried out by the [Retire] system at their tick), counts every message
// as accepted or rejected with a reason, and records the frame's arrivals
// for the [Timeline] that follows it.
type Receive struct {
	cfg ReceiveConfig

	inbox    *Inbox
	index    *Index
	clock    *timeline.Clock
	metrics  *Metrics
	frame    *Frame
	arrivals *arrivalLog

	cols      columns
	spans     *generic.Filter1[c.Span] // every remote entity's span, built once
	spare     indexEntry               // where the shortcut reads an entry of the sparse index
	alone     storing                  // the world goroutine's storing (see appendNewest)
	remoteIDs []ecs.ID
	netIDs    generic.Map1[c.NetID]
	renders   generic.Map1[c.Render]

	buf          []Message
	peak         int // the most messages drained in one frame of this window
	lastPeak     int // the same for the window before
	window       int // frames into this window
	despawns     *despawnSchedule
	maxFuture    float64 // ticks
	futureLimit  float64 // this frame's limit, in ticks
	hold         futureHold
	recount      bool
	generation   uint64  // the clock's timeline the buffered ticks belong to
	waitPhase    uint32  // messages drained before this frame, for sampling waits
	at           int     // index in this frame's messages of the one handle takes
	serverBefore float64 // the estimated server tick of the frame before
	interval     float64 // the stream's send interval, ticks
	synced       bool    // whether the clock has synced
	bound        uint64  // MaxAbs as plainNumbers takes it
	ready        bool
	par          parallelReceive
}

// NewReceive returns the Receive system for cfg, or the configuration error.
func NewReceive(cfg ReceiveConfig) (*Receive, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Receive{cfg: cfg.WithDefaults()}, nil
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
	r.arrivals = sharedResource[arrivalLog](w)
	r.despawns = sharedResource[despawnSchedule](w)
	r.cols = newColumns(w)
	r.spans = generic.NewFilter1[c.Span]().With(generic.T[c.Remote]())
	r.remoteIDs = r.cols.remoteIDs(w)
	r.netIDs = generic.NewMap1[c.NetID](w)
	r.renders = generic.NewMap1[c.Render](w)
	r.maxFuture = r.cfg.MaxFuture * r.clock.TickRate()
	r.bound = pairBound(r.cfg.MaxAbs)
	r.ready = true
}

// Update implements the arche-model System interface.
func (r *Receive) Update(w *ecs.World) {
	msgs := r.begin(w)
	if r.cfg.Workers > 1 && len(msgs) >= r.cfg.ParallelMin {
		r.storeShared(w, msgs)
	} else {
		r.storeAlone(w, msgs)
	}
	r.end(w, msgs)
}

// begin starts a frame: it forgets what lies beyond a new timeline, sets
// the frame's limits, and drains the inbox.
func (r *Receive) begin(w *ecs.World) []Message {
	if g := r.clock.Generation(); g != r.generation {
		r.generation = g
		r.forgetBeyond(w, r.clock.ServerTick()+r.maxFuture)
	}
	// Ticks beyond this are future-dated (none before the clock has
	// synced). The clock is still at the previous frame: add this one.
	r.futureLimit = math.Inf(1)
	r.serverBefore, r.interval = r.clock.ServerTick(), max(r.clock.Stats().Interval, 1)
	if r.synced = r.clock.Synced(); r.synced {
		r.futureLimit = r.serverBefore + r.frame.Dt*r.clock.TickRate() + r.maxFuture
	}
	msgs, dropped := r.inbox.Drain(r.buf)
	r.metrics.Rejected[RejectInboxFull] += dropped
	r.alone.reset(r.alone.complete, r.sampledResidue())
	r.retryHeld(w)
	return msgs
}

// end finishes a frame whose messages were msgs: the counts published,
// the drain buffer kept (or trimmed after a flood).
func (r *Receive) end(w *ecs.World, msgs []Message) {
	m := r.metrics
	r.alone.publish(m, r.arrivals)
	r.buf = msgs
	r.waitPhase += uint32(len(msgs))
	r.trimBuffer(len(msgs))
	m.Entities = r.index.Remote() + r.despawns.detached
	m.HeldFuture = len(r.hold.msgs)
	if r.recount {
		recountOccupancy(w, m)
		r.recount = false
	}
}

// storeAlone applies msgs in order on the world's goroutine, and returns
// how many of them the shortcut stored.
func (r *Receive) storeAlone(w *ecs.World, msgs []Message) (shortcut int) {
	// Most messages take the shortcut, a run of them at a time; the first
	// it declines goes through the general path, and the shortcut takes
	// up again after it. Its messages are told to the arrival log a run of equal
	// ticks at a time (as Observed would merge them).
	var run arrivalRun
	for i := 0; i < len(msgs); i++ {
		j := r.shortcut(w, msgs, i, &run)
		if shortcut += j - i; j == len(msgs) {
			break
		}
		i = j
		r.arrivals.observedRun(run) // in order with what handleAt reports
		run = arrivalRun{}
		r.handleAt(w, msgs, i)
	}
	r.arrivals.observedRun(run)
	return shortcut
}

// handleAt applies msgs[i] through the general path and tells the arrival log
// what it says about the server's clock.
func (r *Receive) handleAt(w *ecs.World, msgs []Message, i int) {
	msg := &msgs[i]
	r.at = i
	if out := r.handle(w, msg); out != notEvidence {
		// A well-formed message tells where the server's clock is,
		// whether or not its sample could be used.
		r.arrivals.observed(msg.Tick, out == fresh)
	}
}

// shortcut stores msgs[i:] as handle would, one after another, as long
// as each is one that plainNumbers and appendable pass for a live entity:
// the common case. It stores them as handle does, through appendNewest. It returns the
// index of the first message it declines, having changed nothing for it,
// or len(msgs), and sets *run to the run of equal ticks it was storing
// when it stopped (n 0 if none), having told the arrival log those before it;
// the caller tells the arrival log that one, in order with what it handles next.
// It saves the general path's steps for such a message (the kind, the
// checks that might repair the numbers, the index entry's lifecycle);
// FuzzCommonPath checks that it stores what handle would.
func (r *Receive) shortcut(w *ecs.World, msgs []Message, i int, run *arrivalRun) int {
	st := &r.alone
	bound, futureLimit, spanID := r.bound, r.futureLimit, r.cols.span
	// The run of equal ticks being stored is its tick and where it
	// started: every message since was stored, and none at tick 0 (each
	// is newer than a sample).
	runTick, runStart := uint32(0), i
	for ; i < len(msgs); i++ {
		msg := &msgs[i]
		if !withinBoth(msg, bound) || !plainRotation(&msg.Rot) { // plainNumbers
			break
		}
		entry := r.index.entry(msg.NetID, &r.spare)
		if entry.state != entryLive || !w.Alive(entry.entity) {
			break
		}
		span := (*c.Span)(w.GetUnchecked(entry.entity, spanID))
		if !appendable(span, msg, futureLimit) {
			break
		}
		r.appendNewest(st, w, entry.entity, span, msg, &msg.Rot, 0, i)
		if msg.Tick != runTick {
			r.arrivals.observedRun(arrivalRun{tick: runTick, n: uint32(i - runStart), accepted: true})
			runTick, runStart = msg.Tick, i
		}
	}
	*run = arrivalRun{tick: runTick, n: uint32(i - runStart), accepted: true}
	return i
}

// recountOccupancy rebuilds the occupancy histogram from the rings. It runs
// only after the game removed remote entities itself (instead of through a
// Despawn message), which the incremental count cannot see.
func recountOccupancy(w *ecs.World, m *Metrics) {
	m.Occupancy = [c.RingCapacity + 1]int{}
	q := generic.NewFilter1[c.Span]().With(generic.T[c.Remote]()).Query(w)
	for q.Next() {
		m.Occupancy[q.Get().Ring.Len()]++
	}
}

// noteComplete records that the server's snapshot for tick named every
// entity that changed.
func (r *Receive) noteComplete(tick uint32) {
	r.alone.complete.note(tick)
	r.arrivals.noteComplete(tick)
}

// completeTicks are the two newest ticks the server said were complete
// (Complete markers): an entity a complete tick did not name was
// unchanged then. prev is never newer than newest (both are zero before
// the first marker).
type completeTicks struct {
	newest, prev uint32
}

// note records a Complete marker for tick.
func (c *completeTicks) note(tick uint32) {
	switch {
	case tick > c.newest:
		c.prev, c.newest = c.newest, tick
	case tick < c.newest && tick > c.prev:
		c.prev = tick
	}
}

// forgetBeyond brings the markers back to tick h at most, as Receive
// forgets everything beyond a reset clock's horizon.
func (c *completeTicks) forgetBeyond(h uint32) {
	c.newest, c.prev = min(c.newest, h), min(c.prev, h)
}

// unchangedUntil returns the newest complete tick between an entity's
// newest sample and a newer sample at tick (at which the entity was
// unchanged since its newest sample), or newest if there was none.
func (c *completeTicks) unchangedUntil(newest, tick uint32) uint32 {
	switch {
	case c.newest <= newest:
		// The common case, in one compare: prev is no newer.
	case c.newest < tick && c.newest > newest:
		return c.newest
	case c.prev < tick && c.prev > newest:
		return c.prev
	}
	return newest
}

// sampledResidue returns the residue modulo sampling.Every of the
// indices, in this frame's messages, of the messages that report a wait:
// those at which waitPhase+i is a multiple of sampling.Every, once the
// clock has synced; sampling.Every (no index's) before.
func (r *Receive) sampledResidue() uint32 {
	if !r.synced {
		return sampling.Every
	}
	return -r.waitPhase % sampling.Every
}

// replace handles a message for a tick already buffered in old: an exact
// copy (a resend, a network duplicate) is refused as a duplicate; different
// content replaces the sample, since the server's latest word on a tick is
// the one to draw (and a sane stream must overwrite garbage sent before it).
func (r *Receive) replace(span *c.Span, old *c.Sample, msg *Message, rot *mgl32.Quat) bool {
	var sample c.Sample
	fill(&sample, msg, rot, sampleFlags(msg, false)|old.Flags&c.Spawn) // still the first sample of its life
	if sample == *old {
		r.metrics.reject(RejectDuplicate)
		return false
	}
	*old = sample
	r.metrics.Accepted++
	r.metrics.Replaced++
	span.Flags |= c.SpanDirty
	return true
}

// trimBuffer gives back the memory of a flood: a drain buffer far larger
// than the most messages any frame brought in the last one to two seconds
// (two windows of 64 frames) is dropped, and the inbox grows a right-sized
// one; so are the buffers of Receive's goroutines. Normal traffic, however
// bursty from frame to frame, keeps its buffers and allocates nothing.
func (r *Receive) trimBuffer(n int) {
	const window, floor = 64, 1 << 12
	r.peak = max(r.peak, n)
	if r.window++; r.window >= window {
		r.lastPeak, r.peak, r.window = r.peak, n, 0
	}
	bound := 4 * max(r.peak, r.lastPeak, floor)
	if cap(r.buf) > bound {
		r.buf = nil
	}
	r.par.trim(bound)
}

// forgetBeyond drops every tick the pipeline holds beyond horizon: samples,
// life starts, tombstones and scheduled despawns. It runs once after the
// clock took up a new timeline, since those ticks may belong to a
// timeline the server has left (a restart, a wrap, absurd ticks accepted
// before the clock knew better): otherwise they would keep refusing the
// sane stream as stale, or draw entities toward a point that never comes.
func (r *Receive) forgetBeyond(w *ecs.World, horizon float64) {
	var h uint32
	switch {
	case horizon >= math.MaxUint32:
		return // nothing can lie beyond it
	case horizon > 0:
		h = uint32(horizon)
	}
	q := r.spans.Query(w)
	for q.Next() {
		span := q.Get()
		span.Interval = 0 // measured again on the new timeline
		if newest, ok := span.Ring.NewestTick(); !ok || newest <= h {
			continue
		}
		ring := r.cols.view(w, q.Entity(), &span.Ring)
		before := ring.Len()
		ring.DropAfter(h)
		r.metrics.occupancyMove(before, ring.Len())
		span.Flags |= c.SpanDirty
	}
	r.index.forgetBeyond(h)
	r.despawns.dueBeyond(h)
	r.alone.complete.forgetBeyond(h)
}

// Finalize implements the arche-model System interface. It stops the
// worker goroutines, if Workers started any.
func (r *Receive) Finalize(w *ecs.World) { r.stopWorkers() }

// Index returns the NetID index this system maintains.
func (r *Receive) Index() *Index { return r.index }

// outcome is what handling a message gave the clock to go on.
type outcome uint8

const (
	notEvidence outcome = iota // malformed or future-dated: says nothing
	evidence                   // well-formed: its tick says where the server is
	fresh                      // a sample stored, or a Complete marker: also a timing sample
)

// handle applies one message, or counts why it was refused, and says what
// it tells the clock.
func (r *Receive) handle(w *ecs.World, msg *Message) outcome {
	m := r.metrics
	if msg.Kind >= numKinds {
		m.reject(RejectInvalid)
		return notEvidence
	}
	if msg.NetID == 0 && msg.Kind != Complete {
		m.reject(RejectNetID) // names no entity
		return notEvidence
	}
	rot := msg.Rot
	if msg.Kind != Despawn && msg.Kind != Complete {
		if reason := r.check(msg, &rot); reason != accept {
			m.reject(reason)
			return notEvidence
		}
	}
	if float64(msg.Tick) > r.futureLimit {
		r.refuseFuture(msg)
		return notEvidence
	}
	if msg.Kind == Complete {
		r.noteComplete(msg.Tick)
		m.Accepted++
		return fresh
	}
	entry := r.lookup(w, msg.NetID)
	if entry.state == entryPredicted {
		m.reject(RejectPredicted)
		return evidence
	}
	if msg.Kind == Despawn {
		r.scheduleDespawn(msg, entry)
		return evidence
	}
	e, spawned, reason := r.entityFor(w, msg, entry)
	switch {
	case reason != accept:
		m.reject(reason)
	case e == (ecs.Entity{}):
		m.Accepted++ // the game's OnSpawn removed it again; nothing to store
	case r.store(w, e, msg, &rot, spawned):
		return fresh
	}
	return evidence
}

// lookup returns the index entry of id, forgetting an entity the game
// removed itself.
func (r *Receive) lookup(w *ecs.World, id c.NetID) indexEntry {
	entry := r.index.get(id)
	if entry.state.alive() && !w.Alive(entry.entity) {
		r.index.put(id, indexEntry{})
		r.recount = true
		return indexEntry{}
	}
	return entry
}

// entityFor returns the live entity a sample message belongs to, spawning
// it if this is the first message of a life, or the reason to refuse the
// message. The zero entity with accept means the game's OnSpawn removed
// the new entity at once.
func (r *Receive) entityFor(w *ecs.World, msg *Message, entry indexEntry) (e ecs.Entity, spawned bool, reason RejectReason) {
	replacing := false
	switch {
	case entry.state == entryDead && msg.Tick <= entry.despawnTick,
		entry.state == entryLive && msg.Tick < entry.bornTick:
		return ecs.Entity{}, false, RejectDespawned // a late sample of an earlier life
	case entry.state == entryDespawning && msg.Tick > entry.despawnTick:
		// A new life while the old one still plays out its last moments:
		// the old entity leaves the index (its despawn stays scheduled)
		// and a new one starts.
		if msg.Kind != Spawn && r.cfg.RequireSpawn {
			return ecs.Entity{}, false, RejectDespawned
		}
		entry = indexEntry{state: entryDead, despawnTick: entry.despawnTick}
		replacing = true
	}
	if entry.state.alive() {
		return entry.entity, false, accept
	}
	if msg.Kind != Spawn && r.cfg.RequireSpawn {
		return ecs.Entity{}, false, RejectUnknown
	}
	if r.index.Remote()+r.despawns.detached >= r.cfg.MaxEntities {
		// Every life counts, old ones still playing out their despawn too.
		return ecs.Entity{}, false, RejectEntityLimit
	}
	// Samples older than this life's start belong to an earlier one: after
	// a despawn, anything up to its tick; for an explicit Spawn, anything
	// before it. A NetID seen for the first time keeps older, out-of-order
	// samples.
	var born uint32
	switch {
	case msg.Kind == Spawn:
		born = msg.Tick
	case entry.state == entryDead:
		born = entry.despawnTick + 1
	}
	e, alive := r.spawn(w, msg.NetID, born)
	if replacing {
		r.despawns.detached++ // the old life left the index, still in the world
	}
	if !alive {
		return ecs.Entity{}, false, accept
	}
	return e, true, accept
}

// store inserts a checked sample into entity e's ring at its tick
// position, or counts why it cannot be stored; it reports whether it
// stored it. rot is the sample's checked rotation.
func (r *Receive) store(w *ecs.World, e ecs.Entity, msg *Message, rot *mgl32.Quat, spawned bool) bool {
	m := r.metrics
	span := (*c.Span)(w.GetUnchecked(e, r.cols.span))
	if span.Stale(msg.Tick) {
		m.reject(RejectStale) // the render time has already passed it
		return false
	}
	head := &span.Ring
	newest, ok := head.NewestTick()
	switch {
	case !ok || msg.Tick > newest:
		// The common case: a sample newer than all others.
		r.appendNewest(&r.alone, w, e, span, msg, rot, sampleFlags(msg, spawned), r.at)
		return true
	case msg.Tick == newest:
		return r.replace(span, r.cols.slot(w, e, head.Phys(head.Len()-1)), msg, rot)
	}
	before := head.Len()
	lost := span.LosesBracket()
	var sample c.Sample
	fill(&sample, msg, rot, sampleFlags(msg, spawned))
	ring := r.cols.view(w, e, head)
	switch ring.Insert(sample) {
	case c.Duplicate:
		return r.replace(span, ring.Find(msg.Tick), msg, rot)
	case c.TooOld:
		m.reject(RejectStale)
		return false
	case c.InsertedEvicting:
		m.Evicted++
	}
	m.Accepted++
	m.occupancyMove(before, head.Len())
	span.NoteArrival(msg.Tick, lost)
	return true
}

// spawn creates the remote entity of id, whose life began at tick born,
// and calls OnSpawn. It reports false if OnSpawn removed it again.
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
		r.despawns.schedule(msg.NetID, entry.entity, msg.Tick)
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

package systems

import (
	"fmt"
	"math"
	"unsafe"

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
	// MaxEntities bounds the number of remote entities alive in the world,
	// old lives still waiting for their despawn tick included; spawns
	// beyond it are rejected (RejectEntityLimit). Each remote entity takes
	// about 1.4 KB of heap (components and index), so the default of
	// 262144 bounds a flood of new NetIDs at about 370 MB.
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
	// remote entities: see OnSpawn). It pays on large worlds only: a frame
	// with fewer than ParallelMin messages stays on one goroutine. Zero or
	// 1: the world's goroutine alone (the default).
	Workers int
	// ParallelMin is the message count per frame from which Workers apply
	// (0 means DefaultReceiveParallelMin).
	ParallelMin int
}

// DefaultMaxEntities is the default bound on remote entities.
const DefaultMaxEntities = 1 << 18

// DefaultReceiveConfig returns the defaults: spawn on first snapshot, up to
// 262144 remote entities, ticks at most 0.5 s ahead of the estimated server
// time, coordinates within ±1e9.
func DefaultReceiveConfig() ReceiveConfig {
	return ReceiveConfig{
		SpawnOnFirstSnapshot: true,
		MaxEntities:          DefaultMaxEntities,
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
	case cfg.Workers < 0 || cfg.Workers > MaxWorkers:
		return fmt.Errorf("systems: ReceiveConfig.Workers must be in [0, %d], got %d", MaxWorkers, cfg.Workers)
	case cfg.ParallelMin < 0:
		return fmt.Errorf("systems: ReceiveConfig.ParallelMin must not be negative, got %d", cfg.ParallelMin)
	}
	return nil
}

// Receive is the first system of a frame. It drains the [Inbox], maps
// NetIDs to entities (spawning on first sight or on Spawn), inserts each
// sample into its entity's ring at its tick position, schedules despawns
// (carried out by the [Retire] system at their tick), counts every message
// as accepted or rejected with a reason, and records the frame's [Arrivals]
// for the [Timeline] that follows it.
type Receive struct {
	cfg ReceiveConfig

	inbox    *Inbox
	index    *Index
	clock    *timeline.Clock
	metrics  *Metrics
	frame    *Frame
	arrivals *Arrivals

	cols      columns
	spare     indexEntry // where the shortcut reads an entry of the sparse index
	grew      uint64     // rings the shortcut's stores grew (rather than evicting)
	views     remoteViews
	remoteIDs []ecs.ID
	netIDs    generic.Map1[c.NetID]
	renders   generic.Map1[c.Render]

	buf          []Message
	peak         int // the most messages drained in one frame of this window
	lastPeak     int // the same for the window before
	window       int // frames into this window
	despawns     *Despawns
	maxFuture    float64 // ticks
	futureLimit  float64 // this frame's limit, in ticks
	recount      bool
	generation   uint64 // the clock's timeline the buffered ticks belong to
	complete     completeTicks
	waitPhase    uint32  // messages drained before this frame, for sampling waits
	at           int     // index in this frame's messages of the one handle takes
	serverBefore float64 // the estimated server tick of the frame before
	interval     float64 // the stream's send interval, ticks
	synced       bool    // whether the clock has synced
	ready        bool
	generalOnly  bool   // every message through handle (tests compare the paths)
	shortcuts    uint64 // messages the shortcut stored (tests check it is taken)
	par          parallelReceive
}

// NewReceive returns the Receive system for cfg, or the configuration error.
func NewReceive(cfg ReceiveConfig) (*Receive, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.ParallelMin == 0 {
		cfg.ParallelMin = DefaultReceiveParallelMin
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
	r.arrivals = mustResource[Arrivals](w)
	r.despawns = mustResource[Despawns](w)
	r.cols = newColumns(w)
	r.views.init(w, &r.cols)
	r.remoteIDs = r.cols.remoteIDs(w)
	r.netIDs = generic.NewMap1[c.NetID](w)
	r.renders = generic.NewMap1[c.Render](w)
	r.maxFuture = r.cfg.MaxFuture * r.clock.TickRate()
	r.ready = true
}

// Update implements the arche-model System interface.
func (r *Receive) Update(w *ecs.World) {
	m := r.metrics
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
	r.views.invalidate() // in case a panic ended the last frame early
	msgs, dropped := r.inbox.Drain(r.buf)
	m.Rejected[RejectInboxFull] += dropped
	if r.cfg.Workers > 1 && len(msgs) >= r.cfg.ParallelMin && !r.generalOnly {
		r.storeShared(w, msgs)
	} else {
		r.storeAlone(w, msgs)
	}
	r.views.invalidate()
	r.buf = msgs
	r.waitPhase += uint32(len(msgs))
	r.trimBuffer(len(msgs))

	m.Entities = r.index.Remote() + r.despawns.detached
	if r.recount {
		recountOccupancy(w, m)
		r.recount = false
	}
}

// storeAlone applies msgs in order on the world's goroutine.
func (r *Receive) storeAlone(w *ecs.World, msgs []Message) {
	// Most messages take the shortcut (see shortcut), a run of them at a
	// time; the first it declines goes through handle, and the shortcut
	// takes up again after it. Its messages are told to Arrivals a run of
	// equal ticks at a time (as Observed would merge them).
	var run arrivalRun
	for i := 0; i < len(msgs); i++ {
		if !r.generalOnly {
			if i = r.shortcut(w, msgs, i, &run); i == len(msgs) {
				break
			}
		}
		msg := &msgs[i]
		r.arrivals.observedRun(run) // in order with what handle reports
		run = arrivalRun{}
		r.at = i
		if out := r.handle(w, msg); out != notEvidence {
			// A well-formed message tells where the server's clock is,
			// whether or not its sample could be used.
			r.arrivals.Observed(msg.Tick, out == fresh)
		}
	}
	r.arrivals.observedRun(run)
}

// shortcut stores msgs[i:] as handle would, one after another, as long as
// each is a Snapshot with plain numbers (in range, a unit rotation or
// none) for a live entity found where Receive last found it (see
// remoteViews), newer than every sample the entity has and with no
// Complete marker in between: the common case. It returns the index of
// the first message it declines, having changed nothing for it, or
// len(msgs), and sets *run to the run of equal ticks it was storing when
// it stopped (n 0 if none), having told Arrivals those before it; the
// caller tells Arrivals that one, in order with what it handles next.
// FuzzCommonPath checks that it stores what handle would.
//
// It is one loop over the messages rather than a call per message (which
// cost about 2 ns more per message at 100k), and apart from handle's
// loop, so that its values stay in registers; the counts it keeps are
// added to the metrics once.
func (r *Receive) shortcut(w *ecs.World, msgs []Message, i int, run *arrivalRun) int {
	if !r.viewsFor(w, &msgs[i]) {
		return i
	}
	views := r.views.all // by an index entry's byte, with no bound to check
	lim, futureLimit := pairBound(r.cfg.MaxAbs), r.futureLimit
	sampled := r.sampledResidue()
	// Each message it stores is accepted and, unless its ring grew,
	// evicts the oldest sample: the loop counts only the rings that grew
	// (in r.grew, not a register: few do), and both totals follow from
	// how far it got (two counters fewer for a loop short of registers).
	// Likewise the run of equal ticks being stored is its tick and where
	// it started: every message since was stored, and none at tick 0
	// (each is newer than a sample).
	first := i
	r.grew = 0
	runTick, runStart := uint32(0), i
	for ; i < len(msgs); i++ {
		msg := &msgs[i]
		rot := normSq(&msg.Rot)
		if msg.Kind != Snapshot || !withinBoth(msg, lim) || !(isUnit(rot) || zeroQuat(&msg.Rot)) || float64(msg.Tick) > futureLimit {
			break
		}
		// The entity's life began at entry.bornTick, no later than any of
		// its samples: a tick newer than its newest (tested below) is of
		// this life.
		entry := r.index.entry(msg.NetID, &r.spare)
		if entry.state != entryLive {
			break
		}
		view := &views[entry.view]
		if entry.row >= view.n || !view.holds(entry.row, &entry.entity) {
			break
		}
		span := view.spanAt(entry.row)
		head := &span.Ring
		newest, ok := head.NewestTick()
		if !ok || msg.Tick <= newest || span.Stale(msg.Tick) || r.complete.unchangedUntil(newest, msg.Tick) != newest {
			break
		}
		// appendNewest, written out.
		noteNewest(span)
		phys, evicted := head.Append(msg.Tick)
		fillNewest(view.slotAt(entry.row, phys), msg, rot < 0.5)
		if uint32(i)%WaitSampling == sampled {
			r.arrivals.Wait(r.wait(span, newest))
		}
		r.measureInterval(span, newest, msg.Tick)
		if !evicted {
			r.metrics.occupancyMove(head.Len()-1, head.Len())
			r.grew++
		}
		if msg.Tick != runTick {
			r.arrivals.observedRun(arrivalRun{tick: runTick, n: uint32(i - runStart), accepted: true})
			runTick, runStart = msg.Tick, i
		}
	}
	*run = arrivalRun{tick: runTick, n: uint32(i - runStart), accepted: true}
	accepted := uint64(i - first)
	r.shortcuts += accepted
	r.metrics.Accepted += accepted
	r.metrics.Evicted += accepted - r.grew
	return i
}

// noteNewest marks span for a rebuild if a sample newer than every one in
// its ring, about to be appended, may change what is drawn: the
// shortcut's LosesBracket and NoteArrival in one test. Such a sample lies
// beyond the span, which the render time meets when it gets there, unless
// the span has nothing to draw from or extrapolates, or the append evicts
// a sample the span is built from. (NoteArrival also asks whether the
// sample lands before From or To: never, for a sample newer than the
// ring's newest, since both are ticks of ring samples, except after
// DropAfter took the newer samples away, which marked the span already.)
func noteNewest(span *c.Span) {
	// The modes built from ring samples (Before, Lerp, Step) are
	// consecutive: anything else has nothing to draw from or
	// extrapolates, and is redrawn.
	if m := span.Mode - c.SpanBefore; m > c.SpanStep-c.SpanBefore ||
		span.Ring.Len() == c.RingCapacity && span.Ring.Logical(int(span.ToPhys)) <= 1 {
		span.Flags |= c.SpanDirty
	}
}

// noteNewest's test of the mode needs Before, Lerp and Step consecutive,
// and Empty and Past outside them.
var _ = [1]struct{}{}[(c.SpanLerp-c.SpanBefore-1)|(c.SpanStep-c.SpanLerp-1)|(c.SpanEmpty+1-c.SpanBefore)|(c.SpanPast-c.SpanStep-1)]

// viewsFor builds the views for the shortcut, if it may take msg: not
// after every spawn of a burst of new entities. It reports whether it
// built them.
func (r *Receive) viewsFor(w *ecs.World, msg *Message) bool {
	if r.views.fresh {
		return true
	}
	if msg.Kind != Snapshot || r.index.get(msg.NetID).state != entryLive {
		return false
	}
	r.views.refresh(w, &r.cols)
	return true
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
	r.complete.note(tick)
	r.arrivals.Complete(tick)
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

// WaitSampling: one message in this many reports its entity's wait to the
// clock, if it is stored as a newer sample; plenty for the statistics, and
// cheap.
const WaitSampling = 8

// sampledAt reports whether the message at index i of this frame's
// messages reports its entity's wait (see wait): one message in
// WaitSampling, counted over the stream, whichever goroutine stores it.
func (r *Receive) sampledAt(i int) bool {
	return uint32(i)%WaitSampling == r.sampledResidue()
}

// sampledResidue returns the residue modulo WaitSampling of the indices,
// in this frame's messages, of the messages that report a wait: those at
// which waitPhase+i is a multiple of WaitSampling, once the clock has
// synced; WaitSampling (no index's) before. The shortcut holds it for the
// frame and tests each index with one compare.
func (r *Receive) sampledResidue() uint32 {
	if !r.synced {
		return WaitSampling
	}
	return -r.waitPhase % WaitSampling
}

// sampledResidue needs WaitSampling to divide 1<<32, so that the residue
// of waitPhase+i follows i's across waitPhase's wrap.
var _ = [1]struct{}{}[(1<<32)%WaitSampling]

// wait returns how long the entity's data had to last (from its last known
// tick to the estimated server time of the frame before this one), less
// the lag the entity gets for being sent less often: what the delay must
// cover for this entity. Unlike the stream as a whole, it sees the samples
// an entity lost.
func (r *Receive) wait(span *c.Span, known uint32) float64 {
	wait := r.serverBefore - float64(known)
	if iv := float64(span.Interval); iv > r.interval+0.5 {
		wait -= iv - r.interval
	}
	return wait
}

// sampleWait reports the wait of the message being handled (r.at), if it
// is one of those sampled.
func (r *Receive) sampleWait(span *c.Span, known uint32) {
	if r.sampledAt(r.at) {
		r.arrivals.Wait(r.wait(span, known))
	}
}

// appendStill stores a copy of the entity's newest sample at tick, where
// a Complete marker said it was still unchanged: the motion that follows
// starts there, rather than being spread over the time it stood still.
func (r *Receive) appendStill(w *ecs.World, e ecs.Entity, head *c.RingHead, tick uint32) {
	last := *r.cols.slot(w, e, head.Phys(head.Len()-1))
	before := head.Len()
	phys, evicted := head.Append(tick)
	still := r.cols.slot(w, e, phys)
	*still = last
	still.Tick, still.Vel = tick, mgl32.Vec3{}
	still.Flags = c.HasVelocity // it stood still
	if evicted {
		r.metrics.Evicted++
	}
	r.metrics.occupancyMove(before, head.Len())
}

// measureInterval folds the gap between the tick the entity was last known
// at (its newest sample, or a Complete marker after it) and a newer sample
// at tick into its measured send interval, so an entity sent only when it
// changes is not mistaken for a slow one.
func (r *Receive) measureInterval(span *c.Span, known, tick uint32) {
	d := tick - known
	if float32(d) == span.Interval {
		// The steady state: nothing to change (and nothing to write). An
		// Interval is never above MaxIntervalTicks, so neither is d here.
		return
	}
	gap := float32(min(d, timeline.MaxIntervalTicks))
	switch {
	case gap == span.Interval:
	case span.Interval == 0:
		// A first gap may be anything (an old sample, a loss): no more
		// than a few of the stream's intervals to start with; a slower
		// entity gets there within a few samples.
		span.Interval = min(gap, 4*float32(r.interval)+1)
	case gap < span.Interval:
		// Losses only ever lengthen gaps: a shorter one is the send
		// interval showing through, followed quickly.
		span.Interval += 0.5 * (gap - span.Interval)
	default:
		// A lost sample doubles one gap: clip long gaps so a loss moves
		// the estimate a little, while a real change of rate gets there
		// within a dozen samples.
		gap = min(gap, 2*span.Interval+1)
		span.Interval += 0.2 * (gap - span.Interval)
	}
}

// replace handles a message for a tick already buffered in old: an exact
// copy (a resend, a network duplicate) is refused as a duplicate; different
// content replaces the sample, since the server's latest word on a tick is
// the one to draw (and a sane stream must overwrite garbage sent before it).
func (r *Receive) replace(span *c.Span, old *c.Sample, msg *Message, rot *mgl32.Quat) bool {
	var sample c.Sample
	fill(&sample, msg, rot, false)
	sample.Flags |= old.Flags & c.Spawn // still the first sample of its life
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
	q := generic.NewFilter1[c.Span]().With(generic.T[c.Remote]()).Query(w)
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
	r.complete.forgetBeyond(h)
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
	rot := msg.Rot
	if msg.Kind != Despawn && msg.Kind != Complete {
		if reason := r.check(msg, &rot); reason != accept {
			m.reject(reason)
			return notEvidence
		}
	}
	if float64(msg.Tick) > r.futureLimit {
		m.reject(RejectFuture)
		r.arrivals.RefusedFuture(msg.Tick)
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

// plainNumbers reports whether every number of msg is within lim, and its
// rotation a unit quaternion (as servers send them) or zero (as games that
// never set one send it; fill stores it as the identity), which check
// passes as they are. The coordinates are compared as the bits of their
// absolute values, two at a time (see withinBoth); the rotation needs no
// square root.
func plainNumbers(msg *Message, lim float32) bool {
	return withinBoth(msg, pairBound(lim)) && unitOrNone(&msg.Rot)
}

// withinBoth is plainNumbers' test of the position and the velocity,
// reading the six coordinates, adjacent in a Message, as three 64-bit
// words of two coordinates each against the limit as pairBound gives it
// (Receive's loops hold it): small enough to inline into those loops, and
// about 20 instructions a message fewer than testing the two vectors
// apart. With its sign bit cleared, a coordinate's bits order as its
// absolute value does and put NaN and the infinities above every finite
// number; a lane's (lim + 1<<31) - |x| keeps its top bit exactly when
// |x| <= lim, and never borrows from the lane above.
func withinBoth(msg *Message, bound uint64) bool {
	const abs, top = 0x7fffffff_7fffffff, 0x80000000_80000000
	b := (*[3]uint64)(unsafe.Pointer(&msg.Pos))
	return (bound-b[0]&abs)&(bound-b[1]&abs)&(bound-b[2]&abs)&top == top
}

// pairBound returns withinBoth's form of the limit lim (positive and
// finite): its bits in both halves of a word, each with its top bit set.
func pairBound(lim float32) uint64 {
	l := uint64(math.Float32bits(lim) & 0x7fffffff)
	return l<<32 | l | 0x80000000_80000000
}

// withinBoth reads Vel as the three words after Pos.
var _ = [1]struct{}{}[unsafe.Offsetof(Message{}.Vel)-unsafe.Offsetof(Message{}.Pos)-12]

// within is check's test of one vector's coordinates.
func within(v *mgl32.Vec3, lim float32) bool {
	const abs = 0x7fffffff
	return max(math.Float32bits(v[0])&abs, math.Float32bits(v[1])&abs, math.Float32bits(v[2])&abs) <= math.Float32bits(lim)
}

// unitOrNone is plainNumbers' test of the rotation, a unit quaternion or
// none (zero), small enough to inline into Receive's loops (at the
// inliner's budget exactly: keep it this size; built from normSq and
// isUnit it costs 83). The shortcut makes the same test from those parts,
// keeping the squared norm to tell "none" when it fills the sample.
func unitOrNone(q *mgl32.Quat) bool {
	n := q.W*q.W + q.V[0]*q.V[0] + q.V[1]*q.V[1] + q.V[2]*q.V[2]
	return n > 0.99999 && n < 1.00001 || zeroQuat(q)
}

// normSq returns the squared norm of q.
func normSq(q *mgl32.Quat) float32 {
	return q.W*q.W + q.V[0]*q.V[0] + q.V[1]*q.V[1] + q.V[2]*q.V[2]
}

// isUnit reports whether n, a squared norm, is a unit quaternion's (as
// servers send them, within float32 rounding).
func isUnit(n float32) bool { return n > 0.99999 && n < 1.00001 }

// zeroQuat reports whether every component of q is zero, of either sign
// (as q == mgl32.Quat{} does), testing their bits at once: about a dozen
// instructions fewer per snapshot of a stream that never sets a rotation
// than four float compares. fill keeps the compare, which fits its
// inlining budget.
func zeroQuat(q *mgl32.Quat) bool {
	b := (*[4]uint32)(unsafe.Pointer(q))
	return (b[0]|b[1]|b[2]|b[3])&0x7fffffff == 0
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
		if msg.Kind != Spawn && !r.cfg.SpawnOnFirstSnapshot {
			return ecs.Entity{}, false, RejectDespawned
		}
		entry = indexEntry{state: entryDead, despawnTick: entry.despawnTick}
		replacing = true
	}
	if entry.state.alive() {
		return entry.entity, false, accept
	}
	if msg.Kind != Spawn && !r.cfg.SpawnOnFirstSnapshot {
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

// store inserts a checked sample into entity e's ring at its tick position,
// or counts why it cannot be stored; it reports whether it stored it.
func (r *Receive) store(w *ecs.World, e ecs.Entity, msg *Message, rot *mgl32.Quat, spawned bool) bool {
	m := r.metrics
	span := (*c.Span)(w.GetUnchecked(e, r.cols.span))
	if msg.Kind == Snapshot {
		// Where the shortcut will find it next time.
		if view, row, ok := r.views.rowOf(e, span); ok {
			r.index.setRow(msg.NetID, view, row)
		}
	}
	if span.Stale(msg.Tick) {
		m.reject(RejectStale) // the render time has already passed it
		return false
	}
	head := &span.Ring
	before := head.Len()
	lost := span.LosesBracket()
	if newest, ok := head.NewestTick(); !ok || msg.Tick > newest {
		// The common case: a sample newer than all others, one slot write.
		known := newest
		if ok {
			if known = r.complete.unchangedUntil(newest, msg.Tick); known > newest {
				r.appendStill(w, e, head, known)
				before = head.Len() // appendStill counted its own sample
			}
		} else {
			known = msg.Tick // the first sample: no gap to measure
		}
		slot := r.cols.slot(w, e, head.Phys(head.Len())) // the slot Append takes
		r.appendNewest(span, slot, msg, rot, spawned, known, before, lost)
		return true
	} else if msg.Tick == newest {
		return r.replace(span, r.cols.slot(w, e, head.Phys(before-1)), msg, rot)
	} else {
		var sample c.Sample
		fill(&sample, msg, rot, spawned)
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
	}
	r.stored(span, msg.Tick, before, lost)
	return true
}

// appendNewest stores a checked sample newer than every sample in span's
// ring into slot, the slot an append takes. known is the tick the entity
// was last known at (its newest sample, or a Complete marker after it; the
// sample's own tick for a first sample); before is the ring's length and
// lost whether the span loses its bracket, both from before this message.
func (r *Receive) appendNewest(span *c.Span, slot *c.Sample, msg *Message, rot *mgl32.Quat, spawned bool, known uint32, before int, lost bool) {
	if _, evicted := span.Ring.Append(msg.Tick); evicted {
		r.metrics.Evicted++
	}
	fill(slot, msg, rot, spawned)
	if known != msg.Tick {
		r.sampleWait(span, known)
		r.measureInterval(span, known, msg.Tick)
	}
	r.stored(span, msg.Tick, before, lost)
}

// stored counts a sample stored in span's ring at tick, which had before
// samples, and marks the span for a rebuild if the sample may change it.
func (r *Receive) stored(span *c.Span, tick uint32, before int, lost bool) {
	r.metrics.Accepted++
	r.metrics.occupancyMove(before, span.Ring.Len())
	span.NoteArrival(tick, lost)
}

// accept is check's verdict for a good message (not a reason).
const accept = NumRejectReasons

// check validates a snapshot's numbers and normalises its rotation into rot.
func (r *Receive) check(msg *Message, rot *mgl32.Quat) RejectReason {
	lim := r.cfg.MaxAbs
	if plainNumbers(msg, lim) {
		return accept // the common case
	}
	p, v, q := &msg.Pos, &msg.Vel, &msg.Rot
	for _, x := range [...]float32{p[0], p[1], p[2], v[0], v[1], v[2], q.W, q.V[0], q.V[1], q.V[2]} {
		if !finite32(x) {
			return RejectNonFinite
		}
	}
	if !within(p, lim) || !within(v, lim) {
		return RejectInvalid
	}
	var ok bool
	if *rot, ok = blend.Normalize(*q); !ok {
		return RejectInvalid
	}
	return accept
}

// fill writes msg as a ring sample into dst. rot is the checked rotation;
// zero (none sent) is stored as the identity.
func fill(dst *c.Sample, msg *Message, rot *mgl32.Quat, spawned bool) {
	// Field by field, without a whole Sample built aside and copied: a
	// copy reads back, in wide loads, what narrow stores just wrote, which
	// stalls the processor.
	vel, flags, q := mgl32.Vec3{}, c.SampleFlags(0), *rot
	if msg.HasVelocity {
		vel, flags = msg.Vel, c.HasVelocity
	}
	if msg.Kind == Teleport {
		flags |= c.Cut
	}
	if spawned {
		flags |= c.Spawn
	}
	if q == (mgl32.Quat{}) {
		q = mgl32.QuatIdent()
	}
	dst.Tick, dst.State, dst.Epoch, dst.Flags = msg.Tick, msg.State, msg.Epoch, flags
	dst.Pos, dst.Vel, dst.Rot = msg.Pos, vel, q
}

// fillNewest is fill for the shortcut's messages (snapshots, never the
// first sample of a life, whose rotation is a unit quaternion or, with
// noRotation, zero: none), writing the sample in place rather than
// through a copy. The position, velocity and rotation lie in the same
// order in a Message as in a Sample: they go over as one 40-byte block
// (three wide moves), and only what differs is written after.
func fillNewest(dst *c.Sample, msg *Message, noRotation bool) {
	*(*motion)(unsafe.Pointer(&dst.Pos)) = *(*motion)(unsafe.Pointer(&msg.Pos))
	// State and Epoch, and the byte after (Flags, written next), as one
	// word: they follow each other in both.
	dst.Tick, *(*uint32)(unsafe.Pointer(&dst.State)) = msg.Tick, *(*uint32)(unsafe.Pointer(&msg.State))
	// A bool's byte is 1 or 0: HasVelocity, or no flag (masked, so that no
	// byte can set another).
	hasVel := *(*c.SampleFlags)(unsafe.Pointer(&msg.HasVelocity)) & c.HasVelocity
	if dst.Flags = hasVel; hasVel == 0 {
		dst.Vel = mgl32.Vec3{}
	}
	if noRotation {
		dst.Rot = mgl32.Quat{W: 1}
	}
}

// motion is the block of a Message and of a Sample that fillNewest copies
// whole: the position, the velocity and the rotation, adjacent in both.
type motion struct {
	Pos, Vel mgl32.Vec3
	Rot      mgl32.Quat
}

// fillNewest copies Message.Pos through Message.Rot onto Sample.Pos
// through Sample.Rot, both holding them in that order without gaps, and
// State and Epoch with the byte after them, Flags in a Sample (the
// padding before NetID in a Message); it takes a bool's byte for the
// HasVelocity flag.
var (
	_ = [1]struct{}{}[unsafe.Offsetof(Message{}.Epoch)-unsafe.Offsetof(Message{}.State)-2]
	_ = [1]struct{}{}[unsafe.Offsetof(Message{}.NetID)-unsafe.Offsetof(Message{}.State)-6]
	_ = [1]struct{}{}[unsafe.Offsetof(c.Sample{}.Epoch)-unsafe.Offsetof(c.Sample{}.State)-2]
	_ = [1]struct{}{}[unsafe.Offsetof(c.Sample{}.Flags)-unsafe.Offsetof(c.Sample{}.State)-3]
	_ = [1]struct{}{}[c.HasVelocity-1]
	_ = [1]struct{}{}[unsafe.Offsetof(Message{}.Rot)-unsafe.Offsetof(Message{}.Pos)-24]
	_ = [1]struct{}{}[unsafe.Offsetof(c.Sample{}.Vel)-unsafe.Offsetof(c.Sample{}.Pos)-12]
	_ = [1]struct{}{}[unsafe.Offsetof(c.Sample{}.Rot)-unsafe.Offsetof(c.Sample{}.Pos)-24]
	_ = [1]struct{}{}[unsafe.Sizeof(c.Sample{})-unsafe.Offsetof(c.Sample{}.Pos)-unsafe.Sizeof(motion{})]
)

func (r *Receive) spawn(w *ecs.World, id c.NetID, born uint32) (ecs.Entity, bool) {
	// A new entity may move every entity of its archetype (to larger
	// arrays), and the game's OnSpawn and an arche Listener may change
	// anything.
	r.views.invalidate()
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

// finite32 reports whether x is neither NaN nor infinite (its exponent bits
// are not all ones).
func finite32(x float32) bool { return math.Float32bits(x)&0x7f800000 != 0x7f800000 }

package server

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl32"
)

// Defaults of [InterestConfig].
const (
	DefaultCellSize   = 32
	DefaultHysteresis = 0.1
)

// InterestConfig turns on interest management: each client receives only
// the entities relevant to it, found in a spatial grid around its
// [View]. An entity that becomes relevant is sent whole, as a spawn (the
// client starts a new life for it: no slide from where it was seen
// before); one that stops being relevant is despawned on the client. The
// zero value of every field means its default.
type InterestConfig struct {
	// CellSize is the side of the grid's cells in world units (default
	// 32): about a quarter of a typical view radius keeps the cells a
	// query visits few and their entities mostly in range.
	CellSize float32
	// Dims is 2 (default: x and y; z is ignored, for top-down and
	// side-on games) or 3.
	Dims int
	// Hysteresis keeps an entity relevant until it is (1 + Hysteresis)
	// times the view radius away (default 0.1), so that one on the border
	// does not flicker in and out; negative means none.
	Hysteresis float32
	// Every is how often, in ticks, each client's relevant set is
	// recomputed from the grid (default: 100 ms worth of ticks, at least
	// 1), spread over the clients. An entity that spawns near a client
	// appears within that time; hysteresis covers what moved meanwhile.
	Every int
	// Rule, if set, decides for each entity the grid finds near a client,
	// and each entity marked with SetAlways: Always keeps it relevant
	// wherever it is, Never hides it (a team's hidden units), ByDistance
	// leaves it to the view's radius. It runs under the session's lock and
	// must not call the Session. The entity a client controls is always
	// relevant to it.
	Rule func(client ClientID, netID uint32) Relevance
}

// Relevance is a rule's verdict on an entity for a client.
type Relevance uint8

const (
	// ByDistance: relevant within the client's view radius (with
	// hysteresis).
	ByDistance Relevance = iota
	// Always: relevant wherever it is.
	Always
	// Never: not relevant to this client.
	Never
)

// View is where a client looks from: a position in world units (the
// player's, usually) and how far it sees.
type View struct {
	Pos    mgl32.Vec3
	Radius float32
}

func (c InterestConfig) normalize() (InterestConfig, error) {
	if c.CellSize == 0 {
		c.CellSize = DefaultCellSize
	}
	if c.Dims == 0 {
		c.Dims = 2
	}
	switch {
	case c.Hysteresis == 0:
		c.Hysteresis = DefaultHysteresis
	case c.Hysteresis < 0:
		c.Hysteresis = 0
	}
	if !(c.CellSize > 0) || math.IsInf(float64(c.CellSize), 0) {
		return c, configErr("Interest.CellSize = %v, want a positive size in world units (or 0 for %d)", c.CellSize, DefaultCellSize)
	}
	if c.Dims != 2 && c.Dims != 3 {
		return c, configErr("Interest.Dims = %d, want 2 or 3 (or 0 for 2)", c.Dims)
	}
	if !(c.Hysteresis < 10) {
		return c, configErr("Interest.Hysteresis = %v, want below 10", c.Hysteresis)
	}
	if c.Every < 0 {
		return c, configErr("Interest.Every = %d, want at least 1 (or 0 for 100 ms worth of ticks)", c.Every)
	}
	return c, nil
}

// nearEnt is an entity a relevance query found, with its squared
// distance in steps (-1 when always relevant, -2 when controlled).
type nearEnt struct {
	slot int32
	dist float32
}

// relEntry is an entity relevant to a client, with the client's priority
// state for it.
type relEntry struct {
	netID uint32
	slot  int32
	dist  float32 // from the client's view, world units
	priority
}

// priority is what a client's budget knows of an entity, carried over
// when the relevant set is rebuilt.
type priority struct {
	acc   float32 // priority accumulated while changed and not sent
	since uint32  // tick of its last record sent to the client, or of its entering (staggered)
	fresh bool    // entered and not yet waiting: its since is its entering's
	sent  bool    // a record of it was sent since it entered, or the client may hold it from before

	// The last record sent, until its packet is acknowledged or known
	// lost: then the entity waits again from when it started waiting
	// before that send, with the priority it had (a lost record counts
	// as never sent).
	pending   bool
	sentSeq   uint16  // the packet that carried it
	sentTick  uint32  // when
	lostSince uint32  // since, before the send
	lostAcc   float32 // the priority it was sent with
}

// SetView sets where client id looks from, for interest management: the
// entities within v.Radius of v.Pos are relevant to it from its next
// snapshot on. Until a client has a view it receives only the entities
// that are always relevant and the one it controls. Without
// interest management a view only weighs priorities (by distance). It
// fails for a client not connected, or a radius that is not a finite
// positive number.
func (s *Session) SetView(id ClientID, v View) error {
	if !(v.Radius > 0) || math.IsInf(float64(v.Radius), 0) || !finite3(v.Pos) {
		return fmt.Errorf("server: View %+v: want a finite position and a positive radius", v)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.peer(id)
	if err != nil {
		return err
	}
	// A view that moved further than half the hysteresis margin since
	// the set was built (a teleport, a camera switch), or grew, is not
	// left waiting for its turn.
	if c.hasView && s.cfg.Interest != nil {
		margin := float64(c.builtView.Radius) * float64(s.cfg.Interest.Hysteresis) / 2
		if v.Radius > c.builtView.Radius || float64(v.Pos.Sub(c.builtView.Pos).Len()) > margin {
			c.relStale = true
		}
	} else {
		c.relStale = true
	}
	c.view, c.hasView = v, true
	return nil
}

// SetInterest turns interest management off for client id (every entity
// is then relevant to it, as without SessionConfig.Interest) or back on:
// to compare, or for an observer that must see everything. The budget
// still applies. It fails for a client not connected.
func (s *Session) SetInterest(id ClientID, on bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.peer(id)
	if err != nil {
		return err
	}
	if c.everything != !on {
		c.everything, c.relBuilt = !on, false
	}
	return nil
}

func finite3(v mgl32.Vec3) bool {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

// refresh brings client c's relevant set up to date for this tick: with
// interest management, the entities around its view; without, every
// entity of the world (rebuilt when the world gained or lost one).
func (s *Session) refresh(c *peer) {
	c.center = s.stepsOf(c.view.Pos)
	if s.grid == nil || c.everything {
		if c.relVersion != s.world.version || !c.relBuilt {
			s.everything(c)
		}
		return
	}
	every := uint32(s.cfg.Interest.Every)
	if c.relBuilt && !c.relStale && (s.tick+uint32(c.id))%every != 0 {
		return
	}
	s.nearby(c)
	c.relBuilt, c.relStale, c.builtView = true, false, c.view
}

// everything makes c's relevant set the whole world, keeping the
// priority state of the entities it already had.
func (s *Session) everything(c *peer) {
	next := room(c.relNext, s.world.n)
	for _, slot := range s.world.sorted() {
		id := s.world.ents[slot].rec.NetID
		next = append(next, relEntry{netID: id, slot: slot})
	}
	s.adopt(c, next)
	c.relVersion, c.relBuilt = s.world.version, true
}

// nearby makes c's relevant set the entities around its view (with
// hysteresis), the ones always relevant and the one it controls, as the
// rule allows, keeping the priority state of those it already had.
func (s *Session) nearby(c *peer) {
	enter2 := s.gather(c)
	s.sortTmp = sortHigh(s.keys, s.sortTmp)
	s.admit(c, enter2)
}

// gather lists in s.keys and s.near every entity that may be relevant to
// c: the one it controls, the ones always relevant, then those within the
// leaving radius of its view (an entity may be listed twice: first as
// controlled or always relevant). It returns the entering radius squared,
// in steps (0 without a view).
func (s *Session) gather(c *peer) (enter2 float64) {
	w := &s.world
	// NetID and an index in near, to sort as one word by NetID: the sort
	// keeps the order of the index, so that an entity's first entry is its
	// strongest claim.
	keys, near := room(s.keys, len(w.always)+1), room(s.near, len(w.always)+1)
	if slot, ok := w.slot(c.netID); ok && c.netID != 0 {
		keys = append(keys, uint64(c.netID)<<32|uint64(len(near)))
		near = append(near, nearEnt{slot: slot, dist: -2})
	}
	for _, slot := range w.always {
		keys = append(keys, uint64(w.ents[slot].rec.NetID)<<32|uint64(len(near)))
		near = append(near, nearEnt{slot: slot, dist: -1})
	}
	if c.hasView {
		r := float64(c.view.Radius) / float64(s.q.PosStep)
		enter2 = r * r
		leave := r * (1 + float64(s.cfg.Interest.Hysteresis))
		keys, near = s.within(c, leave, keys, near)
	}
	s.keys, s.near = keys, near
	return enter2
}

// within appends to keys and near the entities within leave steps of c's
// view and returns them.
func (s *Session) within(c *peer, leave float64, keys []uint64, near []nearEnt) ([]uint64, []nearEnt) {
	w := &s.world
	center := c.center
	leave2 := leave * leave
	s.cells = s.grid.cells(&center, math.Ceil(leave), s.cells[:0])
	found := len(keys)
	for _, list := range s.cells {
		found += len(s.grid.lists[list])
	}
	keys, near = grow(keys, found), grow(near, found)
	dims := s.grid.dims
	for _, list := range s.cells {
		for _, slot := range s.grid.lists[list] {
			r := &w.ents[slot].rec
			if d := dist2(&r.Pos, &center, dims); d <= leave2 {
				keys = append(keys, uint64(r.NetID)<<32|uint64(len(near)))
				near = append(near, nearEnt{slot: slot, dist: float32(d)})
			}
		}
	}
	return keys, near
}

// admit makes c's relevant set the entities gather listed (in the NetID
// order of the sorted s.keys) that are relevant to it, once each, carrying
// over the priority state of those it had and starting the others as
// entering.
func (s *Session) admit(c *peer, enter2 float64) {
	old := c.rel
	out, spare := s.relBuffer(c, len(s.keys))
	j := 0
	prev := uint32(0) // the NetID listed before
	for i, k := range s.keys {
		n := s.near[uint32(k)]
		e := relEntry{netID: uint32(k >> 32), slot: n.slot, dist: n.dist}
		if i > 0 && prev == e.netID {
			continue // listed again: kept or refused already, by its first claim
		}
		prev = e.netID
		for j < len(old) && old[j].netID < e.netID {
			j++
		}
		held := j < len(old) && old[j].netID == e.netID
		if !s.keep(c, &e, held, enter2) {
			continue
		}
		if held {
			e.priority = old[j].priority
		} else {
			e.priority = s.entering(c, e.netID)
		}
		out = append(out, e)
	}
	s.dropped(c, old, out)
	if spare {
		s.relSpare, c.rel = old[:0], out
	} else {
		c.relNext, c.rel = old[:0], out
	}
}

// relBuffer returns an emptied array with room for n entries for c's
// next relevant set: the set the previous rebuild replaced, which it has
// just read and is still in cache, when it has the room (spare), or else
// c's own second array.
func (s *Session) relBuffer(c *peer, n int) (buf []relEntry, spare bool) {
	if cap(s.relSpare) >= n {
		buf, s.relSpare = s.relSpare[:0], nil
		return buf, true
	}
	return room(c.relNext, n), false
}

// leftEntry is an entity that left a client's relevant set after a record
// of it was sent: the client may hold it, from a tick it has not
// acknowledged, until it acknowledges a tick that carried its despawn.
type leftEntry struct {
	netID        uint32
	despawned    uint32 // the first of the ticks since, each of which carried its despawn
	hasDespawned bool
	firstSent    uint32 // the first tick that carried its despawn (with wasSent)
	lastSent     uint32 // the latest tick that carried its despawn (with wasSent)
	seq          uint16 // the packet of a despawn, watched for an acknowledgement (see watch)
	wasSent      bool
	delivered    bool   // a packet carrying its despawn was acknowledged
	seen         uint16 // despawns watched, then followed by a later packet acknowledged
}

// despawnSightings is how many of an entity's despawns, each followed by
// a later packet the client acknowledged, make it likely enough that the
// client decoded one, once it has been sent for Wire.History ticks, when
// no acknowledgement of its own packet says so.
const despawnSightings = 2

// watch follows the despawn sent at tick in packet seq: it watches one
// packet at a time until the client acknowledges it (the despawn reached
// the client) or a later one without it (lost, or no longer remembered:
// it watches this one instead, and counts a sighting when the client
// acknowledged a later packet).
func (l *leftEntry) watch(c *peer, tick uint32, seq uint16) {
	l.lastSent = tick
	if !l.wasSent {
		l.firstSent, l.seq, l.wasSent = tick, seq, true
		return
	}
	acked, known := c.sentAt.Delivered(l.seq)
	switch {
	case acked:
		l.delivered = true
	case !c.hasAckedSeq || int16(c.ackedSeq-l.seq) <= 0:
		// Not answered yet: keep watching it.
		if !known {
			l.seq = seq
		}
	default:
		// A later packet was acknowledged: the client listened.
		l.seen++
		l.seq = seq
	}
}

// heard learns whether the client acknowledged the packet watched for
// the entity's despawn, between the ticks that send it: a despawn that
// waits for its turn under a budget is not sent again once it arrived.
func (l *leftEntry) heard(c *peer) {
	if l.wasSent && !l.delivered {
		l.delivered, _ = c.sentAt.Delivered(l.seq)
	}
}

// unsentFor is how many ticks the entity's despawn has gone unsent, up
// to most (most when it never was): under a budget, the despawns unsent
// the longest go first, so that many departures at once (a view that
// jumps) are each sent once before any is sent again.
func (l *leftEntry) unsentFor(tick, most uint32) uint32 {
	if !l.wasSent {
		return most
	}
	return min(tick-l.lastSent, most)
}

// expired reports whether the entity's despawn need not be sent again
// though the client acknowledged no tick that carried it: it acknowledged
// a packet that did, or (when the packets are too many to remember) it
// has been sent for Wire.History ticks and the client acknowledged later
// packets despawnSightings times (a client that acknowledges no tick
// would otherwise pin every despawn). Despawns sent while the client
// hears nothing (an outage) count for nothing: one that expired then
// would leave the entity drawn on the client, where no snapshot under a
// budget is complete enough to sweep it.
func (l *leftEntry) expired(s *Session) bool {
	return l.delivered || l.wasSent && s.tick-l.firstSent >= uint32(s.cfg.Wire.History) && l.seen >= despawnSightings
}

// acked reports whether the client acknowledged a tick that carried the
// entity's despawn: one of the run of ticks that did, up to the latest.
func (l *leftEntry) acked(c *peer) bool {
	return l.hasDespawned && c.hasAcked && !tickBefore(c.acked, l.despawned)
}

// cmpLeft orders an entity that left by NetID, for a binary search.
func cmpLeft(l leftEntry, id uint32) int { return cmpUint32(l.netID, id) }

// dropped adds to c's entities that left those of old, its relevant set,
// missing from next, its new one, that were sent to it: each gets a
// despawn until the client acknowledges one (like the graves of the
// entities that died), since the client may know it from a tick it has not
// acknowledged, which the baseline does not hold. Departures beyond the
// room of Wire.MaxEntities entries are counted (LeftUntracked), not kept.
//
// Any number may leave at once (a view that jumps): they are gathered in
// NetID order, as old is, and merged into c.gone in one pass.
func (s *Session) dropped(c *peer, old, next []relEntry) {
	left := room(s.left, len(old)) // no more than old can leave
	j := 0
	for i := range old {
		if !old[i].sent {
			continue
		}
		id := old[i].netID
		for j < len(next) && next[j].netID < id {
			j++
		}
		if j < len(next) && next[j].netID == id {
			continue
		}
		if at, found := slices.BinarySearchFunc(c.gone, id, cmpLeft); found {
			c.gone[at] = leftEntry{netID: id} // left again: a new despawn to acknowledge
			continue
		}
		left = append(left, leftEntry{netID: id})
	}
	s.left = left
	if room := max(s.cfg.Wire.MaxEntities-len(c.gone), 0); len(left) > room {
		c.stats.LeftUntracked += uint64(len(left) - room)
		left = left[:room]
	}
	c.gone = mergeLeft(c.gone, left)
}

// mergeLeft merges left into gone, both in NetID order and with no NetID
// in both, and returns gone: from the back, in place when gone has the
// capacity.
func mergeLeft(gone, left []leftEntry) []leftEntry {
	if len(left) == 0 {
		return gone
	}
	n := len(gone)
	if n+len(left) > cap(gone) {
		gone = append(make([]leftEntry, 0, 2*(n+len(left))+64), gone...)
	}
	gone = gone[:n+len(left)]
	i, j := n-1, len(left)-1
	for k := len(gone) - 1; j >= 0; k-- {
		if i >= 0 && gone[i].netID > left[j].netID {
			gone[k] = gone[i]
			i--
		} else {
			gone[k] = left[j]
			j--
		}
	}
	return gone
}

// keep decides whether entity e (its dist holding its squared distance in
// steps, or -1 when always relevant, -2 when controlled) is relevant to
// c: within the entering radius, or within the leaving one if held, as
// the rule allows.
func (s *Session) keep(c *peer, e *relEntry, held bool, enter2 float64) bool {
	if e.dist == -2 {
		return true
	}
	verdict := Always
	if e.dist >= 0 {
		verdict = ByDistance
	}
	if s.cfg.Interest.Rule != nil {
		if v := s.cfg.Interest.Rule(c.id, e.netID); v != ByDistance {
			verdict = v
		}
	}
	switch verdict {
	case Always:
		return true
	case Never:
		return false
	}
	return held || float64(e.dist) <= enter2
}

// entering is the priority state of an entity entering a client's
// relevant set: waiting since this tick, or up to half of MaxInterval
// before, by its NetID. Entities that enter together (a view that jumps,
// interest turned off, the first snapshot) and are left out by the
// budget are then forced out by MaxInterval over several ticks instead
// of all in one, and stay spread out after that, each waiting again from
// its own send.
//
// An entity that re-enters while the client may still hold it from
// before it left (its despawn not acknowledged) counts as sent: if the
// budget leaves it out and it leaves again, it is despawned again.
func (s *Session) entering(c *peer, netID uint32) priority {
	spread := max(1, s.maxWaitTicks()/2)
	p := priority{since: s.tick - (netID*0x9e3779b1>>16)%spread, fresh: true}
	if at, found := slices.BinarySearchFunc(c.gone, netID, cmpLeft); found && !c.gone[at].acked(c) {
		p.sent = true
	}
	return p
}

// adopt makes next c's relevant set, carrying over the priority state of
// the entities c already had.
func (s *Session) adopt(c *peer, next []relEntry) {
	old := c.rel
	j := 0
	for i := range next {
		e := &next[i]
		for j < len(old) && old[j].netID < e.netID {
			j++
		}
		if j < len(old) && old[j].netID == e.netID {
			e.priority = old[j].priority
		} else {
			e.priority = s.entering(c, e.netID)
		}
	}
	s.dropped(c, old, next)
	c.relNext, c.rel = c.rel[:0], next
}

// stepsOf converts a position in world units to quantisation steps,
// clamped to what a record can hold.
func (s *Session) stepsOf(p mgl32.Vec3) [3]int32 {
	var out [3]int32
	for i := range 3 {
		v := math.Round(float64(p[i]) / float64(s.q.PosStep))
		out[i] = int32(max(min(v, math.MaxInt32), math.MinInt32))
	}
	return out
}

// dist2 is the squared distance between two positions in steps, over the
// grid's dimensions.
func dist2(a, b *[3]int32, dims int) float64 {
	dx := float64(a[0]) - float64(b[0])
	dy := float64(a[1]) - float64(b[1])
	d := dx*dx + dy*dy
	if dims == 3 {
		dz := float64(a[2]) - float64(b[2])
		d += dz * dz
	}
	return d
}

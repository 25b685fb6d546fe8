package server

import (
	"fmt"
	"slices"

	"github.com/netsmooth/netsmooth/wire"
)

// denseNetIDs is the NetID below which an entity is found by indexing a
// table rather than by a map: games that number their entities from 1
// find every one in a single load.
const denseNetIDs = 1 << 20

// worldEntry is one entity of the world, in a slot that stays its own
// for its life: what the relevance queries read of every entity in the
// cells around a client's view, and its snapshots of every relevant one,
// in one cache line (64 bytes), wherever the entity's slot lies. What
// they read rarely lives beside it: the ticks of the latest events (in
// world.events, kept until every client has received them, read only
// when the flags say an event happened) and the entity's place in the
// spatial grid (in world.places).
type worldEntry struct {
	rec wire.Record
	// hash is rec's wire.Record.Hash cut to 32 bits, worked out by the
	// first snapshot of a tick that sends it and kept for the others; 0
	// until then (a hash that is 0 is worked out each time).
	hash                  uint32
	alive                 bool
	always                bool // relevant to every client (SetAlways)
	hasSpawn, hasTeleport bool // events[slot] holds their ticks
}

// eventTicks is when an entity last spawned and teleported (see
// worldEntry.hasSpawn and hasTeleport).
type eventTicks struct {
	spawn, teleport uint32
}

// cellPlace is an entity's place in the spatial grid: its cell's list,
// -1 outside the grid, and its position in that list.
type cellPlace struct {
	cell, inCell int32
}

// world is the entities of the current tick: slots, reused after a
// despawn, found by NetID through a dense table or a map, and the slots
// in NetID order for the clients that see everything.
type world struct {
	ents   []worldEntry
	events []eventTicks
	places []cellPlace
	free   []int32
	dense  []int32          // NetID → slot+1, for NetIDs below denseNetIDs
	sparse map[uint32]int32 // NetID → slot, for the others
	n      int

	byID      []int32 // alive slots in NetID order
	byIDDirty bool
	always    []int32 // slots relevant to every client
	version   uint64  // counts the entities added and removed
}

// hashOf returns the hash of we's record, cut to 32 bits (see
// worldEntry.hash).
func hashOf(we *worldEntry) uint32 {
	if we.hash == 0 {
		we.hash = uint32(we.rec.Hash())
	}
	return we.hash
}

// slot returns the slot of netID, if the world holds it.
func (w *world) slot(netID uint32) (int32, bool) {
	if netID < denseNetIDs {
		if int(netID) < len(w.dense) && w.dense[netID] != 0 {
			return w.dense[netID] - 1, true
		}
		return 0, false
	}
	s, ok := w.sparse[netID]
	return s, ok
}

// add gives netID a slot.
func (w *world) add(netID uint32) int32 {
	var s int32
	if k := len(w.free); k > 0 {
		s, w.free = w.free[k-1], w.free[:k-1]
	} else {
		s = int32(len(w.ents))
		w.ents = append(w.ents, worldEntry{})
		w.events = append(w.events, eventTicks{})
		w.places = append(w.places, cellPlace{})
	}
	w.ents[s] = worldEntry{alive: true}
	w.events[s] = eventTicks{}
	w.places[s] = cellPlace{cell: -1}
	if netID < denseNetIDs {
		if int(netID) >= len(w.dense) {
			w.dense = append(w.dense, make([]int32, int(netID)+1-len(w.dense))...)
		}
		w.dense[netID] = s + 1
	} else {
		if w.sparse == nil {
			w.sparse = make(map[uint32]int32)
		}
		w.sparse[netID] = s
	}
	w.n++
	w.version++
	w.byIDDirty = true
	return s
}

// remove frees netID's slot.
func (w *world) remove(netID uint32, s int32) {
	if netID < denseNetIDs {
		w.dense[netID] = 0
	} else {
		delete(w.sparse, netID)
	}
	if w.ents[s].always {
		w.always = slices.DeleteFunc(w.always, func(x int32) bool { return x == s })
	}
	w.ents[s] = worldEntry{}
	w.places[s] = cellPlace{cell: -1}
	w.free = append(w.free, s)
	w.n--
	w.version++
	w.byIDDirty = true
}

// sorted returns the alive slots in NetID order.
func (w *world) sorted() []int32 {
	if w.byIDDirty {
		w.byID = w.byID[:0]
		for s := range w.ents {
			if w.ents[s].alive {
				w.byID = append(w.byID, int32(s))
			}
		}
		slices.SortFunc(w.byID, func(a, b int32) int { return cmpUint32(w.ents[a].rec.NetID, w.ents[b].rec.NetID) })
		w.byIDDirty = false
	}
	return w.byID
}

// SetEntity sets an entity's state at the current tick, adding it if it is
// new. The Spawn and Teleport flags are events of this tick: every client
// receives them once, with the first record of the entity it gets after
// them (a teleport is never interpolated across). A NetID reused after a
// Despawn should carry Spawn (and, for the pipeline, a new Epoch).
//
// The state is e as a whole: every custom field the quantizer declares
// takes its value from e.Fields, replacing one an earlier
// [Session.SetField] set (call SetField after SetEntity to keep it).
//
// It fails, changing nothing, with an error wrapping wire.ErrRange for a
// state that cannot be quantised, wire.ErrLimit beyond
// SessionConfig.Wire.MaxEntities entities, or [ErrEntity] for NetID 0 or a
// Despawn flag.
func (s *Session) SetEntity(e wire.Entity) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.setEntity(&e)
}

// SetEntities sets the state of every entity of es at the current tick,
// as SetEntity does for each in turn, under one acquisition of the
// session's lock: the way to hand over a large world every tick. It stops
// at the first entity SetEntity would refuse and returns that error; the
// entities before it are set.
func (s *Session) SetEntities(es []wire.Entity) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := &s.world
	for i := range es {
		e := &es[i]
		// The common case, an entity the world holds (never NetID 0)
		// with no flag but its state's, in the loop; setEntity for the
		// rest.
		slot, ok := w.slot(e.NetID)
		if !ok || e.Flags&^wire.HasVelocity != 0 {
			if err := s.setEntity(e); err != nil {
				return err
			}
			continue
		}
		if err := s.update(slot, e); err != nil {
			return err
		}
	}
	return nil
}

// setEntity is SetEntity with the lock held.
func (s *Session) setEntity(e *wire.Entity) error {
	if e.NetID == 0 {
		return fmt.Errorf("%w: NetID 0 is reserved (it means no entity)", ErrEntity)
	}
	if e.Flags&wire.Despawn != 0 {
		return fmt.Errorf("%w: NetID %d has the Despawn flag: call Despawn", ErrEntity, e.NetID)
	}
	w := &s.world
	slot, ok := w.slot(e.NetID)
	if ok {
		if err := s.update(slot, e); err != nil {
			return err
		}
	} else {
		var r wire.Record
		if err := s.q.RecordTo(&r, e); err != nil {
			return err
		}
		if w.n >= s.cfg.Wire.MaxEntities {
			return fmt.Errorf("%w: NetID %d would be entity %d > SessionConfig.Wire.MaxEntities %d (raise it, on the server alone with interest management, on the clients too without)",
				wire.ErrLimit, e.NetID, w.n+1, s.cfg.Wire.MaxEntities)
		}
		slot = w.add(e.NetID)
		w.ents[slot].rec = r
		if s.grid != nil {
			s.grid.place(w, slot)
		}
	}
	we := &w.ents[slot]
	if e.Flags&wire.Spawn != 0 {
		w.events[slot].spawn, we.hasSpawn = s.tick, true
	}
	if e.Flags&wire.Teleport != 0 {
		w.events[slot].teleport, we.hasTeleport = s.tick, true
	}
	return nil
}

// update sets the state of the entity in slot, which the world holds, to
// e's, quantised in place (left as it was on error), forgets its cached
// hash and moves it in the grid if it crossed into another cell. The
// caller has made setEntity's checks (a NetID the world holds is never
// 0) and sets e's events.
func (s *Session) update(slot int32, e *wire.Entity) error {
	w := &s.world
	we := &w.ents[slot]
	if err := s.q.RecordTo(&we.rec, e); err != nil {
		return err
	}
	we.hash = 0
	if s.grid != nil {
		s.grid.place(w, slot)
	}
	return nil
}

// Despawn removes an entity from the world and reports whether it was
// there. Clients holding it receive a despawn record.
func (s *Session) Despawn(netID uint32) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	slot, ok := s.world.slot(netID)
	if !ok {
		return false
	}
	if s.grid != nil {
		s.grid.leave(&s.world, slot)
	}
	if s.hist != nil {
		s.hist.forget(slot)
	}
	s.world.remove(netID, slot)
	j, found := slices.BinarySearchFunc(s.graves, netID, func(g grave, id uint32) int {
		return cmpUint32(g.netID, id)
	})
	switch {
	case found:
		s.graves[j].tick = s.tick
	case len(s.graves) < s.cfg.Wire.MaxEntities:
		s.graves = slices.Insert(s.graves, j, grave{netID: netID, tick: s.tick})
	}
	// Beyond MaxEntities recent despawns, the oldest clients' view of the
	// extra ones relies on complete snapshots (the decoder's sweep).
	return true
}

// SetAlways makes an existing entity relevant to every client wherever
// it is (a game's score keeper, a flag carrier), or back to relevant by
// distance. Without interest management every entity is relevant anyway.
// It reports whether the world holds the entity.
func (s *Session) SetAlways(netID uint32, always bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := &s.world
	slot, ok := w.slot(netID)
	if !ok {
		return false
	}
	if we := &w.ents[slot]; we.always != always {
		we.always = always
		if always {
			w.always = append(w.always, slot)
		} else {
			w.always = slices.DeleteFunc(w.always, func(x int32) bool { return x == slot })
		}
		for _, c := range s.clients {
			c.relStale = true
		}
	}
	return true
}

func cmpUint32(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Len returns the number of entities in the world.
func (s *Session) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.world.n
}

// grave is a despawned entity, remembered until every client has
// acknowledged a tick after its death: a client may know the entity from a
// tick it received only in part, which its baseline does not hold, and
// must still be told it is gone.
type grave struct {
	netID, tick uint32
}

// pruneGraves forgets the despawns every client has acknowledged a tick
// after (or, for a client without an acknowledgement, that happened before
// its first snapshot), and those older than Wire.History ticks: a client
// that has acknowledged nothing since is sent full snapshots, whose
// despawns it would otherwise be sent every tick, however many, for as
// long as it acknowledges nothing.
func (s *Session) pruneGraves() {
	if len(s.graves) == 0 {
		return
	}
	var horizon uint32 // graves at or before it are known to every client
	found := false
	for _, c := range s.clients {
		if !c.hasSent {
			continue // its first snapshot is in the future
		}
		h := c.first - 1
		if c.hasAcked {
			h = c.acked
		}
		if !found || tickBefore(h, horizon) {
			horizon, found = h, true
		}
	}
	if oldest := s.tick - uint32(s.cfg.Wire.History); tickBefore(horizon, oldest) {
		horizon = oldest // older graves are too old to tell
	}
	out := s.graves[:0]
	for _, g := range s.graves {
		if found && tickBefore(horizon, g.tick) {
			out = append(out, g)
		}
	}
	s.graves = out
}

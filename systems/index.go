package systems

import (
	"github.com/mlange-42/arche/ecs"
	"github.com/netsmooth/netsmooth/components"
)

// Default sizes of the [Index].
const (
	// DefaultDenseIDs: NetIDs below this are looked up in a direct table
	// (24 bytes per id up to the largest id seen), the rest in a map.
	DefaultDenseIDs = 1 << 20
	// DefaultTombstones is how many despawned NetIDs outside the direct
	// table are remembered, so late snapshots do not resurrect them.
	DefaultTombstones = 1 << 16
)

type entryState uint8

const (
	entryFree entryState = iota
	entryLive
	entryDespawning // a despawn is scheduled at despawnTick
	entryDead       // despawned at despawnTick; a tombstone
	entryPredicted  // a locally predicted entity
)

func (s entryState) alive() bool {
	return s == entryLive || s == entryDespawning || s == entryPredicted
}

func (s entryState) remote() bool { return s == entryLive || s == entryDespawning }

type indexEntry struct {
	entity      ecs.Entity
	despawnTick uint32 // tick the life ends (despawning, dead)
	bornTick    uint32 // tick the current life began (live): older samples belong to an earlier life
	state       entryState
}

// Index maps server NetIDs to the arche entities that stand for them on this
// client, and remembers recently despawned ids so that late snapshots of a
// dead entity are rejected instead of spawning it again.
//
// Small ids (the common case: servers hand out ids from a counter) live in
// a direct table, so a lookup is one array access; larger ids go through a
// map. Memory is bounded: the table by DenseIDs, the map by the entity limit
// plus the tombstone capacity.
//
// Receive changes the index for remote entities and [Predictor.Spawn] for
// predicted ones, both on the world's goroutine.
type Index struct {
	dense     []indexEntry
	denseIDs  uint64
	sparse    map[components.NetID]indexEntry
	tombs     []components.NetID // FIFO of sparse tombstones, grown up to tombCap
	tombCap   int
	tombNext  int
	remote    int // live remote entities
	predicted int // predicted entities
}

// NewIndex returns an empty index with a direct table for ids below denseIDs
// (zero: DefaultDenseIDs; negative: no direct table) and room for
// tombstones despawned sparse ids (zero or less: DefaultTombstones).
func NewIndex(denseIDs, tombstones int) *Index {
	switch {
	case denseIDs == 0:
		denseIDs = DefaultDenseIDs
	case denseIDs < 0:
		denseIDs = 0
	}
	if tombstones <= 0 {
		tombstones = DefaultTombstones
	}
	return &Index{
		denseIDs: uint64(denseIDs),
		sparse:   map[components.NetID]indexEntry{},
		tombCap:  tombstones,
	}
}

// Lookup returns the entity the index holds for id: one netsmooth spawned
// and has not despawned (a scheduled despawn that has not yet taken effect
// still counts). If the game removed that entity itself, the index learns
// it only when a message names the id again: check world.Alive, or use the
// pipeline's Lookup, which does.
func (x *Index) Lookup(id components.NetID) (ecs.Entity, bool) {
	e := x.get(id)
	if e.state.alive() {
		return e.entity, true
	}
	return ecs.Entity{}, false
}

// Len returns the number of live entities in the index, remote and
// predicted.
func (x *Index) Len() int { return x.remote + x.predicted }

// Remote returns the number of live remote entities.
func (x *Index) Remote() int { return x.remote }

func (x *Index) get(id components.NetID) indexEntry {
	if uint64(id) < uint64(len(x.dense)) { // the dense table never reaches past denseIDs
		return x.dense[id]
	}
	if uint64(id) < x.denseIDs {
		return indexEntry{}
	}
	return x.sparse[id]
}

// entry returns the entry of id to read: in place for an id of the
// direct table, else copied into spare. Reading the fields in place
// rather than copying the entry out avoids a stall: the copy is written
// in 16-byte moves that the reads of its fields, narrower and straddling
// them, cannot be forwarded from. Safe on several goroutines at once
// (each with its own spare) while nothing changes the index.
func (x *Index) entry(id components.NetID, spare *indexEntry) *indexEntry {
	if uint64(id) < uint64(len(x.dense)) {
		return &x.dense[id]
	}
	*spare = x.get(id)
	return spare
}

func (x *Index) put(id components.NetID, e indexEntry) {
	old := x.get(id)
	if old.state.remote() {
		x.remote--
	}
	if e.state.remote() {
		x.remote++
	}
	if old.state == entryPredicted {
		x.predicted--
	}
	if e.state == entryPredicted {
		x.predicted++
	}
	if uint64(id) < x.denseIDs {
		if uint64(id) >= uint64(len(x.dense)) {
			n := max(uint64(len(x.dense))*2, 1024, uint64(id)+1)
			n = min(n, x.denseIDs)
			grown := make([]indexEntry, n)
			copy(grown, x.dense)
			x.dense = grown
		}
		x.dense[id] = e
		return
	}
	if e.state == entryFree {
		delete(x.sparse, id)
		return
	}
	if e.state == entryDead && old.state != entryDead {
		x.addTombstone(id)
	}
	x.sparse[id] = e
}

// addTombstone records a sparse tombstone, forgetting the oldest one when
// the FIFO is full (unless that id has been reused since).
func (x *Index) addTombstone(id components.NetID) {
	if len(x.tombs) < x.tombCap {
		x.tombs = append(x.tombs, id)
		return
	}
	old := x.tombs[x.tombNext]
	if e, ok := x.sparse[old]; ok && e.state == entryDead {
		delete(x.sparse, old)
	}
	x.tombs[x.tombNext] = id
	x.tombNext = (x.tombNext + 1) % x.tombCap
}

// forgetBeyond drops the lifecycle ticks that lie beyond horizon, after the
// clock took up a new timeline (a restarted server, a wrap, an absurd tick
// believed until now): a life's start beyond it no longer refuses older
// samples, a tombstone beyond it no longer refuses the id, and a despawn
// scheduled beyond it becomes due at once (tick 0).
func (x *Index) forgetBeyond(horizon uint32) {
	rebase := func(e indexEntry) (indexEntry, bool) {
		switch {
		case e.state == entryLive && e.bornTick > horizon:
			e.bornTick = 0
		case e.state == entryDespawning && e.despawnTick > horizon:
			e.despawnTick = 0
		case e.state == entryDead && e.despawnTick > horizon:
			return indexEntry{}, true
		default:
			return e, false
		}
		return e, true
	}
	for i, e := range x.dense {
		if next, changed := rebase(e); changed {
			x.dense[i] = next
		}
	}
	for id, e := range x.sparse {
		if next, changed := rebase(e); changed {
			if next.state == entryFree {
				delete(x.sparse, id)
			} else {
				x.sparse[id] = next
			}
		}
	}
}

package systems

import (
	"testing"

	"github.com/mlange-42/arche/ecs"
	"github.com/netsmooth/netsmooth/components"
)

func TestIndexDenseAndSparse(t *testing.T) {
	w := ecs.NewWorld()
	x := NewIndex(100, 4)
	a, b := w.NewEntity(), w.NewEntity()
	x.put(5, indexEntry{entity: a, state: entryLive})
	x.put(1<<30, indexEntry{entity: b, state: entryLive})
	if e, ok := x.Lookup(5); !ok || e != a {
		t.Fatalf("dense lookup = %v %v", e, ok)
	}
	if e, ok := x.Lookup(1 << 30); !ok || e != b {
		t.Fatalf("sparse lookup = %v %v", e, ok)
	}
	if _, ok := x.Lookup(6); ok {
		t.Fatal("found an id never added")
	}
	if x.Len() != 2 {
		t.Fatalf("len = %d", x.Len())
	}
	x.put(5, indexEntry{state: entryDead, despawnTick: 9})
	if _, ok := x.Lookup(5); ok || x.Len() != 1 {
		t.Fatalf("dead id still found, len %d", x.Len())
	}
	if e := x.get(5); e.state != entryDead || e.despawnTick != 9 {
		t.Fatalf("tombstone = %+v", e)
	}
}

func TestIndexSparseTombstonesBounded(t *testing.T) {
	x := NewIndex(-1, 4) // everything sparse, 4 tombstones
	for id := components.NetID(1); id <= 100; id++ {
		x.put(id, indexEntry{state: entryLive})
		x.put(id, indexEntry{state: entryDead, despawnTick: uint32(id)})
	}
	if len(x.sparse) != 4 || len(x.tombs) != 4 || x.Len() != 0 {
		t.Fatalf("sparse map holds %d ids, fifo %d, live %d; want 4, 4, 0", len(x.sparse), len(x.tombs), x.Len())
	}
	for id := components.NetID(97); id <= 100; id++ {
		if e := x.get(id); e.state != entryDead {
			t.Fatalf("recent tombstone %d forgotten", id)
		}
	}
	// A respawned id is not deleted when its old tombstone falls out.
	x.put(97, indexEntry{state: entryLive})
	for id := components.NetID(200); id < 204; id++ {
		x.put(id, indexEntry{state: entryLive})
		x.put(id, indexEntry{state: entryDead})
	}
	if _, ok := x.Lookup(97); !ok {
		t.Fatal("live id 97 deleted with its old tombstone")
	}
}

func TestIndexDenseGrowthBounded(t *testing.T) {
	x := NewIndex(1<<12, 0)
	x.put(1<<12-1, indexEntry{state: entryLive})
	if len(x.dense) != 1<<12 {
		t.Fatalf("dense table %d entries, want %d", len(x.dense), 1<<12)
	}
	x.put(1<<12, indexEntry{state: entryLive}) // first sparse id
	if len(x.dense) != 1<<12 || len(x.sparse) != 1 {
		t.Fatalf("dense %d sparse %d", len(x.dense), len(x.sparse))
	}
}

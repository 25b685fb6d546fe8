package systems

import (
	"github.com/mlange-42/arche/ecs"
	c "github.com/netsmooth/netsmooth/components"
)

//go:generate go run github.com/netsmooth/netsmooth/internal/ringgen columns_gen.go

// ringSlot is one physical slot of a remote entity's ring of samples, as a
// component. The ring's RingCapacity slots are RingCapacity distinct
// component types, ringSlot[ringPos0], ringSlot[ringPos1], ... (the
// markers are generated from components.RingCapacity into
// columns_gen.go), so that slot k of every entity of an archetype sits in
// one contiguous column: when all entities receive a snapshot for the same
// tick (the common case) their samples go to the same slot, and both
// writing them and reading them back stream through memory instead of
// jumping a kilobyte per entity. The ring's head is in the Span. The
// columns are the pipeline's storage: a game reads a ring through
// [RingOf].
type ringSlot[P any] struct {
	c.Sample
}

// columns are the component IDs of a remote entity's ring: the Span that
// holds its head and the RingCapacity ring slot columns that hold its
// samples.
type columns struct {
	span  ecs.ID
	slots [c.RingCapacity]ecs.ID
}

func newColumns(w *ecs.World) columns {
	return columns{
		span:  ecs.ComponentID[c.Span](w),
		slots: slotIDs(w),
	}
}

// slot returns entity e's sample in physical slot phys. A ringSlot is a
// struct whose only field is the Sample, so the pointers coincide.
func (cols *columns) slot(w *ecs.World, e ecs.Entity, phys int) *c.Sample {
	return (*c.Sample)(w.GetUnchecked(e, cols.slots[phys]))
}

// view returns the general ring view of entity e.
func (cols *columns) view(w *ecs.World, e ecs.Entity, head *c.RingHead) c.Ring {
	v := c.Ring{Head: head}
	for k, id := range cols.slots {
		v.Slots[k] = (*c.Sample)(w.GetUnchecked(e, id))
	}
	return v
}

// slotOf returns the sample in physical slot phys of q's current entity.
func (cols *columns) slotOf(q *ecs.Query, phys int) *c.Sample {
	return (*c.Sample)(q.Get(cols.slots[phys&(c.RingCapacity-1)]))
}

// viewOf returns the general ring view of q's current entity, whose ring
// head is head.
func (cols *columns) viewOf(q *ecs.Query, head *c.RingHead) c.Ring {
	v := c.Ring{Head: head}
	for k, id := range cols.slots {
		v.Slots[k] = (*c.Sample)(q.Get(id))
	}
	return v
}

// remoteIDs returns every component ID a remote entity is created with.
func (cols *columns) remoteIDs(w *ecs.World) []ecs.ID {
	ids := []ecs.ID{
		ecs.ComponentID[c.NetID](w), ecs.ComponentID[c.Remote](w), cols.span,
		ecs.ComponentID[c.Render](w), ecs.ComponentID[c.Correction](w),
	}
	return append(ids, cols.slots[:]...)
}

// RingOf returns a view of remote entity e's ring of samples (its head in
// the Span, its samples in the pipeline's ring slot columns), for
// inspection: debugging overlays, trails, tests. ok is false when e is not
// a live remote entity. The view points into the world's storage and is
// valid until the next structural change; it is not meant for per-frame
// loops over many entities.
func RingOf(w *ecs.World, e ecs.Entity) (ring c.Ring, ok bool) {
	cols := newColumns(w)
	if !w.Alive(e) || !w.Has(e, cols.span) || !w.Has(e, cols.slots[0]) {
		return c.Ring{}, false
	}
	span := (*c.Span)(w.Get(e, cols.span))
	return cols.view(w, e, &span.Ring), true
}

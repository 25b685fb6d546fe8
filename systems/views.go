package systems

import (
	"reflect"
	"sync"
	"unsafe"

	"github.com/mlange-42/arche/ecs"
	c "github.com/netsmooth/netsmooth/components"
)

// Storing a snapshot finds its entity's Span and the ring slot the sample
// goes to. Through arche that is World.Alive and two World.GetUnchecked
// calls: three lookups through the world's entity tables and the
// archetype's column layouts, about 40 instructions of the 257 a snapshot
// took, and two more arrays read per snapshot. Receive keeps instead, for
// the frame, a view of each archetype of remote entities (remoteViews:
// where its entity, Span and slot columns start, and how many entities it
// has), and in each NetID's index entry the view and row where it last
// found the entity. Per snapshot it checks that the view's entity column
// holds that entity at that row: one compare, and exact as World.Alive's
// generation check is (a handle names one entity until its id's
// generation counter wraps or the world is reset). A row that changed
// (the game removed an entity and arche moved the archetype's last one
// into its row, or added a component of its own and moved the entity to
// another archetype) fails the check, and the snapshot goes the general
// way, which remembers the new row. The views are built by a query when
// the shortcut next meets a snapshot of a known entity, and dropped at
// the end of the frame and at every spawn: a new entity may move every
// entity of its archetype to larger arrays, and the game's OnSpawn, or an
// arche Listener told of the new entity, may change anything.
//
// arche v0.15.3 has no API that gives an archetype's entity column; its
// Query holds the current archetype's access helper in the unexported
// field access, whose field entityPointer is the column. findEntityColumn
// finds both by name and type through reflect and checks, on a probe
// world, that what they point to is the entities the query visits
// (entityColumnAgrees); if either check fails (another arche version),
// there are no views and every snapshot goes the general way: slower, the
// same output.

// entityColumnOffsets are the offsets of Query.access and of its
// entityPointer; ok is false if they are not usable.
type entityColumnOffsets struct {
	access, entities uintptr
	ok               bool
}

// entityColumns finds the offsets once per process.
var entityColumns = sync.OnceValue(findEntityColumn)

func findEntityColumn() (o entityColumnOffsets) {
	defer func() {
		if recover() != nil {
			o = entityColumnOffsets{}
		}
	}()
	if unsafe.Sizeof(ecs.Entity{}) != 8 || !archetypeBounds().ok {
		return entityColumnOffsets{}
	}
	access, ok := reflect.TypeFor[ecs.Query]().FieldByName("access")
	if !ok || access.Type.Kind() != reflect.Pointer || access.Type.Elem().Kind() != reflect.Struct {
		return entityColumnOffsets{}
	}
	ents, ok := access.Type.Elem().FieldByName("entityPointer")
	if !ok || ents.Type.Kind() != reflect.UnsafePointer {
		return entityColumnOffsets{}
	}
	o = entityColumnOffsets{access: access.Offset, entities: ents.Offset, ok: true}
	if !entityColumnAgrees(o) {
		return entityColumnOffsets{}
	}
	return o
}

// column returns the entity column of q's current archetype.
func (o entityColumnOffsets) column(q *ecs.Query) unsafe.Pointer {
	access := *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(q), o.access))
	return *(*unsafe.Pointer)(unsafe.Add(access, o.entities))
}

// entityColumnAgrees checks, on a small world of several archetypes whose
// entities were created, removed and moved, that the column found with o
// at the start of every archetype holds, row by row, the entities the
// query visits.
func entityColumnAgrees(o entityColumnOffsets) bool {
	w := ecs.NewWorld()
	probe := ecs.ComponentID[boundsProbe](&w)
	tagA := ecs.ComponentID[boundsTagA](&w)
	var made []ecs.Entity
	for i := range 30 {
		ids := []ecs.ID{probe}
		if i%3 == 1 {
			ids = append(ids, tagA)
		}
		made = append(made, w.NewEntity(ids...))
	}
	for i, e := range made {
		switch {
		case i%4 == 0:
			w.RemoveEntity(e)
		case i%5 == 0 && !w.Has(e, tagA):
			w.Add(e, tagA)
		}
	}
	filter := ecs.All(probe)
	var want []ecs.Entity
	q := w.Query(&filter)
	for q.Next() {
		want = append(want, q.Entity())
	}
	var got []ecs.Entity
	b := archetypeBounds()
	q = w.Query(&filter)
	if !q.Next() {
		return false
	}
	for {
		n := b.rest(&q)
		if n > len(want)-len(got) {
			q.Close()
			return false
		}
		col := o.column(&q)
		if col == nil {
			q.Close()
			return false
		}
		for i := range n {
			got = append(got, *(*ecs.Entity)(unsafe.Add(col, uintptr(i)*unsafe.Sizeof(ecs.Entity{}))))
		}
		if !q.Step(n) {
			break
		}
	}
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return len(want) > 0
}

// remoteView is where one archetype of remote entities keeps its
// entities, Spans and ring slots; valid until the next structural change
// of the world.
type remoteView struct {
	entities unsafe.Pointer // the entity column
	n        uint32         // how many entities
	span     unsafe.Pointer
	slots    [c.RingCapacity]unsafe.Pointer
}

// entityAt returns the entity in row i (< v.n).
func (v *remoteView) entityAt(i uint32) ecs.Entity {
	return *(*ecs.Entity)(unsafe.Add(v.entities, uintptr(i)*unsafe.Sizeof(ecs.Entity{})))
}

// holds reports whether row i (< v.n) holds entity e, comparing its id and
// generation as one word.
func (v *remoteView) holds(i uint32, e *ecs.Entity) bool {
	return *(*uint64)(unsafe.Add(v.entities, uintptr(i)*unsafe.Sizeof(ecs.Entity{}))) == *(*uint64)(unsafe.Pointer(e))
}

// holds compares entities as words of their two 32-bit halves.
var _ = [1]struct{}{}[unsafe.Sizeof(ecs.Entity{})-8]

// spanAt returns the Span in row i (< v.n).
func (v *remoteView) spanAt(i uint32) *c.Span {
	return (*c.Span)(unsafe.Add(v.span, uintptr(i)*unsafe.Sizeof(c.Span{})))
}

// slotAt returns the sample in physical slot phys of row i (< v.n).
func (v *remoteView) slotAt(i uint32, phys int) *c.Sample {
	return (*c.Sample)(unsafe.Add(v.slots[phys], uintptr(i)*unsafe.Sizeof(c.RingSlot[c.P0]{})))
}

// remoteViews are the views of every archetype of remote entities, and
// whether they are up to date.
type remoteViews struct {
	views  []remoteView          // all[:count]
	all    *[maxViews]remoteView // views beyond the count are zero (no rows)
	filter ecs.CachedFilter      // every entity with all of a remote entity's components
	fresh  bool
	off    entityColumnOffsets
}

// maxViews bounds the views: an index entry names its view in a byte.
// Entities of further archetypes take the general way.
const maxViews = 256

// init prepares the views for the world whose columns are cols.
func (rv *remoteViews) init(w *ecs.World, cols *columns) {
	// Every component Receive creates remote entities with: each view has
	// every column (an entity the game took one from goes the general
	// way, where arche's lookups handle it).
	f := ecs.All(cols.remoteIDs(w)...)
	rv.filter = w.Cache().Register(&f)
	rv.off = entityColumns()
	rv.all = new([maxViews]remoteView)
	rv.views = rv.all[:0]
}

// invalidate forgets the views, until the next refresh: after a change
// to the world they do not follow, and at the end of a frame (no
// reference to the world's storage between frames, which would keep
// arrays the world has replaced from being collected).
func (rv *remoteViews) invalidate() {
	clear(rv.views)
	rv.views = rv.views[:0]
	rv.fresh = false
}

// refresh rebuilds the views from the world, if they may be out of date
// (and the entity column can be found).
func (rv *remoteViews) refresh(w *ecs.World, cols *columns) {
	if rv.fresh || !rv.off.ok {
		return
	}
	rv.invalidate()
	b := archetypeBounds()
	q := w.Query(&rv.filter)
	if q.Next() {
		for {
			n := b.rest(&q)
			v := remoteView{entities: rv.off.column(&q), n: uint32(n), span: q.Get(cols.span)}
			for k, id := range cols.slots {
				v.slots[k] = q.Get(id)
			}
			rv.views = append(rv.views, v)
			if len(rv.views) == maxViews {
				q.Close()
				break
			}
			if !q.Step(n) {
				break
			}
		}
	}
	rv.fresh = true
}

// rowOf finds entity e, whose Span is at span, in the views: the index of
// its view and its row there, or ok false.
func (rv *remoteViews) rowOf(e ecs.Entity, span *c.Span) (view uint8, row uint32, ok bool) {
	if !rv.fresh {
		return 0, 0, false
	}
	p := uintptr(unsafe.Pointer(span))
	for k := range rv.views {
		v := &rv.views[k]
		base := uintptr(v.span)
		size := unsafe.Sizeof(c.Span{})
		if p >= base && p < base+uintptr(v.n)*size {
			i := uint32((p - base) / size)
			if v.entityAt(i) == e {
				return uint8(k), i, true
			}
		}
	}
	return 0, 0, false
}

package systems

import (
	"reflect"
	"slices"
	"sync"
	"unsafe"

	"github.com/mlange-42/arche/ecs"
	c "github.com/netsmooth/netsmooth/components"
)

// Interpolate reads three components of every remote entity every frame.
// Through arche's Query.Get that is three calls, each looking up the
// component's column in the archetype and multiplying out the row: about
// 2.5 ns of Interpolate's 15 per entity at 100k. Within one archetype a
// component's column is one array, so from the first entity of a stretch
// of entities in one archetype (a run) the others are plain slice elements.
// arche v0.15.3 has no API that says where an archetype's entities end in
// a query; its Query holds it in two unexported fields, entityIndex and
// entityIndexMax. queryBounds.rest reads them, having found them by name
// and type through reflect and checked what they mean on a probe world
// (queryBoundsAgree); if either check fails (another arche version), every
// run is one entity long, which is Query.Get per entity again: slower, the
// same output.

// queryBounds are the offsets of the Query fields that bound the current
// archetype's entities; ok is false if they are not usable.
type queryBounds struct {
	index, max uintptr
	ok         bool
}

// archetypeBounds finds the bounds once per process.
var archetypeBounds = sync.OnceValue(findQueryBounds)

func findQueryBounds() (b queryBounds) {
	defer func() {
		if recover() != nil {
			b = queryBounds{} // another arche that the probe upsets: no runs
		}
	}()
	t := reflect.TypeFor[ecs.Query]()
	index, ok1 := t.FieldByName("entityIndex")
	last, ok2 := t.FieldByName("entityIndexMax")
	if !ok1 || !ok2 || index.Type.Kind() != reflect.Uint32 || last.Type.Kind() != reflect.Uint32 {
		return queryBounds{}
	}
	b = queryBounds{index: index.Offset, max: last.Offset, ok: true}
	if !queryBoundsAgree(b) {
		return queryBounds{}
	}
	return b
}

// rest returns how many entities q has from its current one to the end of
// the current one's archetype, the current one included: at least 1.
func (b queryBounds) rest(q *ecs.Query) int {
	if !b.ok {
		return 1
	}
	base := unsafe.Pointer(q)
	index := *(*uint32)(unsafe.Add(base, b.index))
	last := *(*uint32)(unsafe.Add(base, b.max))
	if last < index {
		return 1
	}
	return int(last-index) + 1
}

// boundsProbe is a component of the probe world only, 24 bytes long.
type boundsProbe struct{ _ [3]uint64 }

// boundsTagA and boundsTagB give the probe world more than one archetype.
type (
	boundsTagA struct{}
	boundsTagB struct{}
)

// queryBoundsAgree checks, on a small world of four archetypes whose
// entities were created, removed and moved, that runs found with b cover
// every entity of a cached query exactly once, that every entity's
// component is where striding from its run's first entity puts it, and
// that a query stepped to any entity (as the workers' queries are) says
// how many entities of its archetype are left from there.
func queryBoundsAgree(b queryBounds) bool {
	w := ecs.NewWorld()
	probe := ecs.ComponentID[boundsProbe](&w)
	tagA := ecs.ComponentID[boundsTagA](&w)
	tagB := ecs.ComponentID[boundsTagB](&w)
	var made []ecs.Entity
	for i := range 40 {
		ids := []ecs.ID{probe}
		switch i % 3 {
		case 1:
			ids = append(ids, tagA)
		case 2:
			ids = append(ids, tagA, tagB)
		}
		made = append(made, w.NewEntity(ids...))
	}
	for i, e := range made {
		switch {
		case i%7 == 0:
			w.RemoveEntity(e)
		case i%5 == 0 && w.Has(e, tagA):
			w.Remove(e, tagA)
		}
	}
	w.NewEntity(tagA) // not in the query
	filter := ecs.All(probe)
	cached := w.Cache().Register(&filter)

	// Every entity the query visits, one by one through Get, and how many
	// archetypes they are in (no two archetypes here share a mask). The
	// addresses are kept as numbers: with wrong offsets, striding points
	// outside the columns, and such a pointer must never be held where the
	// garbage collector sees it, let alone read.
	var want []uintptr
	var arch []int // the archetype of each entity, numbered in query order
	archetypes := 0
	var mask ecs.Mask
	q := w.Query(&cached)
	for q.Next() {
		want = append(want, uintptr(q.Get(probe)))
		if m := q.Mask(); archetypes == 0 || m != mask {
			archetypes++
			mask = m
		}
		arch = append(arch, archetypes)
	}
	// From any entity: the entities left in its archetype.
	for j := range want {
		left := 0
		for k := j; k < len(arch) && arch[k] == arch[j]; k++ {
			left++
		}
		q = w.Query(&cached)
		q.Step(j + 1)
		n := b.rest(&q)
		q.Close()
		if n != left {
			return false
		}
	}
	// The same through runs.
	got := make([]uintptr, 0, len(want))
	q = w.Query(&cached)
	if !q.Next() {
		return false
	}
	runs := 0
	for {
		n := b.rest(&q)
		if runs++; n > len(want)-len(got) {
			q.Close()
			return false
		}
		first := uintptr(q.Get(probe))
		for i := range n {
			got = append(got, first+uintptr(i)*unsafe.Sizeof(boundsProbe{}))
		}
		if !q.Step(n) {
			break
		}
	}
	return runs == archetypes && archetypes >= 3 && slices.Equal(got, want)
}

// run is Interpolate's access to the ring slots of one run: the query sits
// at the run's first entity while the run is drawn, and the address of
// that entity's sample in a slot column is fetched from it the first time
// an entity of the run needs that slot.
type run struct {
	q     *ecs.Query
	cols  *columns
	slots [c.RingCapacity]unsafe.Pointer
}

// start makes r the run that begins at q's current entity.
func (r *run) start(q *ecs.Query, cols *columns) {
	r.q, r.cols = q, cols
	r.slots = [c.RingCapacity]unsafe.Pointer{}
}

// slot returns the sample in physical slot phys of the run's entity i.
func (r *run) slot(i, phys int) *c.Sample {
	col := r.slots[phys]
	if col == nil {
		col = r.q.Get(r.cols.slots[phys])
		r.slots[phys] = col
	}
	return (*c.Sample)(unsafe.Add(col, uintptr(i)*unsafe.Sizeof(c.RingSlot[c.P0]{})))
}

// view returns the general ring view of the run's entity i.
func (r *run) view(i int, head *c.RingHead) c.Ring {
	v := c.Ring{Head: head}
	for k := range v.Slots {
		v.Slots[k] = r.slot(i, k)
	}
	return v
}

package perf

import (
	"github.com/netsmooth/netsmooth/internal/sampling"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	c "github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/systems"
)

// MinimumOnArche is the lower bound ([Minimum]) written on arche's public
// API: the same work, with every piece of its per-entity data an arche
// component (the hot bracket, the ring head, the ring's slots, slot k of
// every entity in one column as netsmooth's ring slots, and the drawn
// Render) and nothing else. Drawing iterates the entities with a cached
// query (Query.Next, Query.Get for the bracket and the Render, and for
// the head and a slot when the render time crosses a sample); a snapshot
// finds its entity from a table indexed by NetID and its head and slot
// through World.Get and World.GetUnchecked. No pointer is kept or
// advanced beyond what those calls hand out.
//
// It is the reference of netsmooth's per-frame targets: the least an
// implementation on arche's public API can spend to draw what the
// pipeline draws (it draws exactly what the lower bound draws,
// TestMinimumOnArcheAgrees), so that netsmooth's speed is judged without
// reading arche's private state.
type MinimumOnArche struct {
	clock   *fedClock
	seen    int // messages received, for sampling waits
	pending []systems.Message
	world   *ecs.World
	ents    []ecs.Entity // by NetID-1
	hot     ecs.ID       // minBracket
	head    ecs.ID       // minHead
	out     ecs.ID       // c.Render
	ring    [c.RingCapacity]ecs.ID
	filter  ecs.CachedFilter
}

//go:generate go run github.com/netsmooth/netsmooth/internal/ringgen slots_gen.go

// archeSlot is one physical slot of the ring, as a component: slot k of
// every entity in one column, as netsmooth's ring slots are.
type archeSlot[P any] struct{ minSample }

// NewMinimumOnArche returns the lower bound on arche for n entities
// (NetIDs 1..n, created in that order), on a clock configured like the
// default pipeline's.
func NewMinimumOnArche(n int) *MinimumOnArche {
	w := ecs.NewWorld()
	m := &MinimumOnArche{clock: newClock(), world: &w}
	m.hot = ecs.ComponentID[minBracket](m.world)
	m.head = ecs.ComponentID[minHead](m.world)
	m.out = ecs.ComponentID[c.Render](m.world)
	m.ring = archeSlotIDs(m.world)
	ids := append([]ecs.ID{m.hot, m.head, m.out}, m.ring[:]...)
	filter := ecs.All(ids...)
	m.filter = m.world.Cache().Register(&filter)
	m.ents = make([]ecs.Entity, n)
	for k := range m.ents {
		m.ents[k] = m.world.NewEntity(ids...)
	}
	return m
}

// Receive implements [scenario.Client]: it queues snapshots for the next
// frame (a copy, as into an inbox).
func (m *MinimumOnArche) Receive(msgs []systems.Message) { m.pending = append(m.pending, msgs...) }

// Frame implements [scenario.Client]: the received snapshots in, the
// clock advanced by dt, every entity drawn at the render time.
func (m *MinimumOnArche) Frame(dt float64) {
	m.Ingest(dt)
	m.Interpolate()
}

// Ingest is [Minimum.Ingest] with each ring found through the world: the
// entity from the NetID, its head through World.Get (which checks that
// the entity is alive), its slot through World.GetUnchecked.
func (m *MinimumOnArche) Ingest(dt float64) {
	before := m.clock.ServerTick()
	m.clock.BeginFrame(dt)
	msgs := m.pending
	m.pending = m.pending[:0]
	w := m.world
	var runTick uint32
	runN := 0
	for i := range msgs {
		msg := &msgs[i]
		e := m.ents[int(msg.NetID)-1]
		h := (*minHead)(w.Get(e, m.head))
		if h.Count > 0 {
			if msg.Tick <= h.Newest {
				continue // the steady scenario has no out-of-order samples
			}
			if (m.seen+i)%sampling.Every == 0 {
				m.clock.AddWait(before - float64(h.Newest))
			}
		}
		*(*minSample)(w.GetUnchecked(e, m.ring[h.append(msg.Tick)])) = sampleOf(msg)
		if runN > 0 && msg.Tick != runTick {
			m.clock.ObserveN(runTick, runN)
			runN = 0
		}
		runTick = msg.Tick
		runN++
	}
	m.seen += len(msgs)
	m.clock.ObserveN(runTick, runN)
	m.clock.Advance()
}

// Interpolate draws every entity at the clock's render time, as the lower
// bound does (the same blend, written out), entity by entity through
// a query.
func (m *MinimumOnArche) Interpolate() {
	rt := m.clock.RenderTick()
	q := m.world.Query(&m.filter)
	for q.Next() {
		b := (*minBracket)(q.Get(m.hot))
		if rt >= float64(b.To) && !m.rebuild(&q, b, rt) {
			continue // not two samples yet
		}
		t := float32((rt - float64(b.From)) * float64(b.Inv))
		out := (*c.Render)(q.Get(m.out))
		out.Pos = mgl32.Vec3{b.Pos0[0] + (b.Pos1[0]-b.Pos0[0])*t, b.Pos0[1] + (b.Pos1[1]-b.Pos0[1])*t, b.Pos0[2] + (b.Pos1[2]-b.Pos0[2])*t}
		if r0, r1 := &b.Rot0, &b.Rot1; *r0 == *r1 {
			out.Rot = *r0
		} else {
			qw := r0.W + (r1.W-r0.W)*t
			qx := r0.V[0] + (r1.V[0]-r0.V[0])*t
			qy := r0.V[1] + (r1.V[1]-r0.V[1])*t
			qz := r0.V[2] + (r1.V[2]-r0.V[2])*t
			inv := 1 / float32(math.Sqrt(float64(qw*qw+qx*qx+qy*qy+qz*qz)))
			out.Rot = mgl32.Quat{W: qw * inv, V: mgl32.Vec3{qx * inv, qy * inv, qz * inv}}
		}
		out.Flags = c.Visible
	}
}

// rebuild is [Minimum.rebuild] for the query's current entity, its head
// and slots fetched from the query.
func (m *MinimumOnArche) rebuild(q *ecs.Query, b *minBracket, rt float64) bool {
	h := (*minHead)(q.Get(m.head))
	if b.To != 0 {
		next := (h.ToPos + 1) & (c.RingCapacity - 1)
		if n := (*minSample)(q.Get(m.ring[next])); n.Tick > b.To && rt < float64(n.Tick) {
			setBracket(b, (*minSample)(q.Get(m.ring[h.ToPos&(c.RingCapacity-1)])), n)
			h.ToPos = next
			return true
		}
	}
	for k := int(h.Count) - 2; k >= 0; k-- {
		pa := (int(h.Start) + k) & (c.RingCapacity - 1)
		pb := (pa + 1) & (c.RingCapacity - 1)
		a, nb := (*minSample)(q.Get(m.ring[pa])), (*minSample)(q.Get(m.ring[pb]))
		if float64(a.Tick) <= rt && rt < float64(nb.Tick) {
			setBracket(b, a, nb)
			h.ToPos = uint8(pb)
			return true
		}
	}
	return false
}

// Draw implements [scenario.Client].
func (m *MinimumOnArche) Draw(id c.NetID) (mgl32.Vec3, float64, bool, bool) {
	r := m.Render(id)
	if r.Flags&c.Visible == 0 {
		return mgl32.Vec3{}, 0, false, false
	}
	return r.Pos, m.clock.RenderTick() / TickRate, false, true
}

// Render returns what entity id (1..n) was drawn as last frame.
func (m *MinimumOnArche) Render(id c.NetID) c.Render {
	if id < 1 || int(id) > len(m.ents) {
		return c.Render{}
	}
	return *(*c.Render)(m.world.Get(m.ents[id-1], m.out))
}

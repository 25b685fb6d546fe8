package bench

import (
	"unsafe"

	"github.com/mlange-42/arche/ecs"
	c "github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/netsim/scenario"
)

// MinimumOnArche is the lower bound ([Minimum]) with its rings stored the
// way netsmooth stores them: each entity's ring head and its RingCapacity
// ring slots are arche components (slot k of every entity in one column),
// and a snapshot finds them from its NetID through a table of entities,
// World.Alive and World.GetUnchecked, instead of by index in a slice.
// Everything else is the lower bound's: the same 8-byte head and 32-byte
// samples, no validation, no metrics, no generality. Drawing reads the
// rings as the columns of the world's one archetype, the way an arche
// query hands them out, so it costs what the lower bound's does.
//
// It measures what finding an entity's ring through the ECS by NetID
// costs per snapshot: the part of the gap between netsmooth's ingest and
// the lower bound that is the ECS's rather than netsmooth's own work. It
// draws exactly what the lower bound draws (TestMinimumOnArcheAgrees).
type MinimumOnArche struct {
	*Minimum // its heads and slots are views of the world's columns
	world    *ecs.World
	ents     []ecs.Entity // by NetID-1
	head     ecs.ID
	ringIDs  [c.RingCapacity]ecs.ID
	filter   ecs.Filter
}

// archeSlot is one physical slot of the ring, as a component: slot k of
// every entity in one column, as netsmooth's RingSlot[Pk] are.
type archeSlot[P any] struct{ minSample }

// NewMinimumOnArche returns the lower bound on arche for n entities
// (NetIDs 1..n, created in that order), on a clock configured like the
// default pipeline's.
func NewMinimumOnArche(n int) *MinimumOnArche {
	w := ecs.NewWorld()
	m := &MinimumOnArche{Minimum: newMinimumWithoutRings(n), world: &w}
	m.head = ecs.ComponentID[minHead](m.world)
	m.ringIDs = [...]ecs.ID{
		ecs.ComponentID[archeSlot[c.P0]](m.world), ecs.ComponentID[archeSlot[c.P1]](m.world),
		ecs.ComponentID[archeSlot[c.P2]](m.world), ecs.ComponentID[archeSlot[c.P3]](m.world),
		ecs.ComponentID[archeSlot[c.P4]](m.world), ecs.ComponentID[archeSlot[c.P5]](m.world),
		ecs.ComponentID[archeSlot[c.P6]](m.world), ecs.ComponentID[archeSlot[c.P7]](m.world),
		ecs.ComponentID[archeSlot[c.P8]](m.world), ecs.ComponentID[archeSlot[c.P9]](m.world),
		ecs.ComponentID[archeSlot[c.P10]](m.world), ecs.ComponentID[archeSlot[c.P11]](m.world),
		ecs.ComponentID[archeSlot[c.P12]](m.world), ecs.ComponentID[archeSlot[c.P13]](m.world),
		ecs.ComponentID[archeSlot[c.P14]](m.world), ecs.ComponentID[archeSlot[c.P15]](m.world),
	}
	ids := append([]ecs.ID{m.head}, m.ringIDs[:]...)
	m.filter = ecs.All(ids...)
	m.ents = make([]ecs.Entity, n)
	for k := range m.ents {
		m.ents[k] = m.world.NewEntity(ids...)
	}
	return m
}

// Frame implements [scenario.Client]: the received snapshots in, the
// clock advanced by dt, every entity drawn at the render time.
func (m *MinimumOnArche) Frame(dt float64) {
	m.Ingest(dt)
	m.Interpolate()
}

// Interpolate draws every entity at the clock's render time, as the lower
// bound does, over the world's columns.
func (m *MinimumOnArche) Interpolate() {
	m.viewColumns()
	m.Minimum.Interpolate()
}

// viewColumns points the lower bound's heads and slots at the world's
// columns for this frame. The entities were created in NetID order, in one
// archetype, and none was removed: row k is NetID k+1.
func (m *MinimumOnArche) viewColumns() {
	q := m.world.Query(m.filter)
	defer q.Close()
	n := len(m.ents)
	if q.Count() != n || !q.Next() || q.Entity() != m.ents[0] {
		panic("bench: the lower bound on arche's world changed")
	}
	m.heads = unsafe.Slice((*minHead)(q.Get(m.head)), n)
	for k, id := range m.ringIDs {
		m.slots[k] = unsafe.Slice((*minSample)(q.Get(id)), n)
	}
}

// Ingest is [Minimum.Ingest] with each ring found through the world: the
// entity from the NetID, checked alive, then its head and its slot.
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
		if !w.Alive(e) {
			continue
		}
		h := (*minHead)(w.GetUnchecked(e, m.head))
		if h.Count > 0 {
			if msg.Tick <= h.Newest {
				continue // the steady scenario has no out-of-order samples
			}
			if (m.seen+i)%scenario.WaitSampling == 0 {
				m.clock.AddWait(before - float64(h.Newest))
			}
		}
		*(*minSample)(w.GetUnchecked(e, m.ringIDs[h.append(msg.Tick)])) = sampleOf(msg)
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

package systems

import (
	"github.com/mlange-42/arche/ecs"
	c "github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/timeline"
)

// despawnSchedule is the schedule of remote entities to remove when the render
// time reaches their despawn tick: Receive adds to it as Despawn messages
// arrive, the [Retire] system carries it out. It also counts the old lives
// still waiting there after a new life took their NetID, which the entity
// limit includes.
type despawnSchedule struct {
	due      []scheduledDespawn
	detached int // old lives out of the index, still in the world
}

type scheduledDespawn struct {
	id     c.NetID
	entity ecs.Entity
	tick   uint32
}

func (d *despawnSchedule) schedule(id c.NetID, e ecs.Entity, tick uint32) {
	d.due = append(d.due, scheduledDespawn{id: id, entity: e, tick: tick})
}

// dueBeyond makes every despawn scheduled beyond horizon due at once: its
// tick belongs to a timeline the server has left.
func (d *despawnSchedule) dueBeyond(horizon uint32) {
	for i := range d.due {
		if d.due[i].tick > horizon {
			d.due[i].tick = 0
		}
	}
}

// Retire is the system that removes remote entities whose despawn tick
// the render time has reached, right after [Timeline] has moved it: an
// entity stays on screen until its last moments have been drawn, and not a
// frame longer. (An entity drawn with a lag, being sent less often than the
// others, is removed when the pipeline's render time reaches the tick, up
// to its lag before its own drawing would.)
type Retire struct {
	onDespawn func(w *ecs.World, e ecs.Entity, id c.NetID)

	clock    *timeline.Clock
	index    *Index
	metrics  *Metrics
	despawns *despawnSchedule
	cols     columns
	ready    bool
}

// NewRetire returns the Retire system; onDespawn, if not nil, is called
// right before each entity is removed (ReceiveConfig.OnDespawn).
func NewRetire(onDespawn func(w *ecs.World, e ecs.Entity, id c.NetID)) *Retire {
	return &Retire{onDespawn: onDespawn}
}

// Initialize implements the arche-model System interface.
func (s *Retire) Initialize(w *ecs.World) {
	if s.ready {
		return
	}
	s.clock = mustResource[timeline.Clock](w)
	s.index = mustResource[Index](w)
	s.metrics = mustResource[Metrics](w)
	s.despawns = sharedResource[despawnSchedule](w)
	s.cols = newColumns(w)
	s.ready = true
}

// Update implements the arche-model System interface.
func (s *Retire) Update(w *ecs.World) {
	d := s.despawns
	if len(d.due) == 0 {
		return
	}
	rt := s.clock.RenderTick()
	recount := false
	kept := d.due[:0]
	for _, due := range d.due {
		if float64(due.tick) > rt {
			kept = append(kept, due)
			continue
		}
		if !s.remove(w, due) {
			recount = true // the game removed it first
		}
		// The index still names this life unless a new one has begun.
		if entry := s.index.get(due.id); entry.state == entryDespawning && entry.entity == due.entity {
			s.index.put(due.id, indexEntry{despawnTick: due.tick, state: entryDead})
		} else {
			d.detached--
		}
		s.metrics.Despawned++
	}
	d.due = kept
	s.metrics.Entities = s.index.Remote() + d.detached
	if recount {
		recountOccupancy(w, s.metrics)
	}
}

// remove takes a scheduled entity out of the world, reporting false if it
// was already gone.
func (s *Retire) remove(w *ecs.World, due scheduledDespawn) bool {
	if !w.Alive(due.entity) {
		return false
	}
	span := (*c.Span)(w.GetUnchecked(due.entity, s.cols.span))
	s.metrics.Occupancy[span.Ring.Len()]--
	if s.onDespawn != nil {
		s.onDespawn(w, due.entity, due.id)
	}
	if w.Alive(due.entity) {
		w.RemoveEntity(due.entity)
	}
	return true
}

// Finalize implements the arche-model System interface.
func (s *Retire) Finalize(w *ecs.World) {}

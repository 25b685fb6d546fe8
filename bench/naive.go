package bench

import (
	"sort"

	"github.com/go-gl/mathgl/mgl32"
	c "github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/timeline"
)

// Naive is the object-per-entity baseline, written the way the source
// documents write it: a map from NetID to a pointer per entity, each with a
// slice of snapshots appended and sorted on every push and trimmed from the
// front, sampled by a linear scan, blended with mathgl method chains.
type Naive struct {
	clock    *timeline.Clock
	pending  []systems.Message
	entities map[c.NetID]*naiveEntity
}

type naiveSnapshot struct {
	tick uint32
	pos  mgl32.Vec3
	rot  mgl32.Quat
}

type naiveEntity struct {
	snapshots []naiveSnapshot
	pos       mgl32.Vec3
	rot       mgl32.Quat
}

// naiveCapacity is seed 001's buffer capacity.
const naiveCapacity = 32

// NewNaive returns the baseline with no entities.
func NewNaive() *Naive {
	clock, _ := timeline.NewClock(timeline.DefaultConfig(TickRate))
	return &Naive{clock: clock, entities: map[c.NetID]*naiveEntity{}}
}

// Push queues snapshots for the next frame.
func (n *Naive) Push(msgs []systems.Message) { n.pending = append(n.pending, msgs...) }

func (n *Naive) ingest() {
	for _, m := range n.pending {
		e := n.entities[m.NetID]
		if e == nil {
			e = &naiveEntity{}
			n.entities[m.NetID] = e
		}
		e.snapshots = append(e.snapshots, naiveSnapshot{tick: m.Tick, pos: m.Pos, rot: m.Rot.Normalize()})
		sort.Slice(e.snapshots, func(i, j int) bool { return e.snapshots[i].tick < e.snapshots[j].tick })
		for len(e.snapshots) > naiveCapacity {
			e.snapshots = e.snapshots[1:]
		}
		n.clock.Observe(m.Tick)
	}
	n.pending = n.pending[:0]
}

// Frame advances the clock by dt and samples every entity.
func (n *Naive) Frame(dt float64) {
	n.clock.BeginFrame(dt)
	n.ingest()
	n.clock.Advance()
	rt := n.clock.RenderTick()
	for _, e := range n.entities {
		buf := e.snapshots
		if len(buf) == 0 {
			continue
		}
		if rt <= float64(buf[0].tick) {
			e.pos, e.rot = buf[0].pos, buf[0].rot
			continue
		}
		last := buf[len(buf)-1]
		e.pos, e.rot = last.pos, last.rot
		for i := 1; i < len(buf); i++ {
			a, b := buf[i-1], buf[i]
			if rt <= float64(b.tick) {
				t := float32((rt - float64(a.tick)) / float64(b.tick-a.tick))
				e.pos = a.pos.Add(b.pos.Sub(a.pos).Mul(t))
				e.rot = mgl32.QuatNlerp(a.rot, b.rot, t)
				break
			}
		}
	}
}

// Position returns entity id's drawn position (for tests).
func (n *Naive) Position(id int) mgl32.Vec3 { return n.entities[c.NetID(id)].pos }

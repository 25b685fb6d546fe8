// Package pipetest is the test rig shared by the tests of packages systems
// and ecs: a world with a netsmooth pipeline, driven frame by frame, with
// helpers to push messages and read what was drawn; and the predicted game
// shared by the benchmarks of packages systems and bench. It is for tests
// and benchmarks only.
package pipetest

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/timeline"
)

// TicksDelay is a delay policy in exact ticks, so tests can place the render
// time on exact values.
type TicksDelay float64

// Delay implements timeline.DelayPolicy.
func (d TicksDelay) Delay(*timeline.Stats) float64 { return float64(d) }

// Rig is a world with a pipeline, for driving frames by hand.
type Rig struct {
	T       testing.TB
	World   ecs.World
	Pipe    *nsecs.Pipeline
	renders generic.Map1[components.Render]
	corrs   generic.Map1[components.Correction]
	// instead runs in place of a system of the pipeline (see Override).
	instead map[nsecs.System]func(w *ecs.World)
	started bool
}

// NewRig builds a pipeline from cfg in a world of its own, failing t if cfg
// is refused.
func NewRig(t testing.TB, cfg nsecs.Config) *Rig {
	t.Helper()
	r := &Rig{T: t, World: ecs.NewWorld()}
	p, err := nsecs.New(&r.World, cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	r.Pipe = p
	r.renders = generic.NewMap1[components.Render](&r.World)
	r.corrs = generic.NewMap1[components.Correction](&r.World)
	return r
}

// ConfigAt returns the default config at a tick rate with an exact delay in
// ticks and a render clock that may run any distance past the newest
// sample: the interpolation and extrapolation rules are tested on their
// own; the clamp window has its own tests.
func ConfigAt(rate, delayTicks float64) nsecs.Config {
	cfg := nsecs.DefaultConfig().WithTickRate(rate)
	cfg.Clock.Delay = TicksDelay(delayTicks)
	cfg.Clock.MaxAhead = 1e6
	return cfg
}

// Push queues messages for the next frame.
func (r *Rig) Push(ms ...systems.Message) {
	for _, m := range ms {
		r.Pipe.Inbox().Push(m)
	}
}

// Frame runs one frame of dt seconds.
func (r *Rig) Frame(dt float64) {
	if len(r.instead) == 0 {
		r.Pipe.Update(dt)
		return
	}
	if !r.started {
		r.Pipe.Initialize()
		r.started = true
	}
	ecs.GetResource[systems.Frame](&r.World).Set(dt)
	for _, s := range r.Pipe.Systems() {
		if update, ok := r.instead[s]; ok {
			update(&r.World)
		} else {
			s.Update(&r.World)
		}
	}
}

// Override makes Frame run update in place of the pipeline's system s:
// for tests that compare one of a system's ways of working with another
// (see systems' export_test.go).
func (r *Rig) Override(s nsecs.System, update func(w *ecs.World)) {
	if r.instead == nil {
		r.instead = map[nsecs.System]func(w *ecs.World){}
	}
	r.instead[s] = update
}

// Receive returns the pipeline's Receive system.
func (r *Rig) Receive() *systems.Receive {
	for _, s := range r.Pipe.Systems() {
		if rcv, ok := s.(*systems.Receive); ok {
			return rcv
		}
	}
	panic("pipetest: the pipeline has no Receive")
}

// Entity returns the live entity of id, failing the test if there is none.
func (r *Rig) Entity(id components.NetID) ecs.Entity {
	r.T.Helper()
	e, ok := r.Pipe.Lookup(id)
	if !ok {
		r.T.Fatalf("entity %d not found", id)
	}
	return e
}

// Render returns what was drawn for id this frame.
func (r *Rig) Render(id components.NetID) components.Render {
	r.T.Helper()
	return *r.renders.Get(r.Entity(id))
}

// RenderOf returns what was drawn for entity e this frame.
func (r *Rig) RenderOf(e ecs.Entity) components.Render { return *r.renders.Get(e) }

// Correction returns id's correction.
func (r *Rig) Correction(id components.NetID) components.Correction {
	r.T.Helper()
	return *r.corrs.Get(r.Entity(id))
}

// RenderTick returns the render time in ticks.
func (r *Rig) RenderTick() float64 { return r.Pipe.Clock().RenderTick() }

// Ring returns a view of id's ring of samples.
func (r *Rig) Ring(id components.NetID) *components.Ring {
	r.T.Helper()
	ring, ok := systems.RingOf(&r.World, r.Entity(id))
	if !ok {
		r.T.Fatalf("entity %d has no ring", id)
	}
	return &ring
}

// CheckCounted asserts the counting invariant: every pushed message is
// accepted or rejected for exactly one reason.
func (r *Rig) CheckCounted(pushed int) {
	r.T.Helper()
	m := r.Pipe.Metrics()
	if got := m.Received(); got != uint64(pushed) {
		r.T.Fatalf("counted %d messages (accepted %d, rejected %v), pushed %d", got, m.Accepted, m.Rejected, pushed)
	}
}

// RingTicks lists the ticks held in ring, oldest first.
func RingTicks(ring *components.Ring) []uint32 {
	var ticks []uint32
	for i := 0; i < ring.Len(); i++ {
		ticks = append(ticks, ring.At(i).Tick)
	}
	return ticks
}

// Snap is a snapshot of id at tick at x on the x axis.
func Snap(id components.NetID, tick uint32, x float32) systems.Message {
	return systems.Message{NetID: id, Tick: tick, Pos: mgl32.Vec3{x, 0, 0}}
}

// SnapVel is a snapshot of id at tick at x moving at vx along x.
func SnapVel(id components.NetID, tick uint32, x, vx float32) systems.Message {
	return systems.Message{NetID: id, Tick: tick, Pos: mgl32.Vec3{x, 0, 0}, Vel: mgl32.Vec3{vx, 0, 0}, HasVelocity: true}
}

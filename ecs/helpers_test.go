package ecs_test

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

// ticksDelay is a delay policy in exact ticks, so tests can place the render
// time on exact values.
type ticksDelay float64

func (d ticksDelay) Delay(*timeline.Stats) float64 { return float64(d) }

// rig is a world with a pipeline, for driving frames by hand.
type rig struct {
	t     testing.TB
	world ecs.World
	pipe  *nsecs.Pipeline
	rmap  generic.Map1[components.Render]
}

func newRig(t testing.TB, cfg nsecs.Config) *rig {
	t.Helper()
	r := &rig{t: t, world: ecs.NewWorld()}
	p, err := nsecs.New(&r.world, cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	r.pipe = p
	r.rmap = generic.NewMap1[components.Render](&r.world)
	return r
}

// cfgAt returns the default config at a tick rate with an exact delay in
// ticks and a render clock that may run any distance past the newest
// sample: the interpolation and extrapolation rules are tested on their
// own; the clamp window has its own tests.
func cfgAt(rate, delayTicks float64) nsecs.Config {
	cfg := nsecs.DefaultConfig().WithTickRate(rate)
	cfg.Clock.Delay = ticksDelay(delayTicks)
	cfg.Clock.MaxAhead = 1e6
	return cfg
}

func (r *rig) push(ms ...systems.Message) {
	for _, m := range ms {
		r.pipe.Inbox().Push(m)
	}
}

func (r *rig) frame(dt float64) { r.pipe.Update(dt) }

func (r *rig) render(id components.NetID) components.Render {
	r.t.Helper()
	e, ok := r.pipe.Lookup(id)
	if !ok {
		r.t.Fatalf("entity %d not found", id)
	}
	return *r.rmap.Get(e)
}

func (r *rig) renderTick() float64 { return r.pipe.Clock().RenderTick() }

func snap(id components.NetID, tick uint32, x float32) systems.Message {
	return systems.Message{NetID: id, Tick: tick, Pos: mgl32.Vec3{x, 0, 0}}
}

func snapVel(id components.NetID, tick uint32, x, vx float32) systems.Message {
	return systems.Message{NetID: id, Tick: tick, Pos: mgl32.Vec3{x, 0, 0}, Vel: mgl32.Vec3{vx, 0, 0}, HasVelocity: true}
}

// checkCounted asserts the counting invariant: every pushed message is
// accepted or rejected for exactly one reason.
func (r *rig) checkCounted(pushed int) {
	r.t.Helper()
	m := r.pipe.Metrics()
	if got := m.Received(); got != uint64(pushed) {
		r.t.Fatalf("counted %d messages (accepted %d, rejected %v), pushed %d", got, m.Accepted, m.Rejected, pushed)
	}
}

func abs(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

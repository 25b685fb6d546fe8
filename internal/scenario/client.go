package scenario

import (
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/blend"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/timeline"
)

// Client is an implementation under measurement, in the scorecard, the
// example scenes and the benchmarks: netsmooth's pipeline or a baseline. It
// receives what the network delivered, runs frames and says what it draws.
// Calls are per frame (Draw per entity drawn), so that a benchmark measures
// the client and not the calls.
type Client interface {
	// Receive hands over the messages delivered since the last frame.
	Receive(msgs []systems.Message)
	// Frame runs one render frame of dt seconds.
	Frame(dt float64)
	// Draw returns where entity id is drawn this frame, the server time (in
	// seconds) that drawing stands for, and whether the client is past its
	// newest data for it (an underrun). ok is false if it is not drawn.
	Draw(id components.NetID) (pos mgl32.Vec3, presented float64, underrun, ok bool)
}

// Observer is implemented by clients that can report their buffering for
// plots: the delay they aim at and the samples buffered ahead (mean).
type Observer interface {
	Buffer() (delay, ahead float64)
}

// Factory builds a fresh client for a scenario.
type Factory struct {
	Name string
	New  func(sc *Scenario) Client
}

// NetSmooth is netsmooth's pipeline as a Client.
type NetSmooth struct {
	world   ecs.World
	pipe    *nsecs.Pipeline
	renders generic.Map1[components.Render]
	spans   generic.Map1[components.Span]
	rate    float64
}

// NewNetSmooth builds a pipeline from cfg (its tick rate must match the
// scenario's) in a world of its own.
func NewNetSmooth(cfg nsecs.Config) (*NetSmooth, error) {
	c := &NetSmooth{world: ecs.NewWorld(), rate: cfg.TickRate}
	pipe, err := nsecs.New(&c.world, cfg)
	if err != nil {
		return nil, err
	}
	c.pipe = pipe
	c.renders = generic.NewMap1[components.Render](&c.world)
	c.spans = generic.NewMap1[components.Span](&c.world)
	return c, nil
}

// Pipeline returns the pipeline, for metrics and its systems.
func (c *NetSmooth) Pipeline() *nsecs.Pipeline { return c.pipe }

// World returns the world the pipeline runs in.
func (c *NetSmooth) World() *ecs.World { return &c.world }

// Receive implements [Client].
func (c *NetSmooth) Receive(msgs []systems.Message) { c.pipe.Inbox().PushBatch(msgs) }

// Frame implements [Client].
func (c *NetSmooth) Frame(dt float64) { c.pipe.Update(dt) }

// Draw implements [Client].
func (c *NetSmooth) Draw(id components.NetID) (mgl32.Vec3, float64, bool, bool) {
	e, ok := c.pipe.Lookup(id)
	if !ok {
		return mgl32.Vec3{}, 0, false, false
	}
	r := c.renders.Get(e)
	if r.Flags&components.Visible == 0 {
		return mgl32.Vec3{}, 0, false, false
	}
	under := r.Flags&(components.Extrapolated|components.Held) != 0
	// An entity sent less often than the others is drawn a little later.
	lag := float64(c.spans.Get(e).Lag)
	return r.Pos, (c.pipe.Clock().RenderTick() - lag) / c.rate, under, true
}

// Buffer implements [Observer].
func (c *NetSmooth) Buffer() (delay, ahead float64) {
	m := c.pipe.Metrics()
	return m.ActualDelay, m.AheadMean
}

// netsmoothWith returns a factory for netsmooth's pipeline configured by
// adjust from the defaults at the scenario's tick rate.
func netsmoothWith(name string, adjust func(*nsecs.Config)) Factory {
	return Factory{Name: name, New: func(sc *Scenario) Client {
		cfg := nsecs.DefaultConfig().WithTickRate(sc.TickRate)
		if adjust != nil {
			adjust(&cfg)
		}
		c, err := NewNetSmooth(cfg)
		if err != nil {
			panic(err)
		}
		return c
	}}
}

// Default is netsmooth with its default configuration.
func Default() Factory { return netsmoothWith("netsmooth", nil) }

// Baselines are the clients the scorecard compares netsmooth with, each
// named by what it does:
//
//   - "latest snapshot" draws the newest snapshot as it arrives: no buffer;
//   - "fixed 100 ms lerp" is netsmooth 100 ms in the past with no
//     extrapolation;
//   - "uncapped extrapolation" is netsmooth 100 ms in the past extrapolating
//     linearly without a cap, closing corrections by 25% a tick;
//   - "damped buffer" is [DampedBuffer], a per-entity sorted snapshot buffer
//     with a render clock re-anchored on every snapshot and damped
//     extrapolation capped at 120 ms;
//   - "dead reckoning" stamps snapshots with their arrival time and
//     extrapolates from the last two, up to 150 ms, then holds.
func Baselines() []Factory {
	return []Factory{
		{Name: "latest snapshot", New: func(sc *Scenario) Client { return newLatest(sc.TickRate) }},
		FixedLerp(100 * time.Millisecond),
		netsmoothWith("uncapped extrapolation", func(c *nsecs.Config) {
			c.Clock.Delay = timeline.FixedDelay(0.1)
			c.Clock.MaxAhead = 1e6
			c.Interpolate.Extrapolation = blend.Linear
			c.Interpolate.ExtrapolationLimit = 1e3
			c.Smooth.PerTick = 0.25
		}),
		{Name: "damped buffer", New: func(sc *Scenario) Client { return NewDampedBuffer(sc.TickRate) }},
		{Name: "dead reckoning", New: func(sc *Scenario) Client { return newDeadReckoning(sc.TickRate) }},
	}
}

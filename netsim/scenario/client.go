package scenario

import (
	"sort"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/blend"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/timeline"
)

// Client is an implementation under measurement: it receives what the
// network delivered, runs frames and says what it draws.
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
	rate    float64
}

// NewNetSmooth builds a pipeline from cfg (its tick rate must match the
// scenario's).
func NewNetSmooth(cfg nsecs.Config) *NetSmooth {
	c := &NetSmooth{world: ecs.NewWorld(), rate: cfg.TickRate}
	pipe, err := nsecs.New(&c.world, cfg)
	if err != nil {
		panic(err)
	}
	c.pipe = pipe
	c.renders = generic.NewMap1[components.Render](&c.world)
	return c
}

// Pipeline returns the pipeline, for metrics.
func (c *NetSmooth) Pipeline() *nsecs.Pipeline { return c.pipe }

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
	return r.Pos, c.pipe.Clock().RenderTick() / c.rate, under, true
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
		return NewNetSmooth(cfg)
	}}
}

// Default is netsmooth with its default configuration.
func Default() Factory { return netsmoothWith("netsmooth", nil) }

// Baselines are the clients the scorecard compares netsmooth with:
// no buffer at all, a fixed 100 ms delay with lerp and no extrapolation, and
// each source document's own policy.
func Baselines() []Factory {
	return []Factory{
		{Name: "latest snapshot", New: func(sc *Scenario) Client { return newLatest(sc.TickRate) }},
		netsmoothWith("fixed 100 ms lerp", func(c *nsecs.Config) {
			c.Clock.Delay = timeline.FixedDelay(0.1)
			c.Clock.MaxAhead = 0
			c.Interpolate.Extrapolation = blend.Hold
		}),
		netsmoothWith("seed 000 policy", func(c *nsecs.Config) {
			// Render tick = now - delay, velocity extrapolation without a
			// cap, corrections closing 25% per tick, snap on large errors.
			c.Clock.Delay = timeline.FixedDelay(0.1)
			c.Clock.MaxAhead = 1e6
			c.Interpolate.Extrapolation = blend.Linear
			c.Interpolate.ExtrapolationLimit = 1e3
			c.Smooth.Rate = systems.RateFromAlpha(0.25, c.TickRate)
		}),
		{Name: "seed 001 policy", New: func(sc *Scenario) Client { return newSeed001(sc.TickRate) }},
		{Name: "seed 004 policy", New: func(sc *Scenario) Client { return newSeed004(sc.TickRate) }},
	}
}

// latest draws the newest snapshot received, as it arrives: no buffer.
type latest struct {
	rate float64
	last map[components.NetID]systems.Message
}

func newLatest(rate float64) *latest {
	return &latest{rate: rate, last: map[components.NetID]systems.Message{}}
}

func (c *latest) Receive(msgs []systems.Message) {
	for _, m := range msgs {
		if m.Kind == systems.Despawn {
			delete(c.last, m.NetID)
			continue
		}
		if old, ok := c.last[m.NetID]; !ok || m.Tick > old.Tick {
			c.last[m.NetID] = m
		}
	}
}

func (c *latest) Frame(float64) {}

func (c *latest) Draw(id components.NetID) (mgl32.Vec3, float64, bool, bool) {
	m, ok := c.last[id]
	return m.Pos, float64(m.Tick) / c.rate, false, ok
}

// seed001 is seed 001's client: per entity, a buffer sorted on push, a
// render clock advanced by frame time and re-anchored to (newest snapshot
// time - 100 ms) on every snapshot, sampling with damped, capped
// extrapolation (120 ms).
type seed001 struct {
	rate     float64
	entities map[components.NetID]*seed001Entity
}

type seed001Entity struct {
	buf        []systems.Message
	renderTime float64 // ms
}

const (
	seed001Delay  = 100 // ms
	seed001MaxExt = 120 // ms
)

func newSeed001(rate float64) *seed001 {
	return &seed001{rate: rate, entities: map[components.NetID]*seed001Entity{}}
}

func (c *seed001) Receive(msgs []systems.Message) {
	for _, m := range msgs {
		if m.Kind == systems.Despawn {
			delete(c.entities, m.NetID)
			continue
		}
		e := c.entities[m.NetID]
		if e == nil {
			e = &seed001Entity{}
			c.entities[m.NetID] = e
		}
		e.buf = append(e.buf, m)
		sort.Slice(e.buf, func(i, j int) bool { return e.buf[i].Tick < e.buf[j].Tick })
		for len(e.buf) > 32 {
			e.buf = e.buf[1:]
		}
		// serverNow: the newest snapshot's time, re-anchoring the clock.
		e.renderTime = float64(e.buf[len(e.buf)-1].Tick)/c.rate*1000 - seed001Delay
	}
}

func (c *seed001) Frame(dt float64) {
	for _, e := range c.entities {
		e.renderTime += dt * 1000
	}
}

func (c *seed001) Draw(id components.NetID) (mgl32.Vec3, float64, bool, bool) {
	e := c.entities[id]
	if e == nil || len(e.buf) == 0 {
		return mgl32.Vec3{}, 0, false, false
	}
	ms := func(m *systems.Message) float64 { return float64(m.Tick) / c.rate * 1000 }
	rt := e.renderTime
	oldest, newest := &e.buf[0], &e.buf[len(e.buf)-1]
	switch {
	case rt <= ms(oldest):
		return oldest.Pos, ms(oldest) / 1000, false, true
	case rt >= ms(newest):
		ahead := rt - ms(newest)
		if ahead >= seed001MaxExt {
			return newest.Pos, rt / 1000, true, true
		}
		// The seed's velocity comes from the snapshot; ours carry none, so
		// estimate it from the two newest samples as seed 004 does.
		v := mgl32.Vec3{}
		if len(e.buf) > 1 {
			p := &e.buf[len(e.buf)-2]
			v = newest.Pos.Sub(p.Pos).Mul(float32(1000 / (ms(newest) - ms(p))))
		}
		damp := float32(1 - ahead/seed001MaxExt)
		return newest.Pos.Add(v.Mul(float32(ahead/1000) * damp)), rt / 1000, true, true
	}
	for i := 0; i+1 < len(e.buf); i++ {
		a, b := &e.buf[i], &e.buf[i+1]
		if rt >= ms(a) && rt <= ms(b) {
			t := float32((rt - ms(a)) / (ms(b) - ms(a)))
			return a.Pos.Add(b.Pos.Sub(a.Pos).Mul(t)), rt / 1000, false, true
		}
	}
	return newest.Pos, rt / 1000, false, true
}

// seed004 is seed 004's client: snapshots stamped with their local arrival
// time, drawn 100 ms in the past by that clock, dead reckoning from the last
// two snapshots up to 150 ms, and a snap when a new snapshot lands more than
// 400 units from what is drawn.
type seed004 struct {
	rate     float64
	now      float64 // local ms
	entities map[components.NetID]*seed004Entity
}

type seed004Snap struct {
	at   float64 // local arrival time, ms
	tick float64 // server tick time, s (for the presented time)
	pos  mgl32.Vec3
}

type seed004Entity struct {
	snaps     []seed004Snap
	drawn     mgl32.Vec3
	presented float64
	under     bool
}

const (
	seed004Delay   = 100
	seed004MaxExt  = 150
	seed004SnapLen = 400
)

func newSeed004(rate float64) *seed004 {
	return &seed004{rate: rate, entities: map[components.NetID]*seed004Entity{}}
}

func (c *seed004) Receive(msgs []systems.Message) {
	for _, m := range msgs {
		if m.Kind == systems.Despawn {
			delete(c.entities, m.NetID)
			continue
		}
		e := c.entities[m.NetID]
		if e == nil {
			e = &seed004Entity{drawn: m.Pos}
			c.entities[m.NetID] = e
		}
		if len(e.snaps) > 0 && m.Pos.Sub(e.drawn).Len() > seed004SnapLen {
			e.snaps = e.snaps[:0] // snapping: drop the history
			e.drawn = m.Pos
		}
		e.snaps = append(e.snaps, seed004Snap{at: c.now, tick: float64(m.Tick) / c.rate, pos: m.Pos})
		for len(e.snaps) > 2 && e.snaps[0].at < c.now-1000 {
			e.snaps = e.snaps[1:]
		}
	}
}

func (c *seed004) Frame(dt float64) {
	c.now += dt * 1000
	target := c.now - seed004Delay
	for _, e := range c.entities {
		if len(e.snaps) < 2 {
			if len(e.snaps) == 1 {
				e.drawn, e.presented = e.snaps[0].pos, e.snaps[0].tick
			}
			continue
		}
		found := false
		for i := 0; i+1 < len(e.snaps); i++ {
			a, b := &e.snaps[i], &e.snaps[i+1]
			if a.at <= target && target <= b.at {
				t := 0.0
				if b.at > a.at {
					t = (target - a.at) / (b.at - a.at)
				}
				e.drawn = a.pos.Add(b.pos.Sub(a.pos).Mul(float32(t)))
				e.presented = a.tick + (b.tick-a.tick)*t
				e.under, found = false, true
				break
			}
		}
		if found {
			continue
		}
		n := len(e.snaps)
		a, b := &e.snaps[n-2], &e.snaps[n-1]
		if b.at <= a.at {
			e.drawn, e.presented = b.pos, b.tick
			continue
		}
		vel := b.pos.Sub(a.pos).Mul(float32(1 / (b.at - a.at))) // per ms
		ahead := max(0, min(target-b.at, seed004MaxExt))
		e.drawn = b.pos.Add(vel.Mul(float32(ahead)))
		e.presented = b.tick + ahead/1000*(b.tick-a.tick)/((b.at-a.at)/1000)
		e.under = target > b.at
	}
}

func (c *seed004) Draw(id components.NetID) (mgl32.Vec3, float64, bool, bool) {
	e := c.entities[id]
	if e == nil || len(e.snaps) == 0 {
		return mgl32.Vec3{}, 0, false, false
	}
	return e.drawn, e.presented, e.under, true
}

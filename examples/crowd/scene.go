package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/blend"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/timeline"
)

// path is one entity's true motion: a circle with a slow radial wobble.
type path struct {
	center        mgl32.Vec3
	radius, omega float64
	phase, wobble float64
}

// at returns where the entity is at time t, in seconds.
func (p *path) at(t float64) mgl32.Vec3 {
	a := p.phase + p.omega*t
	r := p.radius * (1 + 0.2*math.Sin(p.wobble*t))
	return mgl32.Vec3{p.center[0] + float32(r*math.Cos(a)), p.center[1] + float32(r*math.Sin(a)), 0}
}

// speed returns how fast, in units per second, the entity moves at time t.
func (p *path) speed(t float64) float64 {
	const h = 1e-3
	return float64(p.at(t+h).Sub(p.at(t-h)).Len()) / (2 * h)
}

// newPaths returns the seeded paths of o.entities entities, on a square
// grid 40 units apart.
func newPaths(o *options) []path {
	rng := rand.New(rand.NewPCG(o.seed, 0x5eed))
	paths := make([]path, o.entities)
	side := int(math.Ceil(math.Sqrt(float64(o.entities))))
	for i := range paths {
		paths[i] = path{
			center: mgl32.Vec3{float32(i%side) * 40, float32(i/side) * 40, 0},
			radius: 5 + 10*rng.Float64(),
			omega:  (0.3 + 0.9*rng.Float64()) * float64(1-2*rng.IntN(2)),
			phase:  2 * math.Pi * rng.Float64(),
			wobble: 0.5 + rng.Float64(),
		}
	}
	return paths
}

// packet is what the server sends: the states of entities [first, first+n)
// at one tick. The client decodes it by evaluating the paths, as a real
// transport would decode positions from the payload.
type packet struct {
	tick  uint32
	first int
	n     int
}

// run plays the scene o describes and returns what it measured.
func run(o options) (*result, error) {
	if o.entities <= 0 || o.seconds <= 0 || o.tickRate <= 0 || o.fps <= 0 || o.perPacket <= 0 {
		return nil, fmt.Errorf("entities, seconds, tick-rate, fps and per-packet must be positive")
	}
	policy, err := blend.ParseExtrapolation(o.extrapolation)
	if err != nil {
		return nil, err
	}
	paths := newPaths(&o)
	cfg := nsecs.DefaultConfig().WithTickRate(o.tickRate)
	if o.delay > 0 {
		cfg.Clock.Delay = timeline.FixedDelay(o.delay.Seconds())
	}
	cfg.Interpolate.Extrapolation = policy
	cfg.Receive.MaxEntities = max(cfg.Receive.MaxEntities, o.entities)
	cfg = cfg.WithWorkers(o.workers)
	if o.parallelMin > 0 {
		cfg.Receive.ParallelMin, cfg.Interpolate.ParallelMin = o.parallelMin, o.parallelMin
	}
	client, err := scenario.NewNetSmooth(cfg)
	if err != nil {
		return nil, err
	}
	defer client.Pipeline().Finalize()
	link, err := netsim.NewLink[packet](netsim.Config{
		Latency: o.latency, Jitter: o.jitter, Loss: o.loss, Reorder: o.reorder, Duplicate: o.duplicate,
		MaxInFlight: 1 << 20,
	}, o.seed)
	if err != nil {
		return nil, err
	}
	res := &result{worst: make([]float64, o.entities), trails: newTrails(o.trailIDs)}
	timed := &timedClient{NetSmooth: client}
	loop := scenario.Loop[packet]{
		FPS:       o.fps,
		Link:      link,
		Server:    &server{o: &o},
		Transport: &transport{paths: paths, rate: o.tickRate, client: client, batch: make([]systems.Message, 0, o.perPacket)},
		Client:    timed,
		Meter:     &meter{paths: paths, rate: o.tickRate, client: client, res: res, renders: generic.NewFilter2[components.NetID, components.Render]()},
	}
	loop.Run(o.seconds)
	pipe := client.Pipeline()
	res.metrics = *pipe.Metrics()
	res.link = link.Stats()
	res.updateTime = timed.elapsed
	res.delay = pipe.Clock().DelaySeconds()
	return res, nil
}

// server sends, every tick, one packet per perPacket entities.
type server struct {
	o    *options
	sent int // ticks sent
}

// Serve implements [scenario.Server].
func (s *server) Serve(f scenario.Instant, dst []packet) []packet {
	o := s.o
	for ; time.Duration(float64(s.sent)/o.tickRate*float64(time.Second)) <= f.Now; s.sent++ {
		for first := 0; first < o.entities; first += o.perPacket {
			dst = append(dst, packet{tick: uint32(s.sent), first: first, n: min(o.perPacket, o.entities-first)})
		}
	}
	return dst
}

// transport decodes what arrived and pushes it into the pipeline's inbox,
// a packet at a time.
type transport struct {
	paths  []path
	rate   float64
	client scenario.Client
	batch  []systems.Message
}

// Arrive implements [scenario.Transport].
func (t *transport) Arrive(_ scenario.Instant, packets []packet) {
	for _, p := range packets {
		at := float64(p.tick) / t.rate
		t.batch = t.batch[:0]
		for i := p.first; i < p.first+p.n; i++ {
			t.batch = append(t.batch, systems.Message{NetID: components.NetID(i + 1), Tick: p.tick, Pos: t.paths[i].at(at)})
		}
		t.client.Receive(t.batch)
	}
}

// Depart implements [scenario.Transport]: nothing goes back.
func (t *transport) Depart(scenario.Instant) {}

// timedClient is the pipeline, timing its frames.
type timedClient struct {
	*scenario.NetSmooth
	elapsed time.Duration
}

// Frame implements [scenario.Client].
func (c *timedClient) Frame(dt float64) {
	start := time.Now()
	c.NetSmooth.Frame(dt)
	c.elapsed += time.Since(start)
}

// meter measures the distance between what is drawn and the true path at
// the presented (render) time, for every visible entity.
type meter struct {
	paths   []path
	rate    float64
	client  *scenario.NetSmooth
	res     *result
	renders *generic.Filter2[components.NetID, components.Render]
}

// settle is when, in seconds, the meter starts measuring: by then every
// entity has samples to draw from, and the start-up (an entity drawn
// from its first sample alone) is over.
const settle = 1.0

// Measure implements [scenario.Meter]: the error of every visible entity
// at the presented time, how fast it truly moves there, how far behind
// the server the frame is drawn, and the trails of the entities chosen.
func (m *meter) Measure(f scenario.Instant) {
	if f.T < settle {
		return
	}
	rt := m.client.Pipeline().Clock().RenderTick() / m.rate
	res := m.res
	trail := res.trails.frame()
	q := m.renders.Query(m.client.World())
	for q.Next() {
		id, r := q.Get()
		if r.Flags&components.Visible == 0 {
			continue
		}
		p := &m.paths[int(*id)-1]
		truth := p.at(rt)
		d := float64(r.Pos.Sub(truth).Len())
		res.sumErr += d
		res.maxErr = math.Max(res.maxErr, d)
		res.sumSpeed += p.speed(rt)
		res.entityFrames++
		res.worst[int(*id)-1] = math.Max(res.worst[int(*id)-1], d)
		if k, ok := res.trails.slot(*id); ok {
			trail[k] = trailPoint{drawn: r.Pos, truth: truth, err: d, shown: true, extrapolated: r.Flags&components.Extrapolated != 0}
		}
	}
	res.sumDelay += f.T - rt
	res.frames++
}

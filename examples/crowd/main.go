// Command crowd is netsmooth's main example scene, headless: a simulated
// server moves thousands of entities along curved paths and sends 20 Hz
// snapshots through a bad simulated network (netsim); the client pipeline
// renders them at 60 Hz; the scene prints how far what was drawn strayed from
// the true paths and what a frame cost.
//
//	go run ./examples/crowd
//	go run ./examples/crowd -entities 20000 -loss 0.1 -jitter 40ms
//	go run ./examples/crowd -h
//
// Everything runs on virtual time, so a run is deterministic for a seed
// (except the measured cost).
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime/pprof"
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

// options are the scene's settings, one flag each.
type options struct {
	entities      int
	seconds       float64
	tickRate      float64
	fps           float64
	perPacket     int
	latency       time.Duration
	jitter        time.Duration
	loss          float64
	reorder       float64
	duplicate     float64
	delay         time.Duration
	extrapolation string
	seed          uint64
	workers       int
	cpuProfile    string
	parallelMin   int // overrides the workers' default threshold (tests)
}

func main() {
	var o options
	fs := flag.NewFlagSet("crowd", flag.ExitOnError)
	fs.IntVar(&o.entities, "entities", 5000, "number of remote entities the server moves")
	fs.Float64Var(&o.seconds, "seconds", 10, "virtual seconds to simulate")
	fs.Float64Var(&o.tickRate, "tick-rate", 20, "server tick and snapshot rate in Hz (one snapshot per entity per tick)")
	fs.Float64Var(&o.fps, "fps", 60, "client render rate in frames per second")
	fs.IntVar(&o.perPacket, "per-packet", 64, "entity states per network packet (a lost packet loses all of them)")
	fs.DurationVar(&o.latency, "latency", 80*time.Millisecond, "one-way base latency of the link")
	fs.DurationVar(&o.jitter, "jitter", 20*time.Millisecond, "jitter: each packet's delay varies uniformly by ± this")
	fs.Float64Var(&o.loss, "loss", 0.05, "probability a packet is lost")
	fs.Float64Var(&o.reorder, "reorder", 0, "probability a packet is held back so later ones overtake it")
	fs.Float64Var(&o.duplicate, "duplicate", 0, "probability a packet is delivered twice")
	fs.DurationVar(&o.delay, "delay", 0, "fixed interpolation delay (render time = server time - delay); 0 adapts it to the measured interval and jitter")
	fs.StringVar(&o.extrapolation, "extrapolation", "coast", "policy past the newest sample: coast, hold, linear or damped-return")
	fs.Uint64Var(&o.seed, "seed", 1, "seed for the paths and the network")
	fs.IntVar(&o.workers, "workers", 1, "goroutines that store snapshots and draw entities in frames of 30,000 or more (Config.WithWorkers); the scene draws the same with any number")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `crowd: netsmooth's example scene, headless.

A simulated server moves entities along curved paths and sends a snapshot of
each entity every tick through a simulated network (latency, jitter, loss,
reordering, duplication). The client runs the netsmooth pipeline at the render
rate and draws every entity a little in the past. At the end the scene prints
the error between what was drawn and the true path at the presented time,
underruns, rejected snapshots by reason, and the pipeline's cost per entity
per frame. Time is virtual: the run is deterministic for a seed, apart from
the measured cost.

Usage: go run ./examples/crowd [flags]

Flags:
`)
		fs.PrintDefaults()
	}
	_ = fs.Parse(os.Args[1:])
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "crowd:", err)
			os.Exit(2)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "crowd:", err)
			os.Exit(2)
		}
		defer pprof.StopCPUProfile()
	}
	res, err := run(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "crowd:", err)
		os.Exit(2)
	}
	res.print(os.Stdout, o)
}

// path is one entity's true motion: a circle with a slow radial wobble.
type path struct {
	center        mgl32.Vec3
	radius, omega float64
	phase, wobble float64
}

func (p *path) at(t float64) mgl32.Vec3 {
	a := p.phase + p.omega*t
	r := p.radius * (1 + 0.2*math.Sin(p.wobble*t))
	return mgl32.Vec3{p.center[0] + float32(r*math.Cos(a)), p.center[1] + float32(r*math.Sin(a)), 0}
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

type result struct {
	frames, entityFrames int
	sumErr, maxErr       float64
	metrics              systems.Metrics
	link                 netsim.Stats
	updateTime           time.Duration
	delay                float64
}

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
	res := &result{}
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

// Measure implements [scenario.Meter].
func (m *meter) Measure(scenario.Instant) {
	rt := m.client.Pipeline().Clock().RenderTick() / m.rate
	q := m.renders.Query(m.client.World())
	for q.Next() {
		id, r := q.Get()
		if r.Flags&components.Visible == 0 {
			continue
		}
		d := float64(r.Pos.Sub(m.paths[int(*id)-1].at(rt)).Len())
		m.res.sumErr += d
		m.res.maxErr = math.Max(m.res.maxErr, d)
		m.res.entityFrames++
	}
	m.res.frames++
}

func (r *result) print(w io.Writer, o options) {
	m := &r.metrics
	row := func(name, format string, args ...any) {
		fmt.Fprintf(w, "| %-34s | %s |\n", name, fmt.Sprintf(format, args...))
	}
	fmt.Fprintf(w, "crowd: %d entities, %.0f s at %.0f Hz snapshots, %.0f FPS; link %v ± %v, %.0f%% loss, %.0f%% reorder, %.0f%% duplicates; %s extrapolation; seed %d\n\n",
		o.entities, o.seconds, o.tickRate, o.fps, o.latency, o.jitter, o.loss*100, o.reorder*100, o.duplicate*100, o.extrapolation, o.seed)
	fmt.Fprintf(w, "| %-34s | %s |\n|%s|%s|\n", "measure", "value", "------------------------------------", "----------------")
	row("entities", "%d", m.Entities)
	row("frames", "%d", r.frames)
	row("interpolation delay (at the end)", "%.0f ms", r.delay*1000)
	row("samples buffered ahead (mean)", "%.2f", m.AheadMean)
	if r.entityFrames > 0 {
		row("mean error vs true path", "%.4f units", r.sumErr/float64(r.entityFrames))
	}
	row("max error vs true path", "%.4f units", r.maxErr)
	row("underrun frames (any entity)", "%d of %d", m.UnderrunFrames, r.frames)
	ef := float64(r.frames) * float64(max(m.Entities, 1))
	row("extrapolated entity-frames", "%d (%.2f%%)", m.Extrapolated, 100*float64(m.Extrapolated)/ef)
	row("held entity-frames", "%d (%.2f%%)", m.Held, 100*float64(m.Held)/ef)
	row("corrections smoothed", "%d (max %.3f units)", m.Corrections, m.MaxCorrection)
	row("snaps", "%d", m.Snaps)
	row("packets sent / lost", "%d / %d", r.link.Sent, r.link.Lost)
	row("snapshots accepted", "%d", m.Accepted)
	for reason := systems.RejectReason(0); reason < systems.NumRejectReasons; reason++ {
		if n := m.Rejected[reason]; n > 0 {
			row("snapshots rejected: "+reason.String(), "%d", n)
		}
	}
	if m.RejectedTotal() == 0 {
		row("snapshots rejected", "0")
	}
	nsPerEntity := float64(r.updateTime.Nanoseconds()) / ef
	row("pipeline cost per entity per frame", "%.1f ns (%.2f ms per frame)", nsPerEntity, float64(r.updateTime.Nanoseconds())/float64(r.frames)/1e6)
}

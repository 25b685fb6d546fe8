// Package lagcomp measures lag compensation end to end: a server session
// with history and a client pipeline over simulated links, the client
// firing at the exact drawn centre of moving targets, the server judging
// every shot three ways (against what the client drew, against the
// present, and Source-style against a fixed 100 ms interpolation delay).
// The scorecard prints its table and the tests hold it to its bounds.
package lagcomp

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/client"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/wire"
)

// Geometry and timing of the range.
const (
	TickRate = 20
	// Radius is every target's hit sphere.
	Radius = 0.5
	// SourceDelay is the interpolation delay a Source-style rewind
	// assumes: Source's default cl_interp.
	SourceDelay = 100 * time.Millisecond
	laneWidth   = 4   // targets move in lanes this far apart
	laneHalf    = 1.2 // and zig-zag across this much of them
	rangeHalf   = 15  // along this much of x
	shotHeight  = 50  // shots fall vertically from this height
	frameDt     = time.Second / 60
	warmup      = 3 * time.Second // the client's clock settles
)

// Config is one measurement.
type Config struct {
	// Name labels the row.
	Name string
	// Link is each direction's network.
	Link netsim.Config
	// SlowHalf sends every even-numbered target at 5 Hz instead of 20.
	SlowHalf bool
	// Targets is how many targets move (16 if zero).
	Targets int
	// Duration is the simulated time (300 s if zero), shots counted after
	// a warm-up of 3 s.
	Duration time.Duration
	// Seed makes the run repeatable.
	Seed uint64
}

// Result is what the server confirmed of the shots the client fired.
type Result struct {
	Config
	// Shots counts shots the client fired at a drawn target.
	Shots int
	// Compensated, Present and Source count shots confirmed: judged
	// against what the client drew (Session.Rewind), against the targets'
	// present positions, and Source-style: at the command's tick (the
	// server tick the client believed it was when it fired) minus a fixed
	// 100 ms interpolation delay.
	Compensated, Present, Source int
	// Clamped counts drawn records the server did not wholly believe
	// (ClientStats.DrawnClamped): a span reaching back beyond the
	// history's window, or a time beyond what the round trip allows.
	Clamped uint64
	// Residual is the distance between where the client drew each target
	// and where the server rewound it to, in world units: median, 99th
	// percentile and largest.
	Residual [3]float64
	// Extrapolated counts shots at targets the client drew past their
	// newest snapshot, and ExtrapolatedConfirmed those confirmed with
	// compensation: the server judges them at their true position at the
	// drawn time, which the extrapolation only guessed.
	Extrapolated, ExtrapolatedConfirmed int
	// Delay is the client's mean interpolation delay, in milliseconds.
	Delay float64
}

// Rate returns confirmed/Shots as a percentage.
func (r *Result) Rate(confirmed int) float64 {
	if r.Shots == 0 {
		return 0
	}
	return 100 * float64(confirmed) / float64(r.Shots)
}

// Scenarios are the scorecard's rows: 50 ± 10 ms and 150 ± 30 ms one way,
// 5% loss each way, every target at 20 Hz or half of them at 5 Hz.
func Scenarios() []Config {
	near := netsim.Config{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05}
	far := netsim.Config{Latency: 150 * time.Millisecond, Jitter: 30 * time.Millisecond, Loss: 0.05}
	return []Config{
		{Name: "50 ± 10 ms, 5% loss", Link: near, Seed: 1},
		{Name: "150 ± 30 ms, 5% loss", Link: far, Seed: 2},
		{Name: "50 ± 10 ms, 5% loss, half at 5 Hz", Link: near, SlowHalf: true, Seed: 3},
		{Name: "150 ± 30 ms, 5% loss, half at 5 Hz", Link: far, SlowHalf: true, Seed: 4},
	}
}

// target is one zig-zagging target on the server.
type target struct {
	pos    mgl32.Vec3
	lane   float32
	speed  float32
	sx, sy float32
	turnIn float32 // seconds to the next turn
}

// shot is the game's input payload: the target aimed at, where it was
// drawn, and the server tick the client believed it was (Source's command
// time).
type shot struct {
	netID   uint32
	aim     mgl32.Vec3
	cmdTick float64
	// extrapolated is for the measurement only: a game sends no such
	// thing.
	extrapolated bool
}

const shotSize = 4 + 3*4 + 8 + 1

func (s *shot) encode(dst []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, s.netID)
	for _, v := range s.aim {
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(v))
	}
	dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(s.cmdTick))
	if s.extrapolated {
		return append(dst, 1)
	}
	return append(dst, 0)
}

func decodeShot(b []byte) (shot, bool) {
	if len(b) != shotSize {
		return shot{}, false
	}
	s := shot{netID: binary.LittleEndian.Uint32(b)}
	for i := range s.aim {
		s.aim[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4+4*i:]))
	}
	s.cmdTick = math.Float64frombits(binary.LittleEndian.Uint64(b[16:]))
	s.extrapolated = b[24] == 1
	return s, true
}

// rangeRun is one measurement in progress.
type rangeRun struct {
	cfg     Config
	res     Result
	rng     *rand.Rand
	srv     *server.Session
	cli     *client.Session
	world   ecs.World
	pipe    *nsecs.Pipeline
	renders generic.Map1[components.Render]
	spans   generic.Map1[components.Span]
	down    *netsim.Link[[]byte]
	up      *netsim.Link[[]byte]
	targets []target
	tick    uint32
	seq     uint32

	now       time.Duration
	nextFrame time.Duration
	nextShot  time.Duration
	timed     []netsim.Timed[[]byte]
	packets   [][]byte
	buf       []byte
	residuals []float64
	delaySum  float64
	delayN    int
}

// Run measures cfg.
func Run(cfg Config) (Result, error) {
	if cfg.Targets == 0 {
		cfg.Targets = 16
	}
	if cfg.Duration == 0 {
		cfg.Duration = 300 * time.Second
	}
	r := &rangeRun{cfg: cfg, res: Result{Config: cfg}, rng: rand.New(rand.NewPCG(cfg.Seed, 0x1a6c))}
	if err := r.setup(); err != nil {
		return Result{}, err
	}
	for r.now = 0; r.now < cfg.Duration; r.now += time.Millisecond {
		if err := r.step(); err != nil {
			return r.res, err
		}
	}
	st, _ := r.srv.Stats(1)
	r.res.Clamped = st.DrawnClamped
	if len(r.residuals) > 0 {
		slices.Sort(r.residuals)
		n := len(r.residuals)
		r.res.Residual = [3]float64{r.residuals[n/2], r.residuals[min(n-1, n*99/100)], r.residuals[n-1]}
	}
	if r.delayN > 0 {
		r.res.Delay = r.delaySum / float64(r.delayN)
	}
	return r.res, nil
}

func (r *rangeRun) setup() error {
	scfg := server.SessionConfig{TickRate: TickRate, History: &server.HistoryConfig{}}
	if r.cfg.SlowHalf {
		scfg.Filter = server.Every(func(_ server.ClientID, netID uint32) uint32 {
			if netID%2 == 0 {
				return 4
			}
			return 1
		})
	}
	var err error
	if r.srv, err = server.NewSession(scfg); err != nil {
		return err
	}
	if err := r.srv.Connect(1); err != nil {
		return err
	}
	r.world = ecs.NewWorld()
	if r.pipe, err = nsecs.New(&r.world, nsecs.DefaultConfig().WithTickRate(TickRate)); err != nil {
		return err
	}
	r.renders = generic.NewMap1[components.Render](&r.world)
	r.spans = generic.NewMap1[components.Span](&r.world)
	if r.cli, err = client.NewSession(client.SessionConfig{Inbox: r.pipe.Inbox(), TickRate: TickRate}); err != nil {
		return err
	}
	if r.down, err = netsim.NewLink[[]byte](r.cfg.Link, r.cfg.Seed*2+1); err != nil {
		return err
	}
	if r.up, err = netsim.NewLink[[]byte](r.cfg.Link, r.cfg.Seed*2+2); err != nil {
		return err
	}
	r.targets = make([]target, r.cfg.Targets)
	for i := range r.targets {
		t := &r.targets[i]
		t.lane = float32(i) * laneWidth
		t.pos = mgl32.Vec3{float32(r.rng.Float64()*2-1) * rangeHalf, t.lane, 0}
		t.speed = 5 + 5*float32(r.rng.Float64())
		t.sx, t.sy = 1, 1
		if r.rng.IntN(2) == 0 {
			t.sx = -1
		}
		t.turnIn = r.turnTime()
	}
	return nil
}

// turnTime is how long a target keeps its heading: 0.25 to 0.75 s.
func (r *rangeRun) turnTime() float32 { return 0.25 + 0.5*float32(r.rng.Float64()) }

// Server and client clocks differ: each counts milliseconds from its own
// origin.
func (r *rangeRun) srvMs(at time.Duration) uint32 { return uint32(at.Milliseconds()) + 0xfff00000 }
func (r *rangeRun) cliMs(at time.Duration) uint32 { return uint32(at.Milliseconds()) + 7000 }

func (r *rangeRun) step() error {
	r.timed = r.down.DeliverTimed(r.now, r.timed[:0])
	for _, d := range r.timed {
		r.cli.Receive(d.Msg, r.cliMs(d.At)) // refusals are the session's to count
	}
	r.timed = r.up.DeliverTimed(r.now, r.timed[:0])
	for _, d := range r.timed {
		if err := r.srv.Receive(1, d.Msg, r.srvMs(d.At)); err != nil {
			return err
		}
	}
	if r.now%(time.Second/TickRate) == 0 {
		if err := r.serverTick(); err != nil {
			return err
		}
	}
	if r.now >= r.nextFrame {
		r.nextFrame += frameDt
		if err := r.frame(); err != nil {
			return err
		}
	}
	return nil
}

// serverTick moves the targets, judges the shots that arrived and sends
// the tick's snapshot.
func (r *rangeRun) serverTick() error {
	r.tick++
	if err := r.srv.BeginTick(r.tick); err != nil {
		return err
	}
	const dt = 1.0 / TickRate
	for i := range r.targets {
		t := &r.targets[i]
		if t.turnIn -= dt; t.turnIn <= 0 {
			t.sy, t.turnIn = -t.sy, r.turnTime()
		}
		if d := t.pos[1] - t.lane; d > laneHalf {
			t.sy = -1
		} else if d < -laneHalf {
			t.sy = 1
		}
		if t.pos[0] > rangeHalf {
			t.sx = -1
		} else if t.pos[0] < -rangeHalf {
			t.sx = 1
		}
		v := t.speed * math.Sqrt2 / 2
		t.pos = t.pos.Add(mgl32.Vec3{t.sx * v * dt, t.sy * v * dt, 0})
		netID := uint32(i + 1)
		if err := r.srv.SetEntity(wire.Entity{NetID: netID, Pos: t.pos, Rot: mgl32.QuatIdent()}); err != nil {
			return err
		}
		if r.tick == 1 {
			r.srv.SetShape(netID, server.Shape{Kind: server.Sphere, Radius: Radius})
		}
	}
	// Shots are judged once the tick's world is set, as a game does after
	// its simulation step.
	for {
		in, err := r.srv.NextInput(1, nil)
		if err != nil {
			return err
		}
		if in.Status == server.InputEmpty {
			break
		}
		if in.Status == server.InputReady {
			r.judge(&in)
		}
	}
	var err error
	if r.packets, err = r.srv.Snapshot(1, r.srvMs(r.now), r.packets[:0]); err != nil {
		return err
	}
	for _, b := range r.packets {
		r.down.Send(r.now, append([]byte(nil), b...))
	}
	return nil
}

// judge confirms or refuses one shot three ways.
func (r *rangeRun) judge(in *server.Input) {
	s, ok := decodeShot(in.Payload)
	if !ok || !in.HasDrawn {
		return
	}
	origin := mgl32.Vec3{s.aim[0], s.aim[1], shotHeight}
	down := mgl32.Vec3{0, 0, -1}
	confirms := func(rw *server.Rewind) bool {
		hit, ok := r.srv.Raycast(rw, origin, down, 2*shotHeight, 0)
		return ok && hit.NetID == s.netID
	}
	r.res.Shots++
	comp, err := r.srv.Rewind(1, &in.Drawn)
	hit := err == nil && confirms(&comp)
	if hit {
		r.res.Compensated++
	}
	if s.extrapolated {
		r.res.Extrapolated++
		if hit {
			r.res.ExtrapolatedConfirmed++
		}
	}
	if pos, _, ok := r.srv.Pose(&comp, s.netID); ok {
		r.residuals = append(r.residuals, float64(pos.Sub(s.aim).Len()))
	}
	present := server.Rewind{Tick: float64(r.tick)}
	if confirms(&present) {
		r.res.Present++
	}
	// Source: the command's tick minus a fixed interpolation delay, kept
	// inside the history (Source bounds it to its one second as well).
	src := server.Rewind{Tick: s.cmdTick - SourceDelay.Seconds()*TickRate}
	src.Tick = min(max(src.Tick, float64(r.tick)-TickRate+1), float64(r.tick))
	if confirms(&src) {
		r.res.Source++
	}
}

// frame draws one client frame and, every tick's worth of time, fires at
// the next target where it is drawn.
func (r *rangeRun) frame() error {
	r.cli.FeedLatency(r.pipe)
	r.pipe.Update(frameDt.Seconds())
	if r.now < r.nextShot {
		return nil
	}
	r.nextShot += time.Second / TickRate
	clock := r.pipe.Clock()
	if !clock.Synced() || r.now < warmup {
		return r.send(nil)
	}
	r.delaySum += clock.DelaySeconds() * 1000
	r.delayN++
	netID := uint32(r.seq%uint32(len(r.targets))) + 1
	e, ok := r.pipe.Lookup(components.NetID(netID))
	if !ok {
		return r.send(nil)
	}
	rd := r.renders.Get(e)
	if rd.Flags&components.Visible == 0 {
		return r.send(nil)
	}
	extrapolated := rd.Flags&components.Extrapolated != 0
	var late []wire.Late
	if l, needed := client.LateOf(components.NetID(netID), r.spans.Get(e), clock.RenderTick()); needed {
		late = append(late, l)
	}
	if err := r.cli.SetDrawn(client.DrawnNow(clock.RenderTick(), late)); err != nil {
		return err
	}
	// Source's command tick is the client's tick: the server's, as the
	// snapshots arriving now say.
	s := shot{netID: netID, aim: rd.Pos, cmdTick: clock.ServerTick(), extrapolated: extrapolated}
	return r.send(s.encode(nil))
}

// send queues the frame's input (a shot, or nothing) and sends the input
// packet.
func (r *rangeRun) send(payload []byte) error {
	r.seq++
	if err := r.cli.QueueInput(r.seq, payload); err != nil {
		return fmt.Errorf("lagcomp: queueing input %d: %w", r.seq, err)
	}
	var err error
	if r.buf, err = r.cli.InputPacket(r.cliMs(r.now), r.buf[:0]); err != nil {
		return err
	}
	r.up.Send(r.now, append([]byte(nil), r.buf...))
	return nil
}

// Command duel is netsmooth's prediction scene, headless: one locally
// predicted player driven by a scripted input pattern and a handful of remote
// players, over a simulated network in both directions. The server shoves the
// local player now and then (things the client cannot predict) and once
// teleports it, so reconciliation has real work to do. The player also picks
// up a ball, carries it and throws it: the ball is interpolated from the
// server's snapshots while free, predicted while held and just thrown, and
// interpolated again once it flies on its own, switching without a pop. At
// the end the scene prints the prediction error, the corrections and hard
// cuts, how much visual correction was on screen frame by frame, and how
// the ball moved around its switches.
//
//	go run ./examples/duel
//	go run ./examples/duel -latency 120ms -loss 0.1 -fps 144
//	go run ./examples/duel -h
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/timeline"
)

type options struct {
	seconds    float64
	tickRate   float64
	sendEvery  int
	fps        float64
	remotes    int
	latency    time.Duration
	jitter     time.Duration
	loss       float64
	redundancy int
	seed       uint64
}

func main() {
	var o options
	fs := flag.NewFlagSet("duel", flag.ExitOnError)
	fs.Float64Var(&o.seconds, "seconds", 20, "virtual seconds to simulate")
	fs.Float64Var(&o.tickRate, "tick-rate", 60, "server and prediction tick rate in Hz")
	fs.IntVar(&o.sendEvery, "send-every", 3, "the server sends a snapshot every this many ticks (3 at 60 Hz = 20 Hz)")
	fs.Float64Var(&o.fps, "fps", 120, "client render rate in frames per second")
	fs.IntVar(&o.remotes, "remotes", 4, "number of remote players")
	fs.DurationVar(&o.latency, "latency", 50*time.Millisecond, "one-way base latency, each direction")
	fs.DurationVar(&o.jitter, "jitter", 10*time.Millisecond, "jitter: each packet's delay varies uniformly by ± this")
	fs.Float64Var(&o.loss, "loss", 0.05, "probability a packet is lost, each direction")
	fs.IntVar(&o.redundancy, "redundancy", 4, "each input packet repeats this many of the latest unacknowledged inputs")
	fs.Uint64Var(&o.seed, "seed", 1, "seed for the network and the server's shoves")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `duel: netsmooth's prediction scene, headless.

The local player is predicted from scripted inputs at the tick rate and drawn
at the render rate between its last two ticks. Inputs go to a simulated server
over a lossy link (each packet repeating recent unacknowledged inputs); the
server applies them, sometimes shoves the player and once teleports it, and
sends back authoritative states with the last input it applied, together with
snapshots of the remote players and of a ball. The client reconciles
(replaying pending inputs), smooths corrections and hard-cuts large ones. The
player picks the ball up 1.5 s in and throws it at 3 s: the client predicts the
ball from the pickup until 1 s after the throw, and interpolates it otherwise.
Time is virtual: the run is deterministic for a seed.

Usage: go run ./examples/duel [flags]

Flags:
`)
		fs.PrintDefaults()
	}
	_ = fs.Parse(os.Args[1:])
	res, err := run(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "duel:", err)
		os.Exit(2)
	}
	res.print(os.Stdout, o)
}

// script is the local player's input at tick n: a square dance with pauses.
func script(n uint64, rate float64) scenario.Stick {
	phase := int(float64(n)/rate) % 10
	switch {
	case phase < 2:
		return scenario.Stick{X: 1}
	case phase < 4:
		return scenario.Stick{Y: 1}
	case phase == 4:
		return scenario.Stick{}
	case phase < 7:
		return scenario.Stick{X: -1}
	case phase < 9:
		return scenario.Stick{Y: -1}
	}
	return scenario.Stick{}
}

// remotePath is where remote player i is at server time t.
func remotePath(i int, t float64) mgl32.Vec3 {
	a := 0.6*t + float64(i)
	return mgl32.Vec3{float32(15 + 5*math.Cos(a)), float32(5 * math.Sin(a)), 0}
}

// statePacket is what the server sends down: the local player's
// authoritative state with the last input applied; the remote players'
// positions at tick are decoded from their paths, as a real transport would
// decode them from the payload.
type statePacket struct {
	tick  uint32
	ack   uint32
	local scenario.Mover
	ball  Ball
}

type result struct {
	frames                      int
	reconciles, corrections     uint64
	hardCuts, inputOverflows    uint64
	meanPredErr, maxPredErr     float64
	corrFrames                  int
	corrSamples                 []float64
	maxStep, maxTargetStep      float64
	remoteErrSum, remoteErrMax  float64
	remoteSamples               int
	uplink, downlink            netsim.Stats
	shoves, teleports, gapFills int
	// The ball: the frames it switched at, and around them the largest
	// step drawn per frame, in units and relative to its true motion.
	ballSwitches       []int
	ballStep, ballJump float64
}

// localID is the local player's NetID; the remote players are 1..remotes.
const localID = 1000

func run(o options) (*result, error) {
	if o.seconds <= 0 || o.tickRate <= 0 || o.fps <= 0 || o.sendEvery <= 0 || o.remotes < 0 || o.redundancy < 1 {
		return nil, fmt.Errorf("seconds, tick-rate, fps, send-every and redundancy must be positive, remotes non-negative")
	}
	cfg := nsecs.DefaultConfig().WithTickRate(o.tickRate)
	// Remote players: snapshots every sendEvery ticks; delay two intervals.
	cfg.Clock.Delay = timeline.FixedDelay(2 * float64(o.sendEvery) / o.tickRate)
	cfg.Snap.Distance = 3 // world units here are metres
	cfg.Predict.DeadZone = 0.01
	cfg.Predict.HardCutDistance = 3
	player, err := scenario.NewPlayer(cfg, localID, func(n uint64) scenario.Stick { return script(n, o.tickRate) })
	if err != nil {
		return nil, err
	}
	client, err := newCarrier(player)
	if err != nil {
		return nil, err
	}
	link := netsim.Config{Latency: o.latency, Jitter: o.jitter, Loss: o.loss}
	up, err := netsim.NewLink[[]systems.SentInput[scenario.Stick]](link, o.seed)
	if err != nil {
		return nil, err
	}
	down, err := netsim.NewLink[statePacket](link, o.seed+1)
	if err != nil {
		return nil, err
	}
	srv := &server{o: &o, up: up, rng: rand.New(rand.NewPCG(o.seed, 7)),
		received: map[uint32]scenario.Stick{}, teleportAt: uint32(o.seconds * o.tickRate / 2), ball: ballStart(o.tickRate)}
	uplink := &scenario.Uplink{Link: up, Pred: player.Pred,
		Newest: func(produced int) int { return o.redundancy + produced - 1 }}
	m := newMeter(client, srv, &o)
	loop := scenario.Loop[statePacket]{
		FPS:       o.fps,
		Link:      down,
		Server:    srv,
		Transport: &transport{player: player, client: client, up: uplink, o: &o},
		Client:    client,
		Meter:     m,
	}
	loop.Run(o.seconds)
	res := m.finish()
	res.shoves, res.teleports, res.gapFills = srv.shoves, srv.teleports, srv.gapFills
	res.uplink, res.downlink = up.Stats(), down.Stats()
	return res, nil
}

// server applies the local player's inputs in sequence as they arrive,
// shoves the player now and then and once teleports it, and every
// sendEvery ticks sends its state down.
type server struct {
	o           *options
	up          *netsim.Link[[]systems.SentInput[scenario.Stick]]
	rng         *rand.Rand
	clock       float64
	state       scenario.Mover
	tick        uint32
	lastApplied uint32
	lastInput   scenario.Stick
	received    map[uint32]scenario.Stick
	waitedFor   int
	teleportAt  uint32
	ups         [][]systems.SentInput[scenario.Stick]
	ball        Ball

	shoves, teleports, gapFills int
}

// Serve implements [scenario.Server]: the ticks up to f.
func (s *server) Serve(f scenario.Instant, dst []statePacket) []statePacket {
	tickDt := 1 / s.o.tickRate
	for ; s.clock <= f.Now.Seconds(); s.clock += tickDt {
		s.ups = s.up.Deliver(f.Now, s.ups[:0])
		for _, p := range s.ups {
			for _, in := range p {
				if in.Seq > s.lastApplied {
					s.received[in.Seq] = in.Input
				}
			}
		}
		s.apply(tickDt)
		s.tick++
		if s.rng.Float64() < 0.4/s.o.tickRate { // a shove every ~2.5 s
			s.state.Vel = s.state.Vel.Add(mgl32.Vec2{float32(s.rng.Float64()*8 - 4), float32(s.rng.Float64()*8 - 4)})
			s.shoves++
		}
		if s.tick == s.teleportAt {
			s.state.Pos = s.state.Pos.Add(mgl32.Vec2{10, 0})
			s.teleports++
		}
		if s.tick%uint32(s.o.sendEvery) == 0 {
			dst = append(dst, statePacket{tick: s.tick, ack: s.lastApplied, local: s.state, ball: s.ball})
		}
	}
	return dst
}

// apply applies every input that is next in sequence; after waiting 10
// ticks for a lost one, it repeats the previous input in its place.
func (s *server) apply(tickDt float64) {
	for {
		in, ok := s.received[s.lastApplied+1]
		if !ok {
			if len(s.received) == 0 || s.waitedFor < 10 {
				if len(s.received) > 0 {
					s.waitedFor++
				}
				return
			}
			in = s.lastInput
			s.gapFills++
		}
		delete(s.received, s.lastApplied+1)
		s.waitedFor = 0
		s.lastApplied++
		s.lastInput = in
		before := s.state
		s.state = scenario.StepMover(s.state, in, tickDt)
		// The ball moves with the player's inputs, as the client
		// predicts it when it does.
		s.ball = StepBall(s.ball, gripFor(s.lastApplied, before), tickDt)
	}
}

// transport pushes what arrived into the pipeline: the local player's
// authoritative state to its predictor, the remote players' snapshots to
// the inbox; after each frame it sends the new inputs up, repeating
// unacknowledged ones.
type transport struct {
	player *scenario.Player
	client *carrier
	up     *scenario.Uplink
	o      *options
}

// Arrive implements [scenario.Transport].
func (t *transport) Arrive(_ scenario.Instant, packets []statePacket) {
	inbox := t.player.Pipeline().Inbox()
	for _, p := range packets {
		t.player.Pred.Inbox().Push(systems.Authoritative[scenario.Mover]{NetID: localID, Tick: p.tick, Ack: p.ack, State: p.local})
		// The ball: a snapshot always (it is interpolated again after
		// the throw), and its authoritative state while it is predicted.
		inbox.Push(systems.Message{NetID: ballID, Tick: p.tick, Pos: mgl32.Vec3{p.ball.Pos[0], p.ball.Pos[1], 0},
			Vel: mgl32.Vec3{p.ball.Vel[0], p.ball.Vel[1], 0}, HasVelocity: true})
		if t.client.predicted {
			t.client.ball.Inbox().Push(systems.Authoritative[Ball]{NetID: ballID, Tick: p.tick, Ack: p.ack, State: p.ball})
		}
		at := float64(p.tick) / t.o.tickRate
		for i := 0; i < t.o.remotes; i++ {
			inbox.Push(systems.Message{NetID: components.NetID(i + 1), Tick: p.tick, Pos: remotePath(i, at)})
		}
	}
}

// Depart implements [scenario.Transport].
func (t *transport) Depart(f scenario.Instant) { t.up.Send(f.Now, t.player.Status().LastAck) }

// meter measures, every frame, the local player's prediction errors and
// visual corrections, and the remote players' error against their paths.
type meter struct {
	player      *scenario.Player
	client      *carrier
	srv         *server
	o           *options
	res         *result
	corrections *generic.Map1[components.Correction]
	renders     *generic.Map1[components.Render]
	// The player's own reconciliations (the ball has its own), seen as
	// changes of its last acknowledgement.
	predErrSum, predErrMax float64
	predN                  int
	lastAck, lastAuthTick  uint32
	prevDrawn              mgl32.Vec3
	prevTarget             mgl32.Vec3
	// The ball, frame by frame: where it is drawn (NaN: not drawn) and
	// the server's ball speed.
	ballX, ballY, ballSpeed []float64
}

func newMeter(c *carrier, srv *server, o *options) *meter {
	p := c.Player
	corr := generic.NewMap1[components.Correction](p.World())
	renders := generic.NewMap1[components.Render](p.World())
	return &meter{player: p, client: c, srv: srv, o: o, res: &result{}, corrections: &corr, renders: &renders}
}

// Measure implements [scenario.Meter].
func (m *meter) Measure(f scenario.Instant) {
	res, pipe, pr := m.res, m.player.Pipeline(), m.player.Status()
	corr := m.corrections.Get(m.player.Entity)
	if pr.Acked && (pr.LastAck != m.lastAck || pr.LastAuthTick != m.lastAuthTick) {
		m.predErrSum += float64(pr.Last.Error)
		m.predErrMax = math.Max(m.predErrMax, float64(pr.Last.Error))
		m.predN++
		m.lastAck, m.lastAuthTick = pr.LastAck, pr.LastAuthTick
	}
	c := float64(corr.Pos.Len())
	res.corrSamples = append(res.corrSamples, c)
	if c > 0 {
		res.corrFrames++
	}
	// The drawn position, and the target it is drawn around (the
	// prediction between its last two ticks, without correction).
	drawn := m.renders.Get(m.player.Entity).Pos
	target := drawn.Sub(corr.Pos)
	if f.Frame > 0 && !pr.Last.HardCut {
		res.maxStep = math.Max(res.maxStep, float64(drawn.Sub(m.prevDrawn).Len()))
		res.maxTargetStep = math.Max(res.maxTargetStep, float64(target.Sub(m.prevTarget).Len()))
	}
	m.prevDrawn, m.prevTarget = drawn, target
	rt := pipe.Clock().RenderTick() / m.o.tickRate
	for i := 0; i < m.o.remotes; i++ {
		if pos, _, _, ok := m.player.Draw(components.NetID(i + 1)); ok {
			d := float64(pos.Sub(remotePath(i, rt)).Len())
			res.remoteErrSum += d
			res.remoteErrMax = math.Max(res.remoteErrMax, d)
			res.remoteSamples++
		}
	}
	bx, by := math.NaN(), math.NaN()
	if pos, ok := m.client.ballDrawn(); ok {
		bx, by = float64(pos[0]), float64(pos[1])
	}
	m.ballX, m.ballY = append(m.ballX, bx), append(m.ballY, by)
	m.ballSpeed = append(m.ballSpeed, float64(m.srv.ball.Vel.Len()))
	res.frames++
}

// ballAroundSwitches measures the ball's drawing from a few frames before
// each switch to half a second after: the largest step per frame, and the
// largest ratio of a step to the ball's true motion in a frame (its
// fastest on the server within 0.3 s either side, which covers both the
// interpolated past and the predicted present).
func (m *meter) ballAroundSwitches() (step, jump float64) {
	fps := m.o.fps
	for _, sw := range m.client.switched {
		for f := max(1, sw-3); f < min(len(m.ballX), sw+int(fps/2)); f++ {
			d := math.Hypot(m.ballX[f]-m.ballX[f-1], m.ballY[f]-m.ballY[f-1])
			if math.IsNaN(d) {
				continue
			}
			var speed float64
			for g := max(0, f-int(0.3*fps)); g < min(len(m.ballSpeed), f+int(0.3*fps)); g++ {
				speed = math.Max(speed, m.ballSpeed[g])
			}
			step = math.Max(step, d)
			if speed > 0 {
				jump = math.Max(jump, d/(speed/fps))
			}
		}
	}
	return step, jump
}

// finish reads the pipeline's counters into the result.
func (m *meter) finish() *result {
	res, pm := m.res, m.player.Pipeline().Metrics()
	res.reconciles, res.corrections, res.hardCuts = pm.Reconciles, pm.Corrections, pm.HardCuts
	res.inputOverflows = pm.InputOverflows
	if m.predN > 0 {
		res.meanPredErr = m.predErrSum / float64(m.predN)
	}
	res.maxPredErr = m.predErrMax
	res.ballSwitches = m.client.switched
	res.ballStep, res.ballJump = m.ballAroundSwitches()
	return res
}

func (r *result) print(w io.Writer, o options) {
	row := func(name, format string, args ...any) {
		fmt.Fprintf(w, "| %-43s | %s |\n", name, fmt.Sprintf(format, args...))
	}
	fmt.Fprintf(w, "duel: %.0f s, %.0f Hz ticks, %.0f FPS, snapshots every %d ticks; link %v ± %v each way, %.0f%% loss; %d remote players; seed %d\n\n",
		o.seconds, o.tickRate, o.fps, o.sendEvery, o.latency, o.jitter, o.loss*100, o.remotes, o.seed)
	fmt.Fprintf(w, "| %-43s | %s |\n|%s|%s|\n", "measure", "value", "---------------------------------------------", "------------------")
	row("frames", "%d", r.frames)
	row("server shoves / teleports / lost inputs", "%d / %d / %d", r.shoves, r.teleports, r.gapFills)
	row("reconciliations (player and ball)", "%d", r.reconciles)
	row("player's prediction error (mean / max)", "%.4f / %.3f units", r.meanPredErr, r.maxPredErr)
	row("corrections smoothed", "%d", r.corrections)
	row("hard cuts", "%d", r.hardCuts)
	row("input history overflows", "%d", r.inputOverflows)
	sorted := slices.Clone(r.corrSamples)
	slices.Sort(sorted)
	pct := func(p float64) float64 {
		if len(sorted) == 0 {
			return 0
		}
		return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
	}
	row("frames with a visual correction", "%d of %d (%.1f%%)", r.corrFrames, r.frames, 100*float64(r.corrFrames)/float64(max(r.frames, 1)))
	row("visual correction p50 / p99 / max", "%.4f / %.4f / %.4f units", pct(0.5), pct(0.99), pct(1))
	row("largest step per frame: drawn / predicted", "%.4f / %.4f units", r.maxStep, r.maxTargetStep)
	row("ball: switches (frames)", "%v", r.ballSwitches)
	row("ball around its switches: largest step", "%.4f units, %.2fx its true motion", r.ballStep, r.ballJump)
	if r.remoteSamples > 0 {
		row("remote players: mean / max error", "%.4f / %.4f units", r.remoteErrSum/float64(r.remoteSamples), r.remoteErrMax)
	}
	row("uplink packets sent / lost", "%d / %d", r.uplink.Sent, r.uplink.Lost)
	row("downlink packets sent / lost", "%d / %d", r.downlink.Sent, r.downlink.Lost)
}

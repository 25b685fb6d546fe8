// Command duel is netsmooth's prediction scene, headless: one locally
// predicted player driven by a scripted input pattern and a handful of remote
// players, over a simulated network in both directions. The server shoves the
// local player now and then (things the client cannot predict) and once
// teleports it, so reconciliation has real work to do. At the end the scene
// prints the prediction error, the corrections and hard cuts, and how much
// visual correction was on screen frame by frame.
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
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/netsim"
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
snapshots of the remote players. The client reconciles (replaying pending
inputs), smooths corrections and hard-cuts large ones. Time is virtual: the
run is deterministic for a seed.

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

// avatar is the game's predicted state: a top-down mover with momentum.
type avatar struct {
	Pos, Vel mgl32.Vec2
}

// stick is the game's input: a direction in [-1, 1]².
type stick struct{ X, Y int8 }

const (
	maxSpeed = 6.0  // units per second
	accel    = 40.0 // units per second²
)

// step is the deterministic movement shared by client and server.
func step(s avatar, in stick, dt float64) avatar {
	want := mgl32.Vec2{float32(in.X) * maxSpeed, float32(in.Y) * maxSpeed}
	d := want.Sub(s.Vel)
	maxDv := float32(accel * dt)
	if l := d.Len(); l > maxDv {
		d = d.Mul(maxDv / l)
	}
	s.Vel = s.Vel.Add(d)
	s.Pos = s.Pos.Add(s.Vel.Mul(float32(dt)))
	return s
}

var sim = nsecs.Simulation[avatar, stick]{
	Step:     step,
	Position: func(s *avatar) mgl32.Vec3 { return mgl32.Vec3{s.Pos[0], s.Pos[1], 0} },
}

// script is the local player's input at tick n: a square dance with pauses.
func script(n uint64, rate float64) stick {
	phase := int(float64(n)/rate) % 10
	switch {
	case phase < 2:
		return stick{X: 1}
	case phase < 4:
		return stick{Y: 1}
	case phase == 4:
		return stick{}
	case phase < 7:
		return stick{X: -1}
	case phase < 9:
		return stick{Y: -1}
	}
	return stick{}
}

// remotePath is where remote player i is at server time t.
func remotePath(i int, t float64) mgl32.Vec3 {
	a := 0.6*t + float64(i)
	return mgl32.Vec3{float32(15 + 5*math.Cos(a)), float32(5 * math.Sin(a)), 0}
}

// uplink packets carry recent inputs; downlink packets carry the local
// player's authoritative state and the remote players' snapshots.
type inputPacket struct{ inputs []nsecs.SentInput[stick] }

type statePacket struct {
	tick  uint32
	ack   uint32
	local avatar
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
}

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
	world := ecs.NewWorld()
	pipe, err := nsecs.New(&world, cfg)
	if err != nil {
		return nil, err
	}
	pred, err := nsecs.AddPrediction(pipe, sim)
	if err != nil {
		return nil, err
	}
	const localID = 1000
	me, err := pred.Spawn(&world, localID, avatar{})
	if err != nil {
		return nil, err
	}
	link := netsim.Config{Latency: o.latency, Jitter: o.jitter, Loss: o.loss}
	up, err := netsim.NewLink[inputPacket](link, o.seed)
	if err != nil {
		return nil, err
	}
	down, err := netsim.NewLink[statePacket](link, o.seed+1)
	if err != nil {
		return nil, err
	}

	res := &result{}
	rng := rand.New(rand.NewPCG(o.seed, 7))
	localComps := generic.NewMap3[components.InputCommand[stick], components.Prediction, components.Correction](&world)
	renders := generic.NewMap1[components.Render](&world)

	// Server state.
	var (
		server      avatar
		serverTick  uint32
		lastApplied uint32
		received    = map[uint32]stick{}
		waitedFor   int
		lastInput   stick
	)
	tickDt := 1 / o.tickRate
	frameDt := 1 / o.fps
	var unacked []nsecs.SentInput[stick]
	var sent []nsecs.SentInput[stick]
	var ups []inputPacket
	var downs []statePacket
	var prevDrawn, prevTarget mgl32.Vec3
	serverClock := 0.0
	var predErrSum float64
	var lastReconciles uint64
	teleportAt := uint32(o.seconds * o.tickRate / 2)

	frames := int(o.seconds * o.fps)
	for f := 0; f < frames; f++ {
		now := time.Duration(float64(f) * frameDt * float64(time.Second))

		// --- server: runs its ticks up to now.
		for ; serverClock <= now.Seconds(); serverClock += tickDt {
			ups = up.Deliver(now, ups[:0])
			for _, p := range ups {
				for _, in := range p.inputs {
					if in.Seq > lastApplied {
						received[in.Seq] = in.Input
					}
				}
			}
			// Apply every input that is next in sequence; after waiting 10
			// ticks for a lost one, repeat the previous input in its place.
			for {
				in, ok := received[lastApplied+1]
				if !ok {
					if len(received) == 0 || waitedFor < 10 {
						if len(received) > 0 {
							waitedFor++
						}
						break
					}
					in = lastInput
					res.gapFills++
				}
				delete(received, lastApplied+1)
				waitedFor = 0
				lastApplied++
				lastInput = in
				server = step(server, in, tickDt)
			}
			serverTick++
			if rng.Float64() < 0.4/o.tickRate { // a shove every ~2.5 s
				server.Vel = server.Vel.Add(mgl32.Vec2{float32(rng.Float64()*8 - 4), float32(rng.Float64()*8 - 4)})
				res.shoves++
			}
			if serverTick == teleportAt {
				server.Pos = server.Pos.Add(mgl32.Vec2{10, 0})
				res.teleports++
			}
			if serverTick%uint32(o.sendEvery) == 0 {
				down.Send(now, statePacket{tick: serverTick, ack: lastApplied, local: server})
			}
		}

		// --- client transport: what arrived.
		downs = down.Deliver(now, downs[:0])
		for _, p := range downs {
			pred.Inbox().Push(nsecs.Authoritative[avatar]{NetID: localID, Tick: p.tick, Ack: p.ack, State: p.local})
			t := float64(p.tick) / o.tickRate
			for i := 0; i < o.remotes; i++ {
				pipe.Inbox().Push(nsecs.Message{NetID: components.NetID(i + 1), Tick: p.tick, Pos: remotePath(i, t)})
			}
		}

		// --- client frame.
		cmd, pr, _ := localComps.Get(me)
		cmd.Input = script(pr.Ticks, o.tickRate)
		pipe.Update(frameDt)
		_, pr, corr := localComps.Get(me) // pointers may move during Update

		// --- client transport: send new inputs, repeating unacknowledged ones.
		sent = pred.Outbox().Drain(sent)
		unacked = append(unacked, sent...)
		unacked = slices.DeleteFunc(unacked, func(in nsecs.SentInput[stick]) bool { return in.Seq <= pr.LastAck })
		if len(sent) > 0 {
			from := max(0, len(unacked)-o.redundancy-len(sent)+1)
			up.Send(now, inputPacket{inputs: slices.Clone(unacked[from:])})
		}

		// --- measure.
		m := pipe.Metrics()
		if m.Reconciles > lastReconciles {
			predErrSum += float64(pr.Last.Error) * float64(m.Reconciles-lastReconciles)
			lastReconciles = m.Reconciles
		}
		c := float64(corr.Pos.Len())
		res.corrSamples = append(res.corrSamples, c)
		if c > 0 {
			res.corrFrames++
		}
		// The drawn position, and the target it is drawn around (the
		// prediction between its last two ticks, without correction).
		drawn := renders.Get(me).Pos
		target := drawn.Sub(corr.Pos)
		if f > 0 && !pr.Last.HardCut {
			res.maxStep = math.Max(res.maxStep, float64(drawn.Sub(prevDrawn).Len()))
			res.maxTargetStep = math.Max(res.maxTargetStep, float64(target.Sub(prevTarget).Len()))
		}
		prevDrawn, prevTarget = drawn, target
		rt := pipe.Clock().RenderTick() / o.tickRate
		for i := 0; i < o.remotes; i++ {
			if e, ok := pipe.Lookup(components.NetID(i + 1)); ok {
				if r := renders.Get(e); r.Flags&components.Visible != 0 {
					d := float64(r.Pos.Sub(remotePath(i, rt)).Len())
					res.remoteErrSum += d
					res.remoteErrMax = math.Max(res.remoteErrMax, d)
					res.remoteSamples++
				}
			}
		}
		res.frames++
	}
	m := pipe.Metrics()
	res.reconciles, res.corrections, res.hardCuts = m.Reconciles, m.Corrections, m.HardCuts
	res.inputOverflows = m.InputOverflows
	if m.Reconciles > 0 {
		res.meanPredErr = predErrSum / float64(m.Reconciles)
	}
	res.maxPredErr = m.MaxPredictionError
	res.uplink, res.downlink = up.Stats(), down.Stats()
	return res, nil
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
	row("reconciliations", "%d", r.reconciles)
	row("prediction error per reconcile (mean / max)", "%.4f / %.3f units", r.meanPredErr, r.maxPredErr)
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
	if r.remoteSamples > 0 {
		row("remote players: mean / max error", "%.4f / %.4f units", r.remoteErrSum/float64(r.remoteSamples), r.remoteErrMax)
	}
	row("uplink packets sent / lost", "%d / %d", r.uplink.Sent, r.uplink.Lost)
	row("downlink packets sent / lost", "%d / %d", r.downlink.Sent, r.downlink.Lost)
}

package systems_test

import (
	"iter"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/internal/perf"
	"github.com/netsmooth/netsmooth/internal/pipetest"
	"github.com/netsmooth/netsmooth/systems"
)

// The tests drive the systems through netsmooth's pipeline, which adds the
// resources they share and runs them in frame order: a rig is a world with
// a pipeline, for running frames by hand and reading what they drew
// (internal/pipetest, shared with the tests of package ecs).
type (
	rig        = pipetest.Rig
	ticksDelay = pipetest.TicksDelay
)

var (
	newRig    = pipetest.NewRig
	cfgAt     = pipetest.ConfigAt
	snap      = pipetest.Snap
	snapVel   = pipetest.SnapVel
	ringTicks = pipetest.RingTicks
)

// generalOnly makes r's Receive take every message through its general
// path, without the shortcut.
func generalOnly(r *rig) {
	rcv := r.Receive()
	r.Override(rcv, func(w *ecs.World) { systems.UpdateGeneral(rcv, w) })
}

// countShortcut makes r's Receive count the messages its shortcut stores
// into *n.
func countShortcut(r *rig, n *int) {
	rcv := r.Receive()
	r.Override(rcv, func(w *ecs.World) { *n += systems.UpdateCounting(rcv, w) })
}

// netIDs yields the NetIDs 1 to n (0 names no entity).
func netIDs(n int) iter.Seq[components.NetID] {
	return func(yield func(components.NetID) bool) {
		for id := components.NetID(1); id <= components.NetID(n); id++ {
			if !yield(id) {
				return
			}
		}
	}
}

func abs(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// The predicted test game: a player on the ground whose input sets the
// horizontal speed outright.

// player is the test game's predicted state.
type player struct{ X, Y, VX float32 }

// move is the test game's input: -1, 0 or 1 along x.
type move struct{ X int8 }

const playerSpeed = 120 // units per second

func stepPlayer(s player, in move, dt float64) player {
	s.VX = float32(in.X) * playerSpeed
	s.X += s.VX * float32(dt)
	return s
}

var playerSim = systems.Simulation[player, move]{
	Step:     stepPlayer,
	Position: func(s *player) mgl32.Vec3 { return mgl32.Vec3{s.X, s.Y, 0} },
}

// predRig is a pipeline with one predicted player, NetID 1.
type predRig struct {
	*rig
	pr     *systems.Predictor[player, move]
	e      ecs.Entity
	states generic.Map3[components.PredictedState[player], components.InputCommand[move], components.PredictedStatus]
}

func newPredRig(t testing.TB, cfg nsecs.Config) *predRig {
	t.Helper()
	r := newRig(t, cfg)
	pr, err := nsecs.AddPredictor(r.Pipe, playerSim)
	if err != nil {
		t.Fatal(err)
	}
	e, err := pr.Spawn(&r.World, 1, player{})
	if err != nil {
		t.Fatal(err)
	}
	return &predRig{rig: r, pr: pr, e: e, states: generic.NewMap3[components.PredictedState[player], components.InputCommand[move], components.PredictedStatus](&r.World)}
}

func (p *predRig) setInput(in move) {
	_, cmd, _ := p.states.Get(p.e)
	cmd.Input = in
}

func (p *predRig) predicted() player {
	st, _, _ := p.states.Get(p.e)
	return st.Current
}

func (p *predRig) report() components.ReconcileReport {
	_, _, pred := p.states.Get(p.e)
	return pred.Last
}

func (p *predRig) drawnX() float32 { return p.Render(1).Pos[0] }

// The steady scenario the benchmarks run is the one of package bench: a
// 20 Hz server sending every entity every tick, a 60 Hz client.
const (
	streamFPS     = perf.FPS
	framesPerTick = perf.FramesPerTick
)

type stream = perf.Stream

var newStream = perf.NewStream

// streamConfig is the default config sized for n streamed entities.
func streamConfig(n int) nsecs.Config {
	cfg := nsecs.DefaultConfig()
	cfg.Receive.MaxEntities = max(cfg.Receive.MaxEntities, n)
	cfg.InboxCapacity = max(cfg.InboxCapacity, 2*n)
	return cfg
}

// steady runs the steady scenario one system at a time, so that a
// benchmark can time one system while the others run untimed.
type steady struct {
	world  ecs.World
	pipe   *nsecs.Pipeline
	sys    []nsecs.System
	frame  *systems.Frame
	stream *stream
	frames int
}

func newSteady(tb testing.TB, cfg nsecs.Config, s *stream) *steady {
	tb.Helper()
	st := &steady{world: ecs.NewWorld(), stream: s}
	p, err := nsecs.New(&st.world, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	p.Initialize()
	st.pipe = p
	st.sys = p.Systems()
	st.frame = ecs.GetResource[systems.Frame](&st.world)
	// Fill every ring and let every buffer reach its steady size.
	for f := 0; f < 30*framesPerTick; f++ {
		st.step(nil, -1)
	}
	return st
}

// step runs one render frame of the scenario: the next tick's snapshots
// every framesPerTick frames, then every system in order. With b set, the
// timer runs only around system timed.
func (st *steady) step(b *testing.B, timed int) {
	if st.frames%framesPerTick == 0 {
		st.pipe.Inbox().PushBatch(st.stream.Tick())
	}
	st.frames++
	st.frame.Dt = 1.0 / streamFPS
	updateSystems(b, &st.world, st.sys, timed)
}

// updateSystems runs the systems once in order, timing only sys[timed] if
// b is set.
func updateSystems(b *testing.B, w *ecs.World, sys []nsecs.System, timed int) {
	for k, s := range sys {
		if b != nil && k == timed {
			b.StartTimer()
			s.Update(w)
			b.StopTimer()
			continue
		}
		s.Update(w)
	}
}

// timeOps runs b.N operations, timed only where op starts the timer (see
// updateSystems), and reports the time per entity of n.
func timeOps(b *testing.B, n int, op func()) {
	b.ReportAllocs()
	b.ResetTimer()
	b.StopTimer()
	for i := 0; i < b.N; i++ {
		op()
	}
	perEntity(b, n)
}

// perEntity reports the time per entity and operation.
func perEntity(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/entity")
}

// systemIndex returns the position of the system of type T in sys.
func systemIndex[T nsecs.System](tb testing.TB, sys []nsecs.System) int {
	tb.Helper()
	for k, s := range sys {
		if _, ok := s.(T); ok {
			return k
		}
	}
	var zero T
	tb.Fatalf("no %T among the systems", zero)
	return -1
}

// activeCorrections counts the entities with a correction being smoothed.
func activeCorrections(w *ecs.World) int {
	n := 0
	q := generic.NewFilter1[components.Correction]().Query(w)
	for q.Next() {
		if !q.Get().IsZero() {
			n++
		}
	}
	return n
}

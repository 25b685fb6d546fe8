package systems_test

import (
	"fmt"
	"testing"

	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/internal/pipetest"
	"github.com/netsmooth/netsmooth/systems"
)

// Predicted entity counts of the benchmarks: each holds a 256-input
// history, about 2 KB.
var predCounts = []int{1_000, 10_000}

// The predicted game is shared with the other predicted benchmarks.
type (
	benchState = pipetest.PredState
	benchInput = pipetest.PredInput
)

var benchSim = pipetest.PredSim

// ackRTT is the predicted scenario's round trip in ticks: acknowledgements
// come back for the input sent that many ticks ago, so as many inputs are
// replayed.
const ackRTT = 6

// predSteady runs n predicted entities at 60 Hz ticks and 60 FPS; every
// third tick the server acknowledges each entity's input from ackRTT ticks
// before, agreeing with the client.
type predSteady struct {
	world  ecs.World
	pipe   *nsecs.Pipeline
	pred   *systems.Predictor[benchState, benchInput]
	sys    []nsecs.System
	frame  *systems.Frame
	ents   []ecs.Entity
	states generic.Map1[components.PredictedState[benchState]]
	past   [ackRTT + 2][]benchState // each entity's state after recent ticks
	sent   []systems.SentInput[benchInput]
}

func newPredSteady(tb testing.TB, n int) *predSteady {
	tb.Helper()
	ps := &predSteady{world: ecs.NewWorld()}
	cfg := nsecs.DefaultConfig().WithTickRate(60)
	cfg.Predict.InboxCapacity = n
	pipe, err := nsecs.New(&ps.world, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	if ps.pred, err = nsecs.AddPredictor(pipe, benchSim); err != nil {
		tb.Fatal(err)
	}
	pipe.Initialize()
	ps.pipe, ps.sys = pipe, pipe.Systems()
	ps.frame = ecs.GetResource[systems.Frame](&ps.world)
	cmds := generic.NewMap1[components.InputCommand[benchInput]](&ps.world)
	ps.states = generic.NewMap1[components.PredictedState[benchState]](&ps.world)
	for i := 0; i < n; i++ {
		e, err := ps.pred.Spawn(&ps.world, components.NetID(i+1), benchState{})
		if err != nil {
			tb.Fatal(err)
		}
		cmds.Get(e).Input = benchInput{X: 1}
		ps.ents = append(ps.ents, e)
	}
	for k := range ps.past {
		ps.past[k] = make([]benchState, n)
	}
	for f := 0; f < 120; f++ {
		ps.step(nil, -1)
	}
	if m := pipe.Metrics(); m.Reconciles == 0 || m.RejectedTotal() != 0 || m.Corrections != 0 {
		tb.Fatalf("reconciles %d, rejected %v, corrections %d: not the steady scenario", m.Reconciles, m.Rejected, m.Corrections)
	}
	return ps
}

// step runs one frame (one prediction tick), timing system timed if b is
// set, then plays the transport and the server.
func (ps *predSteady) step(b *testing.B, timed int) {
	ps.frame.Set(1.0 / 60)
	updateSystems(b, &ps.world, ps.sys, timed)
	ps.sent = ps.pred.Outbox().Drain(ps.sent)
	seq := ps.pred.Ticks()
	for i, e := range ps.ents {
		ps.past[seq%uint64(len(ps.past))][i] = ps.states.Get(e).Current
	}
	if seq%3 == 0 && seq > ackRTT {
		ack := seq - ackRTT
		past := ps.past[ack%uint64(len(ps.past))]
		for i := range ps.ents {
			ps.pred.Inbox().Push(systems.Authoritative[benchState]{NetID: components.NetID(i + 1), Tick: uint32(ack), Ack: uint32(ack), State: past[i]})
		}
	}
}

// BenchmarkReconcile measures applying one authoritative state per
// predicted entity, each replaying 6 inputs: one operation is three
// frames, of which the one with the states is timed.
func BenchmarkReconcile(b *testing.B) {
	for _, n := range predCounts {
		b.Run(fmt.Sprintf("entities=%d", n), func(b *testing.B) {
			ps := newPredSteady(b, n)
			k := systemIndex[*systems.Reconcile[benchState, benchInput]](b, ps.sys)
			for ps.pred.Ticks()%3 != 0 { // the next frame reconciles
				ps.step(nil, -1)
			}
			timeOps(b, n, func() {
				ps.step(b, k)
				ps.step(nil, -1)
				ps.step(nil, -1)
			})
		})
	}
}

// BenchmarkPredict measures one prediction tick per frame for every
// predicted entity: record the input, step the simulation, queue the input
// for sending, and draw.
func BenchmarkPredict(b *testing.B) {
	for _, n := range predCounts {
		b.Run(fmt.Sprintf("entities=%d", n), func(b *testing.B) {
			ps := newPredSteady(b, n)
			k := systemIndex[*systems.Predict[benchState, benchInput]](b, ps.sys)
			timeOps(b, n, func() { ps.step(b, k) })
		})
	}
}

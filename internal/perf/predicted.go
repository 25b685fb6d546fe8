package perf

import (
	"testing"

	"github.com/mlange-42/arche/generic"
	c "github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/internal/pipetest"
	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/systems"
)

// The predicted game is shared with the other predicted benchmarks.
type (
	predState = pipetest.PredState
	predInput = pipetest.PredInput
)

var predSim = pipetest.PredSim

// rtt is the predicted benchmark's round trip, in ticks.
const rtt = 6

type authPacket = []systems.Authoritative[predState]

// echo is the predicted benchmark's server and the client's transport in
// one: a server agreeing with the client, rtt ticks away. After each frame
// it drains the inputs and keeps every entity's predicted state; every
// third tick it acknowledges the inputs up to rtt ticks back with the
// state the client predicted then.
type echo struct {
	pred   *systems.Predictor[predState, predInput]
	states []*c.PredictedState[predState]
	past   [rtt + 2][]predState // the state after each recent input, per entity
	sent   []systems.SentInput[predInput]
	seq    uint64
	auths  authPacket
}

// Serve implements [scenario.Server].
func (e *echo) Serve(_ scenario.Instant, dst []authPacket) []authPacket {
	if e.seq%3 != 0 || e.seq <= rtt {
		return dst
	}
	ack := e.seq - rtt
	e.auths = e.auths[:0]
	for i := range e.states {
		e.auths = append(e.auths, systems.Authoritative[predState]{NetID: c.NetID(i + 1), Tick: uint32(ack), Ack: uint32(ack), State: e.past[ack%uint64(len(e.past))][i]})
	}
	return append(dst, e.auths)
}

// Arrive implements [scenario.Transport].
func (e *echo) Arrive(_ scenario.Instant, packets []authPacket) {
	for _, p := range packets {
		for _, a := range p {
			e.pred.Inbox().Push(a)
		}
	}
}

// Depart implements [scenario.Transport].
func (e *echo) Depart(scenario.Instant) {
	e.sent = e.pred.Outbox().Drain(e.sent)
	e.seq = e.pred.Ticks()
	for i, st := range e.states {
		e.past[e.seq%uint64(len(e.past))][i] = st.Current
	}
}

// Predicted measures n predicted entities at 60 Hz ticks and 60 FPS, each
// reconciled every third tick against a state acknowledging its inputs up
// to 6 ticks back (a 100 ms round trip), so 6 inputs are replayed.
func Predicted(b *testing.B, n int) {
	p, err := scenario.NewNetSmooth(nsecs.DefaultConfig().WithTickRate(60))
	if err != nil {
		b.Fatal(err)
	}
	e := &echo{states: make([]*c.PredictedState[predState], n)}
	if e.pred, err = nsecs.AddPredictor(p.Pipeline(), predSim); err != nil {
		b.Fatal(err)
	}
	comps := generic.NewMap2[c.PredictedState[predState], c.InputCommand[predInput]](p.World())
	for i := 0; i < n; i++ {
		ent, err := e.pred.Spawn(p.World(), c.NetID(i+1), predState{})
		if err != nil {
			b.Fatal(err)
		}
		st, cmd := comps.Get(ent)
		cmd.Input = predInput{X: 1}
		e.states[i] = st
	}
	for k := range e.past {
		e.past[k] = make([]predState, n)
	}
	loop := scenario.Loop[authPacket]{FPS: 60, Server: e, Transport: e, Client: p}
	for f := 0; f < 120; f++ {
		loop.Step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		loop.Step()
	}
	perEntity(b, n)
}

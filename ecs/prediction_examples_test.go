package ecs_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

// The local player: predicted from its inputs at fixed ticks, drawn between
// its last two ticks at any frame rate, reconciled with the server's
// authoritative states.
func ExampleAddPredictor() {
	type state struct{ X float32 }
	type input struct{ Right bool }
	sim := systems.Simulation[state, input]{
		// Deterministic: used to predict and to replay.
		Step: func(s state, in input, dt float64) state {
			if in.Right {
				s.X += float32(10 * dt) // 10 units per second
			}
			return s
		},
		Position: func(s *state) mgl32.Vec3 { return mgl32.Vec3{s.X, 0, 0} },
	}

	world := ecs.NewWorld()
	pipe, _ := nsecs.New(&world, nsecs.DefaultConfig().WithTickRate(50))
	pred, err := nsecs.AddPredictor(pipe, sim)
	if err != nil {
		panic(err)
	}
	me, _ := pred.Spawn(&world, 1, state{})
	commands := generic.NewMap2[components.InputCommand[input], components.Render](&world)

	// Hold "right" for five ticks at 50 Hz, rendering at 100 Hz.
	cmd, _ := commands.Get(me)
	cmd.Input = input{Right: true}
	for frame := 0; frame < 10; frame++ {
		pipe.Update(0.01)
	}
	_, render := commands.Get(me)
	sent := pred.Outbox().Drain(nil)
	fmt.Printf("drawn at x=%.1f after %d ticks; %d inputs to send, last seq %d\n", render.Pos[0], pred.Ticks(), len(sent), sent[len(sent)-1].Seq)

	// The server applied the first three inputs but was shoved 1 unit back.
	pred.Inbox().Push(systems.Authoritative[state]{NetID: 1, Tick: 3, Ack: 3, State: state{X: 0.6 - 1}})
	pipe.Update(0)
	var report components.ReconcileReport
	q := generic.NewFilter1[components.PredictedStatus]().Query(&world)
	for q.Next() {
		report = q.Get().Last
	}
	fmt.Printf("replayed %d inputs, error %.1f, corrected %v, hard cut %v\n", report.Replayed, report.Error, report.Corrected, report.HardCut)
	// Output:
	// drawn at x=0.8 after 5 ticks; 5 inputs to send, last seq 5
	// replayed 2 inputs, error 1.0, corrected true, hard cut false
}

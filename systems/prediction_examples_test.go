package systems_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

// The local player is predicted from its own inputs at fixed ticks. Each
// applied input goes to the outbox with a sequence number for the transport
// to send; the server's authoritative states come back through the inbox,
// acknowledging a sequence, and Reconcile replays the inputs the server has
// not seen yet on top of them.
func ExamplePredictor() {
	type state struct{ X float32 }
	type input struct{ Dir int8 }
	sim := systems.Simulation[state, input]{
		Step: func(s state, in input, dt float64) state {
			s.X += float32(in.Dir) * 4 * float32(dt) // 4 units per second
			return s
		},
		Position: func(s *state) mgl32.Vec3 { return mgl32.Vec3{s.X, 0, 0} },
	}

	world := ecs.NewWorld()
	pipe, _ := nsecs.New(&world, nsecs.DefaultConfig()) // 20 ticks per second
	pred, err := nsecs.AddPredictor(pipe, sim)
	if err != nil {
		panic(err)
	}
	me, _ := pred.Spawn(&world, 1, state{})
	comps := generic.NewMap3[components.InputCommand[input], components.PredictedState[state], components.PredictedStatus](&world)

	cmd, _, _ := comps.Get(me)
	cmd.Input = input{Dir: 1}
	for frame := 0; frame < 4; frame++ {
		pipe.Update(0.05) // one tick per frame
	}
	_, st, _ := comps.Get(me)
	fmt.Printf("after %d ticks: x=%.1f\n", pred.Ticks(), st.Current.X)
	for _, in := range pred.Outbox().Drain(nil) {
		fmt.Printf("send seq %d: %+v\n", in.Seq, in.Input)
	}

	// The server agrees up to input 2...
	pred.Inbox().Push(systems.Authoritative[state]{NetID: 1, Tick: 2, Ack: 2, State: state{X: 0.4}})
	pipe.Update(0)
	_, _, status := comps.Get(me)
	fmt.Printf("ack 2: replayed %d, error %.1f, corrected %v\n", status.Last.Replayed, status.Last.Error, status.Last.Corrected)

	// ...then says the player was pushed back 1 unit before input 3.
	pred.Inbox().Push(systems.Authoritative[state]{NetID: 1, Tick: 3, Ack: 3, State: state{X: 0.6 - 1}})
	pipe.Update(0)
	_, st, status = comps.Get(me)
	fmt.Printf("ack 3: replayed %d, error %.1f, corrected %v; x=%.1f\n", status.Last.Replayed, status.Last.Error, status.Last.Corrected, st.Current.X)

	// The player stops; the drawing glides onto the corrected path instead
	// of jumping back.
	cmd, _, _ = comps.Get(me)
	cmd.Input = input{}
	renders := generic.NewMap1[components.Render](&world)
	for frame := 0; frame < 4; frame++ {
		pipe.Update(0.05)
		fmt.Printf("drawn at x=%.3f\n", renders.Get(me).Pos[0])
	}
	// Output:
	// after 4 ticks: x=0.8
	// send seq 1: {Dir:1}
	// send seq 2: {Dir:1}
	// send seq 3: {Dir:1}
	// send seq 4: {Dir:1}
	// ack 2: replayed 2, error 0.0, corrected false
	// ack 3: replayed 1, error 1.0, corrected true; x=-0.2
	// drawn at x=0.300
	// drawn at x=0.050
	// drawn at x=-0.075
	// drawn at x=-0.138
}

// A remote entity can switch to prediction and back at a frame the game
// chooses: a ball the local player picks up is predicted while held and
// thrown, and interpolated from the server's snapshots again once it flies
// on its own. Each switch draws the ball moving on as it moved; the jump
// between the interpolated past and the predicted present is absorbed into
// its motion, never drawn.
func ExamplePredictor_PredictEntity() {
	type ball struct{ X, VX float32 }
	type grip struct{}
	sim := systems.Simulation[ball, grip]{
		Step:     func(s ball, _ grip, dt float64) ball { s.X += s.VX * float32(dt); return s },
		Position: func(s *ball) mgl32.Vec3 { return mgl32.Vec3{s.X, 0, 0} },
	}
	world := ecs.NewWorld()
	pipe, _ := nsecs.New(&world, nsecs.DefaultConfig()) // 20 ticks per second
	pred, err := nsecs.AddPredictor(pipe, sim)
	if err != nil {
		panic(err)
	}
	renders := generic.NewMap1[components.Render](&world)
	// The server sends the ball rolling at 2 units per second, every tick.
	var tick uint32
	frame := func() {
		pipe.Inbox().Push(systems.Message{NetID: 5, Tick: tick, Pos: mgl32.Vec3{0.1 * float32(tick), 0, 0}})
		tick++
		pipe.Update(0.05)
	}
	for range 20 {
		frame()
	}
	e, _ := pipe.Lookup(5)
	before := renders.Get(e).Pos[0]

	// Predict it from the newest snapshot, ahead of its interpolated past.
	if err := pred.PredictEntity(&world, e, ball{X: 0.1 * float32(tick-1), VX: 2}, 0); err != nil {
		panic(err)
	}
	frame()
	fmt.Printf("switched to prediction: moved %.2f in a 0.1-unit frame\n", renders.Get(e).Pos[0]-before)
	for range 20 {
		frame()
	}

	// Back to the snapshots.
	before = renders.Get(e).Pos[0]
	if err := pred.InterpolateEntity(&world, e); err != nil {
		panic(err)
	}
	frame()
	fmt.Printf("switched back: moved %.2f in a 0.1-unit frame\n", renders.Get(e).Pos[0]-before)
	// Output:
	// switched to prediction: moved 0.10 in a 0.1-unit frame
	// switched back: moved 0.10 in a 0.1-unit frame
}

package systems_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/blend"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/timeline"
)

// A remote entity is drawn a little in the past, between the two snapshots
// that bracket the render time: Receive buffers the snapshots, Interpolate
// lerps the position and switches the discrete state at the newer
// snapshot's tick.
func ExampleInterpolate() {
	world := ecs.NewWorld()
	cfg := nsecs.DefaultConfig()               // a 20 Hz server
	cfg.Clock.Delay = timeline.FixedDelay(0.1) // draw two ticks behind the newest snapshot
	pipe, err := nsecs.New(&world, cfg)
	if err != nil {
		panic(err)
	}

	// Entity 7 walks (state 1) from x=0 to x=10, then runs (state 2).
	pipe.Inbox().Push(systems.Message{NetID: 7, Tick: 100, Pos: mgl32.Vec3{0, 0, 0}, State: 1})
	pipe.Inbox().Push(systems.Message{NetID: 7, Tick: 101, Pos: mgl32.Vec3{10, 0, 0}, State: 2})
	pipe.Inbox().Push(systems.Message{NetID: 7, Tick: 102, Pos: mgl32.Vec3{30, 0, 0}, State: 2})

	renders := generic.NewMap1[components.Render](&world)
	for frame := 0; frame < 5; frame++ {
		pipe.Update(0.025)     // a 40 Hz display: two frames per tick
		e, _ := pipe.Lookup(7) // spawned by its first snapshot
		r := renders.Get(e)
		fmt.Printf("render tick %.2f: x=%5.2f state %d\n", pipe.Clock().RenderTick(), r.Pos[0], r.State)
	}
	// Output:
	// render tick 100.00: x= 0.00 state 1
	// render tick 100.50: x= 5.00 state 1
	// render tick 101.00: x=10.00 state 2
	// render tick 101.50: x=20.00 state 2
	// render tick 102.00: x=30.00 state 2
}

// Past the newest snapshot (the next one is late), the extrapolation policy
// decides how far the entity goes: here one moving at 100 units per second,
// with the default limit of 250 ms.
func ExampleInterpolateConfig() {
	for _, policy := range []blend.Extrapolation{blend.Coast, blend.Linear, blend.DampedReturn, blend.Hold} {
		world := ecs.NewWorld()
		cfg := nsecs.DefaultConfig() // 20 Hz
		cfg.Clock.Delay = timeline.FixedDelay(0)
		cfg.Interpolate.Extrapolation = policy
		pipe, _ := nsecs.New(&world, cfg)
		pipe.Inbox().Push(systems.Message{NetID: 1, Tick: 10, Pos: mgl32.Vec3{0, 0, 0}})
		pipe.Inbox().Push(systems.Message{NetID: 1, Tick: 11, Pos: mgl32.Vec3{5, 0, 0}}) // 100 units/s
		// No delay: the render time starts on the newest snapshot.
		pipe.Update(0)

		fmt.Printf("%-13s", policy) // x after 50, 100, ... 300 ms without data
		renders := generic.NewMap1[components.Render](&world)
		e, _ := pipe.Lookup(1)
		for frame := 0; frame < 6; frame++ {
			pipe.Update(0.05)
			fmt.Printf(" %5.2f", renders.Get(e).Pos[0])
		}
		fmt.Println()
	}
	// Output:
	// coast          9.50 13.00 15.50 17.00 17.50 17.50
	// linear        10.00 15.00 20.00 25.00 30.00 30.00
	// damped-return  9.00 11.00 11.00  9.00  5.00  5.00
	// hold           5.00  5.00  5.00  5.00  5.00  5.00
}

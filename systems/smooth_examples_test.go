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

// What is drawn is the target plus the entity's Correction, which Smooth
// shrinks by the same fraction per second at any frame rate: by default
// half of it every tick. Here a correction of 8 units, written by game code,
// glides away on a 60 Hz display of a 20 Hz server.
func ExampleSmooth() {
	world := ecs.NewWorld()
	pipe, _ := nsecs.New(&world, nsecs.DefaultConfig())
	pipe.Inbox().Push(systems.Message{NetID: 1, Tick: 100, Pos: mgl32.Vec3{10, 0, 0}})
	pipe.Update(0) // the target: x=10

	e, _ := pipe.Lookup(1)
	comps := generic.NewMap2[components.Correction, components.Render](&world)
	corr, _ := comps.Get(e)
	corr.Pos = mgl32.Vec3{8, 0, 0}
	for frame := 1; frame <= 6; frame++ {
		pipe.Update(1.0 / 60)
		_, render := comps.Get(e)
		fmt.Printf("frame %d: drawn at x=%.2f\n", frame, render.Pos[0])
	}
	// Output:
	// frame 1: drawn at x=16.35
	// frame 2: drawn at x=15.04
	// frame 3: drawn at x=14.00
	// frame 4: drawn at x=13.17
	// frame 5: drawn at x=12.52
	// frame 6: drawn at x=12.00
}

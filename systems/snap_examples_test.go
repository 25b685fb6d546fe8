package systems_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/timeline"
)

// A Teleport message is not interpolated into: the entity holds its old
// place until the render time reaches the teleport's tick, then is drawn at
// the new place at once, flagged Teleported and Snapped.
func ExampleSnap() {
	world := ecs.NewWorld()
	cfg := nsecs.DefaultConfig() // 20 Hz
	cfg.Clock.Delay = timeline.FixedDelay(0.15)
	pipe, _ := nsecs.New(&world, cfg)
	in := pipe.Inbox()
	in.Push(systems.Message{NetID: 5, Tick: 10, Pos: mgl32.Vec3{0, 0, 0}})
	in.Push(systems.Message{NetID: 5, Tick: 11, Pos: mgl32.Vec3{1, 0, 0}})
	in.Push(systems.Message{Kind: systems.Teleport, NetID: 5, Tick: 12, Pos: mgl32.Vec3{50, 0, 0}})
	in.Push(systems.Message{NetID: 5, Tick: 13, Pos: mgl32.Vec3{51, 0, 0}})

	renders := generic.NewMap1[components.Render](&world)
	for frame := 0; frame < 7; frame++ {
		pipe.Update(0.025) // half a tick
		e, _ := pipe.Lookup(5)
		r := renders.Get(e)
		fmt.Printf("render tick %.1f: x=%4.1f teleported %-5v snapped %v\n", pipe.Clock().RenderTick(), r.Pos[0],
			r.Flags&components.Teleported != 0, r.Flags&components.Snapped != 0)
	}
	fmt.Println("teleports:", pipe.Metrics().Teleports, "snaps:", pipe.Metrics().Snaps)
	// Output:
	// render tick 10.0: x= 0.0 teleported false snapped false
	// render tick 10.5: x= 0.5 teleported false snapped false
	// render tick 11.0: x= 1.0 teleported false snapped false
	// render tick 11.5: x= 1.0 teleported false snapped false
	// render tick 12.0: x=50.0 teleported true  snapped true
	// render tick 12.5: x=50.5 teleported false snapped false
	// render tick 13.0: x=51.0 teleported false snapped false
	// teleports: 1 snaps: 1
}

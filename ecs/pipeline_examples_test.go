package ecs_test

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

// Plugging netsmooth into an arche world: build the pipeline, let a
// transport push snapshots, run one Update per render frame and draw from
// the Render component.
func ExampleNew() {
	world := ecs.NewWorld()
	pipe, err := nsecs.New(&world, nsecs.DefaultConfig()) // 20 Hz server, adaptive delay (one interval and 5 ms to start)
	if err != nil {
		panic(err)
	}

	// A transport (any goroutine) pushes what the server sent: entity 7
	// moving along x at 20 units per second, one snapshot per tick.
	for tick := uint32(100); tick <= 110; tick++ {
		pipe.Inbox().Push(systems.Message{
			NetID: 7,
			Tick:  tick,
			Pos:   mgl32.Vec3{float32(tick-100) * 1, 0, 0},
		})
	}

	// The game loop, on the world's goroutine: one Update per frame.
	renders := generic.NewFilter2[components.NetID, components.Render]()
	for frame := 0; frame < 3; frame++ {
		pipe.Update(1.0 / 60)
		q := renders.Query(&world)
		for q.Next() {
			id, r := q.Get()
			fmt.Printf("frame %d: entity %d at x=%.2f (render tick %.2f)\n", frame, *id, r.Pos[0], pipe.Clock().RenderTick())
		}
	}
	// Output:
	// frame 0: entity 7 at x=8.40 (render tick 108.40)
	// frame 1: entity 7 at x=8.73 (render tick 108.73)
	// frame 2: entity 7 at x=9.07 (render tick 109.07)
}

// Every message lands in exactly one counter: accepted, or rejected with a
// reason. Bad input is counted, never drawn.
func ExamplePipeline_Metrics() {
	world := ecs.NewWorld()
	pipe, _ := nsecs.New(&world, nsecs.DefaultConfig())
	in := pipe.Inbox()
	for tick := uint32(10); tick <= 20; tick++ {
		in.Push(systems.Message{NetID: 1, Tick: tick, Pos: mgl32.Vec3{float32(tick), 0, 0}})
	}
	pipe.Update(1.0 / 60) // the render time is now a little behind tick 20

	in.Push(systems.Message{NetID: 1, Tick: 20, Pos: mgl32.Vec3{20, 0, 0}})                  // a copy: duplicate
	in.Push(systems.Message{NetID: 1, Tick: 21, Pos: mgl32.Vec3{float32(math.NaN()), 0, 0}}) // NaN
	in.Push(systems.Message{NetID: 1, Tick: 12})                                             // already drawn past
	in.Push(systems.Message{NetID: 1, Tick: 10_000})                                         // from the future
	pipe.Update(1.0 / 60)

	m := pipe.Metrics()
	fmt.Println("received:", m.Received(), "accepted:", m.Accepted)
	for reason, n := range m.Rejected {
		if n > 0 {
			fmt.Printf("rejected %s: %d\n", systems.RejectReason(reason), n)
		}
	}
	// Output:
	// received: 15 accepted: 11
	// rejected duplicate: 1
	// rejected stale: 1
	// rejected non-finite: 1
	// rejected future: 1
}

// A large world on two cores: Receive stores each frame's snapshots, and
// Interpolate draws the entities, on two goroutines from ParallelMin
// messages and entities on (30,000 by default; lowered here for a small
// example), storing and drawing exactly what one goroutine would.
// Finalize stops their worker goroutines.
func ExampleConfig_WithWorkers() {
	cfg := nsecs.DefaultConfig().WithWorkers(2)
	cfg.Receive.ParallelMin = 100
	cfg.Interpolate.ParallelMin = 100

	world := ecs.NewWorld()
	pipe, err := nsecs.New(&world, cfg)
	if err != nil {
		panic(err)
	}
	defer pipe.Finalize()
	for tick := uint32(100); tick <= 110; tick++ {
		for id := range 1000 {
			pipe.Inbox().Push(systems.Message{
				NetID: components.NetID(id + 1),
				Tick:  tick,
				Pos:   mgl32.Vec3{float32(tick-100) + float32(id), 0, 0},
			})
		}
	}
	pipe.Update(1.0 / 60)

	e, _ := pipe.Lookup(1000)
	renders := generic.NewMap1[components.Render](&world)
	r := renders.Get(e)
	fmt.Printf("entity 1000 at x=%.2f\n", r.Pos[0])
	// Output:
	// entity 1000 at x=1007.40
}

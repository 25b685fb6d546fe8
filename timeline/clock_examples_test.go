package timeline_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/timeline"
)

// The pipeline's clock for a 20 Hz server with a fixed 100 ms
// interpolation delay: snapshots arrive every 50 ms, the client renders at
// 60 Hz, and the render time settles two ticks behind the newest arrival.
func ExampleClock() {
	world := ecs.NewWorld()
	cfg := nsecs.Config{TickRate: 20}
	cfg.Clock.Delay = timeline.FixedDelay(0.1)
	pipe, err := nsecs.New(&world, cfg)
	if err != nil {
		panic(err)
	}
	clock := pipe.Clock()
	tick := uint32(1000)
	for frame := 1; frame <= 9; frame++ {
		if frame%3 == 1 {
			pipe.Inbox().Push(systems.Message{NetID: 1, Tick: tick, Pos: mgl32.Vec3{float32(tick), 0, 0}})
			tick++
		}
		pipe.Update(1.0 / 60)
		if frame%3 == 0 {
			fmt.Printf("render tick %.2f, delay %.0f ms\n", clock.RenderTick(), clock.DelaySeconds()*1000)
		}
	}
	// Output:
	// render tick 998.67, delay 100 ms
	// render tick 999.67, delay 100 ms
	// render tick 1000.67, delay 100 ms
}

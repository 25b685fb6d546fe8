package systems_test

import (
	"fmt"
	"math"
	"os"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/timeline"
)

// Every message pushed lands in exactly one counter: accepted, or rejected
// for one reason. Received adds them up, so it always equals the number of
// messages pushed.
func ExampleMetrics_Received() {
	world := ecs.NewWorld()
	pipe, _ := nsecs.New(&world, nsecs.DefaultConfig())
	in := pipe.Inbox()
	pushed := 0
	push := func(m systems.Message) { in.Push(m); pushed++ }

	push(systems.Message{NetID: 1, Tick: 50, Pos: mgl32.Vec3{1, 2, 3}})
	push(systems.Message{NetID: 1, Tick: 51, Pos: mgl32.Vec3{2, 2, 3}})
	push(systems.Message{NetID: 1, Tick: 51, Pos: mgl32.Vec3{2, 2, 3}})                    // a duplicate
	push(systems.Message{NetID: 2, Tick: 51, Pos: mgl32.Vec3{float32(math.Inf(1)), 0, 0}}) // not finite
	push(systems.Message{Kind: systems.Kind(42), NetID: 3, Tick: 51})                      // no such kind
	pipe.Update(1.0 / 60)

	m := pipe.Metrics()
	fmt.Printf("pushed %d, received %d: %d accepted, %d rejected\n", pushed, m.Received(), m.Accepted, m.RejectedTotal())
	for reason, n := range m.Rejected {
		if n > 0 {
			fmt.Printf("  %s: %d\n", systems.RejectReason(reason), n)
		}
	}
	// Output:
	// pushed 5, received 5: 2 accepted, 3 rejected
	//   duplicate: 1
	//   non-finite: 1
	//   invalid: 1
}

// WriteTo prints the whole dashboard, for a debug overlay or a log.
func ExampleMetrics_WriteTo() {
	world := ecs.NewWorld()
	cfg := nsecs.DefaultConfig()
	cfg.Clock.Delay = timeline.FixedDelay(0.1)
	pipe, _ := nsecs.New(&world, cfg)
	for tick := uint32(1); tick <= 12; tick++ {
		for id := 1; id <= 3; id++ {
			pipe.Inbox().Push(systems.Message{NetID: components.NetID(id), Tick: tick, Pos: mgl32.Vec3{float32(tick), float32(id), 0}})
		}
		for frame := 0; frame < 3; frame++ {
			pipe.Update(1.0 / 60)
		}
	}
	pipe.Metrics().WriteTo(os.Stdout)
	// Output:
	// frames              36
	// entities            3 (spawned 3, despawned 0)
	// messages            36 accepted, 0 rejected
	// buffer occupancy    min 12, mean 12.0, max 12 (oldest samples dropped for newer 0, replaced 0)
	// underruns           0 frames; 0 extrapolated, 0 held entity-frames
	// corrections         0 (total distance 0, max 0, active 0)
	// snaps               0 (teleports 0)
	// samples ahead       min 2, mean 2.0, max 2
	// delay               target 100.0 ms, actual 100.0 ms, presentation 100.0 ms, newest age 33.3 ms
	// clock               0 resets, 0 holds, 0 clamped frames
	// tick rate           20/s configured; the server's not measured yet
}

package systems_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

// Receive keeps each entity's samples in tick order whatever order they
// arrive in, and refuses what it cannot use; RingOf shows what an entity
// holds.
func ExampleRingOf() {
	world := ecs.NewWorld()
	pipe, _ := nsecs.New(&world, nsecs.DefaultConfig())
	for _, tick := range []uint32{20, 23, 21, 22, 21} { // reordered, and 21 twice
		pipe.Inbox().Push(systems.Message{NetID: 9, Tick: tick, Pos: mgl32.Vec3{float32(tick), 0, 0}})
	}
	pipe.Update(1.0 / 60)

	e, _ := pipe.Lookup(9)
	ring, _ := systems.RingOf(&world, e)
	for i := 0; i < ring.Len(); i++ {
		s := ring.At(i)
		fmt.Printf("tick %d at x=%v\n", s.Tick, s.Pos[0])
	}
	m := pipe.Metrics()
	fmt.Println("accepted:", m.Accepted, "duplicates:", m.Rejected[systems.RejectDuplicate])
	// Output:
	// tick 20 at x=20
	// tick 21 at x=21
	// tick 22 at x=22
	// tick 23 at x=23
	// accepted: 4 duplicates: 1
}

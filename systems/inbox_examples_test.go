package systems_test

import (
	"fmt"
	"sync"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

// A transport pushes decoded snapshots from its own goroutine while the game
// loop runs; the next frame's Receive drains them. The inbox is bounded:
// what does not fit is dropped and counted.
func ExampleInbox_Push() {
	world := ecs.NewWorld()
	cfg := nsecs.DefaultConfig()
	cfg.InboxCapacity = 4
	pipe, _ := nsecs.New(&world, cfg)

	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the transport
		defer wg.Done()
		for tick := uint32(1); tick <= 6; tick++ {
			ok := pipe.Inbox().Push(systems.Message{NetID: 3, Tick: tick, Pos: mgl32.Vec3{float32(tick), 0, 0}})
			fmt.Printf("push tick %d: %v\n", tick, ok)
		}
	}()
	wg.Wait()

	fmt.Println("waiting:", pipe.Inbox().Len())
	pipe.Update(1.0 / 60) // Receive drains the inbox
	m := pipe.Metrics()
	fmt.Println("waiting:", pipe.Inbox().Len())
	fmt.Println("accepted:", m.Accepted, "inbox-full:", m.Rejected[systems.RejectInboxFull])
	// Output:
	// push tick 1: true
	// push tick 2: true
	// push tick 3: true
	// push tick 4: true
	// push tick 5: false
	// push tick 6: false
	// waiting: 4
	// waiting: 0
	// accepted: 4 inbox-full: 2
}

// A transport that decodes a whole server packet at once hands it over
// under one lock.
func ExampleInbox_PushBatch() {
	in := systems.NewInbox(0) // the default capacity
	packet := []systems.Message{
		{NetID: 1, Tick: 40, Pos: mgl32.Vec3{1, 0, 0}},
		{NetID: 2, Tick: 40, Pos: mgl32.Vec3{2, 0, 0}},
		{Kind: systems.Despawn, NetID: 3, Tick: 40},
	}
	fmt.Println("queued:", in.PushBatch(packet), "of", len(packet))
	// Output:
	// queued: 3 of 3
}

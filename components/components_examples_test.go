package components_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/components"
)

func ExampleRing() {
	// A ring's head and its samples' slots: in the pipeline, the Span
	// holds the head and its ring slot columns the samples (see
	// systems.RingOf); here an array does.
	var head components.RingHead
	var slots [components.RingCapacity]components.Sample
	ring := components.Ring{Head: &head}
	for k := range slots {
		ring.Slots[k] = &slots[k]
	}

	names := map[components.InsertResult]string{
		components.Inserted:         "inserted",
		components.InsertedEvicting: "inserted, evicting the oldest",
		components.Duplicate:        "duplicate",
		components.TooOld:           "too old",
	}
	// Samples arrive out of order, one twice.
	for _, tick := range []uint32{100, 102, 101, 104, 102} {
		res := ring.Insert(components.Sample{Tick: tick, Pos: mgl32.Vec3{float32(tick - 100), 0, 0}})
		fmt.Printf("tick %d: %s\n", tick, names[res])
	}
	var ticks []uint32
	for i := 0; i < ring.Len(); i++ {
		ticks = append(ticks, ring.At(i).Tick)
	}
	fmt.Println(ticks)

	// Bracket a render time of 102.5 ticks: the samples at 102 and 104.
	i := ring.Search(102.5)
	a, b := ring.At(i), ring.At(i+1)
	fmt.Printf("102.5 lies between %d and %d\n", a.Tick, b.Tick)
	// Before the oldest sample there is nothing to search back to.
	fmt.Println(ring.Search(99.5))
	// Output:
	// tick 100: inserted
	// tick 102: inserted
	// tick 101: inserted
	// tick 104: inserted
	// tick 102: duplicate
	// [100 101 102 104]
	// 102.5 lies between 102 and 104
	// -1
}

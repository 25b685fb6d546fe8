package timeline_test

import (
	"fmt"

	"github.com/netsmooth/netsmooth/timeline"
)

// A clock for a 20 Hz server with a 100 ms interpolation delay: snapshots
// arrive every 50 ms, the client renders at 60 Hz, and the render time runs
// two ticks behind the newest arrival.
func ExampleClock() {
	clock, err := timeline.NewClock(timeline.DefaultConfig(20))
	if err != nil {
		panic(err)
	}
	tick := uint32(1000)
	for frame := 1; frame <= 9; frame++ {
		clock.BeginFrame(1.0 / 60)
		if frame%3 == 1 {
			clock.Observe(tick) // a snapshot for this tick arrived
			tick++
		}
		clock.Advance()
		if frame%3 == 0 {
			fmt.Printf("render tick %.2f, delay %.0f ms\n", clock.RenderTick(), clock.DelaySeconds()*1000)
		}
	}
	// Output:
	// render tick 998.67, delay 100 ms
	// render tick 999.67, delay 100 ms
	// render tick 1000.67, delay 100 ms
}

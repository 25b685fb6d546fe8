package netsim_test

import (
	"fmt"
	"time"

	"github.com/netsmooth/netsmooth/netsim"
)

// A link with 80ms of latency delivers each message exactly 80ms after it
// was sent, and not a nanosecond earlier.
func ExampleLink() {
	link, err := netsim.NewLink[string](netsim.Config{Latency: 80 * time.Millisecond}, 1)
	if err != nil {
		panic(err)
	}
	link.Send(0, "a")
	link.Send(10*time.Millisecond, "b")
	link.Send(20*time.Millisecond, "c")

	fmt.Println("by 79ms:", len(link.Deliver(79*time.Millisecond, nil)), "messages")
	for _, d := range link.DeliverTimed(100*time.Millisecond, nil) {
		fmt.Println(d.Msg, "arrived at", d.At)
	}
	// Output:
	// by 79ms: 0 messages
	// a arrived at 80ms
	// b arrived at 90ms
	// c arrived at 100ms
}

// Stats report what a lossy link did. With a fixed seed the numbers are the
// same on every run and every platform.
func ExampleLink_Stats() {
	link, err := netsim.NewLink[int](netsim.Config{
		Latency:   50 * time.Millisecond,
		Jitter:    10 * time.Millisecond,
		Loss:      0.05,
		Reorder:   0.02,
		Duplicate: 0.01,
	}, 7)
	if err != nil {
		panic(err)
	}
	buf := make([]int, 0, 16)
	tick := time.Second / 60
	for i := range 600 { // ten seconds of 60 Hz snapshots
		now := time.Duration(i) * tick
		link.Send(now, i)
		buf = link.Deliver(now, buf[:0])
	}
	buf = link.Deliver(time.Hour, buf[:0]) // drain
	s := link.Stats()
	fmt.Printf("sent %d, delivered %d, lost %d, duplicated %d, reordered %d, overflow %d\n",
		s.Sent, s.Delivered, s.Lost, s.Duplicated, s.Reordered, s.Overflow)
	fmt.Println("sent + duplicated == delivered + lost + overflow:",
		s.Sent+s.Duplicated == s.Delivered+s.Lost+s.Overflow)
	// Output:
	// sent 600, delivered 584, lost 28, duplicated 12, reordered 11, overflow 0
	// sent + duplicated == delivered + lost + overflow: true
}

// Event-driven callers jump their clock straight to the next arrival instead
// of polling at a fixed rate.
func ExampleLink_NextDelivery() {
	link, err := netsim.NewLink[string](netsim.Config{
		Latency: 30 * time.Millisecond,
		Jitter:  10 * time.Millisecond,
	}, 3)
	if err != nil {
		panic(err)
	}
	for _, msg := range []string{"hello", "over", "there"} {
		link.Send(0, msg)
	}
	var inbox []netsim.Timed[string]
	for {
		at, ok := link.NextDelivery()
		if !ok {
			break
		}
		inbox = link.DeliverTimed(at, inbox[:0])
		for _, d := range inbox {
			fmt.Println(d.At, d.Msg)
		}
	}
	// Output:
	// 24.415738ms hello
	// 27.57569ms over
	// 38.084298ms there
}

// Validate names every field that is out of range.
func ExampleConfig_Validate() {
	cfg := netsim.Config{Latency: -5 * time.Millisecond, Loss: 1.5}
	fmt.Println(cfg.Validate())
	// Output:
	// netsim: Config.Latency must not be negative, got -5ms
	// netsim: Config.Loss must be a probability in [0, 1], got 1.5
}

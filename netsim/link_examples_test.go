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

// SetConfig changes the network while it runs: packets sent afterwards
// take the new latency, and overtake the one already in flight, which
// keeps its arrival time.
func ExampleLink_SetConfig() {
	link, err := netsim.NewLink[string](netsim.Config{Latency: 80 * time.Millisecond}, 1)
	if err != nil {
		panic(err)
	}
	link.Send(0, "slow")

	cfg := link.Config()
	cfg.Latency = 20 * time.Millisecond
	if err := link.SetConfig(cfg); err != nil {
		panic(err)
	}
	link.Send(10*time.Millisecond, "fast")

	cfg.Loss = 2 // not a probability: rejected, nothing changes
	fmt.Println("error:", link.SetConfig(cfg) != nil)
	for _, d := range link.DeliverTimed(time.Second, nil) {
		fmt.Println(d.Msg, "arrived at", d.At)
	}
	// Output:
	// error: true
	// fast arrived at 30ms
	// slow arrived at 80ms
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

// A scheduled outage loses every packet sent during it, at exactly the same
// place in every run: here a 300 ms blackout in a 20 Hz snapshot stream.
func ExampleConfig_outage() {
	link, err := netsim.NewLink[int](netsim.Config{
		Latency: 40 * time.Millisecond,
		Outages: []netsim.Window{{From: time.Second, To: 1300 * time.Millisecond}},
	}, 1)
	if err != nil {
		panic(err)
	}
	tick := 50 * time.Millisecond
	var inbox []netsim.Timed[int]
	var last, gapFrom, gapTo time.Duration
	for i := range 60 { // three seconds
		now := time.Duration(i) * tick
		link.Send(now, i)
		inbox = link.DeliverTimed(now, inbox[:0])
		for _, d := range inbox {
			if d.At-last > gapTo-gapFrom {
				gapFrom, gapTo = last, d.At
			}
			last = d.At
		}
	}
	link.Deliver(time.Hour, nil)
	s := link.Stats()
	fmt.Printf("sent %d, delivered %d, lost %d (outage %d)\n", s.Sent, s.Delivered, s.Lost, s.OutageLost)
	fmt.Printf("nothing arrived between %v and %v\n", gapFrom, gapTo)
	// Output:
	// sent 60, delivered 54, lost 6 (outage 6)
	// nothing arrived between 990ms and 1.34s
}

// A suspended receiver gets nothing during the window, then everything that
// arrived meanwhile at once when it resumes. Message 9 arrived at 950 ms but
// was not collected before the suspend began, so it comes out at the resume
// too, keeping its own arrival time.
func ExampleConfig_suspend() {
	link, err := netsim.NewLink[int](netsim.Config{
		Latency:  50 * time.Millisecond,
		Suspends: []netsim.Window{{From: time.Second, To: 1500 * time.Millisecond}},
	}, 1)
	if err != nil {
		panic(err)
	}
	var inbox []netsim.Timed[int]
	for i := range 20 { // 10 Hz for two seconds, polled at each send
		now := time.Duration(i) * 100 * time.Millisecond
		link.Send(now, i)
		inbox = link.DeliverTimed(now, inbox[:0])
		if now >= 900*time.Millisecond && now <= 1600*time.Millisecond {
			fmt.Printf("poll at %v: %d messages", now, len(inbox))
			for _, d := range inbox {
				fmt.Printf(" [%d at %v]", d.Msg, d.At)
			}
			fmt.Println()
		}
	}
	// Output:
	// poll at 900ms: 1 messages [8 at 850ms]
	// poll at 1s: 0 messages
	// poll at 1.1s: 0 messages
	// poll at 1.2s: 0 messages
	// poll at 1.3s: 0 messages
	// poll at 1.4s: 0 messages
	// poll at 1.5s: 6 messages [9 at 950ms] [10 at 1.5s] [11 at 1.5s] [12 at 1.5s] [13 at 1.5s] [14 at 1.5s]
	// poll at 1.6s: 1 messages [15 at 1.55s]
}

// NewBurst turns intuitive numbers, a mean burst length and a long-run
// fraction of packets in the Bad state, into Gilbert–Elliott parameters.
// Stats then tell burst losses apart from the independent ones.
func ExampleNewBurst() {
	burst, err := netsim.NewBurst(6, 0.04) // bursts of 6 packets, 4 % of the time
	if err != nil {
		panic(err)
	}
	fmt.Printf("enter Bad %.5f, exit Bad %.5f per packet\n", burst.Enter, burst.Exit)
	link, err := netsim.NewLink[int](netsim.Config{
		Latency: 50 * time.Millisecond,
		Loss:    0.01, // independent loss in the Good state
		Burst:   burst,
	}, 7)
	if err != nil {
		panic(err)
	}
	tick := time.Second / 60
	got := make([]bool, 6000)
	var inbox []int
	for i := range 6000 { // 100 s of 60 Hz snapshots
		now := time.Duration(i) * tick
		link.Send(now, i)
		for _, id := range link.Deliver(now, inbox[:0]) {
			got[id] = true
		}
	}
	for _, id := range link.Deliver(time.Hour, inbox[:0]) {
		got[id] = true
	}
	longest, run := 0, 0
	for _, ok := range got {
		if ok {
			run = 0
		} else {
			run++
		}
		longest = max(longest, run)
	}
	s := link.Stats()
	fmt.Printf("sent %d, lost %d: %d in bursts, %d independently\n", s.Sent, s.Lost, s.BurstLost, s.Lost-s.BurstLost)
	fmt.Printf("longest run of consecutive losses: %d\n", longest)
	// Output:
	// enter Bad 0.00694, exit Bad 0.16667 per packet
	// sent 6000, lost 277: 222 in bursts, 55 independently
	// longest run of consecutive losses: 19
}

// A DriftClock gives a simulated server its own, slightly fast clock.
func ExampleDriftClock() {
	server, err := netsim.NewDriftClock(1.01, 0) // 1 % fast
	if err != nil {
		panic(err)
	}
	fmt.Println("after 10 min, the server's clock reads", server.At(10*time.Minute))
	// The server ticks at 20 Hz by its own clock; its tick 12000 (10 min on
	// its clock) happens this early in true time:
	fmt.Println("server tick 12000 happens at", server.TrueTime(12000*50*time.Millisecond))
	// Output:
	// after 10 min, the server's clock reads 10m6s
	// server tick 12000 happens at 9m54.059405941s
}

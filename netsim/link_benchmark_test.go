package netsim

import (
	"testing"
	"time"
)

// benchmarkSendDeliver measures one Send plus one Deliver per op in steady
// state: the clock advances by step per op and about latency/step packets
// are in flight.
func benchmarkSendDeliver(b *testing.B, cfg Config, step time.Duration) {
	l, err := NewLink[pkt](cfg, 1)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]pkt, 0, 64)
	var now time.Duration
	op := func() {
		now += step
		l.Send(now, pkt{sent: now})
		buf = l.Deliver(now, buf[:0])
	}
	for range 100_000 { // reach the queue's high-water mark before timing
		op()
	}
	b.ReportAllocs()
	for b.Loop() {
		op()
	}
	b.ReportMetric(float64(l.InFlight()), "inflight")
}

func BenchmarkLink_SendDeliver_Perfect(b *testing.B) {
	benchmarkSendDeliver(b, Config{}, time.Millisecond)
}

func BenchmarkLink_SendDeliver_Chaos(b *testing.B) {
	benchmarkSendDeliver(b, Config{
		Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond,
		Loss: 0.05, Reorder: 0.05, Duplicate: 0.02,
	}, time.Millisecond)
}

func BenchmarkLink_SendDeliver_Everything(b *testing.B) {
	benchmarkSendDeliver(b, everything(), time.Millisecond)
}

func BenchmarkLink_SendDeliver_Deep(b *testing.B) {
	// About 10000 packets in flight.
	benchmarkSendDeliver(b, Config{Latency: time.Second, Jitter: 200 * time.Millisecond}, 100*time.Microsecond)
}

func BenchmarkLink_SendDeliverTimed(b *testing.B) {
	l, err := NewLink[pkt](Config{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond}, 1)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]Timed[pkt], 0, 64)
	var now time.Duration
	op := func() {
		now += time.Millisecond
		l.Send(now, pkt{sent: now})
		buf = l.DeliverTimed(now, buf[:0])
	}
	for range 100_000 {
		op()
	}
	b.ReportAllocs()
	for b.Loop() {
		op()
	}
}

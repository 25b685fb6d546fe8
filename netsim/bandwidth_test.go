package netsim

import (
	"math"
	"slices"
	"testing"
	"time"
)

func TestLinkBandwidthSpreadsBurstAtCapRate(t *testing.T) {
	// 50 packets of 1000 bytes sent at once over 100 kB/s: each takes
	// exactly 10 ms to transmit, so they arrive 30 ms (latency) after the
	// k-th transmission ends, at 40, 50, ..., 530 ms.
	l := newLink(t, Config{Latency: 30 * ms, Bandwidth: 100_000, QueueBytes: 1 << 20}, 1)
	for i := range 50 {
		l.SendSized(0, pkt{id: i}, 1000)
	}
	got := l.DeliverTimed(time.Hour, nil)
	if len(got) != 50 {
		t.Fatalf("delivered %d, want 50", len(got))
	}
	for k, d := range got {
		if want := 30*ms + time.Duration(k+1)*10*ms; d.Msg.id != k || d.At != want {
			t.Fatalf("delivery %d: id %d at %v, want id %d at %v", k, d.Msg.id, d.At, k, want)
		}
	}
	checkAccounting(t, l)
}

func TestLinkBandwidthIsExactOverTime(t *testing.T) {
	// 1000 bytes at 300 kB/s take 3.333… ms: transmissions end at
	// ceil(k * 10/3 ms) and the 300th at exactly 1 s, with no rounding
	// drift accumulated along the way.
	l := newLink(t, Config{Bandwidth: 300_000, QueueBytes: 1 << 20}, 1)
	for i := range 300 {
		l.SendSized(0, pkt{id: i}, 1000)
	}
	got := l.DeliverTimed(time.Hour, nil)
	for k, d := range got {
		n := int64(k+1) * 1000 * int64(time.Second)
		want := time.Duration((n + 299_999) / 300_000) // ceil
		if d.At != want {
			t.Fatalf("delivery %d at %v, want %v", k, d.At, want)
		}
	}
	if len(got) != 300 || got[299].At != time.Second {
		t.Fatalf("%d deliveries, last at %v; want 300, the last at 1s", len(got), got[len(got)-1].At)
	}
}

func TestLinkBandwidthUnderCapAddsOnlyTransmissionTime(t *testing.T) {
	// 500 bytes every 10 ms is 50 kB/s, half the cap: the link is idle
	// whenever a packet arrives, so each one is delayed only by its own 5 ms
	// of transmission.
	l := newLink(t, Config{Latency: 20 * ms, Bandwidth: 100_000}, 1)
	var out []Timed[pkt]
	for i := range 1000 {
		now := time.Duration(i) * 10 * ms
		l.SendSized(now, pkt{id: i, sent: now}, 500)
		out = l.DeliverTimed(now, out)
	}
	out = l.DeliverTimed(time.Hour, out)
	for _, d := range out {
		if d.At != d.Msg.sent+25*ms {
			t.Fatalf("id %d sent %v arrived %v, want +25ms", d.Msg.id, d.Msg.sent, d.At)
		}
	}
	if s := l.Stats(); len(out) != 1000 || s.QueueDropped != 0 {
		t.Errorf("delivered %d, Stats %+v; want 1000, no drops", len(out), s)
	}
}

func TestLinkBandwidthOverloadDefaultQueue(t *testing.T) {
	// 1000 bytes every 5 ms offers 200 kB/s to a 100 kB/s link with the
	// default queue (250 ms = 25 000 bytes). Once the queue is full the link
	// stays busy: arrivals are exactly 10 ms apart, the queueing delay
	// levels off at 250 ms (a packet is admitted when the backlog is down
	// to 24 000 bytes, and finishes 25 000 bytes later), and every other
	// packet is dropped.
	const n = 2000
	l := newLink(t, Config{Latency: 20 * ms, Bandwidth: 100_000, PacketSize: 1000}, 1)
	got := sendEvery(t, l, n, 5*ms)
	s := l.Stats()
	for i := 1; i < len(got); i++ {
		if gap := got[i].At - got[i-1].At; gap != 10*ms {
			t.Fatalf("deliveries %d and %d are %v apart, want exactly 10ms", i-1, i, gap)
		}
	}
	var maxDelay time.Duration
	for _, d := range got {
		maxDelay = max(maxDelay, d.At-d.Msg.sent)
	}
	if maxDelay != 20*ms+250*ms {
		t.Errorf("max delay %v, want 20ms latency + 250ms queue", maxDelay)
	}
	// By the last send, at 9.995 s, the link has finished 999 packets (one
	// per 10 ms) and holds 24 500 bytes: 25 more packets, the first half
	// transmitted. So 1024 get through and 976 are dropped at the queue.
	if s.Delivered != 1024 || s.QueueDropped != 976 || s.Lost != 976 {
		t.Errorf("Stats = %+v, want 1024 delivered, 976 QueueDropped = Lost", s)
	}
	t.Logf("max delay %v, Stats %+v", maxDelay, s)
}

func TestLinkBandwidthQueueBoundDropsExcess(t *testing.T) {
	// A 10 000-byte queue and 1000-byte packets at 100 kB/s (10 ms each).
	l := newLink(t, Config{Bandwidth: 100_000, QueueBytes: 10_000}, 1)
	for i := range 100 {
		l.SendSized(0, pkt{id: i}, 1000)
	}
	// Ten fit: the backlog goes 0, 1000, ..., 9000 before each is admitted.
	if s := l.Stats(); s.QueueDropped != 90 || s.Lost != 90 || l.InFlight() != 10 {
		t.Fatalf("Stats %+v, InFlight %d; want 90 dropped, 10 queued", s, l.InFlight())
	}
	// At 55 ms the first five are out and half of the sixth: 4500 bytes
	// remain, so five more packets fit (9500 bytes) and a sixth does not.
	for i := range 6 {
		l.SendSized(55*ms, pkt{id: 100 + i}, 1000)
	}
	if s := l.Stats(); s.QueueDropped != 91 {
		t.Fatalf("QueueDropped %d after the second burst, want 91", s.QueueDropped)
	}
	got := l.DeliverTimed(10*time.Second, nil)
	if len(got) != 15 || got[14].At != 150*ms || got[14].Msg.id != 104 {
		t.Fatalf("got %d deliveries ending with %v, want 15, the last id 104 at 150ms", len(got), got[len(got)-1])
	}
	// A packet larger than the whole queue still goes out on an idle link,
	// but nothing fits behind it.
	l.SendSized(20*time.Second, pkt{id: 200}, 50_000)
	l.SendSized(20*time.Second, pkt{id: 201}, 1)
	got = l.DeliverTimed(30*time.Second, got[:0])
	if len(got) != 1 || got[0].At != 20500*ms || l.Stats().QueueDropped != 92 {
		t.Fatalf("oversized packet: got %v, Stats %+v; want id 200 at 20.5s and 1 more drop", got, l.Stats())
	}
	checkAccounting(t, l)
}

func TestLinkBandwidthPacketSize(t *testing.T) {
	for _, tt := range []struct {
		size int
		gap  time.Duration
	}{
		{0, 10 * ms}, // DefaultPacketSize 1200 at 120 kB/s
		{600, 5 * ms},
	} {
		l := newLink(t, Config{Bandwidth: 120_000, PacketSize: tt.size, QueueBytes: 1 << 20}, 1)
		for i := range 10 {
			l.Send(0, pkt{id: i})
		}
		got := l.DeliverTimed(time.Hour, nil)
		for k, d := range got {
			if d.At != time.Duration(k+1)*tt.gap {
				t.Fatalf("PacketSize %d: delivery %d at %v, want %v", tt.size, k, d.At, time.Duration(k+1)*tt.gap)
			}
		}
	}
	// Sizes are irrelevant without a cap, and negative sizes count as 0.
	l := newLink(t, Config{Latency: ms}, 1)
	l.SendSized(0, pkt{id: 0}, math.MaxInt)
	l.SendSized(0, pkt{id: 1}, -5)
	if got := l.DeliverTimed(ms, nil); len(got) != 2 {
		t.Fatalf("uncapped link delivered %v, want both at 1ms", got)
	}
	l = newLink(t, Config{Bandwidth: 1000}, 1)
	l.SendSized(0, pkt{id: 0}, -5)
	if got := l.DeliverTimed(0, nil); len(got) != 1 {
		t.Fatalf("negative size on a capped link: %v, want instant delivery", got)
	}
}

func TestLinkBandwidthLossAndDuplicatesDownstream(t *testing.T) {
	// Loss happens after the bottleneck, so lost packets still use their
	// transmission time: the survivors arrive exactly when they would have
	// without loss. Duplicate copies are made after it too and share their
	// original's transmission.
	base := Config{Latency: 10 * ms, Jitter: 2 * ms, Bandwidth: 100_000, QueueBytes: 1 << 30, PacketSize: 1000}
	lossy := base
	lossy.Loss = 0.3
	lossy.Outages = []Window{{From: 100 * ms, To: 200 * ms}}
	lossy.Burst = Burst{Enter: 0.05, Exit: 0.3}
	all := sendEvery(t, newLink(t, base, 8), 1000, ms) // 1000 packets at twice the cap
	l := newLink(t, lossy, 8)
	some := sendEvery(t, l, 1000, ms)
	s := l.Stats()
	if s.Lost < 300 || s.OutageLost != 100 || s.BurstLost == 0 || s.QueueDropped != 0 {
		t.Fatalf("Stats %+v; want random, burst and outage losses, no queue drops", s)
	}
	at := map[int]time.Duration{}
	for _, d := range all {
		at[d.Msg.id] = d.At
	}
	for _, d := range some {
		if at[d.Msg.id] != d.At {
			t.Fatalf("id %d arrived at %v with loss, %v without", d.Msg.id, d.At, at[d.Msg.id])
		}
	}

	l = newLink(t, Config{Bandwidth: 100_000, Duplicate: 1, PacketSize: 1000}, 1)
	for i := range 5 {
		l.Send(0, pkt{id: i})
	}
	got := l.DeliverTimed(time.Hour, nil)
	for k, d := range got {
		if d.Msg.id != k/2 || d.At != time.Duration(k/2+1)*10*ms {
			t.Fatalf("delivery %d: id %d at %v, want id %d at %v", k, d.Msg.id, d.At, k/2, time.Duration(k/2+1)*10*ms)
		}
	}
	if len(got) != 10 {
		t.Fatalf("delivered %d, want 10 (5 packets, 2 copies each)", len(got))
	}
}

func TestLinkBandwidthKeepsOtherStreams(t *testing.T) {
	// A cap shifts arrival times but draws nothing: with and without it,
	// the same packets are lost and duplicated, and each copy's delay
	// beyond its transmission end is the same.
	capped := chaos
	capped.Bandwidth = 1_000_000
	capped.PacketSize = 2000 // 2 ms per packet, sent every 1 ms: overloaded
	capped.QueueBytes = 1 << 30
	ids := func(cfg Config) []int {
		var out []int
		for _, d := range sendEvery(t, newLink(t, cfg, 5), 3000, ms) {
			out = append(out, d.Msg.id)
		}
		slices.Sort(out)
		return out
	}
	if !slices.Equal(ids(chaos), ids(capped)) {
		t.Error("a bandwidth cap changed which packets were lost or duplicated")
	}
}

func TestLinkBandwidthExtremes(t *testing.T) {
	// A transmission longer than a Duration can hold saturates instead of
	// wrapping: it and everything queued behind it arrive at the end of
	// time, and a finite queue refuses anything behind it.
	for _, tt := range []struct {
		queue   int
		dropped uint64
	}{{math.MaxInt, 0}, {1 << 20, 1}} {
		l := newLink(t, Config{Bandwidth: 1, QueueBytes: tt.queue}, 1)
		l.SendSized(0, pkt{id: 0}, math.MaxInt)
		l.SendSized(time.Hour, pkt{id: 1}, 1)
		if at, ok := l.NextDelivery(); !ok || at != math.MaxInt64 {
			t.Fatalf("NextDelivery = %v, %v; want MaxInt64", at, ok)
		}
		if s := l.Stats(); s.QueueDropped != tt.dropped || l.InFlight() != 2-int(tt.dropped) {
			t.Fatalf("QueueBytes %d: Stats %+v, InFlight %d; want %d dropped", tt.queue, s, l.InFlight(), tt.dropped)
		}
		if got := l.Deliver(math.MaxInt64, nil); len(got) != 2-int(tt.dropped) {
			t.Fatalf("Deliver(MaxInt64) = %v, want %d messages", got, 2-int(tt.dropped))
		}
		checkAccounting(t, l)
	}

	// A huge bandwidth transmits in (rounded-up) nothing.
	l := newLink(t, Config{Bandwidth: math.MaxInt}, 1)
	l.SendSized(5, pkt{id: 0}, 1000)
	if got := l.DeliverTimed(6, nil); len(got) != 1 || got[0].At != 6 {
		t.Fatalf("got %v, want delivery at 6ns", got)
	}

	// Time going backwards: the bottleneck uses the link's effective time.
	l = newLink(t, Config{Bandwidth: 1000, QueueBytes: 1 << 20}, 1)
	l.SendSized(time.Second, pkt{id: 0}, 1000)
	l.SendSized(0, pkt{id: 1}, 1000) // treated as sent at 1 s, queued behind id 0
	got := l.DeliverTimed(time.Hour, nil)
	if len(got) != 2 || got[0].At != 2*time.Second || got[1].At != 3*time.Second {
		t.Fatalf("got %v, want arrivals at 2s and 3s", got)
	}
}

func TestConfigQueueBytesDefault(t *testing.T) {
	for _, tt := range []struct {
		cfg  Config
		want uint64
	}{
		{Config{}, 0},
		{Config{QueueBytes: 500}, 0},
		{Config{Bandwidth: 100_000}, 25_000},
		{Config{Bandwidth: 3}, 0},
		{Config{Bandwidth: 100_000, QueueBytes: 7}, 7},
		{Config{Bandwidth: math.MaxInt}, math.MaxInt64 / 4},
	} {
		if got := tt.cfg.queueBytes(); got != tt.want {
			t.Errorf("%+v: effective QueueBytes %d, want %d", tt.cfg, got, tt.want)
		}
	}
}

package netsim

import (
	"math"
	"slices"
	"testing"
	"time"
)

func TestLinkOutage(t *testing.T) {
	// 10 ms sends, a 300 ms outage at 1 s: exactly the 30 packets sent at
	// 1000, 1010, ..., 1290 ms are lost. The packet sent at 990 ms, still in
	// flight when the outage begins, and the one sent at 1300 ms, when it
	// has ended, arrive normally.
	l := newLink(t, Config{
		Latency: 50 * ms,
		Outages: []Window{{From: time.Second, To: 1300 * ms}},
	}, 1)
	got := sendEvery(t, l, 300, 10*ms)
	s := l.Stats()
	if s.Sent != 300 || s.Lost != 30 || s.OutageLost != 30 || s.Delivered != 270 || s.BurstLost != 0 || s.QueueDropped != 0 {
		t.Fatalf("Stats = %+v, want 30 of 300 lost, all to the outage", s)
	}
	want := 0
	for _, d := range got {
		if want == 100 {
			want = 130
		}
		if d.Msg.id != want || d.At != d.Msg.sent+50*ms {
			t.Fatalf("got id %d at %v, want id %d at %v", d.Msg.id, d.At, want, time.Duration(want)*10*ms+50*ms)
		}
		want++
	}
}

func TestLinkOutageOverridesRandomLoss(t *testing.T) {
	// Every packet is in Bad and has a coin-flip Loss draw, but the ones
	// sent during the outage are counted as outage losses.
	l := newLink(t, Config{
		Loss:    0.5,
		Burst:   Burst{Enter: 1, Exit: 0, Loss: 0.5},
		Outages: []Window{{From: 0, To: 100 * ms}},
	}, 3)
	sendEvery(t, l, 200, ms)
	s := l.Stats()
	if s.OutageLost != 100 || s.Lost != s.OutageLost+s.BurstLost || s.BurstLost < 30 || s.BurstLost > 70 {
		t.Errorf("Stats = %+v; want OutageLost 100, about 50 BurstLost, no other loss", s)
	}
}

func TestLinkOutageWindowsMayOverlapAndBeUnsorted(t *testing.T) {
	outages := []Window{
		{From: 2 * time.Second, To: 2200 * ms},
		{From: 1050 * ms, To: 1200 * ms},
		{From: time.Second, To: 1100 * ms},
		{From: 3 * time.Second, To: 3 * time.Second}, // empty
	}
	cfg := Config{Outages: outages}
	l := newLink(t, cfg, 1)
	// The link keeps its own copy: changing the caller's slice afterwards
	// has no effect.
	outages[0] = Window{From: 0, To: time.Hour}
	got := sendEvery(t, l, 400, 10*ms)
	inOutage := func(at time.Duration) bool {
		return (at >= time.Second && at < 1200*ms) || (at >= 2*time.Second && at < 2200*ms)
	}
	lost := 0
	next := 0
	for i := range 400 {
		sent := time.Duration(i) * 10 * ms
		if inOutage(sent) {
			lost++
			continue
		}
		if got[next].Msg.id != i {
			t.Fatalf("delivery %d is id %d, want %d", next, got[next].Msg.id, i)
		}
		next++
	}
	if s := l.Stats(); lost != 40 || s.OutageLost != 40 || next != len(got) {
		t.Errorf("lost %d, OutageLost %d, delivered %d of %d; want 40 lost", lost, s.OutageLost, len(got), next)
	}
}

func TestLinkOutageKeepsOtherStreams(t *testing.T) {
	// An outage consumes no randomness: outside it, every packet's fate is
	// the same as without it.
	withOutage := chaos
	withOutage.Outages = []Window{{From: 2 * time.Second, To: 2300 * ms}}
	byID := func(cfg Config) map[int][]time.Duration {
		m := map[int][]time.Duration{}
		for _, d := range sendEvery(t, newLink(t, cfg, 77), 5000, ms) {
			m[d.Msg.id] = append(m[d.Msg.id], d.At-d.Msg.sent)
		}
		return m
	}
	a, b := byID(chaos), byID(withOutage)
	for id := range 5000 {
		sent := time.Duration(id) * ms
		if sent >= 2*time.Second && sent < 2300*ms {
			if len(b[id]) != 0 {
				t.Fatalf("id %d sent during the outage was delivered", id)
			}
			continue
		}
		if !slices.Equal(a[id], b[id]) {
			t.Fatalf("id %d: delays %v with outage, %v without", id, b[id], a[id])
		}
	}
}

func TestLinkSuspend(t *testing.T) {
	// 10 ms sends with 50 ms latency, receiver suspended for [1 s, 1.5 s),
	// polled every millisecond. The 50 packets that arrive in the window
	// (sent at 950..1440 ms) all come out of the single poll at 1.5 s, in
	// send order, with At 1.5 s, followed by the one sent at 1450 ms that
	// arrives exactly at 1.5 s; polls inside the window get nothing.
	const resume = 1500 * ms
	l := newLink(t, Config{
		Latency:  50 * ms,
		Suspends: []Window{{From: time.Second, To: resume}},
	}, 1)
	var buf []Timed[pkt]
	next := 0
	for now := time.Duration(0); now <= 3*time.Second; now += ms {
		if now%(10*ms) == 0 && now < 2*time.Second {
			l.Send(now, pkt{id: int(now / (10 * ms)), sent: now})
		}
		buf = l.DeliverTimed(now, buf[:0])
		switch {
		case now >= time.Second && now < resume:
			if len(buf) != 0 {
				t.Fatalf("at %v, suspended, delivered %v", now, buf)
			}
			if at, ok := l.NextDelivery(); !ok || at != resume {
				t.Fatalf("at %v, suspended, NextDelivery = %v, %v; want %v", now, at, ok, resume)
			}
		case now == resume:
			if len(buf) != 51 {
				t.Fatalf("at resume delivered %d, want 51", len(buf))
			}
		}
		for _, d := range buf {
			want := d.Msg.sent + 50*ms
			if want >= time.Second && want < resume {
				want = resume
			}
			if d.Msg.id != next || d.At != want {
				t.Fatalf("at %v: got id %d At %v, want id %d At %v", now, d.Msg.id, d.At, next, want)
			}
			next++
		}
	}
	if next != 200 || l.Stats().Delivered != 200 {
		t.Errorf("delivered %d, want 200", next)
	}
}

func TestLinkSuspendHoldsUncollectedMessages(t *testing.T) {
	// A message that arrived before the suspend but was not collected is not
	// handed over during the suspend either. It keeps its own arrival time
	// and comes out before the messages that arrived during the window.
	l := newLink(t, Config{
		Latency:  10 * ms,
		Suspends: []Window{{From: 20 * ms, To: 100 * ms}},
	}, 1)
	l.Send(0, pkt{id: 0})
	l.Send(30*ms, pkt{id: 1}) // arrives at 40 ms, during the suspend
	if got := l.Deliver(50*ms, nil); len(got) != 0 {
		t.Fatalf("Deliver during suspend = %v, want nothing", got)
	}
	if at, ok := l.NextDelivery(); !ok || at != 100*ms {
		t.Fatalf("NextDelivery = %v, %v; want 100ms (the resume), true", at, ok)
	}
	got := l.DeliverTimed(100*ms, nil)
	want := []Timed[pkt]{{At: 10 * ms, Msg: pkt{id: 0}}, {At: 100 * ms, Msg: pkt{id: 1}}}
	if !slices.Equal(got, want) {
		t.Fatalf("DeliverTimed(100ms) = %v, want %v", got, want)
	}

	// A caller that skips the whole window entirely still gets held
	// messages stamped with the window's end, and NextDelivery reports that
	// (past) time.
	l = newLink(t, Config{Latency: 10 * ms, Suspends: []Window{{From: 5 * ms, To: 15 * ms}}}, 1)
	l.Send(0, pkt{id: 3})     // arrives at 10 ms, held until 15 ms
	l.Send(50*ms, pkt{id: 4}) // moves the clock to 50 ms
	if at, _ := l.NextDelivery(); at != 15*ms {
		t.Fatalf("NextDelivery = %v, want 15ms", at)
	}
	got = l.DeliverTimed(60*ms, nil)
	want = []Timed[pkt]{{At: 15 * ms, Msg: pkt{id: 3}}, {At: 60 * ms, Msg: pkt{id: 4}}}
	if !slices.Equal(got, want) {
		t.Fatalf("DeliverTimed(60ms) = %v, want %v", got, want)
	}
}

func TestLinkSuspendPreservesArrivalOrder(t *testing.T) {
	// With jitter, reordering and duplicates, a suspend changes when
	// messages are handed over but not their order: the delivered sequence
	// is the one without the suspend, with every arrival inside a window
	// moved to that window's end.
	windows := []Window{
		{From: 3 * time.Second, To: 3500 * ms},
		{From: time.Second, To: 1200 * ms},
		{From: 1100 * ms, To: 1300 * ms}, // overlaps: acts as [1s, 1.3s)
		{From: 1300 * ms, To: 1400 * ms}, // touches: acts as [1s, 1.4s)
	}
	suspended := chaos
	suspended.Suspends = windows
	a := sendEvery(t, newLink(t, chaos, 12), 5000, ms)
	b := sendEvery(t, newLink(t, suspended, 12), 5000, ms)
	if len(a) != len(b) {
		t.Fatalf("%d deliveries with suspends, %d without", len(b), len(a))
	}
	held := 0
	for i := range a {
		want := a[i]
		switch {
		case want.At >= time.Second && want.At < 1400*ms:
			want.At = 1400 * ms
			held++
		case want.At >= 3*time.Second && want.At < 3500*ms:
			want.At = 3500 * ms
			held++
		}
		if b[i] != want {
			t.Fatalf("delivery %d: got %v with suspends, want %v", i, b[i], want)
		}
	}
	if held < 800 {
		t.Fatalf("only %d deliveries were held", held)
	}
}

func TestLinkSuspendEventDriven(t *testing.T) {
	// Following NextDelivery never gets stuck in a suspend window, even
	// when the caller's clock is already inside it.
	l := newLink(t, Config{
		Latency:  30 * ms,
		Jitter:   10 * ms,
		Suspends: []Window{{From: 25 * ms, To: 60 * ms}, {From: 100 * ms, To: math.MaxInt64}},
	}, 3)
	for i := range 20 {
		l.Send(time.Duration(i)*ms, pkt{id: i})
	}
	l.Deliver(40*ms, nil) // now inside the first window
	var buf []Timed[pkt]
	n := 0
	for steps := 0; ; steps++ {
		at, ok := l.NextDelivery()
		if !ok {
			break
		}
		if steps > 100 {
			t.Fatal("NextDelivery loop did not terminate")
		}
		buf = l.DeliverTimed(at, buf[:0])
		if len(buf) == 0 {
			t.Fatalf("Deliver at NextDelivery %v delivered nothing", at)
		}
		n += len(buf)
	}
	if n != 20 {
		t.Errorf("delivered %d, want 20", n)
	}
	// A window that never ends holds everything until the end of time.
	l.Send(200*ms, pkt{id: 99})
	if at, _ := l.NextDelivery(); at != math.MaxInt64 {
		t.Errorf("NextDelivery in an endless suspend = %v, want MaxInt64", at)
	}
}

func TestMergeWindows(t *testing.T) {
	got := mergeWindows([]Window{
		{From: 50, To: 60}, {From: 10, To: 20}, {From: 15, To: 30}, {From: 30, To: 35},
		{From: 40, To: 40}, {From: 55, To: 58}, {From: -5, To: 0},
	})
	want := []Window{{From: -5, To: 0}, {From: 10, To: 35}, {From: 50, To: 60}}
	if !slices.Equal(got, want) {
		t.Errorf("mergeWindows = %v, want %v", got, want)
	}
	for _, tt := range []struct {
		t    time.Duration
		want bool
	}{{-6, false}, {-5, true}, {0, false}, {9, false}, {10, true}, {34, true}, {35, false}, {59, true}, {60, false}} {
		if _, ok := windowAt(got, tt.t); ok != tt.want {
			t.Errorf("windowAt(%d) = %v, want %v", tt.t, ok, tt.want)
		}
	}
	if mergeWindows(nil) != nil {
		t.Error("mergeWindows(nil) allocated")
	}
}

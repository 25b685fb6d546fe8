package netsim

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// sendRange sends the packets with ids [from, to), one per millisecond at
// t = id ms, delivering as it goes, and returns got extended with the
// deliveries.
func sendRange(l *Link[pkt], from, to int, got []Timed[pkt]) []Timed[pkt] {
	for i := from; i < to; i++ {
		now := time.Duration(i) * ms
		l.Send(now, pkt{id: i, sent: now})
		got = l.DeliverTimed(now, got)
	}
	return got
}

// Switching Loss from 0 to 0.5 and back switches the measured loss rate
// for the packets sent in each phase, and only for them.
func TestLinkSetConfigSwitchesLossRate(t *testing.T) {
	const n = 20_000
	l := newLink(t, Config{Latency: 20 * ms}, 5)
	got := sendRange(l, 0, n, nil)
	if err := l.SetConfig(Config{Latency: 20 * ms, Loss: 0.5}); err != nil {
		t.Fatal(err)
	}
	got = sendRange(l, n, 2*n, got)
	if err := l.SetConfig(Config{Latency: 20 * ms}); err != nil {
		t.Fatal(err)
	}
	got = sendRange(l, 2*n, 3*n, got)
	got = l.DeliverTimed(math.MaxInt64, got)
	checkAccounting(t, l)

	var phase [3]int
	for _, d := range got {
		phase[d.Msg.id/n]++
		if d.At != d.Msg.sent+20*ms {
			t.Fatalf("id %d sent %v arrived %v, want 20ms later", d.Msg.id, d.Msg.sent, d.At)
		}
	}
	// Binomial: standard deviation sqrt(n/4) ≈ 71 packets. Allow 5σ.
	tol := 5 * math.Sqrt(n*0.25)
	if phase[0] != n || phase[2] != n || math.Abs(float64(phase[1])-n/2) > tol {
		t.Fatalf("delivered %v of %d per phase, want all, %d ± %.0f, all", phase, n, n/2, tol)
	}
	if s := l.Stats(); s.Lost != uint64(n-phase[1]) || s.Sent != 3*n {
		t.Fatalf("Stats %+v, want %d lost of %d", s, n-phase[1], 3*n)
	}
	t.Logf("loss rate 0, %.4f, 0", 1-float64(phase[1])/n)
}

// A new Latency applies to packets sent after SetConfig: those already in
// flight keep their arrival times, and are overtaken.
func TestLinkSetConfigLatencyAppliesToNewPacketsOnly(t *testing.T) {
	l := newLink(t, Config{Latency: 100 * ms}, 1)
	sendRange(l, 0, 10, nil) // arrive at 100..109 ms
	if err := l.SetConfig(Config{Latency: 10 * ms}); err != nil {
		t.Fatal(err)
	}
	sendRange(l, 10, 20, nil) // arrive at 20..29 ms
	if at, ok := l.NextDelivery(); !ok || at != 20*ms {
		t.Fatalf("NextDelivery = %v, %v, want 20ms", at, ok)
	}
	got := l.DeliverTimed(math.MaxInt64, nil)
	var want []Timed[pkt]
	for _, id := range []int{10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9} {
		sent := time.Duration(id) * ms
		latency := 10 * ms
		if id < 10 {
			latency = 100 * ms
		}
		want = append(want, Timed[pkt]{At: sent + latency, Msg: pkt{id: id, sent: sent}})
	}
	if !slices.Equal(got, want) {
		t.Fatalf("delivered %v\nwant %v", got, want)
	}
}

// The bottleneck keeps the packets it has accepted; later ones queue behind
// them at the new rate, against the new queue bound; without a cap they
// pass at once, and a cap set again starts idle.
func TestLinkSetConfigBandwidth(t *testing.T) {
	// 1200-byte packets: 10 ms each at 120 kB/s, 1 ms at 1.2 MB/s.
	l := newLink(t, Config{Bandwidth: 120_000, QueueBytes: 100_000}, 1)
	set := func(cfg Config) {
		t.Helper()
		if err := l.SetConfig(cfg); err != nil {
			t.Fatal(err)
		}
	}
	send := func(id int, now time.Duration) { l.Send(now, pkt{id: id, sent: now}) }
	send(0, 0) // done at 10 ms
	send(1, 0) // 20 ms
	send(2, 0) // 30 ms
	set(Config{Bandwidth: 1_200_000, QueueBytes: 100_000})
	send(3, 0) // behind the first three: 31 ms
	send(4, 0) // 32 ms
	// 32 ms of backlog at 120 kB/s is 3840 bytes, over the new queue's 2400.
	set(Config{Bandwidth: 120_000, QueueBytes: 2400})
	send(5, 0) // dropped
	// At 30 ms, 2 ms (240 bytes) are left: room for one more packet.
	send(6, 30*ms) // 32 + 10 = 42 ms
	set(Config{})
	send(7, 30*ms) // no cap: at once
	set(Config{Bandwidth: 1_200_000})
	send(8, 30*ms) // a cap again, idle: 31 ms
	got := l.DeliverTimed(math.MaxInt64, nil)
	want := []Timed[pkt]{
		{At: 10 * ms, Msg: pkt{id: 0}},
		{At: 20 * ms, Msg: pkt{id: 1}},
		{At: 30 * ms, Msg: pkt{id: 2}},
		{At: 30 * ms, Msg: pkt{id: 7, sent: 30 * ms}},
		{At: 31 * ms, Msg: pkt{id: 3}},
		{At: 31 * ms, Msg: pkt{id: 8, sent: 30 * ms}},
		{At: 32 * ms, Msg: pkt{id: 4}},
		{At: 42 * ms, Msg: pkt{id: 6, sent: 30 * ms}},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("delivered %v\nwant %v", got, want)
	}
	if s := l.Stats(); s.QueueDropped != 1 || s.Lost != 1 {
		t.Fatalf("Stats %+v, want the one packet dropped by the queue", s)
	}
}

// The burst chain keeps its state while burst loss stays on, and restarts
// in Good after it was switched off.
func TestLinkSetConfigBurstState(t *testing.T) {
	stuck := Burst{Enter: 1, Exit: 0}    // enters Bad at once and stays
	rare := Burst{Enter: 1e-12, Exit: 0} // practically never enters Bad
	l := newLink(t, Config{Burst: stuck}, 3)
	step := func(cfg Config, wantLost uint64) {
		t.Helper()
		if err := l.SetConfig(cfg); err != nil {
			t.Fatal(err)
		}
		before := l.Stats().BurstLost
		for range 100 {
			l.Send(0, pkt{})
		}
		if lost := l.Stats().BurstLost - before; lost != wantLost {
			t.Fatalf("after SetConfig(%+v): %d of 100 lost to bursts, want %d", cfg, lost, wantLost)
		}
	}
	step(Config{Burst: stuck}, 100)
	step(Config{Burst: rare}, 100) // still in Bad: Exit is 0
	step(Config{}, 0)              // off: back to Good
	step(Config{Burst: rare}, 0)   // on again, from Good
}

// A smaller MaxInFlight drops nothing in flight; new packets overflow until
// deliveries make room under the new limit.
func TestLinkSetConfigMaxInFlight(t *testing.T) {
	l := newLink(t, Config{Latency: 10 * ms, MaxInFlight: 10}, 1)
	sendRange(l, 0, 10, nil) // sent at 0..9 ms, arrive at 10..19 ms
	if err := l.SetConfig(Config{Latency: 10 * ms, MaxInFlight: 4}); err != nil {
		t.Fatal(err)
	}
	if l.InFlight() != 10 {
		t.Fatalf("InFlight %d after lowering MaxInFlight, want the 10 queued", l.InFlight())
	}
	l.Send(9*ms, pkt{id: 10})
	if got := l.Deliver(15*ms, nil); len(got) != 6 || l.InFlight() != 4 {
		t.Fatalf("delivered %v by 15ms, %d in flight, want 6 and 4", got, l.InFlight())
	}
	l.Send(15*ms, pkt{id: 11}) // 4 in flight: overflows
	l.Deliver(16*ms, nil)
	l.Send(16*ms, pkt{id: 12}) // 3 in flight: accepted
	if s := l.Stats(); s.Overflow != 2 || l.InFlight() != 4 {
		t.Fatalf("Stats %+v, %d in flight, want 2 overflows and 4 in flight", s, l.InFlight())
	}
	checkAccounting(t, l)
}

// Outage and suspend windows are on the link's own virtual time. An outage
// loses only packets sent in it; a suspend holds whatever is collected in
// it, packets sent before SetConfig included, and removing it releases them
// with their own arrival times.
func TestLinkSetConfigWindows(t *testing.T) {
	const s = time.Second
	t.Run("added", func(t *testing.T) {
		l := newLink(t, Config{Latency: 100 * ms}, 1)
		l.Send(5*s, pkt{id: 0, sent: 5 * s}) // arrives 5.1 s
		err := l.SetConfig(Config{
			Latency:  100 * ms,
			Outages:  []Window{{From: 5 * s, To: 6 * s}},
			Suspends: []Window{{From: 5050 * ms, To: 5200 * ms}},
		})
		if err != nil {
			t.Fatal(err)
		}
		l.Send(5*s, pkt{id: 1, sent: 5 * s}) // in the outage
		if got := l.DeliverTimed(5150*ms, nil); len(got) != 0 {
			t.Fatalf("delivered %v while suspended", got)
		}
		l.Send(6*s, pkt{id: 2, sent: 6 * s}) // after the outage: arrives 6.1 s
		got := l.DeliverTimed(7*s, nil)
		want := []Timed[pkt]{{At: 5200 * ms, Msg: pkt{id: 0, sent: 5 * s}}, {At: 6100 * ms, Msg: pkt{id: 2, sent: 6 * s}}}
		if !slices.Equal(got, want) {
			t.Fatalf("delivered %v, want %v", got, want)
		}
		if st := l.Stats(); st.OutageLost != 1 {
			t.Fatalf("Stats %+v, want one packet lost to the outage", st)
		}
	})
	t.Run("removed", func(t *testing.T) {
		l := newLink(t, Config{Latency: 100 * ms, Suspends: []Window{{From: 5050 * ms, To: 5300 * ms}}}, 1)
		l.Send(5*s, pkt{id: 0, sent: 5 * s})
		if got := l.DeliverTimed(5150*ms, nil); len(got) != 0 {
			t.Fatalf("delivered %v while suspended", got)
		}
		if err := l.SetConfig(Config{Latency: 100 * ms}); err != nil {
			t.Fatal(err)
		}
		got := l.DeliverTimed(5150*ms, nil)
		if want := []Timed[pkt]{{At: 5100 * ms, Msg: pkt{id: 0, sent: 5 * s}}}; !slices.Equal(got, want) {
			t.Fatalf("delivered %v, want %v", got, want)
		}
	})
}

// scriptWithChanges drives l with an irregular but fixed pattern of sends
// and deliveries, with a SetConfig call before step i for each
// changes[i] (failing on an error), and returns the deliveries.
func scriptWithChanges(t *testing.T, l *Link[pkt], changes map[int]Config) []Timed[pkt] {
	t.Helper()
	var out []Timed[pkt]
	var now time.Duration
	for i := range 5000 {
		if cfg, ok := changes[i]; ok {
			if err := l.SetConfig(cfg); err != nil {
				t.Fatalf("step %d: SetConfig(%+v): %v", i, cfg, err)
			}
		}
		now += time.Duration(i%7) * ms
		for range 1 + i%3 {
			l.Send(now, pkt{id: i, sent: now})
		}
		if i%5 != 0 {
			out = l.DeliverTimed(now, out)
		}
	}
	return l.DeliverTimed(math.MaxInt64, out)
}

// Same seed and same calls, SetConfig included, give the same deliveries;
// another seed does not.
func TestLinkSetConfigDeterminism(t *testing.T) {
	capped := everything()
	capped.Bandwidth, capped.QueueBytes = 600_000, 6000
	changes := map[int]Config{
		1000: chaos,
		2000: capped,
		3000: {Latency: 5 * ms, Burst: Burst{Enter: 0.05, Exit: 0.3}},
		4000: everything(),
	}
	a := scriptWithChanges(t, newLink(t, everything(), 42), changes)
	b := scriptWithChanges(t, newLink(t, everything(), 42), changes)
	if !slices.Equal(a, b) {
		t.Fatal("two links with the same seed and changes delivered different sequences")
	}
	c := scriptWithChanges(t, newLink(t, everything(), 43), changes)
	if slices.Equal(a, c) {
		t.Fatal("links with seeds 42 and 43 delivered identical sequences")
	}
	none := scriptWithChanges(t, newLink(t, everything(), 42), nil)
	if slices.Equal(a, none) {
		t.Fatal("the changes changed nothing")
	}
}

// SetConfig with the link's own configuration changes nothing, mid-burst,
// mid-queue and mid-window.
func TestLinkSetConfigSameConfigChangesNothing(t *testing.T) {
	for name, cfg := range map[string]Config{"chaos": chaos, "everything": everything()} {
		t.Run(name, func(t *testing.T) {
			want := scriptWithChanges(t, newLink(t, cfg, 7), nil)
			l := newLink(t, cfg, 7)
			changes := map[int]Config{}
			for i := 0; i < 5000; i += 97 {
				changes[i] = l.Config()
			}
			if got := scriptWithChanges(t, l, changes); !slices.Equal(got, want) {
				t.Fatal("SetConfig(l.Config()) changed the deliveries")
			}
		})
	}
}

// Changing one impairment leaves the others' decisions alone: switching
// Loss on halfway loses packets, but every survivor arrives exactly when it
// would have without the change.
func TestLinkSetConfigKeepsOtherStreams(t *testing.T) {
	cfg := Config{Latency: 40 * ms, Jitter: 15 * ms, Reorder: 0.1, Duplicate: 0.05}
	lossy := cfg
	lossy.Loss = 0.3
	want := scriptWithChanges(t, newLink(t, cfg, 11), nil)
	got := scriptWithChanges(t, newLink(t, cfg, 11), map[int]Config{2500: lossy})
	if len(got) >= len(want) {
		t.Fatalf("%d deliveries with loss, %d without", len(got), len(want))
	}
	j := 0
	for _, d := range got {
		for j < len(want) && want[j] != d {
			j++
		}
		if j == len(want) {
			t.Fatalf("delivery %v did not happen without the change", d)
		}
		j++
	}
}

// An invalid configuration is rejected with every problem named, and the
// link carries on exactly as if SetConfig had not been called.
func TestLinkSetConfigRejectsInvalid(t *testing.T) {
	bad := Config{Latency: -ms, Loss: 2, Outages: []Window{{From: 2 * time.Second, To: time.Second}}}
	want := scriptWithChanges(t, newLink(t, everything(), 3), nil)
	l := newLink(t, everything(), 3)
	before := l.Config()
	var got []Timed[pkt]
	var now time.Duration
	for i := range 5000 {
		if i%500 == 250 {
			err := l.SetConfig(bad)
			if err == nil {
				t.Fatal("SetConfig accepted an invalid configuration")
			}
			for _, field := range []string{"Config.Latency", "Config.Loss", "Config.Outages[0]"} {
				if !strings.Contains(err.Error(), field) {
					t.Errorf("error %q does not name %s", err, field)
				}
			}
			if !reflect.DeepEqual(l.Config(), before) {
				t.Fatalf("Config changed by a rejected SetConfig: %+v", l.Config())
			}
		}
		now += time.Duration(i%7) * ms
		for range 1 + i%3 {
			l.Send(now, pkt{id: i, sent: now})
		}
		if i%5 != 0 {
			got = l.DeliverTimed(now, got)
		}
	}
	got = l.DeliverTimed(math.MaxInt64, got)
	if !slices.Equal(got, want) {
		t.Fatal("a rejected SetConfig changed the deliveries")
	}
}

// Config returns the configuration in force, windows merged, in slices the
// caller may modify.
func TestLinkConfig(t *testing.T) {
	cfg := Config{
		Latency:  30 * ms,
		Loss:     0.1,
		Outages:  []Window{{From: 3 * ms, To: 4 * ms}, {From: 1 * ms, To: 3 * ms}, {From: 9 * ms, To: 9 * ms}},
		Suspends: []Window{{From: 5 * ms, To: 6 * ms}},
	}
	l := newLink(t, cfg, 1)
	got := l.Config()
	want := cfg
	want.Outages = []Window{{From: ms, To: 4 * ms}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Config() = %+v, want %+v", got, want)
	}
	got.Outages[0].To = time.Hour
	got.Suspends[0].To = time.Hour
	if again := l.Config(); !reflect.DeepEqual(again, want) {
		t.Fatalf("modifying Config's result reached the link: %+v", again)
	}
	cfg.Loss = 0.5
	if err := l.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	if got := l.Config(); got.Loss != 0.5 || len(got.Outages) != 1 {
		t.Fatalf("Config() after SetConfig = %+v", got)
	}
	if l.SetConfig(Config{Jitter: -1}) == nil || l.Config().Loss != 0.5 {
		t.Fatalf("a rejected SetConfig changed Config() to %+v", l.Config())
	}
}

// SetConfig costs no allocation without windows, so a caller may call it
// every frame.
func TestLinkSetConfigDoesNotAllocate(t *testing.T) {
	l := newLink(t, chaos, 1)
	other := chaos
	other.Loss = 0.5
	n := 0
	allocs := testing.AllocsPerRun(1000, func() {
		cfg := chaos
		if n++; n%2 == 0 {
			cfg = other
		}
		if err := l.SetConfig(cfg); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("SetConfig allocates %v times per call, want 0", allocs)
	}
}

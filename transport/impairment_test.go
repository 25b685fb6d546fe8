//go:build !js

package transport

import (
	"bytes"
	"net/netip"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/netsmooth/netsmooth/netsim"
)

// arrival is a packet an Impairment delivered, and when.
type arrival struct {
	b  []byte
	to netip.AddrPort
	at time.Time
}

// collect returns an Impairment that sends its deliveries to a channel.
func collect(t *testing.T, cfg netsim.Config, seed uint64) (*Impairment, chan arrival) {
	t.Helper()
	ch := make(chan arrival, 10_000)
	m, err := NewImpairment(cfg, seed, func(b []byte, to netip.AddrPort) {
		ch <- arrival{b: b, to: to, at: time.Now()}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m, ch
}

// drained waits until m holds no packet and returns its stats.
func drained(t *testing.T, m *Impairment) netsim.Stats {
	t.Helper()
	var st netsim.Stats
	until(t, "the impairment to drain", func() {}, func() bool {
		st = m.Stats()
		return st.Sent+st.Duplicated == st.Delivered+st.Lost+st.Overflow
	})
	return st
}

// An Impairment delays each packet by its latency, delivers its own copy
// of the bytes, to the address given, and counts.
func TestImpairmentDelays(t *testing.T) {
	const latency = 30 * time.Millisecond
	m, ch := collect(t, netsim.Config{Latency: latency}, 1)
	to := netip.MustParseAddrPort("127.0.0.1:9")
	b := []byte("hello")
	sent := time.Now()
	m.Send(b, to)
	copy(b, "XXXXX") // Send copied it
	a := <-ch
	if !bytes.Equal(a.b, []byte("hello")) || a.to != to {
		t.Fatalf("delivered %q to %v, want %q to %v", a.b, a.to, "hello", to)
	}
	if d := a.at.Sub(sent); d < latency {
		t.Fatalf("delivered after %v, want at least %v", d, latency)
	}
	if st := m.Stats(); st.Sent != 1 || st.Delivered != 1 {
		t.Fatalf("Stats %+v", st)
	}
}

// SetConfig changes the loss of the packets sent afterwards: none lost,
// then all, then about half.
func TestImpairmentSetConfigLoss(t *testing.T) {
	m, ch := collect(t, netsim.Config{}, 2)
	phase := func(loss float64, n int) int {
		t.Helper()
		if err := m.SetConfig(netsim.Config{Loss: loss}); err != nil {
			t.Fatal(err)
		}
		before := m.Stats().Delivered
		for range n {
			m.Send([]byte{1}, netip.AddrPort{})
		}
		// Delivered counts a packet just before the goroutine hands it
		// over: wait for the hand-overs too.
		want := int(drained(t, m).Delivered - before)
		until(t, "the deliveries", func() {}, func() bool { return len(ch) >= want })
		got := len(ch)
		for range got {
			<-ch
		}
		return got
	}
	if got := phase(0, 200); got != 200 {
		t.Fatalf("loss 0: %d of 200 delivered", got)
	}
	if got := phase(1, 200); got != 0 {
		t.Fatalf("loss 1: %d of 200 delivered", got)
	}
	// Binomial: standard deviation 10; allow 8σ.
	if got := phase(0.5, 400); got < 120 || got > 280 {
		t.Fatalf("loss 0.5: %d of 400 delivered", got)
	}
	if st := m.Stats(); st.Sent != 800 || st.Lost < 320 || st.Lost > 480 {
		t.Fatalf("Stats %+v", st)
	}
}

// A packet held when the latency drops keeps its delivery time, and the
// packets sent afterwards overtake it.
func TestImpairmentSetConfigKeepsPacketsHeld(t *testing.T) {
	const slow = 200 * time.Millisecond
	m, ch := collect(t, netsim.Config{Latency: slow}, 3)
	sent := time.Now()
	m.Send([]byte("slow"), netip.AddrPort{})
	if err := m.SetConfig(netsim.Config{}); err != nil {
		t.Fatal(err)
	}
	m.Send([]byte("fast"), netip.AddrPort{})
	first, second := <-ch, <-ch
	if string(first.b) != "fast" || string(second.b) != "slow" {
		t.Fatalf("delivered %q then %q, want fast then slow", first.b, second.b)
	}
	if d := second.at.Sub(sent); d < slow {
		t.Fatalf("the held packet came after %v, want at least %v", d, slow)
	}
}

// Outage windows are on the Impairment's clock, Now.
func TestImpairmentOutageFromNow(t *testing.T) {
	m, ch := collect(t, netsim.Config{}, 4)
	now := m.Now()
	if err := m.SetConfig(netsim.Config{Outages: []netsim.Window{{From: now, To: now + time.Hour}}}); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		m.Send([]byte{1}, netip.AddrPort{})
	}
	if st := drained(t, m); st.OutageLost != 10 || len(ch) != 0 {
		t.Fatalf("Stats %+v, %d delivered, want 10 lost to the outage", st, len(ch))
	}
	if w := m.Config().Outages; len(w) != 1 || w[0].From != now {
		t.Fatalf("Config().Outages = %v", w)
	}
}

// Invalid configurations are refused, and a refused SetConfig changes
// nothing.
func TestImpairmentErrors(t *testing.T) {
	deliver := func([]byte, netip.AddrPort) {}
	if _, err := NewImpairment(netsim.Config{Loss: 2}, 0, deliver); err == nil {
		t.Error("NewImpairment accepted Loss 2")
	}
	if _, err := NewImpairment(netsim.Config{}, 0, nil); err == nil {
		t.Error("NewImpairment accepted a nil deliver")
	}
	m, _ := collect(t, netsim.Config{Latency: time.Millisecond}, 0)
	if err := m.SetConfig(netsim.Config{Jitter: -1}); err == nil {
		t.Error("SetConfig accepted a negative Jitter")
	}
	if cfg := m.Config(); cfg.Latency != time.Millisecond || cfg.Jitter != 0 {
		t.Errorf("a refused SetConfig changed the configuration to %+v", cfg)
	}
}

// Close waits for a deliver call under way, drops the packets held, stops
// the goroutine, makes Send do nothing, and may be called again, from
// several goroutines.
func TestImpairmentClose(t *testing.T) {
	before := runtime.NumGoroutine()
	release := make(chan struct{})
	var delivering, delivered atomic.Int32
	m, err := NewImpairment(netsim.Config{}, 5, func([]byte, netip.AddrPort) {
		delivering.Add(1)
		<-release
		delivered.Add(1)
	})
	if err != nil {
		t.Fatal(err)
	}
	m.Send([]byte{1}, netip.AddrPort{})
	until(t, "a delivery under way", func() {}, func() bool { return delivering.Load() == 1 })
	if err := m.SetConfig(netsim.Config{Latency: time.Hour}); err != nil {
		t.Fatal(err)
	}
	m.Send([]byte{2}, netip.AddrPort{}) // held for an hour: dropped by Close

	var closed sync.WaitGroup
	var returned atomic.Int32
	for range 2 {
		closed.Go(func() {
			m.Close()
			returned.Add(1)
		})
	}
	time.Sleep(20 * time.Millisecond)
	if returned.Load() != 0 {
		t.Fatal("Close returned while deliver was running")
	}
	close(release)
	closed.Wait()
	if delivered.Load() != 1 {
		t.Fatalf("%d deliveries finished, want 1", delivered.Load())
	}
	m.Close()
	m.Send([]byte{3}, netip.AddrPort{})
	if st := m.Stats(); st.Sent != 2 || st.Delivered != 1 {
		t.Fatalf("Stats after Close %+v, want 2 sent (the third after Close is ignored), 1 delivered", st)
	}
	if g := goroutines(before); g > before {
		t.Fatalf("%d goroutines after Close, %d before", g, before)
	}
}

// Send, SetConfig, Config, Stats and Close are safe together (run with
// -race).
func TestImpairmentConcurrent(t *testing.T) {
	var n atomic.Int64
	m, err := NewImpairment(netsim.Config{Jitter: time.Millisecond}, 6, func([]byte, netip.AddrPort) { n.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			b := []byte{byte(g)}
			for i := range 500 {
				m.Send(b, netip.AddrPort{})
				if i%50 == 0 {
					cfg := m.Config()
					cfg.Loss = float64(i%100) / 100
					if err := m.SetConfig(cfg); err != nil {
						t.Error(err)
					}
					m.Stats()
				}
			}
		})
	}
	wg.Wait()
	// Delivered counts a packet just before the goroutine hands it over,
	// and Close stops the hand-overs: wait for them first.
	done := drained(t, m).Delivered
	until(t, "the deliveries", func() {}, func() bool { return uint64(n.Load()) >= done })
	m.Close()
	if st := m.Stats(); st.Sent != 2000 || uint64(n.Load()) != st.Delivered {
		t.Fatalf("Stats %+v, %d delivered", st, n.Load())
	}
}

// Send allocates only its copy of the packet.
func TestImpairmentSendAllocatesOnlyTheCopy(t *testing.T) {
	m, err := NewImpairment(netsim.Config{Latency: time.Hour, MaxInFlight: 1 << 20}, 7, func([]byte, netip.AddrPort) {})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	b := make([]byte, 100)
	for range 5000 { // the link's queue reaches its size
		m.Send(b, netip.AddrPort{})
	}
	if allocs := testing.AllocsPerRun(1000, func() { m.Send(b, netip.AddrPort{}) }); allocs > 1 {
		t.Errorf("Send allocates %v times, want 1 (the copy)", allocs)
	}
}

package transport

import (
	"context"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/session"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/wire"
)

func listen(t *testing.T, cfg ServerConfig) *Server {
	t.Helper()
	s, err := Listen(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func dial(t *testing.T, addr string, cfg ClientConfig) (*Client, *systems.Inbox) {
	t.Helper()
	cfg.Addr = addr
	if cfg.Session.Inbox == nil {
		cfg.Session.Inbox = systems.NewInbox(0)
	}
	c, err := Dial(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, cfg.Session.Inbox
}

// tick runs one server tick: n entities at x = tick, inputs consumed.
func tick(t *testing.T, s *Server, tk uint32, n int) {
	t.Helper()
	for _, id := range s.Clients(nil) {
		for {
			in, err := s.Session().NextInput(id, nil)
			if err != nil || in.Status == session.InputEmpty {
				break
			}
		}
	}
	if err := s.Session().BeginTick(tk); err != nil {
		t.Fatal(err)
	}
	for k := range n {
		if err := s.Session().SetEntity(wire.Entity{NetID: uint32(k + 1), Pos: mgl32.Vec3{float32(tk), float32(k), 0}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SendSnapshots(); err != nil {
		t.Fatal(err)
	}
}

// until runs step every 5 ms until done reports true, failing after 5 s.
func until(t *testing.T, what string, step func(), done func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !done(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		step()
		time.Sleep(5 * time.Millisecond)
	}
}

// A client connects with its first input packet, receives the world's
// entities into its inbox, and learns the round trip.
func TestLoopback(t *testing.T) {
	s := listen(t, ServerConfig{})
	if !s.Addr().Addr().IsLoopback() {
		t.Fatalf("listening on %v, want loopback", s.Addr())
	}
	owns := make(chan session.Own, 1000)
	c, inbox := dial(t, s.Addr().String(), ClientConfig{Session: session.ClientConfig{
		NetID: 3, OnOwn: func(o session.Own) { owns <- o },
	}})
	tk := uint32(0)
	got := map[uint32]bool{}
	var msgs []systems.Message
	until(t, "entities and a round trip", func() {
		tk++
		c.Session().QueueInput(tk, []byte{1})
		if err := c.SendInputs(); err != nil {
			t.Fatal(err)
		}
		tick(t, s, tk, 5)
		msgs, _ = inbox.Drain(msgs)
		for _, m := range msgs {
			if m.Kind != systems.Complete {
				got[uint32(m.NetID)] = true
			}
		}
	}, func() bool {
		_, ok := c.Session().Sync()
		return len(got) == 4 && len(owns) > 0 && ok
	})
	if got[3] {
		t.Fatal("the controlled entity went to the inbox")
	}
	st := s.Stats()
	if st.Clients != 1 || st.Connects != 1 || st.PacketsSent == 0 || st.BadPackets != 0 {
		t.Fatalf("server stats %+v", st)
	}
	sync, _ := c.Session().Sync()
	if sync.RTT < 0 || sync.RTT > 200 {
		t.Fatalf("RTT %v ms over loopback", sync.RTT)
	}
	if _, ok := c.ServerTick(); !ok {
		t.Fatal("no server tick estimate")
	}
	if c.LocalAddr().Port() == 0 {
		t.Fatal("no local address")
	}
}

// At most MaxClients addresses connect; stray packets connect nothing.
func TestServerBounds(t *testing.T) {
	s := listen(t, ServerConfig{Session: session.Config{MaxClients: 2}})
	var clients []*Client
	for range 3 {
		c, _ := dial(t, s.Addr().String(), ClientConfig{})
		clients = append(clients, c)
	}
	stray, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(s.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer stray.Close()
	until(t, "two connections, a refusal and a stray", func() {
		for _, c := range clients {
			c.SendInputs()
		}
		stray.Write([]byte("hello"))
	}, func() bool {
		st := s.Stats()
		return st.Clients == 2 && st.Refused > 0 && st.Stray > 0
	})
	if st := s.Stats(); st.Connects != 2 {
		t.Fatalf("%+v", st)
	}
	if ids := s.Clients(nil); len(ids) != 2 || ids[0] != 1 || ids[1] != 2 {
		t.Fatalf("clients %v", ids)
	}
}

// A client silent for Idle is disconnected, and its place freed.
func TestIdleDisconnect(t *testing.T) {
	s := listen(t, ServerConfig{Idle: 50 * time.Millisecond})
	c, _ := dial(t, s.Addr().String(), ClientConfig{})
	until(t, "the connection", func() { c.SendInputs() }, func() bool { return s.Stats().Clients == 1 })
	tk := uint32(0)
	until(t, "the disconnection", func() { tk++; tick(t, s, tk, 1) }, func() bool { return s.Stats().Disconnects == 1 })
	if st := s.Stats(); st.Clients != 0 || s.Session().Connected(1) {
		t.Fatalf("%+v", st)
	}
}

// Impair applies a netsim link on each side: its latency shows in the
// round trip, its losses in the counters.
func TestImpair(t *testing.T) {
	down := netsim.Config{Latency: 30 * time.Millisecond, Loss: 0.3}
	up := netsim.Config{Latency: 20 * time.Millisecond, Loss: 0.3}
	s := listen(t, ServerConfig{Impair: &down, Seed: 1})
	c, _ := dial(t, s.Addr().String(), ClientConfig{Impair: &up, Seed: 2})
	tk := uint32(0)
	until(t, "100 packets each way", func() {
		tk++
		c.SendInputs()
		tick(t, s, tk, 2)
	}, func() bool { return c.Stats().Link.Sent >= 100 && s.Stats().Link.Sent >= 100 })
	time.Sleep(100 * time.Millisecond) // the last packets in flight
	cs, ss := c.Stats(), s.Stats()
	for _, side := range []struct {
		name      string
		link      netsim.Stats
		delivered uint64
	}{{"up", cs.Link, cs.PacketsSent}, {"down", ss.Link, ss.PacketsSent}} {
		if side.link.Lost < side.link.Sent/6 || side.link.Lost > side.link.Sent/2 || side.delivered != side.link.Delivered {
			t.Errorf("%s: %+v, %d written", side.name, side.link, side.delivered)
		}
	}
	sync, ok := c.Session().Sync()
	if !ok || sync.MinRTT < 49 || sync.MinRTT > 150 {
		t.Fatalf("min RTT %v ms over 50 ms of latency (%v)", sync.MinRTT, ok)
	}
}

// goroutines waits, up to a deadline, for the number of goroutines to come
// back to at most n, and returns it.
func goroutines(n int) int {
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if g := runtime.NumGoroutine(); g <= n || time.Now().After(deadline) {
			return g
		}
	}
}

// Close and context cancellation stop every goroutine they started.
func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	impair := netsim.Config{Latency: 5 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	s, err := Listen(ctx, ServerConfig{Impair: &impair})
	if err != nil {
		t.Fatal(err)
	}
	var clients []*Client
	for i := range 3 {
		cctx := context.Background()
		if i == 0 {
			cctx = ctx // closed by the cancellation
		}
		c, err := Dial(cctx, ClientConfig{Addr: s.Addr().String(), Impair: &impair,
			Session: session.ClientConfig{Inbox: systems.NewInbox(0)}})
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
	}
	tk := uint32(0)
	until(t, "three connections", func() {
		tk++
		for _, c := range clients {
			c.SendInputs()
		}
		tick(t, s, tk, 3)
	}, func() bool { return s.Stats().Clients == 3 })
	// Eight of them: the server's reader and impairment, and the clients'.
	// (A goroutine of an earlier test may still have been exiting when
	// before was counted: ask for a little less.)
	if runtime.NumGoroutine() < before+6 {
		t.Fatalf("%d goroutines running, %d before: the test does not test", runtime.NumGoroutine(), before)
	}
	cancel() // the server and the first client
	for _, c := range clients[1:] {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if g := goroutines(before); g > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines left, %d before:\n%s", g, before, buf[:runtime.Stack(buf, true)])
	}
	if err := s.Close(); err != nil { // already closed: nothing to do
		t.Fatal(err)
	}
	if _, _, err := s.conn.ReadFromUDPAddrPort(make([]byte, 1)); err == nil {
		t.Fatal("the server's socket is open")
	}
}

func TestConfigErrors(t *testing.T) {
	ctx := context.Background()
	bad := netsim.Config{Loss: 2}
	for _, cfg := range []ServerConfig{
		{Addr: "nowhere:-1"},
		{Idle: -1},
		{Session: session.Config{MaxClients: -1}},
		{Impair: &bad},
	} {
		if s, err := Listen(ctx, cfg); err == nil {
			s.Close()
			t.Errorf("Listen(%+v) succeeded", cfg)
		}
	}
	inbox := systems.NewInbox(0)
	for _, cfg := range []ClientConfig{
		{Addr: "127.0.0.1:1"}, // no inbox
		{Addr: "nowhere:-1", Session: session.ClientConfig{Inbox: inbox}},
		{Addr: "127.0.0.1:1", Session: session.ClientConfig{Inbox: inbox}, Impair: &bad},
	} {
		if c, err := Dial(ctx, cfg); err == nil {
			c.Close()
			t.Errorf("Dial(%+v) succeeded", cfg)
		}
	}
}

package transport

import (
	"context"
	"errors"
	"net"
	"runtime"
	"sync"
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

// exchange runs server ticks of n entities, the client sending inputs
// (queued by queue, if set) before each, until done says the entities the
// client's inbox received (Complete markers aside) are enough.
func exchange(t *testing.T, s *Server, c *Client, inbox *systems.Inbox, n int, queue func(tk uint32), done func(got map[uint32]bool) bool) {
	t.Helper()
	tk := uint32(0)
	got := map[uint32]bool{}
	var msgs []systems.Message
	until(t, "entities and a round trip", func() {
		tk++
		if queue != nil {
			queue(tk)
		}
		if err := c.SendInputs(); err != nil {
			t.Fatal(err)
		}
		tick(t, s, tk, n)
		msgs, _ = inbox.Drain(msgs)
		for _, m := range msgs {
			if m.Kind != systems.Complete {
				got[uint32(m.NetID)] = true
			}
		}
	}, func() bool { return done(got) })
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
	var own3 bool
	exchange(t, s, c, inbox, 5, func(tk uint32) { c.Session().QueueInput(tk, []byte{1}) }, func(got map[uint32]bool) bool {
		_, ok := c.Session().Sync()
		own3 = got[3]
		return len(got) == 4 && len(owns) > 0 && ok
	})
	if own3 {
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
		cfg := ClientConfig{Addr: s.Addr().String(), Impair: &impair,
			Session: session.ClientConfig{Inbox: systems.NewInbox(0)}}
		switch i {
		case 1:
			cfg.ImpairReceive = &impair
		case 2:
			cfg.Impair = nil // impaired later, by SetImpair
		}
		c, err := Dial(cctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
	}
	if err := clients[2].SetImpair(&impair); err != nil {
		t.Fatal(err)
	}
	// A configuration that fails halfway through Dial leaves nothing
	// running either.
	bad := netsim.Config{Loss: 2}
	if _, err := Dial(ctx, ClientConfig{Addr: s.Addr().String(), Impair: &impair, ImpairReceive: &bad,
		Session: session.ClientConfig{Inbox: systems.NewInbox(0)}}); err == nil {
		t.Fatal("Dial accepted an invalid ImpairReceive")
	}
	tk := uint32(0)
	until(t, "three connections", func() {
		tk++
		for _, c := range clients {
			c.SendInputs()
		}
		tick(t, s, tk, 3)
	}, func() bool { return s.Stats().Clients == 3 })
	// Nine of them: the server's reader and impairment, and the clients'
	// (the second client's receive impairment too). (A goroutine of an
	// earlier test may still have been exiting when before was counted:
	// ask for a little less.)
	if runtime.NumGoroutine() < before+7 {
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
	if _, _, err := s.udp.ReadFromUDPAddrPort(make([]byte, 1)); err == nil {
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
		{Addr: "127.0.0.1:1", Session: session.ClientConfig{Inbox: inbox}, ImpairReceive: &bad},
	} {
		if c, err := Dial(ctx, cfg); err == nil {
			c.Close()
			t.Errorf("Dial(%+v) succeeded", cfg)
		}
	}
}

// SetImpair changes, at run time and over a real socket, what arrives of
// the packets the client sends: all, none, about half, then all again
// without the impairment.
func TestSetImpairAtRunTime(t *testing.T) {
	s := listen(t, ServerConfig{})
	c, _ := dial(t, s.Addr().String(), ClientConfig{Seed: 3})
	// phase sends n input packets and returns how many reached the server,
	// once the impairment holds none, every packet it delivered has been
	// written, and every packet written has arrived.
	phase := func(n int) uint64 {
		t.Helper()
		before, cs0 := s.Stats().PacketsReceived, c.Stats()
		for range n {
			if err := c.SendInputs(); err != nil {
				t.Fatal(err)
			}
		}
		var arrived uint64
		until(t, "the packets sent", func() {}, func() bool {
			cs := c.Stats()
			arrived = s.Stats().PacketsReceived - before
			l := cs.Link
			settled := l.Sent+l.Duplicated == l.Delivered+l.Lost+l.Overflow && arrived == cs.PacketsSent-cs0.PacketsSent
			return settled && writtenAll(cs.PacketsSent-cs0.PacketsSent, l.Sent-cs0.Link.Sent, l.Delivered-cs0.Link.Delivered, n)
		})
		return arrived
	}
	set := func(cfg *netsim.Config) {
		t.Helper()
		if err := c.SetImpair(cfg); err != nil {
			t.Fatal(err)
		}
	}
	if got := phase(100); got != 100 || c.Stats().Link != (netsim.Stats{}) {
		t.Fatalf("no impairment: %d of 100 arrived, link %+v", got, c.Stats().Link)
	}
	set(&netsim.Config{Loss: 1})
	if got := phase(100); got != 0 {
		t.Fatalf("loss 1: %d of 100 arrived", got)
	}
	if err := c.SetImpair(&netsim.Config{Loss: -1}); err == nil {
		t.Fatal("SetImpair accepted Loss -1")
	}
	if got := phase(100); got != 0 {
		t.Fatalf("loss 1 after a refused change: %d of 100 arrived", got)
	}
	set(&netsim.Config{Loss: 0.5})
	half := phase(400)
	if half < 120 || half > 280 { // 200 ± 8σ
		t.Fatalf("loss 0.5: %d of 400 arrived", half)
	}
	link := c.Stats().Link
	if link.Sent != 600 || link.Lost != 200+400-half || link.Delivered != half {
		t.Fatalf("link %+v, want 600 sent, %d lost", link, 200+400-half)
	}
	set(nil)
	if got := phase(100); got != 100 || c.Stats().Link != link {
		t.Fatalf("impairment removed: %d of 100 arrived, link %+v, was %+v", got, c.Stats().Link, link)
	}
}

// Server.SetImpair does the same for the snapshots, and SetImpair(nil)
// on an endpoint never impaired starts nothing.
func TestServerSetImpair(t *testing.T) {
	s := listen(t, ServerConfig{})
	c, _ := dial(t, s.Addr().String(), ClientConfig{})
	until(t, "the connection", func() { c.SendInputs() }, func() bool { return s.Stats().Clients == 1 })
	if err := s.SetImpair(nil); err != nil {
		t.Fatal(err)
	}
	tk := uint32(0)
	// phase runs n ticks and returns how many snapshots reached the client.
	phase := func(n int) uint64 {
		t.Helper()
		before, ss0 := c.Stats().PacketsReceived, s.Stats()
		for range n {
			tk++
			tick(t, s, tk, 1)
		}
		var arrived uint64
		until(t, "the snapshots sent", func() {}, func() bool {
			ss := s.Stats()
			arrived = c.Stats().PacketsReceived - before
			l := ss.Link
			settled := l.Sent+l.Duplicated == l.Delivered+l.Lost+l.Overflow && arrived == ss.PacketsSent-ss0.PacketsSent
			return settled && writtenAll(ss.PacketsSent-ss0.PacketsSent, l.Sent-ss0.Link.Sent, l.Delivered-ss0.Link.Delivered, n)
		})
		return arrived
	}
	if got := phase(50); got != 50 || s.Stats().Link != (netsim.Stats{}) {
		t.Fatalf("no impairment: %d of 50 arrived, link %+v", got, s.Stats().Link)
	}
	if err := s.SetImpair(&netsim.Config{Loss: 1}); err != nil {
		t.Fatal(err)
	}
	if got := phase(50); got != 0 || s.Stats().Link.Lost != 50 {
		t.Fatalf("loss 1: %d of 50 arrived, link %+v", got, s.Stats().Link)
	}
	if err := s.SetImpair(nil); err != nil {
		t.Fatal(err)
	}
	if got := phase(50); got != 50 || s.Stats().Link.Sent != 50 {
		t.Fatalf("impairment removed: %d of 50 arrived, link %+v", got, s.Stats().Link)
	}
}

// ImpairReceive delays and drops the packets the client reads before its
// session sees them: the session gets only the survivors, stamped after
// the delay, which shows in the round trip. SetImpairReceive switches it
// at run time.
func TestImpairReceive(t *testing.T) {
	s := listen(t, ServerConfig{})
	c, _ := dial(t, s.Addr().String(), ClientConfig{
		ImpairReceive: &netsim.Config{Latency: 40 * time.Millisecond, Loss: 0.3}, Seed: 5,
	})
	tk := uint32(0)
	step := func() {
		tk++
		c.SendInputs()
		tick(t, s, tk, 1)
	}
	// settled waits until ImpairReceive holds nothing and the session has
	// had every packet it delivered.
	settled := func() (ClientStats, session.ClientStats) {
		t.Helper()
		var cs ClientStats
		var ss session.ClientStats
		until(t, "the receive impairment to drain", func() {}, func() bool {
			cs, ss = c.Stats(), c.Session().Stats()
			l := cs.LinkReceive
			return l.Sent+l.Duplicated == l.Delivered+l.Lost+l.Overflow && ss.PacketsReceived == l.Delivered
		})
		return cs, ss
	}
	until(t, "100 snapshots through the receive impairment", step, func() bool {
		return c.Stats().LinkReceive.Sent >= 100
	})
	cs, _ := settled()
	l := cs.LinkReceive
	if cs.PacketsReceived != l.Sent || l.Lost < l.Sent/6 || l.Lost > l.Sent/2 || cs.Link != (netsim.Stats{}) {
		t.Fatalf("client stats %+v", cs)
	}
	sync, ok := c.Session().Sync()
	// The packets' clocks count whole milliseconds: allow one.
	if !ok || sync.MinRTT < 39 {
		t.Fatalf("min RTT %v ms (%v), want at least the receive latency, 40 ms", sync.MinRTT, ok)
	}

	if err := c.SetImpairReceive(&netsim.Config{Loss: 1}); err != nil {
		t.Fatal(err)
	}
	_, before := settled()
	read := c.Stats().PacketsReceived
	until(t, "50 more packets read", step, func() bool { return c.Stats().PacketsReceived >= read+50 })
	if _, ss := settled(); ss.PacketsReceived != before.PacketsReceived {
		t.Fatalf("the session received %d packets through loss 1", ss.PacketsReceived-before.PacketsReceived)
	}

	if err := c.SetImpairReceive(nil); err != nil {
		t.Fatal(err)
	}
	held := c.Stats().LinkReceive
	_, before = settled()
	read = c.Stats().PacketsReceived
	until(t, "50 more packets read", step, func() bool { return c.Stats().PacketsReceived >= read+50 })
	until(t, "the session to have them", func() {}, func() bool {
		return c.Session().Stats().PacketsReceived-before.PacketsReceived == c.Stats().PacketsReceived-read
	})
	if now := c.Stats().LinkReceive; now != held {
		t.Fatalf("receive link went from %+v to %+v with the impairment removed", held, now)
	}
}

// SetImpair and SetImpairReceive are safe while other goroutines send and
// read stats (run with -race); after Close they fail with net.ErrClosed.
func TestSetImpairConcurrent(t *testing.T) {
	s := listen(t, ServerConfig{})
	c, _ := dial(t, s.Addr().String(), ClientConfig{})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for tk := uint32(1); ; tk++ {
			select {
			case <-stop:
				return
			default:
			}
			c.SendInputs()
			tick(t, s, tk, 1)
			c.Stats()
			s.Stats()
			time.Sleep(time.Millisecond)
		}
	})
	cfgs := []*netsim.Config{{Loss: 0.5}, nil, {Latency: time.Millisecond, Jitter: time.Millisecond}, {Duplicate: 1}, nil}
	for i := range 200 {
		cfg := cfgs[i%len(cfgs)]
		for _, set := range []func(*netsim.Config) error{c.SetImpair, c.SetImpairReceive, s.SetImpair} {
			if err := set(cfg); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(200 * time.Microsecond)
	}
	close(stop)
	wg.Wait()
	if c.Stats().LinkReceive.Sent == 0 || s.Stats().Link.Sent == 0 {
		t.Fatalf("nothing went through the impairments: %+v, %+v", c.Stats(), s.Stats())
	}
	c.Close()
	s.Close()
	for _, set := range []func(*netsim.Config) error{c.SetImpair, c.SetImpairReceive, s.SetImpair} {
		if err := set(&netsim.Config{}); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("SetImpair after Close: %v, want net.ErrClosed", err)
		}
	}
}

// writtenAll tells whether an endpoint has written every packet of a phase
// in which it was asked to send n: through the impairment (which counts a
// packet delivered before it writes it), written equals delivered; with
// none (its link counts nothing), written is at least n.
func writtenAll(written, linkSent, delivered uint64, n int) bool {
	if linkSent == 0 {
		return written >= uint64(n)
	}
	return written == delivered
}

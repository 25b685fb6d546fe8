package server_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/client"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/token"
	"github.com/netsmooth/netsmooth/transport"
	"github.com/netsmooth/netsmooth/wire"
	"github.com/quic-go/quic-go"
)

// The attacks a hostile internet host can try on a server and its
// clients, each against the real server and client over loopback. They
// reproduce what the plain UDP transport allowed (amplification, slot
// exhaustion, impersonation, injected and forged packets, speed hacks)
// and assert that none works any more.

// countingConn is a socket that counts the bytes it exchanges with each
// address.
type countingConn struct {
	net.PacketConn
	mu      sync.Mutex
	in, out map[netip.AddrPort]int
}

func newCountingConn(t testing.TB) *countingConn {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// What quic-go does for a *net.UDPConn of its own: room for bursts.
	pc.(*net.UDPConn).SetReadBuffer(4 << 20)
	return &countingConn{PacketConn: pc, in: map[netip.AddrPort]int{}, out: map[netip.AddrPort]int{}}
}

func addrKey(a net.Addr) netip.AddrPort {
	ap, _ := netip.ParseAddrPort(a.String())
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
}

func (c *countingConn) ReadFrom(b []byte) (int, net.Addr, error) {
	n, a, err := c.PacketConn.ReadFrom(b)
	if err == nil {
		c.mu.Lock()
		c.in[addrKey(a)] += n
		c.mu.Unlock()
	}
	return n, a, err
}

func (c *countingConn) WriteTo(b []byte, a net.Addr) (int, error) {
	n, err := c.PacketConn.WriteTo(b, a)
	if err == nil {
		c.mu.Lock()
		c.out[addrKey(a)] += n
		c.mu.Unlock()
	}
	return n, err
}

func (c *countingConn) bytes(a netip.AddrPort) (in, out int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.in[a], c.out[a]
}

// totals returns the bytes exchanged with every address but skip.
func (c *countingConn) totals(skip netip.AddrPort) (in, out, sources int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for a, n := range c.in {
		if a != skip {
			in += n
			out += c.out[a]
			sources++
		}
	}
	return in, out, sources
}

// socket returns a client socket of the test's own, closed at its end.
func socket(t testing.TB) *countingConn {
	t.Helper()
	c := newCountingConn(t)
	t.Cleanup(func() { c.Close() })
	return c
}

// dialFrom connects a client from pc.
func dialFrom(ctx context.Context, s *server.Server, pc net.PacketConn, tok []byte) (*client.Client, error) {
	return client.Dial(ctx, s.Addr().String(), client.Config{Token: tok,
		Transport: transport.DialConfig{CertHashes: [][32]byte{s.CertHash()}, PacketConn: pc, Timeout: 2 * time.Second},
		Session:   client.SessionConfig{Inbox: systems.NewInbox(0), OnOwn: func(client.Own) {}}})
}

// Amplification: nothing a host that is not admitted sends makes the
// server send more than 3x as many bytes back: a server that streamed
// snapshots to whatever address sent it an input packet would turn one
// spoofed 30-byte packet into megabytes sent to its victim.
func TestNoAmplification(t *testing.T) {
	b := newBackend(t)
	pc := newCountingConn(t)
	s := startServer(t, b, server.Config{PacketConn: pc, HelloTimeout: 500 * time.Millisecond})
	g := newGame(s)
	for range 5 {
		g.step(t) // a world to stream, were anyone admitted
	}
	ctx := context.Background()
	check := func(name string, from netip.AddrPort) {
		t.Helper()
		time.Sleep(100 * time.Millisecond)
		for range 5 {
			g.step(t)
		}
		in, out := pc.bytes(from)
		t.Logf("%s: %d bytes in, %d out (%.2fx)", name, in, out, float64(out)/float64(max(in, 1)))
		if out > 3*in {
			t.Errorf("%s: the server sent %d bytes for %d received", name, out, in)
		}
	}

	// 1. A valid plain-UDP input packet of the old protocol: not QUIC.
	old := socket(t)
	pkt, _ := wire.AppendInput(nil, &wire.Header{Seq: 1}, &wire.InputPacket{FirstSeq: 1, Inputs: [][]byte{{1}}}, nil)
	old.WriteTo(pkt, net.UDPAddrFromAddrPort(s.Addr()))
	check("old input packet", addrKey(old.LocalAddr()))

	// 2. A complete QUIC handshake with a forged token.
	forged := socket(t)
	if _, err := dialFrom(ctx, s, forged, []byte("not a token")); err == nil {
		t.Fatal("admitted with a forged token")
	}
	check("forged token", addrKey(forged.LocalAddr()))

	// 3. A complete QUIC handshake, then silence until the Hello timeout.
	silent := socket(t)
	qc, err := quic.Dial(ctx, silent, net.UDPAddrFromAddrPort(s.Addr()), attackerTLS(), &quic.Config{EnableDatagrams: true})
	if err != nil {
		t.Fatal(err)
	}
	<-qc.Context().Done()
	check("silent handshake", addrKey(silent.LocalAddr()))

	// 4. A replayed Initial from many addresses (a spoofer's view: it
	// never sees the Retry): one small Retry each, at most.
	initial := captureInitial(t, s)
	var srcs []netip.AddrPort
	for range 50 {
		src := socket(t)
		src.WriteTo(initial, net.UDPAddrFromAddrPort(s.Addr()))
		srcs = append(srcs, addrKey(src.LocalAddr()))
	}
	time.Sleep(100 * time.Millisecond)
	in, out := 0, 0
	for _, a := range srcs {
		i, o := pc.bytes(a)
		in, out = in+i, out+o
	}
	t.Logf("replayed Initials: %d bytes in from %d sources, %d out (%.2fx)", in, len(srcs), out, float64(out)/float64(max(in, 1)))
	if out > 3*in {
		t.Errorf("replayed Initials: the server sent %d bytes for %d received", out, in)
	}
	if s.Stats().Clients != 0 || s.Stats().Joins != 0 {
		t.Fatal("a stranger was admitted")
	}
}

// attackerTLS is the TLS configuration of a raw QUIC client of
// netsmooth's protocol that trusts anything.
func attackerTLS() *tls.Config {
	return &tls.Config{InsecureSkipVerify: true, NextProtos: []string{transport.ALPN}, MinVersion: tls.VersionTLS13}
}

// captureInitial returns the first packet a QUIC client sends s: a
// client Initial, what a spoofer replays from forged addresses.
func captureInitial(t testing.TB, s *server.Server) []byte {
	t.Helper()
	rec := &recordingConn{PacketConn: socket(t)}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	dialFrom(ctx, s, rec, []byte("x"))
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.first == nil {
		t.Fatal("no packet sent")
	}
	return rec.first
}

type recordingConn struct {
	net.PacketConn
	mu    sync.Mutex
	first []byte
}

func (r *recordingConn) WriteTo(b []byte, a net.Addr) (int, error) {
	r.mu.Lock()
	if r.first == nil {
		r.first = append([]byte(nil), b...)
	}
	r.mu.Unlock()
	return r.PacketConn.WriteTo(b, a)
}

// Slot exhaustion: 5,000 unauthenticated sources hold no place and no
// memory, and a real client still joins within a second: a server that
// gave a slot to any address that spoke would be filled, for good, by a
// few dozen spoofed ones.
func TestStrangersHoldNoSlots(t *testing.T) {
	b := newBackend(t)
	pc := newCountingConn(t)
	s := startServer(t, b, server.Config{PacketConn: pc, Session: server.SessionConfig{MaxClients: 4}})
	initial := captureInitial(t, s)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	// 5,000 sources, each a socket of its own (kept open, so that no port
	// is reused), each sending a replayed Initial.
	const strangers = 5000
	to := net.UDPAddrFromAddrPort(s.Addr())
	socks := make([]net.PacketConn, 0, strangers)
	defer func() {
		for _, c := range socks {
			c.Close()
		}
	}()
	for range strangers {
		c, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		socks = append(socks, c)
	}
	flood := make(chan struct{})
	go func() {
		defer close(flood)
		for i, c := range socks {
			c.WriteTo(initial, to)
			if i%50 == 49 {
				time.Sleep(time.Millisecond) // 50,000 packets a second, at most, so the kernel keeps them
			}
		}
	}()
	// A real player joins while the flood runs.
	start := time.Now()
	mine := socket(t)
	player, err := dialFrom(context.Background(), s, mine, b.token(s, 1, false))
	joined := time.Since(start)
	if err != nil {
		t.Fatalf("a real player could not join during the flood: %v", err)
	}
	defer player.Close()
	<-flood
	time.Sleep(200 * time.Millisecond)
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	in, out, sources := pc.totals(addrKey(mine.LocalAddr()))
	st := s.Stats()
	t.Logf("%d strange sources sent %d bytes, got %d; a player joined in %v; heap %d -> %d KB; listener %+v",
		sources, in, out, joined, before.HeapAlloc>>10, after.HeapAlloc>>10, st.Listener)
	if sources < strangers*9/10 {
		t.Fatalf("only %d of %d sources reached the server", sources, strangers)
	}
	if joined > time.Second {
		t.Errorf("the player took %v to join", joined)
	}
	if st.Clients != 1 || st.Listener.Pending > 1 {
		t.Fatalf("strangers hold places: %+v", st)
	}
	if out > 3*in {
		t.Fatalf("the server sent %d bytes to strangers for %d", out, in)
	}
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 8<<20 {
		t.Fatalf("the heap grew by %d KB for 5000 strangers", grew>>10)
	}
}

// proxy relays UDP between clients and a server, recording every
// packet each way: what an attacker on the path, or one who captured
// packets, has to replay or tamper with.
type proxy struct {
	front, back net.PacketConn
	server      *net.UDPAddr
	mu          sync.Mutex
	client      net.Addr
	up, down    [][]byte
}

func newProxy(t testing.TB, server netip.AddrPort) *proxy {
	t.Helper()
	p := &proxy{front: socket(t), back: socket(t), server: net.UDPAddrFromAddrPort(server)}
	go func() {
		buf := make([]byte, 2048)
		for {
			n, from, err := p.front.ReadFrom(buf)
			if err != nil {
				return
			}
			b := append([]byte(nil), buf[:n]...)
			p.mu.Lock()
			p.client = from
			p.up = append(p.up, b)
			p.mu.Unlock()
			p.back.WriteTo(b, p.server)
		}
	}()
	go func() {
		buf := make([]byte, 2048)
		for {
			n, _, err := p.back.ReadFrom(buf)
			if err != nil {
				return
			}
			b := append([]byte(nil), buf[:n]...)
			p.mu.Lock()
			p.down = append(p.down, b)
			to := p.client
			p.mu.Unlock()
			if to != nil {
				p.front.WriteTo(b, to)
			}
		}
	}()
	return p
}

func (p *proxy) addr() string { return p.front.LocalAddr().String() }

// captured returns copies of the packets recorded so far each way.
func (p *proxy) captured() (up, down [][]byte, client net.Addr) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([][]byte(nil), p.up...), append([][]byte(nil), p.down...), p.client
}

// Impersonation and injection: a player's own packets, captured and
// replayed (from its address, as the server sees it, or from another),
// and spoofed packets of the old protocol, change nothing on the server;
// the server's packets replayed or tampered with change nothing on the
// client: a server that knew a client by its address alone could be
// made to silence a player, or move it, by a handful of spoofed packets.
func TestReplayedAndSpoofedPacketsChangeNothing(t *testing.T) {
	b := newBackend(t)
	s := startServer(t, b, server.Config{})
	g := newGame(s)
	p := newProxy(t, s.Addr())
	mine := socket(t)
	player, err := client.Dial(context.Background(), p.addr(), client.Config{Token: b.token(s, 5, false),
		Transport: transport.DialConfig{CertHashes: [][32]byte{s.CertHash()}, PacketConn: mine},
		Session:   client.SessionConfig{Inbox: systems.NewInbox(0), OnOwn: func(client.Own) {}}})
	if err != nil {
		t.Fatal(err)
	}
	defer player.Close()
	g.run(t, []*client.Client{player}, func() bool { return player.Session().Stats().Own > 20 })
	id := server.ClientID(player.Welcome().ClientID)
	up, down, _ := p.captured()

	// Freeze the player (no more inputs) and take the server's view.
	for range 5 {
		player.SendInputs()
		g.step(t)
		time.Sleep(10 * time.Millisecond)
	}
	before, _ := s.Session().Stats(id)
	pos := *g.players[id]
	cliBefore := player.Session().Stats()

	// The player's packets again, from the proxy (its address as the
	// server knows it) and from elsewhere; old-protocol inputs with
	// far-ahead sequence numbers.
	stranger := socket(t)
	for _, b := range up {
		p.back.WriteTo(b, net.UDPAddrFromAddrPort(s.Addr()))
		stranger.WriteTo(b, net.UDPAddrFromAddrPort(s.Addr()))
	}
	for i := range 40 {
		pkt, _ := wire.AppendInput(nil, &wire.Header{Seq: uint16(30000 + i)}, &wire.InputPacket{FirstSeq: 1 << 20, Inputs: [][]byte{{9}}}, nil)
		p.back.WriteTo(pkt, net.UDPAddrFromAddrPort(s.Addr()))
	}
	// The server's packets again, and tampered with, to the client from
	// the address it knows the server by, and from elsewhere.
	clientAddr := mine.LocalAddr()
	for _, b := range down {
		p.front.WriteTo(b, clientAddr)
		bad := append([]byte(nil), b...)
		bad[len(bad)-1] ^= 0x55
		p.front.WriteTo(bad, clientAddr)
		stranger.WriteTo(b, clientAddr)
	}
	forged := mustForge(t)
	p.front.WriteTo(forged, clientAddr)
	time.Sleep(200 * time.Millisecond)
	for range 5 {
		g.step(t)
	}
	time.Sleep(50 * time.Millisecond)

	after, _ := s.Session().Stats(id)
	if after.InputsReceived != before.InputsReceived || after.InputsApplied != before.InputsApplied ||
		after.PacketsReceived != before.PacketsReceived || *g.players[id] != pos {
		t.Fatalf("replayed or spoofed packets changed the server's view of the player: before %+v, after %+v", before, after)
	}
	cli := player.Session().Stats()
	if cli.BadPackets != cliBefore.BadPackets || cli.DuplicatePackets != cliBefore.DuplicatePackets || cli.SeqJumps != 0 {
		t.Fatalf("replayed or forged packets reached the client's session: before %+v, after %+v", cliBefore, cli)
	}
	if player.Err() != nil {
		t.Fatalf("the player's connection ended: %v", player.Err())
	}
	// And the player plays on.
	steps := g.steps[id]
	g.run(t, []*client.Client{player}, func() bool { return g.steps[id] > steps+10 })
}

// mustForge returns a 34-byte-class forged "complete" snapshot: what
// desynced a client of the plain UDP transport for good.
func mustForge(t testing.TB) []byte {
	t.Helper()
	enc, err := wire.NewEncoder(wire.Config{})
	if err != nil {
		t.Fatal(err)
	}
	enc.Begin(wire.Header{Seq: 1}, wire.SnapshotInfo{Tick: 1 << 20}, nil)
	parts, _ := enc.Finish(true, 0)
	return parts[0]
}

// Speed hacks: a client sending 64 inputs a tick, or jumping its input
// sequence 63 ahead, moves no faster than an honest one, even on a
// server that steps a player once for every input NextInput hands out:
// a server that stepped every input it was sent would let either move a
// cheater many times as fast.
func TestSpeedHacks(t *testing.T) {
	b := newBackend(t)
	s := startServer(t, b, server.Config{})
	g := newGame(s)
	ctx := context.Background()
	dialAs := func(player uint64) *client.Client {
		c, _, err := dial(ctx, s, b.token(s, player, false), false)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	honest, flooder, jumper := dialAs(1), dialAs(2), dialAs(3)
	g.run(t, nil, func() bool {
		return honest.Session().NetID() != 0 && flooder.Session().NetID() != 0 && jumper.Session().NetID() != 0
	})
	seqs := map[*client.Client]uint32{}
	queue := func(c *client.Client, n int, jump uint32) {
		seqs[c] += jump
		for range n {
			seqs[c]++
			c.Session().QueueInput(seqs[c], []byte{1})
			c.SendInputs() // a packet per input: each carries the newest 8
		}
	}
	const ticks = 100
	for tick := range ticks {
		queue(honest, 1, 0)
		queue(flooder, 64, 0)
		jump := uint32(0)
		if tick%10 == 5 {
			jump = 63
		}
		queue(jumper, 1, jump)
		time.Sleep(2 * time.Millisecond) // the packets arrive
		g.step(t)
		time.Sleep(8 * time.Millisecond)
	}
	id := func(c *client.Client) server.ClientID { return server.ClientID(c.Welcome().ClientID) }
	h, f, j := g.steps[id(honest)], g.steps[id(flooder)], g.steps[id(jumper)]
	t.Logf("steps in %d ticks: honest %d, 64 inputs a tick %d, sequence jumps %d", ticks, h, f, j)
	if h < ticks*8/10 {
		t.Fatalf("the honest client was stepped %d times in %d ticks", h, ticks)
	}
	if f > h+server.DefaultMaxCatchUp || j > h+server.DefaultMaxCatchUp {
		t.Fatalf("cheaters moved faster: honest %d, flooder %d, jumper %d", h, f, j)
	}
	st, _ := s.Session().Stats(id(jumper))
	if st.InputsSkipped == 0 {
		t.Fatalf("the jumps were replayed: %+v", st)
	}
}

// Tokens: a replayed token (from another connection), an expired one,
// one for another server, one signed by another key, and none at all are
// refused with ReasonBadToken, and none takes a place.
func TestTokenRefusals(t *testing.T) {
	b := newBackend(t)
	s := startServer(t, b, server.Config{})
	ctx := context.Background()
	good := b.token(s, 1, false)
	c, _, err := dial(ctx, s, good, false)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	old, _ := token.NewIssuer(token.IssuerConfig{SigningKey: b.priv, KeyID: 1, ProtocolID: 7,
		Time: func() time.Time { return time.Now().Add(-time.Minute) }})
	expired, err := old.Issue(token.Request{ClientID: 2, Servers: []string{s.Addr().String()}, Lifetime: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	other := newBackend(t)
	for name, tok := range map[string][]byte{
		"replayed":       good,
		"expired":        expired,
		"another server": b.tokenFor("127.0.0.1:1", 3),
		"another key":    other.tokenFor(s.Addr().String(), 4),
		"garbage":        []byte("let me in"),
	} {
		_, _, err := dial(ctx, s, tok, false)
		var ce *transport.CloseError
		if !errors.As(err, &ce) || ce.Reason != wire.ReasonBadToken {
			t.Errorf("%s: %v, want a refusal for a bad token", name, err)
			continue
		}
		t.Logf("%s: %s", name, ce.Message)
	}
	if st := s.Stats(); st.Clients != 1 || st.BadTokens != 5 {
		t.Fatalf("stats %+v", st)
	}
}

// The server's room: beyond MaxClients a client is refused with
// ReasonFull; a player that connects again replaces its old connection.
func TestFullAndReplaced(t *testing.T) {
	b := newBackend(t)
	s := startServer(t, b, server.Config{Session: server.SessionConfig{MaxClients: 2}})
	ctx := context.Background()
	first, _, err := dial(ctx, s, b.token(s, 1, false), false)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	second, _, err := dial(ctx, s, b.token(s, 2, false), false)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	_, _, err = dial(ctx, s, b.token(s, 3, false), false)
	var ce *transport.CloseError
	if !errors.As(err, &ce) || ce.Reason != wire.ReasonFull {
		t.Fatalf("a third client: %v", err)
	}
	// Player 1 again: its old connection is closed and the new one
	// takes its place.
	second.Close()
	time.Sleep(50 * time.Millisecond)
	again, _, err := dial(ctx, s, b.token(s, 1, false), false)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	select {
	case <-first.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the replaced connection stayed up")
	}
	if !errors.As(first.Err(), &ce) || ce.Reason != wire.ReasonKicked {
		t.Fatalf("the replaced connection ended with %v", first.Err())
	}
}

// A flood of junk at the server's port: no panic, the players keep
// getting their snapshots, and the server serves on afterwards.
func TestJunkFlood(t *testing.T) {
	b := newBackend(t)
	s := startServer(t, b, server.Config{})
	g := newGame(s)
	c, _, err := dial(context.Background(), s, b.token(s, 1, false), false)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	g.run(t, []*client.Client{c}, func() bool { return c.Session().Stats().Ticks > 5 })
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var sent atomic64
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src := socket(t)
			to := net.UDPAddrFromAddrPort(s.Addr())
			junk := make([]byte, 1400)
			for i := 0; ctx.Err() == nil; i++ {
				n := 1 + (i*131+w*17)%len(junk)
				junk[0] = byte(i) // short headers, long ones, QUIC-looking ones
				junk[i%n] ^= byte(i)
				src.WriteTo(junk[:n], to)
				sent.add(1)
			}
		}()
	}
	ticks := c.Session().Stats().Ticks
	for range 100 {
		c.SendInputs()
		g.step(t)
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	wg.Wait()
	got := c.Session().Stats().Ticks - ticks
	t.Logf("%d junk packets in about 1 s; the player received %d of 100 ticks meanwhile", sent.load(), got)
	if got < 50 {
		t.Fatalf("the player received %d of 100 ticks during the flood", got)
	}
	if c.Err() != nil {
		t.Fatal(c.Err())
	}
}

type atomic64 struct {
	mu sync.Mutex
	n  int64
}

func (a *atomic64) add(d int64) { a.mu.Lock(); a.n += d; a.mu.Unlock() }
func (a *atomic64) load() int64 { a.mu.Lock(); defer a.mu.Unlock(); return a.n }

// A client that closes its connection giving the server's reasons (a
// timeout, a kick, a shutdown, in the server's own words) is reported as
// having left, its words kept in the message: a game that holds a place
// for a player who timed out, or spares a kicked one a leaver's penalty,
// must not take a client's word for either. A server's own Kick still
// reads as one.
func TestClientCannotClaimTheServersReasons(t *testing.T) {
	b := newBackend(t)
	s := startServer(t, b, server.Config{})
	// eventOf waits for the event of kind for client id, dropping others.
	eventOf := func(kind server.EventKind, id server.ClientID) server.Event {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			for _, ev := range s.Events(nil) {
				if ev.Kind == kind && ev.Client == id {
					return ev
				}
			}
		}
		t.Fatalf("no %v reported for client %d", kind, id)
		return server.Event{}
	}
	for i, c := range []struct {
		gives wire.Reason
		text  string
		want  wire.Reason
	}{
		{wire.ReasonTimeout, "nothing received for 10s", wire.ReasonLeft},
		{wire.ReasonKicked, "replaced by a new connection of the same player", wire.ReasonLeft},
		{wire.ReasonShutdown, "the server is shutting down", wire.ReasonLeft},
		{wire.ReasonLeft, "bye", wire.ReasonLeft},
		{wire.ReasonProtocol, "bad snapshot", wire.ReasonProtocol},
	} {
		conn, w, err := transport.Dial(context.Background(), s.Addr().String(), wire.Hello{Token: b.token(s, uint64(100+i), false)},
			transport.DialConfig{CertHashes: [][32]byte{s.CertHash()}})
		if err != nil {
			t.Fatal(err)
		}
		conn.Close(c.gives, c.text)
		ev := eventOf(server.Leave, server.ClientID(w.ClientID))
		t.Logf("closed giving %v %q: the leave says %v %q", c.gives, c.text, ev.Reason, ev.Message)
		if ev.Reason != c.want || !strings.Contains(ev.Message, c.text) {
			t.Errorf("closed giving %v %q: the leave says %v %q, want %v with the client's text", c.gives, c.text, ev.Reason, ev.Message, c.want)
		}
	}
	conn, w, err := transport.Dial(context.Background(), s.Addr().String(), wire.Hello{Token: b.token(s, 200, false)},
		transport.DialConfig{CertHashes: [][32]byte{s.CertHash()}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(wire.ReasonLeft, "")
	// The game learns of a client from its Join: the Welcome reaches the
	// client a moment before the server registers it.
	eventOf(server.Join, server.ClientID(w.ClientID))
	if err := s.Kick(server.ClientID(w.ClientID), "cheating"); err != nil {
		t.Fatal(err)
	}
	if ev := eventOf(server.Leave, server.ClientID(w.ClientID)); ev.Reason != wire.ReasonKicked || ev.Message != "cheating" {
		t.Errorf("a kick reads as %v %q", ev.Reason, ev.Message)
	}
}

// A connection that acknowledges no tick, over real QUIC beside an
// honest client, sending an empty input packet every 800 ms to stay
// connected, would be sent a full snapshot, the whole world, every tick
// if the server took no acknowledgement to mean "send everything". It is
// sent one every tick for a second, then about one a second, while the
// honest client is sent deltas.
func TestConnectionAcknowledgingNothingIsHeldBack(t *testing.T) {
	const tickRate, ticks, entities = 50, 250, 2000
	b := newBackend(t)
	s := startServer(t, b, server.Config{TickRate: tickRate})
	honest, _, err := dial(context.Background(), s, b.token(s, 1, false), false)
	if err != nil {
		t.Fatal(err)
	}
	defer honest.Close()
	raw, w, err := transport.Dial(context.Background(), s.Addr().String(), wire.Hello{Token: b.token(s, 2, false)},
		transport.DialConfig{CertHashes: [][32]byte{s.CertHash()}})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close(wire.ReasonLeft, "")
	go func() { // reads what arrives, acknowledges none of it
		for {
			if _, err := raw.ReadPacket(); err != nil {
				return
			}
		}
	}()
	sess := s.Session()
	seq := uint16(0)
	for tick := uint32(1); tick <= ticks; tick++ {
		if err := sess.BeginTick(tick); err != nil {
			t.Fatal(err)
		}
		for k := range uint32(entities) {
			x := float32(k)
			if k < 5 {
				x += float32(tick) // five move
			}
			if err := sess.SetEntity(wire.Entity{NetID: k + 100, Pos: mgl32.Vec3{x, 0, 0}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.SendSnapshots(); err != nil {
			t.Fatal(err)
		}
		honest.SendInputs()
		if tick%40 == 1 {
			p, err := wire.AppendInput(nil, &wire.Header{Seq: seq}, &wire.InputPacket{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			seq++
			raw.WritePacket(p)
		}
		time.Sleep(time.Second / tickRate)
	}
	var honestID server.ClientID
	for _, id := range s.Clients(nil) {
		if info, _ := s.Client(id); info.Player == 1 {
			honestID = id
		}
	}
	hs, _ := sess.Stats(honestID)
	rs, ok := sess.Stats(server.ClientID(w.ClientID))
	if !ok {
		t.Fatal("the connection acknowledging nothing was dropped: the test tests nothing")
	}
	t.Logf("honest: %d of %d snapshots full, %d B; acknowledging nothing: %d full, %d held, %d B",
		hs.FullSnapshots, hs.Snapshots, hs.BytesSent, rs.FullSnapshots, rs.FullHeld, rs.BytesSent)
	// A second's worth (50), then one a second or so over the other four.
	if rs.FullSnapshots > tickRate+10 || rs.FullHeld < ticks/2 {
		t.Errorf("the connection acknowledging nothing was sent %d full snapshots in %d ticks (%d held), want at most %d", rs.FullSnapshots, ticks, rs.FullHeld, tickRate+10)
	}
	if hs.FullSnapshots > 10 {
		t.Errorf("the honest client was sent %d full snapshots of %d", hs.FullSnapshots, hs.Snapshots)
	}
}

package server_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"net"
	"os"
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
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// The tests' counting sockets are not *net.UDPConn: quic-go cannot
	// size their buffers (the tests do) and would say so.
	os.Setenv("QUIC_GO_DISABLE_RECEIVE_BUFFER_WARNING", "true")
	goleak.VerifyTestMain(m)
}

// backend is a test's game backend: it holds the signing key and issues
// tokens for one server.
type backend struct {
	t      testing.TB
	pub    ed25519.PublicKey
	priv   ed25519.PrivateKey
	issuer *token.Issuer
}

func newBackend(t testing.TB) *backend {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	is, err := token.NewIssuer(token.IssuerConfig{SigningKey: priv, KeyID: 1, ProtocolID: 7})
	if err != nil {
		t.Fatal(err)
	}
	return &backend{t: t, pub: pub, priv: priv, issuer: is}
}

// tokens is the server side of the backend's keys.
func (b *backend) tokens() token.VerifierConfig {
	return token.VerifierConfig{Keys: map[uint32]ed25519.PublicKey{1: b.pub}, ProtocolID: 7}
}

// token issues a token for player at server s.
func (b *backend) token(s *server.Server, player uint64, spectator bool) []byte {
	b.t.Helper()
	tok, err := b.issuer.Issue(token.Request{ClientID: player, Servers: []string{s.Addr().String()}, Spectator: spectator})
	if err != nil {
		b.t.Fatal(err)
	}
	return tok
}

// tokenFor issues a token for player at the server addr.
func (b *backend) tokenFor(addr string, player uint64) []byte {
	b.t.Helper()
	tok, err := b.issuer.Issue(token.Request{ClientID: player, Servers: []string{addr}})
	if err != nil {
		b.t.Fatal(err)
	}
	return tok
}

func startServer(t testing.TB, b *backend, cfg server.Config) *server.Server {
	t.Helper()
	cfg.Tokens = b.tokens()
	s, err := server.Listen(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// dial connects a client with tok to s, trusting s's certificate.
func dial(ctx context.Context, s *server.Server, tok []byte, spectator bool) (*client.Client, *systems.Inbox, error) {
	inbox := systems.NewInbox(0)
	c, err := client.Dial(ctx, s.Addr().String(), client.Config{Token: tok, Spectator: spectator,
		Transport: transport.DialConfig{CertHashes: [][32]byte{s.CertHash()}},
		Session:   client.SessionConfig{Inbox: inbox, OnOwn: func(client.Own) {}}})
	return c, inbox, err
}

// game is a minimal server loop: every joined player gets an entity
// (NetID 1000 + client), moved one unit per input; ten world entities.
type game struct {
	s       *server.Server
	tick    uint32
	players map[server.ClientID]*mgl32.Vec3
	events  []server.Event
	steps   map[server.ClientID]int
}

func newGame(s *server.Server) *game {
	return &game{s: s, players: map[server.ClientID]*mgl32.Vec3{}, steps: map[server.ClientID]int{}}
}

func (g *game) step(t testing.TB) {
	t.Helper()
	sess := g.s.Session()
	g.events = g.s.Events(g.events[:0])
	for _, ev := range g.events {
		switch ev.Kind {
		case server.Join:
			if !ev.Info.Spectator {
				g.players[ev.Client] = &mgl32.Vec3{}
				// A client may have left already: its Leave follows.
				if err := sess.Assign(ev.Client, 1000+uint32(ev.Client)); err != nil && !errors.Is(err, server.ErrUnknownClient) {
					t.Fatal(err)
				}
			}
		case server.Leave:
			if _, ok := g.players[ev.Client]; ok {
				delete(g.players, ev.Client)
				sess.Despawn(1000 + uint32(ev.Client))
			}
		}
	}
	for id, p := range g.players {
		for {
			in, err := sess.NextInput(id, nil)
			if err != nil || in.Status == server.InputEmpty {
				break
			}
			p[0]++
			g.steps[id]++
		}
	}
	g.tick++
	if err := sess.BeginTick(g.tick); err != nil {
		t.Fatal(err)
	}
	for k := range 10 {
		if err := sess.SetEntity(wire.Entity{NetID: uint32(k + 1), Pos: mgl32.Vec3{float32(g.tick), float32(k), 0}}); err != nil {
			t.Fatal(err)
		}
	}
	for id, p := range g.players {
		if err := sess.SetEntity(wire.Entity{NetID: 1000 + uint32(id), Pos: *p}); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.s.SendSnapshots(); err != nil {
		t.Fatal(err)
	}
}

// run steps the game every 10 ms, and each client sends an input every
// step, until done or 5 s.
func (g *game) run(t testing.TB, clients []*client.Client, done func() bool) {
	t.Helper()
	seq := uint32(0)
	for deadline := time.Now().Add(5 * time.Second); !done(); {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		seq++
		for _, c := range clients {
			c.Session().QueueInput(seq, []byte{1})
			c.SendInputs()
		}
		g.step(t)
		time.Sleep(10 * time.Millisecond)
	}
}

// A player and a spectator join with tokens, receive the world, the
// player is assigned its entity and moved by its inputs; a kick reaches
// the player with the server's message, and the leave is reported.
func TestJoinPlayKick(t *testing.T) {
	b := newBackend(t)
	s := startServer(t, b, server.Config{})
	g := newGame(s)
	ctx := context.Background()
	player, inbox, err := dial(ctx, s, b.token(s, 42, false), false)
	if err != nil {
		t.Fatal(err)
	}
	defer player.Close()
	watcher, _, err := dial(ctx, s, b.token(s, 43, false), true)
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close()
	if !watcher.Welcome().Spectator || player.Welcome().Spectator || player.Welcome().TickRate != server.DefaultTickRate {
		t.Fatalf("welcomes %+v %+v", player.Welcome(), watcher.Welcome())
	}
	var msgs []systems.Message
	g.run(t, []*client.Client{player, watcher}, func() bool {
		msgs, _ = inbox.Drain(msgs[:0])
		return player.Session().NetID() != 0 && player.Session().Stats().Own > 5 && watcher.Session().Stats().Ticks > 5
	})
	id := server.ClientID(player.Welcome().ClientID)
	if want := 1000 + uint32(id); uint32(player.Session().NetID()) != want || g.players[id] == nil || g.steps[id] == 0 {
		t.Fatalf("player NetID %d, want %d; steps %v", player.Session().NetID(), want, g.steps)
	}
	if info, ok := s.Client(id); !ok || info.Player != 42 || info.Kind != transport.KindQUIC {
		t.Fatalf("client info %+v", info)
	}
	if st, _ := s.Session().Stats(server.ClientID(watcher.Welcome().ClientID)); !st.Spectator || st.InputsRefused == 0 {
		t.Fatalf("spectator stats %+v", st)
	}
	if err := s.Kick(id, "griefing"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-player.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the kicked player's connection did not end")
	}
	var ce *transport.CloseError
	if err := player.Err(); !errors.As(err, &ce) || ce.Reason != wire.ReasonKicked || ce.Message != "griefing" {
		t.Fatalf("kicked player's Err: %v", err)
	}
	var leave server.Event
	g.run(t, []*client.Client{watcher}, func() bool {
		for _, ev := range g.events {
			if ev.Kind == server.Leave && ev.Client == id {
				leave = ev
				return true
			}
		}
		return false
	})
	if leave.Reason != wire.ReasonKicked || leave.Info.Player != 42 {
		t.Fatalf("leave event %+v", leave)
	}
	// The leave carries the player's final counters; the server's totals
	// keep them after it left.
	if leave.Stats.InputsApplied == 0 || leave.Stats.PacketsReceived == 0 || leave.Conn.PacketsSent == 0 || leave.Conn.BytesReceived == 0 {
		t.Fatalf("leave counters: session %+v, conn %+v", leave.Stats, leave.Conn)
	}
	st := s.Stats()
	if st.Joins != 2 || st.Leaves != 1 || st.Clients != 1 {
		t.Fatalf("server stats %+v", st)
	}
	if st.Traffic.BytesSent <= leave.Conn.BytesSent || st.Traffic.PacketsReceived <= leave.Conn.PacketsReceived {
		t.Fatalf("server traffic %+v after a leave with %+v", st.Traffic, leave.Conn)
	}
}

// A client closing tells the server it left; the server shutting down
// tells the clients.
func TestLeaveAndShutdown(t *testing.T) {
	b := newBackend(t)
	s := startServer(t, b, server.Config{})
	g := newGame(s)
	ctx := context.Background()
	a, _, err := dial(ctx, s, b.token(s, 1, false), false)
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := dial(ctx, s, b.token(s, 2, false), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	var left *server.Event
	g.run(t, []*client.Client{c}, func() bool {
		for i, ev := range g.events {
			if ev.Kind == server.Leave {
				left = &g.events[i]
			}
		}
		return left != nil
	})
	if left.Reason != wire.ReasonLeft {
		t.Fatalf("leave %+v", left)
	}
	s.Close()
	<-c.Done()
	var ce *transport.CloseError
	if !errors.As(c.Err(), &ce) || ce.Reason != wire.ReasonShutdown {
		t.Fatalf("after shutdown: %v", c.Err())
	}
	c.Close()
}

// pipe is one end of an in-memory message connection, a WebSocket's
// stand-in.
type pipe struct {
	in, out chan []byte
	done    chan struct{}
	peer    *pipe
	once    sync.Once
}

func pipePair() (*pipe, *pipe) {
	a2b, b2a := make(chan []byte, 1024), make(chan []byte, 1024)
	a := &pipe{in: b2a, out: a2b, done: make(chan struct{})}
	b := &pipe{in: a2b, out: b2a, done: make(chan struct{})}
	a.peer, b.peer = b, a
	return a, b
}

// ReadMessage returns the next message. Once the peer closed, what it
// sent before still arrives first, as over a real connection (a select
// on both would pick at random, and lose a refusal sent just before the
// close).
func (p *pipe) ReadMessage() ([]byte, error) {
	select {
	case b := <-p.in:
		return b, nil
	case <-p.done:
		return nil, net.ErrClosed
	case <-p.peer.done:
		select {
		case b := <-p.in:
			return b, nil
		default:
			return nil, net.ErrClosed
		}
	}
}

func (p *pipe) WriteMessage(b []byte) error {
	select {
	case <-p.done:
		return net.ErrClosed
	case <-p.peer.done:
		return net.ErrClosed
	case p.out <- append([]byte(nil), b...):
		return nil
	}
}

func (p *pipe) Close() error         { p.once.Do(func() { close(p.done) }); return nil }
func (p *pipe) RemoteAddr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9} }

// The WebSocket fallback admits with the same tokens and plays the same:
// a player over a message connection joins, is assigned its entity and
// moved by its inputs; a forged token is refused with its reason.
func TestMessageConnFallback(t *testing.T) {
	b := newBackend(t)
	s := startServer(t, b, server.Config{})
	g := newGame(s)
	serve := func() *pipe {
		cEnd, sEnd := pipePair()
		go s.ServeConn(sEnd)
		return cEnd
	}
	ctx := context.Background()
	inbox := systems.NewInbox(0)
	cfg := client.Config{Token: b.token(s, 9, false), Session: client.SessionConfig{Inbox: inbox, OnOwn: func(client.Own) {}}}
	c, err := client.Handshake(ctx, serve(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	g.run(t, []*client.Client{c}, func() bool { return c.Session().NetID() != 0 && c.Session().Stats().Own > 5 })
	id := server.ClientID(c.Welcome().ClientID)
	if info, _ := s.Client(id); info.Kind != transport.KindMessage || info.Player != 9 || g.steps[id] == 0 {
		t.Fatalf("client info %+v, steps %d", info, g.steps[id])
	}
	cfg.Token = []byte("forged")
	_, err = client.Handshake(ctx, serve(), cfg)
	var ce *transport.CloseError
	if !errors.As(err, &ce) || ce.Reason != wire.ReasonBadToken {
		t.Fatalf("forged token over the fallback: %v", err)
	}
}

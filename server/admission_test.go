package server_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/netsmooth/netsmooth/client"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/transport"
	"github.com/netsmooth/netsmooth/wire"
)

// handshakeWS admits tok over an in-memory message connection (the
// WebSocket path) and returns the client or the refusal.
func handshakeWS(t *testing.T, s *server.Server, tok []byte) (*client.Client, error) {
	t.Helper()
	cEnd, sEnd := pipePair()
	go s.ServeConn(sEnd)
	return handshakeOver(cEnd, tok)
}

// handshakeOver is a client's handshake with tok over its end of a
// message connection, given 5 s.
func handshakeOver(cEnd *pipe, tok []byte) (*client.Client, error) {
	cfg := client.Config{Token: tok, Session: client.SessionConfig{Inbox: systems.NewInbox(0), OnOwn: func(client.Own) {}}}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return client.Handshake(ctx, cEnd, cfg)
}

// handshakeResult is how a client's handshake ended.
type handshakeResult struct {
	c   *client.Client
	err error
}

// handshakeGated starts a handshake with tok over ServeConn whose Welcome
// write waits for gate to close, and returns once the server is writing
// it (the token checked, the place taken): the handshake's result and
// ServeConn's come on out and served.
func handshakeGated(s *server.Server, tok []byte) (gate chan struct{}, out <-chan handshakeResult, served <-chan error) {
	cEnd, sEnd := pipePair()
	g := &gatedPipe{pipe: sEnd, gate: make(chan struct{}), writing: make(chan struct{})}
	serve := make(chan error, 1)
	go func() { serve <- s.ServeConn(g) }()
	res := make(chan handshakeResult, 1)
	go func() {
		c, err := handshakeOver(cEnd, tok)
		res <- handshakeResult{c, err}
	}()
	<-g.writing
	return g.gate, res, serve
}

// A player coming back to a full server (a new device, a dropped
// network, a crashed client) with a fresh token takes the place of its
// older connection, which is kicked as replaced, rather than being
// refused as full with its token spent. A player refused as full keeps
// its token: once a place frees, the same token is admitted.
func TestFullServerLetsAPlayerBack(t *testing.T) {
	b := newBackend(t)
	s := startServer(t, b, server.Config{Session: server.SessionConfig{MaxClients: 2}})
	p1, err := handshakeWS(t, s, b.token(s, 1, false))
	if err != nil {
		t.Fatal(err)
	}
	defer p1.Close()
	p2, err := handshakeWS(t, s, b.token(s, 2, false))
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Close()

	// Player 1's older connection may not be a member yet (its Welcome
	// arrives a moment before it joins): its place is taken either way.
	back, err := handshakeWS(t, s, b.token(s, 1, false))
	if err != nil {
		t.Fatalf("player 1 back on a full server: %v", err)
	}
	defer back.Close()
	select {
	case <-p1.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("player 1's older connection still open 5 s after its replacement")
	}
	var ce *transport.CloseError
	if err := p1.Err(); !errors.As(err, &ce) || ce.Reason != wire.ReasonKicked {
		t.Errorf("player 1's older connection ended with %v, want ReasonKicked", err)
	}

	third := b.token(s, 3, false)
	if _, err := handshakeWS(t, s, third); !errors.As(err, &ce) || ce.Reason != wire.ReasonFull {
		t.Fatalf("player 3 on a full server: %v, want ReasonFull", err)
	}
	// Player 1's new connection and player 2 are both members (the new
	// connection joins a moment after its handshake returns) before
	// player 2 leaves, so that one member means a free place.
	for i := 0; i < 500 && s.Stats().Clients < 2; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	p2.Close()
	for i := 0; i < 500 && s.Stats().Clients > 1; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	p3, err := handshakeWS(t, s, third)
	if err != nil {
		t.Fatalf("player 3's token, refused as full before, once a place is free: %v", err)
	}
	defer p3.Close()
	// Player 3 becomes a member once its Welcome is written, a moment
	// after its handshake returns.
	for i := 0; i < 500 && s.Stats().Clients < 2; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	st := s.Stats()
	t.Logf("joins %d, full %d, bad tokens %d, clients %d", st.Joins, st.Full, st.BadTokens, st.Clients)
	if st.Full != 1 || st.BadTokens != 0 || st.Clients != 2 {
		t.Errorf("stats %+v: want one refusal as full, no bad token, 2 clients", st)
	}
}

// gatedPipe is the server's end of a message connection whose first
// write (the Welcome) waits for gate: a WebSocket whose write is slow.
type gatedPipe struct {
	*pipe
	gate    chan struct{}
	writing chan struct{}
	once    sync.Once
}

func (g *gatedPipe) WriteMessage(b []byte) error {
	g.once.Do(func() { close(g.writing); <-g.gate })
	return g.pipe.WriteMessage(b)
}

// A client whose Welcome is being written over ServeConn (a WebSocket)
// when Server.Close runs does not outlive the server: join refuses it
// once Close has begun, rather than joining after Close returned and
// staying connected, with its reader and session state.
func TestServeConnDuringCloseIsClosed(t *testing.T) {
	b := newBackend(t)
	s, err := server.Listen(context.Background(), server.Config{Tokens: b.tokens()})
	if err != nil {
		t.Fatal(err)
	}
	gate, out, served := handshakeGated(s, b.token(s, 1, false))
	s.Close()
	close(gate)
	r := <-out
	if r.err == nil {
		select {
		case <-r.c.Done():
		case <-time.After(2 * time.Second):
			t.Errorf("a client admitted over ServeConn during Close is still connected 2 s after (server counts %d clients)", s.Stats().Clients)
		}
		r.c.Close()
	}
	select {
	case err := <-served:
		if err == nil {
			t.Errorf("ServeConn returned no error for a connection it refused at Close")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ServeConn still serving 5 s after Close")
	}
	if n := s.Stats().Clients; n != 0 {
		t.Errorf("the closed server counts %d clients", n)
	}
}

// A player coming back to a full server while its older connection's
// Welcome is still being written (the older one holds the place but is
// not a member yet) takes that place, as it would from a member: the
// older connection is kicked as replaced once its Welcome is out, and
// the newer one is not refused as full.
func TestFullServerLetsAPlayerBackDuringItsWelcome(t *testing.T) {
	b := newBackend(t)
	s := startServer(t, b, server.Config{Session: server.SessionConfig{MaxClients: 1}})
	gate, out, _ := handshakeGated(s, b.token(s, 1, false)) // the only place, its Welcome being written
	back, err := handshakeWS(t, s, b.token(s, 1, false))
	close(gate)
	if err != nil {
		t.Fatalf("player 1 back while its older connection's Welcome is written: %v", err)
	}
	defer back.Close()
	older := <-out
	if older.err == nil {
		defer older.c.Close()
		select {
		case <-older.c.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("player 1's older connection still open 5 s after its replacement")
		}
		var ce *transport.CloseError
		if err := older.c.Err(); !errors.As(err, &ce) || ce.Reason != wire.ReasonKicked {
			t.Errorf("player 1's older connection ended with %v, want ReasonKicked", err)
		}
	}
	for i := 0; i < 500 && s.Stats().Joins < 1; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if st := s.Stats(); st.Joins != 1 || st.Clients != 1 || st.Full != 0 {
		t.Errorf("stats %+v: want the newer connection alone joined, none refused as full", st)
	}
	select {
	case <-back.Done():
		t.Errorf("the newer connection ended: %v", back.Err())
	default:
	}
}

// Concurrent Hellos never overshoot MaxClients, and concurrent Hellos of
// one player settle on one connection.
func TestConcurrentHellos(t *testing.T) {
	b := newBackend(t)
	s := startServer(t, b, server.Config{Session: server.SessionConfig{MaxClients: 4}})
	run := func(players func(i int) uint64, n int) (ok int, cs []*client.Client) {
		toks := make([][]byte, n)
		for i := range toks {
			toks[i] = b.token(s, players(i), false)
		}
		out := make(chan *client.Client, n)
		var start sync.WaitGroup
		start.Add(1)
		for i := 0; i < n; i++ {
			go func(tok []byte) {
				start.Wait()
				c, err := handshakeWS(t, s, tok)
				if err != nil {
					c = nil
				}
				out <- c
			}(toks[i])
		}
		start.Done()
		for i := 0; i < n; i++ {
			if c := <-out; c != nil {
				ok++
				cs = append(cs, c)
			}
		}
		return ok, cs
	}
	ok, cs := run(func(i int) uint64 { return uint64(100 + i) }, 16)
	t.Logf("16 distinct players at once, MaxClients 4: %d admitted, server counts %d", ok, s.Stats().Clients)
	if ok > 4 || s.Stats().Clients > 4 {
		t.Errorf("MaxClients overshot")
	}
	for _, c := range cs {
		c.Close()
	}
	for i := 0; i < 100 && s.Stats().Clients > 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	ok, cs = run(func(int) uint64 { return 7 }, 4)
	// The connections replaced close as their closes arrive: wait for
	// them (5 s at most), then count.
	open := 0
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		open = 0
		for _, c := range cs {
			select {
			case <-c.Done():
			default:
				open++
			}
		}
		if open <= 1 && s.Stats().Clients <= 1 || time.Now().After(deadline) {
			break
		}
	}
	t.Logf("4 Hellos of player 7 at once: %d welcomed, %d still open, server counts %d", ok, open, s.Stats().Clients)
	if open != 1 || s.Stats().Clients != 1 {
		t.Errorf("one player holds %d connections", open)
	}
	for _, c := range cs {
		c.Close()
	}
}

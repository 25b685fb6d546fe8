package transport

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/session"
	"github.com/netsmooth/netsmooth/systems"
)

// gameConn is a Conn of the game's own, as NewClient takes one: here a
// UDP socket it dialled itself, its reads ending with io.EOF once hangUp
// is called (as a WebSocket's do when the server closes it).
type gameConn struct {
	udp    *net.UDPConn
	buf    [2048]byte
	mu     sync.Mutex
	hungUp bool
	closed bool
}

func (g *gameConn) ReadPacket() ([]byte, error) {
	n, err := g.udp.Read(g.buf[:])
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.hungUp:
		return nil, io.EOF
	case err != nil && !errors.Is(err, net.ErrClosed):
		return nil, errors.Join(ErrTemporary, err)
	}
	return g.buf[:n], err
}

func (g *gameConn) WritePacket(b []byte) error {
	_, err := g.udp.Write(b)
	return err
}

func (g *gameConn) Close() error {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	return g.udp.Close()
}

// hangUp ends the connection as the far end would.
func (g *gameConn) hangUp() {
	g.mu.Lock()
	g.hungUp = true
	g.mu.Unlock()
	g.udp.Close()
}

func dialGameConn(t *testing.T, to netip.AddrPort) *gameConn {
	t.Helper()
	udp, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(to))
	if err != nil {
		t.Fatal(err)
	}
	return &gameConn{udp: udp}
}

// A Client over a connection of the game's own works as one from Dial:
// its inputs connect it, the world's entities reach the inbox, the round
// trip is learned; packets are counted. When the far end hangs up, Err
// says so; Close closes the connection, and leaves Err nil.
func TestNewClient(t *testing.T) {
	s := listen(t, ServerConfig{})
	conn := dialGameConn(t, s.Addr())
	inbox := systems.NewInbox(0)
	c, err := NewClient(context.Background(), conn, ClientConfig{Session: session.ClientConfig{Inbox: inbox}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	exchange(t, s, c, inbox, 3, nil, func(got map[uint32]bool) bool {
		_, ok := c.Session().Sync()
		return len(got) == 3 && ok
	})
	st := c.Stats()
	if st.PacketsSent == 0 || st.PacketsReceived == 0 || st.BytesReceived == 0 || st.BadPackets != 0 {
		t.Fatalf("client stats %+v", st)
	}
	if c.LocalAddr().IsValid() {
		t.Fatalf("LocalAddr %v for a connection of the game's own, want none", c.LocalAddr())
	}
	if err := c.Err(); err != nil {
		t.Fatalf("Err while connected: %v", err)
	}

	conn.hangUp()
	until(t, "the lost connection", func() {}, func() bool { return c.Err() != nil })
	if !errors.Is(c.Err(), io.EOF) {
		t.Fatalf("Err = %v, want the connection's io.EOF", c.Err())
	}

	other := dialGameConn(t, s.Addr())
	c2, err := NewClient(context.Background(), other, ClientConfig{Session: session.ClientConfig{Inbox: systems.NewInbox(0)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c2.Close(); err != nil {
		t.Fatal(err)
	}
	other.mu.Lock()
	closed := other.closed
	other.mu.Unlock()
	if !closed || c2.Err() != nil {
		t.Fatalf("after Close: connection closed %v, Err %v", closed, c2.Err())
	}
}

// NewClient refuses a bad configuration, the session's or the
// impairment's, and closes the connection it was given.
func TestNewClientConfigError(t *testing.T) {
	s := listen(t, ServerConfig{})
	for _, bad := range []ClientConfig{
		{}, // no inbox
		{Session: session.ClientConfig{Inbox: systems.NewInbox(0)}, Impair: &netsim.Config{Loss: 2}},
	} {
		conn := dialGameConn(t, s.Addr())
		if _, err := NewClient(context.Background(), conn, bad); err == nil {
			t.Fatalf("%+v accepted", bad)
		}
		if _, err := conn.udp.Write([]byte{1}); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("%+v: the connection is still open (write: %v)", bad, err)
		}
	}
}

// A UDP client with no server to talk to keeps reading: the socket's
// "connection refused" is counted, not taken for the end.
func TestDialNoServerKeepsReading(t *testing.T) {
	l, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	addr := l.LocalAddr().String()
	l.Close() // nobody listens there now
	c, _ := dial(t, addr, ClientConfig{})
	until(t, "a refused read counted", func() { _ = c.SendInputs() }, func() bool { return c.Stats().ReadErrors > 0 })
	if err := c.Err(); err != nil {
		t.Fatalf("Err = %v, want nil: a refused UDP read does not end the client", err)
	}
}

// stubbornConn is a Conn whose every read error, even after Close, is
// temporary.
type stubbornConn struct {
	closed chan struct{}
	once   sync.Once
}

func (s *stubbornConn) ReadPacket() ([]byte, error) {
	<-s.closed
	return nil, ErrTemporary
}

func (s *stubbornConn) WritePacket([]byte) error { return nil }

func (s *stubbornConn) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}

// Cancelling the context closes a client from NewClient: its connection
// is closed, Err stays nil and no goroutine is left, even with a Conn
// whose reads after Close fail as temporary errors.
func TestNewClientCancel(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	conn := &stubbornConn{closed: make(chan struct{})}
	c, err := NewClient(ctx, conn, ClientConfig{Session: session.ClientConfig{Inbox: systems.NewInbox(0)}})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-conn.closed:
	case <-time.After(5 * time.Second):
		t.Fatal("the connection was not closed 5 s after the context was cancelled")
	}
	if g := goroutines(before); g > before {
		t.Fatalf("%d goroutines left, %d before", g, before)
	}
	if err := c.Err(); err != nil {
		t.Fatalf("Err = %v after the context was cancelled, want nil", err)
	}
	if err := c.Close(); err != nil { // already closed: nothing to do
		t.Fatal(err)
	}
}

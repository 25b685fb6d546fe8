package transport

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"sync"
	"testing"

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

// NewClient refuses a bad configuration and closes the connection it was
// given.
func TestNewClientConfigError(t *testing.T) {
	s := listen(t, ServerConfig{})
	conn := dialGameConn(t, s.Addr())
	bad := ClientConfig{Impair: &netsim.Config{Loss: 2}}
	if _, err := NewClient(context.Background(), conn, bad); err == nil {
		t.Fatal("a bad Impair accepted")
	}
	if _, err := conn.udp.Write([]byte{1}); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("the connection is still open (write: %v)", err)
	}
}

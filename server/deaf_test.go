package server_test

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/transport"
	"github.com/netsmooth/netsmooth/wire"
)

// deafSocket is a client's socket that, once deaf, drops every packet
// from the server: the client acknowledges nothing the server sends, its
// congestion window fills and the server's sends to it block.
type deafSocket struct {
	net.PacketConn
	deaf atomic.Bool
}

func (c *deafSocket) ReadFrom(b []byte) (int, net.Addr, error) {
	for {
		n, a, err := c.PacketConn.ReadFrom(b)
		if err != nil || !c.deaf.Load() {
			return n, a, err
		}
	}
}

// dialDeaf connects a client of player to s over a socket that turns
// deaf once connected, and closes both at the end of the test.
func dialDeaf(t *testing.T, b *backend, s *server.Server, player uint64) (transport.Conn, wire.Welcome) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	sock := &deafSocket{PacketConn: pc}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, w, err := transport.Dial(ctx, s.Addr().String(), wire.Hello{Token: b.token(s, player, false)},
		transport.DialConfig{CertHashes: [][32]byte{s.CertHash()}, PacketConn: sock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(wire.ReasonLeft, "") })
	sock.deaf.Store(true)
	return conn, w
}

// Clients whose sockets drop everything the server sends (a slow reader,
// or one that means harm) while they keep acknowledging the ticks sent,
// so that the idle check spares them and the session sends each a delta
// every tick, as to any client, stall neither the tick that kicks one
// nor the server's Close: a connection's close must not wait for its
// send under way, which a full congestion window holds until the
// connection ends.
func TestDeafClientsStallNoTick(t *testing.T) {
	const deaf = 3
	b := newBackend(t)
	s := startServer(t, b, server.Config{})
	var conns []transport.Conn
	var kicked server.ClientID
	for i := range deaf {
		c, w := dialDeaf(t, b, s, uint64(i+1))
		conns = append(conns, c)
		kicked = server.ClientID(w.ClientID)
	}
	sess := s.Session()
	for tick := uint32(1); tick <= 60; tick++ { // 3 s at 20 Hz, 2000 moving entities
		s.Events(nil)
		if err := sess.BeginTick(tick); err != nil {
			t.Fatal(err)
		}
		for k := range 2000 {
			if err := sess.SetEntity(wire.Entity{NetID: uint32(k + 1), Pos: mgl32.Vec3{float32(tick + uint32(k)), float32(k), 0}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.SendSnapshots(); err != nil {
			t.Fatal(err)
		}
		// An acknowledgement of the tick just sent, never received.
		ack, err := wire.AppendInput(nil, &wire.Header{Seq: uint16(tick)}, &wire.InputPacket{AckedTick: tick, HasAckedTick: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range conns {
			c.WritePacket(ack)
		}
		time.Sleep(50 * time.Millisecond)
	}
	st, _ := s.ConnStats(kicked)
	start := time.Now()
	if err := s.Kick(kicked, "bye"); err != nil {
		t.Fatal(err)
	}
	kick := time.Since(start)
	for left := false; !left; time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 5*time.Second {
			t.Fatal("the kicked client's leave is not reported 5 s after Kick")
		}
		for _, ev := range s.Events(nil) {
			left = left || ev.Kind == server.Leave && ev.Client == kicked
		}
	}
	leave := time.Since(start)
	start = time.Now()
	s.Close()
	closed := time.Since(start)
	t.Logf("to a deaf client: %d packets sent, %d dropped; Kick returned in %v, its leave reported after %v; Close with %d deaf clients left: %v",
		st.PacketsSent, st.Dropped, kick, leave, deaf-1, closed)
	if st.Dropped == 0 {
		t.Fatal("the server's send queue to the deaf client never filled: the test tests nothing")
	}
	// Bounds far above what the close takes and far below the stalls.
	if kick > time.Second || closed > 2*time.Second {
		t.Errorf("Kick held the tick for %v, Close took %v", kick, closed)
	}
}

package transport_test

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/session"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/transport"
	"github.com/netsmooth/netsmooth/wire"
)

// A server and a client over loopback: the client's first input packet
// connects it, and the server's snapshots land in the client's inbox (a
// pipeline's, in a game) as messages.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // closes both: sockets and goroutines

	srv, err := transport.Listen(ctx, transport.ServerConfig{}) // 127.0.0.1, a free port
	if err != nil {
		panic(err)
	}
	inbox := systems.NewInbox(0)
	cli, err := transport.Dial(ctx, transport.ClientConfig{
		Addr:    srv.Addr().String(),
		Session: session.ClientConfig{Inbox: inbox},
	})
	if err != nil {
		panic(err)
	}

	var msgs []systems.Message
	for tick := uint32(1); tick < 500; tick++ {
		cli.SendInputs() // an acknowledgement, no inputs
		srv.Session().BeginTick(tick)
		srv.Session().SetEntity(wire.Entity{NetID: 42, Pos: mgl32.Vec3{1, 2, 3}})
		srv.SendSnapshots()
		time.Sleep(10 * time.Millisecond)
		if msgs, _ = inbox.Drain(msgs); len(msgs) > 0 {
			fmt.Printf("clients: %d; %v %d at %v\n", len(srv.Clients(nil)), msgs[0].Kind, msgs[0].NetID, msgs[0].Pos)
			return
		}
	}
	// Output: clients: 1; snapshot 42 at [1 2 3]
}

// packetSocket is a connection of the game's own in the three methods of
// transport.Conn. A WebSocket fits the same way (see the package
// documentation); here, to run anywhere, it is a UDP socket (for real use,
// Dial does this, and also marks a read error other than net.ErrClosed as
// transport.ErrTemporary, since UDP reports "connection refused" while no
// server listens).
type packetSocket struct {
	c   *net.UDPConn
	buf [2048]byte
}

func (p *packetSocket) ReadPacket() ([]byte, error) {
	n, err := p.c.Read(p.buf[:])
	return p.buf[:n], err
}

func (p *packetSocket) WritePacket(b []byte) error {
	_, err := p.c.Write(b)
	return err
}

func (p *packetSocket) Close() error { return p.c.Close() }

// A client over a connection the game made itself: NewClient runs the
// same client as Dial over any transport.Conn.
func ExampleNewClient() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	srv, err := transport.Listen(ctx, transport.ServerConfig{})
	if err != nil {
		panic(err)
	}
	udp, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(srv.Addr()))
	if err != nil {
		panic(err)
	}
	inbox := systems.NewInbox(0)
	cli, err := transport.NewClient(ctx, &packetSocket{c: udp}, transport.ClientConfig{
		Session: session.ClientConfig{Inbox: inbox},
	})
	if err != nil {
		panic(err)
	}

	var msgs []systems.Message
	for tick := uint32(1); tick < 500; tick++ {
		cli.SendInputs()
		srv.Session().BeginTick(tick)
		srv.Session().SetEntity(wire.Entity{NetID: 7, Pos: mgl32.Vec3{4, 5, 6}})
		srv.SendSnapshots()
		time.Sleep(10 * time.Millisecond)
		if msgs, _ = inbox.Drain(msgs); len(msgs) > 0 {
			fmt.Printf("%v %d at %v; connection error: %v\n", msgs[0].Kind, msgs[0].NetID, msgs[0].Pos, cli.Err())
			return
		}
	}
	// Output: snapshot 7 at [4 5 6]; connection error: <nil>
}

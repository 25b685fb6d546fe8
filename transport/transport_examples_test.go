package transport_test

import (
	"context"
	"fmt"
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

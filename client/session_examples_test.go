package client_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/client"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/wire"
)

// A client decoding a server's snapshots into the pipeline's inbox and
// sending back its inputs, over a perfect link with 20 ms each way: the
// entities arrive as messages, the entity the server assigned it (NetID 7)
// as an authoritative state for the predictor, and the headers give the
// round trip and the server's clock (here 1000 ms ahead of the client's).
func ExampleSession() {
	srv, _ := server.NewSession(server.SessionConfig{})
	srv.Connect(1)
	srv.Assign(1, 7)

	inbox := systems.NewInbox(0) // pipe.Inbox() in a game
	cli, err := client.NewSession(client.SessionConfig{
		Inbox: inbox,
		OnOwn: func(o client.Own) {
			// pred.Inbox().Push(client.Authoritative(o, stateFrom(o.Entity))) in a game
			fmt.Printf("  own: tick %d, ack %d, x %v\n", o.Tick, o.Ack, o.Entity.Pos[0])
		},
	})
	if err != nil {
		panic(err)
	}

	var packets [][]byte
	var msgs []systems.Message
	x := float32(0)
	for tick := uint32(1); tick <= 3; tick++ {
		t := tick * 50 // the client's clock, ms; the server's is 1000 ahead

		// Client: one input per tick (the predictor's Seq and the game's
		// encoding), and the packet repeating what is not acknowledged.
		cli.QueueInput(tick, []byte{1})
		in, _ := cli.InputPacket(t, nil)
		srv.Receive(1, in, 1000+t+20) // 20 ms later

		// Server: apply the input, move the world, send the snapshot.
		if next, _ := srv.NextInput(1, nil); next.Status == server.InputReady {
			x += float32(next.Payload[0])
		}
		srv.BeginTick(tick)
		srv.SetEntity(wire.Entity{NetID: 2, Pos: mgl32.Vec3{float32(tick), 0, 0}})
		srv.SetEntity(wire.Entity{NetID: 7, Pos: mgl32.Vec3{x, 0, 0}})
		packets, _ = srv.Snapshot(1, 1000+t+25, packets[:0]) // 5 ms after the input
		for _, p := range packets {
			cli.Receive(p, t+45) // 20 ms later
		}
		msgs, _ = inbox.Drain(msgs)
		fmt.Printf("tick %d:", tick)
		for _, m := range msgs {
			fmt.Printf(" %v %d@%d", m.Kind, m.NetID, m.Tick)
		}
		fmt.Println()
	}
	s, _ := cli.Sync()
	tick, _ := cli.ServerTick(150 + 45)
	fmt.Printf("RTT %v ms, latency %v ms, offset %v ms, server tick now %.1f\n", s.RTT, s.Latency, s.Offset, tick)
	// Output:
	//   own: tick 1, ack 1, x 1
	// tick 1: spawn 2@1 complete 0@1
	//   own: tick 2, ack 2, x 2
	// tick 2: snapshot 2@2 complete 0@2
	//   own: tick 3, ack 3, x 3
	// tick 3: snapshot 2@3 complete 0@3
	// RTT 40 ms, latency 20 ms, offset 1000 ms, server tick now 3.4
}

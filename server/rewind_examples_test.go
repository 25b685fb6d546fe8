package server_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/client"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/wire"
)

// Lag compensation: a target runs along x at one unit a tick; the client
// fires at it where it drew it, 2.5 ticks in the past. The server judges
// the shot against that pose, where judging against the present misses.
func ExampleSession_Rewind() {
	srv, _ := server.NewSession(server.SessionConfig{History: &server.HistoryConfig{}})
	const shooter = server.ClientID(1)
	srv.Connect(shooter)

	// The client's side: what it drew rides with the input it fires.
	// The client's render tick is its pipeline clock's RenderTick.
	cli, _ := client.NewSession(client.SessionConfig{Inbox: systems.NewInbox(0)})
	cli.SetDrawn(client.DrawnNow(7.5, nil))
	cli.QueueInput(1, []byte("fire"))
	pkt, _ := cli.InputPacket(0, nil)
	srv.Receive(shooter, pkt, 0)

	for tick := uint32(1); tick <= 10; tick++ {
		srv.BeginTick(tick)
		srv.SetEntity(wire.Entity{NetID: 5, Pos: mgl32.Vec3{float32(tick), 0, 0}, Rot: mgl32.QuatIdent()})
		if tick == 1 {
			srv.SetShape(5, server.Shape{Kind: server.Sphere, Radius: 0.5})
		}
	}
	// Tick 10: the shot arrives. The client aimed straight down at x = 7.5.
	in, _ := srv.NextInput(shooter, nil)
	rw, _ := srv.Rewind(shooter, &in.Drawn)
	origin, down := mgl32.Vec3{7.5, 0, 10}, mgl32.Vec3{0, 0, -1}
	hit, ok := srv.Raycast(&rw, origin, down, 20, 0)
	fmt.Printf("%s at tick %v: hit %v, NetID %d\n", in.Payload, rw.Tick, ok, hit.NetID)

	present := server.Rewind{Tick: 10}
	_, ok = srv.Raycast(&present, origin, down, 20, 0)
	fmt.Println("against the present: hit", ok)
	// Output:
	// fire at tick 7.5: hit true, NetID 5
	// against the present: hit false
}

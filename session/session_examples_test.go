package session_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/session"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/wire"
)

// One client, three ticks: a full snapshot, the client's acknowledgement
// and input, then deltas that carry only what changed and the input ack.
func Example() {
	srv, err := session.NewServer(session.Config{})
	if err != nil {
		panic(err)
	}
	const me = session.ClientID(1)
	srv.Connect(me)
	dec, _ := wire.NewDecoder(wire.Config{}) // the client's side

	var packets [][]byte
	var entities []wire.Entity
	for tick := uint32(1); tick <= 3; tick++ {
		// Server tick: inputs first, then the world, then snapshots.
		if in, _ := srv.NextInput(me, nil); in.Status == session.InputReady {
			fmt.Printf("server applies input %d: % x\n", in.Seq, in.Payload)
		}
		srv.BeginTick(tick)
		srv.SetEntity(wire.Entity{NetID: 10, Pos: mgl32.Vec3{float32(tick), 0, 0}}) // moves
		srv.SetEntity(wire.Entity{NetID: 11, Pos: mgl32.Vec3{5, 5, 0}})             // stands still
		packets, _ = srv.Snapshot(me, tick*50, packets[:0])

		// Client: decode, then answer with an input and the ack.
		for _, p := range packets {
			s, es, err := dec.Decode(p, entities[:0])
			if err != nil {
				panic(err)
			}
			entities = es
			fmt.Printf("tick %d delta=%v complete=%v inputAck=%v:", s.Tick, s.Delta, s.Complete, s.InputAck)
			for _, e := range es {
				fmt.Printf(" %d@%v", e.NetID, e.Pos[0])
			}
			fmt.Println()
		}
		in := wire.InputPacket{NetID: 10, FirstSeq: tick, Inputs: [][]byte{{byte(tick)}}}
		in.AckedTick, in.HasAckedTick = dec.Acked()
		pkt, _ := wire.AppendInput(nil, &wire.Header{Seq: uint16(tick)}, &in, nil)
		if err := srv.Receive(me, pkt, tick*50+20); err != nil {
			panic(err)
		}
	}
	st, _ := srv.Stats(me)
	fmt.Println("full snapshots:", st.FullSnapshots, "acked tick:", st.AckedTick)
	// Output:
	// tick 1 delta=false complete=true inputAck=0: 10@1 11@5
	// server applies input 1: 01
	// tick 2 delta=true complete=true inputAck=1: 10@2
	// server applies input 2: 02
	// tick 3 delta=true complete=true inputAck=2: 10@3
	// full snapshots: 1 acked tick: 3
}

// The server decides which entity a client controls. The client,
// configured with NetID 0, learns its entity from the first snapshot
// (whose record of it already goes to OnOwn, not to the inbox) and names
// it in its input packets from then on; a packet claiming another entity
// changes nothing, and is counted.
func ExampleServer_Assign() {
	srv, _ := session.NewServer(session.Config{})
	const me = session.ClientID(1)
	srv.Connect(me)
	if err := srv.Assign(me, 7); err != nil { // the player's entity, the server's choice
		panic(err)
	}

	inbox := systems.NewInbox(0)
	cli, _ := session.NewClient(session.ClientConfig{
		Inbox: inbox, // NetID 0: the server assigns it
		OnOwn: func(o session.Own) {
			fmt.Printf("  own: entity %d at tick %d\n", o.Entity.NetID, o.Tick)
		},
	})
	fmt.Println("before any snapshot: NetID", cli.NetID())

	var msgs []systems.Message
	for tick := uint32(1); tick <= 2; tick++ {
		srv.BeginTick(tick)
		srv.SetEntity(wire.Entity{NetID: 2, Pos: mgl32.Vec3{float32(tick), 0, 0}})
		srv.SetEntity(wire.Entity{NetID: 7, Pos: mgl32.Vec3{0, float32(tick), 0}})
		packets, _ := srv.Snapshot(me, tick*50, nil)
		for _, p := range packets {
			cli.Receive(p, tick*50+20)
		}
		msgs, _ = inbox.Drain(msgs)
		fmt.Printf("tick %d: NetID %d, inbox:", tick, cli.NetID())
		for _, m := range msgs {
			fmt.Printf(" %v %d", m.Kind, m.NetID)
		}
		fmt.Println()
		in, _ := cli.InputPacket(tick*50+30, nil) // names NetID 7
		srv.Receive(me, in, tick*50+40)
	}

	// A forged packet claiming entity 2: taken for its acknowledgements,
	// its claim ignored and counted.
	forged, _ := wire.AppendInput(nil, &wire.Header{Seq: 100}, &wire.InputPacket{NetID: 2}, nil)
	srv.Receive(me, forged, 200)
	id, _ := srv.Controlled(me)
	st, _ := srv.Stats(me)
	fmt.Println("server: client controls", id, "- wrong claims:", st.WrongNetID)
	// Output:
	// before any snapshot: NetID 0
	//   own: entity 7 at tick 1
	// tick 1: NetID 7, inbox: snapshot 2 complete 0
	//   own: entity 7 at tick 2
	// tick 2: NetID 7, inbox: snapshot 2 complete 0
	// server: client controls 7 - wrong claims: 1
}

package server_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/wire"
)

// One client, three ticks: a full snapshot, the client's acknowledgement
// and input, then deltas that carry only what changed and the input ack.
func Example() {
	srv, err := server.NewSession(server.SessionConfig{})
	if err != nil {
		panic(err)
	}
	const me = server.ClientID(1)
	srv.Connect(me)
	dec, _ := wire.NewDecoder(wire.Config{}) // the client's side

	var packets [][]byte
	var entities []wire.Entity
	for tick := uint32(1); tick <= 3; tick++ {
		// Server tick: inputs first, then the world, then snapshots.
		if in, _ := srv.NextInput(me, nil); in.Status == server.InputReady {
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
		in := wire.InputPacket{FirstSeq: tick, Inputs: [][]byte{{byte(tick)}}}
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

// The server decides which entity a client controls: every snapshot then
// names it and carries its state next to the input ack, for the client's
// prediction. A client never names its entity.
func ExampleSession_Assign() {
	srv, _ := server.NewSession(server.SessionConfig{})
	const me = server.ClientID(1)
	srv.Connect(me)
	if err := srv.Assign(me, 7); err != nil { // the player's entity, the server's choice
		panic(err)
	}
	dec, _ := wire.NewDecoder(wire.Config{})
	srv.BeginTick(1)
	srv.SetEntity(wire.Entity{NetID: 2, Pos: mgl32.Vec3{1, 0, 0}})
	srv.SetEntity(wire.Entity{NetID: 7, Pos: mgl32.Vec3{0, 1, 0}})
	packets, _ := srv.Snapshot(me, 50, nil)
	s, es, _ := dec.Decode(packets[0], nil)
	fmt.Println("controlled:", s.Controlled, "entities:", len(es))

	// A spectator watches: it can be assigned nothing.
	srv.ConnectSpectator(2)
	fmt.Println(srv.Assign(2, 2))
	// Output:
	// controlled: 7 entities: 2
	// server: client is a spectator: 2 (Assign of NetID 2)
}

package wire_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/wire"
)

// A server sends a full snapshot, the client acknowledges it, and the next
// snapshot is a delta against it that carries only what changed.
func Example() {
	cfg := wire.Config{} // the defaults: 1/256 unit, 1200-byte packets
	q := cfg.Quantizer

	// Server: the world at tick 10, quantised into a table.
	world := func(x float32) *wire.Table {
		var t wire.Table
		for id := uint32(1); id <= 3; id++ {
			e := wire.Entity{NetID: id, Pos: mgl32.Vec3{float32(id) * 10, 0, 0}}
			if id == 2 {
				e.Pos[0] += x // only entity 2 moves
			}
			r, err := q.Record(e)
			if err != nil {
				panic(err)
			}
			t.Set(r)
		}
		return &t
	}
	enc, _ := wire.NewEncoder(cfg)
	dec, _ := wire.NewDecoder(cfg)

	send := func(tick uint32, base *wire.Table, baseTick uint32, cur *wire.Table) {
		info := wire.SnapshotInfo{Tick: tick, Delta: base != nil, Baseline: baseTick}
		if err := enc.Begin(wire.Header{}, info, nil); err != nil {
			panic(err)
		}
		if err := enc.Diff(base, cur); err != nil {
			panic(err)
		}
		packets, _ := enc.Finish(true, cur.Hash()) // Diff names every change: complete; the client then holds cur
		// Client: decode every packet.
		for _, p := range packets {
			s, entities, err := dec.Decode(p, nil)
			if err != nil {
				panic(err)
			}
			fmt.Printf("tick %d (delta %v, %d bytes, done %v):", s.Tick, s.Delta, len(p), s.Done)
			for _, e := range entities {
				fmt.Printf(" %d@%.2f", e.NetID, e.Pos[0])
			}
			fmt.Println()
		}
	}

	t10 := world(0)
	send(10, nil, 0, t10)
	acked, _ := dec.Acked() // goes back in the client's input packets
	fmt.Println("client acks tick", acked)
	send(12, dec.State(acked), acked, world(0.75))
	// Output:
	// tick 10 (delta false, 50 bytes, done true): 1@10.00 2@20.00 3@30.00
	// client acks tick 10
	// tick 12 (delta true, 43 bytes, done true): 2@20.75
}

// A Quantizer sets the precision both ends agree on.
func ExampleQuantizer() {
	q := wire.Quantizer{PosStep: 1.0 / 64, RotBits: 12}
	r, err := q.Record(wire.Entity{NetID: 7, Pos: mgl32.Vec3{1.003, -2.5, 100}})
	if err != nil {
		panic(err)
	}
	fmt.Println("steps:", r.Pos)
	e := q.Entity(r)
	fmt.Printf("back: %.4f %.4f %.4f\n", e.Pos[0], e.Pos[1], e.Pos[2])
	_, err = q.Record(wire.Entity{NetID: 8, Pos: mgl32.Vec3{1e10, 0, 0}})
	fmt.Println(err)
	// Output:
	// steps: [64 -160 6400]
	// back: 1.0000 -2.5000 100.0000
	// wire: value out of range: NetID 8 Pos.X = 1e+10 is not finite or beyond ±2^31 steps of 0.015625
}

package server

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/wire"
)

// benchServer returns a server with one client that acknowledged tick 1 of
// a world of n circling entities.
func benchServer(b *testing.B, n int) (*Session, *testClient) {
	s := newServer(b, SessionConfig{})
	s.Connect(1)
	c := newTestClient(b, wire.Config{})
	s.BeginTick(1)
	setWorld(b, s, n, 1, true)
	packets, err := s.Snapshot(1, 0, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range packets {
		c.receive(p, 0)
	}
	if err := s.Receive(1, c.ack(b, 0), 0); err != nil {
		b.Fatal(err)
	}
	return s, c
}

// BenchmarkSnapshot is the steady state of one client's snapshot: 1000
// entities, half of them moving, delta-encoded against the tick sent three
// ticks earlier, as acknowledged by a client 150 ms away (world updates
// are outside the timing: they alternate between two precomputed states,
// and the acknowledgement is set directly).
func BenchmarkSnapshot(b *testing.B) {
	s, _ := benchServer(b, 1000)
	var worlds [2][]worldEntry
	for i := range worlds {
		setWorld(b, s, 1000, uint32(3+i), true)
		worlds[i] = append([]worldEntry(nil), s.world.ents...)
	}
	var dst [][]byte
	tick := uint32(1)
	bytes := 0
	snapshot := func() {
		tick++
		copy(s.world.ents, worlds[tick%2])
		if err := s.BeginTick(tick); err != nil {
			b.Fatal(err)
		}
		if c := s.clients[1]; tick > 4 {
			c.acked = tick - 3
		}
		var err error
		if dst, err = s.Snapshot(1, tick, dst[:0]); err != nil {
			b.Fatal(err)
		}
		bytes = 0
		for _, p := range dst {
			bytes += len(p)
		}
	}
	for range 2 * wire.DefaultHistory { // every table slot reaches its size
		snapshot()
	}
	b.ReportAllocs()
	for b.Loop() {
		snapshot()
	}
	if st, _ := s.Stats(1); st.FullSnapshots != 1 {
		b.Fatalf("%d full snapshots", st.FullSnapshots)
	}
	b.ReportMetric(float64(bytes), "B/snapshot")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/entity")
}

// BenchmarkReceive is one input packet with 8 redundant inputs, 7 of them
// already received.
func BenchmarkReceive(b *testing.B) {
	s, c := benchServer(b, 10)
	var pkts [][]byte
	for range 64 {
		pkts = append(pkts, c.input(b, 0, 8, []byte{1, 2, 3, 4}))
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		// Replaying the same 64 packets: the window moves on as they are
		// consumed, so most are duplicates after the first round, as in
		// a real stream with redundancy.
		if err := s.Receive(1, pkts[i%64], 0); err != nil {
			b.Fatal(err)
		}
		s.NextInput(1, nil)
		i++
	}
}

// BenchmarkSetEntities is handing over a world of 50,000 entities that
// all move every tick, with interest management on (so each is placed in
// the spatial grid): the per-tick cost of SetEntities, per entity.
func BenchmarkSetEntities(b *testing.B) {
	const n = 50_000
	s := newServer(b, SessionConfig{Interest: &InterestConfig{CellSize: 25}, Wire: wire.Config{MaxEntities: n}})
	ents := make([]wire.Entity, n)
	for i := range ents {
		x, y := float32(i%250)*4, float32(i/250)*4
		ents[i] = wire.Entity{NetID: uint32(i + 1), Pos: mgl32.Vec3{x, y, 0}}
	}
	tick := uint32(0)
	step := func() {
		tick++
		if err := s.BeginTick(tick); err != nil {
			b.Fatal(err)
		}
		if err := s.SetEntities(ents); err != nil {
			b.Fatal(err)
		}
	}
	move := func() {
		v := float32(0.2) // 4 units/s at 20 Hz, back and forth
		if tick/50%2 == 1 {
			v = -v
		}
		for i := range ents {
			ents[i].Pos[0] += v
		}
	}
	for range 300 { // the grid's cell lists reach their sizes
		move()
		step()
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		move()
		b.StartTimer()
		step()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/entity")
}

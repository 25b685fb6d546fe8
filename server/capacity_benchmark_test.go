package server

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/wire"
)

// capacityWorld is the capacity benchmark's world: entities wandering at
// 4 units/s in a square sized so that a view of radius 50 holds about 300
// of them, one entity per client being that client's player, whose view
// follows it.
type capacityWorld struct {
	pos, vel []mgl32.Vec3
	side     float32
	ents     []wire.Entity
}

const (
	capacityRadius   = 50
	capacityRelevant = 300
)

func newCapacityWorld(n int, seed uint64) *capacityWorld {
	rng := rand.New(rand.NewPCG(seed, 1))
	side := float32(math.Sqrt(float64(n) / capacityRelevant * math.Pi * capacityRadius * capacityRadius))
	w := &capacityWorld{pos: make([]mgl32.Vec3, n), vel: make([]mgl32.Vec3, n), side: side, ents: make([]wire.Entity, n)}
	for k := range n {
		w.pos[k] = mgl32.Vec3{rng.Float32() * side, rng.Float32() * side, 0}
		a := rng.Float64() * 2 * math.Pi
		w.vel[k] = mgl32.Vec3{float32(4 * math.Cos(a)), float32(4 * math.Sin(a)), 0}
		w.ents[k] = wire.Entity{NetID: uint32(k + 1)}
	}
	return w
}

// step moves every entity by dt, bouncing off the square's sides.
func (w *capacityWorld) step(dt float32) {
	for k := range w.pos {
		for i := range 2 {
			p := w.pos[k][i] + w.vel[k][i]*dt
			if p < 0 || p > w.side {
				w.vel[k][i] = -w.vel[k][i]
				p = w.pos[k][i] + w.vel[k][i]*dt
			}
			w.pos[k][i] = p
		}
		w.ents[k].Pos = w.pos[k]
	}
}

// capacity is one capacity configuration.
type capacity struct {
	clients, entities int
	interest          bool // interest management and a 32 kB/s budget; else every entity to every client
}

func (c capacity) name() string {
	mode := "interest"
	if !c.interest {
		mode = "everything"
	}
	return fmt.Sprintf("%s/clients=%d/entities=%d", mode, c.clients, c.entities)
}

// benchCapacity measures the server's work per tick (relevance, priority,
// delta encoding, copying each packet as a transport would; the world
// handed over with SetEntities) for a configuration at 20 Hz, with every
// client acknowledging the tick sent three ticks before. It reports ms per
// tick and the bytes each client is sent a second, on average and at
// most.
func benchCapacity(b *testing.B, cfg capacity) {
	const tickRate = 20
	sc := SessionConfig{TickRate: tickRate, MaxClients: cfg.clients, Wire: wire.Config{MaxEntities: cfg.entities + 1, History: 4}}
	if cfg.interest {
		sc.Interest = &InterestConfig{CellSize: capacityRadius / 2}
		sc.Budget = BudgetConfig{BytesPerSecond: 32_000}
	}
	s, err := NewSession(sc)
	if err != nil {
		b.Fatal(err)
	}
	w := newCapacityWorld(cfg.entities, 1)
	for id := range cfg.clients {
		s.Connect(ClientID(id + 1))
		s.Assign(ClientID(id+1), uint32(id+1))
	}
	var dst [][]byte
	var sink []byte
	sent := make([]int, cfg.clients)
	tick := uint32(0)
	run := func() {
		b.StopTimer()
		w.step(1.0 / tickRate) // the game's simulation: not timed
		b.StartTimer()
		tick++
		if err := s.BeginTick(tick); err != nil {
			b.Fatal(err)
		}
		if err := s.SetEntities(w.ents); err != nil {
			b.Fatal(err)
		}
		for id := range cfg.clients {
			cid := ClientID(id + 1)
			if cfg.interest {
				s.SetView(cid, View{Pos: w.pos[id], Radius: capacityRadius})
			}
			if dst, err = s.Snapshot(cid, tick*50, dst[:0]); err != nil {
				b.Fatal(err)
			}
			for _, p := range dst {
				sink = append(sink[:0], p...) // what a transport's send queue copies
				sent[id] += len(p)
			}
			if tick > 3 {
				c := s.clients[cid]
				c.acked, c.hasAcked = tick-3, true
			}
		}
	}
	for range 60 { // every table reaches its size
		run()
	}
	clear(sent)
	start := tick
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		run()
	}
	seconds := float64(tick-start) / tickRate
	total, most := 0, 0
	for _, n := range sent {
		total += n
		most = max(most, n)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/tick")
	b.ReportMetric(float64(total)/float64(cfg.clients)/seconds, "B/client/s")
	b.ReportMetric(float64(most)/seconds, "max-B/client/s")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkCapacity is the server's capacity: its own work per tick at
// 10, 100 and 1000 clients and 1k, 10k and 50k moving entities, with
// interest management and a 32 kB/s budget per client, and the "every
// entity to every client" baseline where it fits in memory.
func BenchmarkCapacity(b *testing.B) {
	for _, c := range []capacity{
		{10, 1000, true}, {10, 10_000, true}, {10, 50_000, true},
		{100, 1000, true}, {100, 10_000, true}, {100, 50_000, true},
		{1000, 1000, true}, {1000, 10_000, true}, {1000, 50_000, true},
		{10, 1000, false}, {10, 10_000, false}, {100, 1000, false}, {100, 10_000, false}, {100, 50_000, false},
	} {
		b.Run(c.name(), func(b *testing.B) { benchCapacity(b, c) })
	}
}

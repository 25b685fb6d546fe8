package perf

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/wire"
)

// Capacity is one configuration of the server's capacity benchmark:
// Clients players in a world of Entities entities wandering at 4 units/s,
// at 20 Hz.
type Capacity struct {
	Clients, Entities int
	// Interest gives the session interest management (each client sees a
	// radius of CapacityRadius around its player) and a budget of
	// CapacityBudget bytes per second per client; without it the server
	// sends every entity to every client.
	Interest bool
}

const (
	// CapacityRadius is a client's view radius in the capacity benchmark.
	CapacityRadius = 50
	// CapacityRelevant is about how many entities a view holds: the
	// world's side is chosen for it.
	CapacityRelevant = 300
	// CapacityBudget is each client's budget, bytes per second
	// (256 kbit/s).
	CapacityBudget = 32_000
	// CapacityTickRate is the server's tick rate in the benchmark.
	CapacityTickRate = 20
)

// Name is the configuration's benchmark name.
func (c Capacity) Name() string {
	return fmt.Sprintf("%s/clients=%d/entities=%d", c.Mode(), c.Clients, c.Entities)
}

// Mode is "interest" with interest management, "everything" for the
// baseline.
func (c Capacity) Mode() string {
	if c.Interest {
		return "interest"
	}
	return "everything"
}

// CapacityResult is what one capacity run measured besides the time.
type CapacityResult struct {
	// BytesPerClient is the bytes sent to a client per second, averaged
	// over the clients; MostPerClient is the most any one client was sent.
	BytesPerClient, MostPerClient float64
	// Relevant is the average number of entities relevant to a client.
	Relevant float64
}

// capacityWorld is the capacity benchmark's world: entities wandering in
// a square sized so that a view holds about CapacityRelevant of them,
// entity k+1 being client k's player, whose view follows it.
type capacityWorld struct {
	pos, vel []mgl32.Vec3
	side     float32
	ents     []wire.Entity
}

func newCapacityWorld(n int, seed uint64) *capacityWorld {
	rng := rand.New(rand.NewPCG(seed, 1))
	side := float32(math.Sqrt(float64(n) / CapacityRelevant * math.Pi * CapacityRadius * CapacityRadius))
	w := &capacityWorld{pos: make([]mgl32.Vec3, n), vel: make([]mgl32.Vec3, n), side: side, ents: make([]wire.Entity, n)}
	for k := range n {
		w.pos[k] = mgl32.Vec3{rng.Float32() * side, rng.Float32() * side, 0}
		a := rng.Float64() * 2 * math.Pi
		w.vel[k] = mgl32.Vec3{float32(4 * math.Cos(a)), float32(4 * math.Sin(a)), 0}
		w.ents[k] = wire.Entity{NetID: uint32(k + 1), Pos: w.pos[k]}
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

// capacityClient is what the benchmark keeps of a client: the receipts
// and acknowledgement a game client would send back, built untimed.
type capacityClient struct {
	receipts wire.Receipts
	seq      uint16
	ack      []byte // the input packet acknowledging what arrived
	sent     int    // bytes sent to it while timed
}

// BenchCapacity measures the server's own work per tick (relevance,
// priority, delta encoding, copying each packet as a transport's send
// queue does, and reading each client's acknowledgement) for cfg through
// server.Session's public API, with the world handed over by SetEntities.
// Each client acknowledges, with an input packet decoded by the server,
// every packet and the snapshot tick sent to it three ticks before, as a
// client behind a 150 ms round trip would. Moving the world is the game's
// work and is not timed. It reports ms/tick, the bytes each client is sent
// a second on average and at most, and returns them.
func BenchCapacity(b *testing.B, cfg Capacity) CapacityResult {
	if cfg.Clients < 1 || cfg.Clients > cfg.Entities {
		b.Fatalf("capacity %s: each of the clients is one of the entities: want 1 <= clients <= entities", cfg.Name())
	}
	r := newCapacityRun(b, cfg)
	for range 60 { // every table reaches its size, every budget its pace
		r.step()
	}
	start := r.tick
	r.timed = true
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r.step()
	}
	b.StopTimer()
	res := r.result(float64(r.tick-start) / CapacityTickRate)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/tick")
	b.ReportMetric(res.BytesPerClient, "B/client/s")
	b.ReportMetric(res.MostPerClient, "max-B/client/s")
	b.ReportMetric(0, "ns/op")
	return res
}

// capacityRun is one run of the capacity benchmark in progress: the
// session, the world handed to it, and its clients, client k+1 being
// clients[k].
type capacityRun struct {
	b       *testing.B
	cfg     Capacity
	s       *server.Session
	w       *capacityWorld
	clients []capacityClient
	dst     [][]byte // the packets of the snapshot being sent
	sink    []byte   // a transport's send queue
	// timed is whether the bytes sent to the clients count: from the
	// end of the warm-up.
	timed bool
	tick  uint32
}

// newCapacityRun returns a run of cfg: its session, with interest
// management and a budget if cfg asks for them, and its world, every
// client connected and assigned its player.
func newCapacityRun(b *testing.B, cfg Capacity) *capacityRun {
	// A history of 8 ticks holds the acknowledged tick (4 ticks before
	// the snapshot) with room to spare, in less memory than the default
	// 32 for the baseline's tables of every entity.
	sc := server.SessionConfig{TickRate: CapacityTickRate, MaxClients: cfg.Clients, Wire: wire.Config{MaxEntities: cfg.Entities + 1, History: 8}}
	if cfg.Interest {
		sc.Interest = &server.InterestConfig{CellSize: CapacityRadius / 2}
		sc.Budget = server.BudgetConfig{BytesPerSecond: CapacityBudget}
	}
	s, err := server.NewSession(sc)
	if err != nil {
		b.Fatal(err)
	}
	r := &capacityRun{b: b, cfg: cfg, s: s, w: newCapacityWorld(cfg.Entities, 1), clients: make([]capacityClient, cfg.Clients)}
	for id := range cfg.Clients {
		if err := s.Connect(server.ClientID(id + 1)); err != nil {
			b.Fatal(err)
		}
		if err := s.Assign(server.ClientID(id+1), uint32(id+1)); err != nil {
			b.Fatal(err)
		}
	}
	return r
}

// acknowledge builds client c's acknowledgement of the snapshot tick
// three ticks back and of every packet received so far.
func (r *capacityRun) acknowledge(c *capacityClient, now uint32) {
	c.seq++
	h := wire.Header{Seq: c.seq, Sent: now}
	c.receipts.Stamp(&h, now)
	p := wire.InputPacket{FirstSeq: uint32(c.seq)}
	if r.tick > 3 {
		p.AckedTick, p.HasAckedTick = r.tick-3, true
	}
	var err error
	if c.ack, err = wire.AppendInput(c.ack[:0], &h, &p, nil); err != nil {
		r.b.Fatal(err)
	}
}

// step runs one tick. Untimed, the game moves the world and each client
// builds its acknowledgement; timed, the server reads them and sends
// each client its snapshot, which the client receives.
func (r *capacityRun) step() {
	r.b.StopTimer()
	r.w.step(1.0 / CapacityTickRate) // the game's simulation
	now := r.tick * 1000 / CapacityTickRate
	for i := range r.clients {
		r.acknowledge(&r.clients[i], now)
	}
	r.b.StartTimer()
	r.tick++
	now = r.tick * 1000 / CapacityTickRate
	if err := r.s.BeginTick(r.tick); err != nil {
		r.b.Fatal(err)
	}
	if err := r.s.SetEntities(r.w.ents); err != nil {
		r.b.Fatal(err)
	}
	for id := range r.clients {
		c := &r.clients[id]
		cid := server.ClientID(id + 1)
		if err := r.s.Receive(cid, c.ack, now); err != nil {
			r.b.Fatal(err)
		}
		if r.cfg.Interest {
			if err := r.s.SetView(cid, server.View{Pos: r.w.pos[id], Radius: CapacityRadius}); err != nil {
				r.b.Fatal(err)
			}
		}
		var err error
		if r.dst, err = r.s.Snapshot(cid, now, r.dst[:0]); err != nil {
			r.b.Fatal(err)
		}
		for _, p := range r.dst {
			r.sink = append(r.sink[:0], p...) // what a transport's send queue copies
			if r.timed {
				c.sent += len(p)
			}
			// The client's receipt of the packet, cheap beside the
			// server's work, is left timed.
			if h, _, err := wire.ParseHeader(p); err == nil {
				c.receipts.Receive(&h, now)
			}
		}
	}
}

// result is what the run measured over its timed seconds. It fails the
// benchmark if a client was sent more full snapshots than those before
// its first acknowledgement.
func (r *capacityRun) result(seconds float64) CapacityResult {
	var res CapacityResult
	relevant := 0
	for id := range r.clients {
		n := float64(r.clients[id].sent) / seconds
		res.BytesPerClient += n / float64(len(r.clients))
		res.MostPerClient = max(res.MostPerClient, n)
		st, _ := r.s.Stats(server.ClientID(id + 1))
		relevant += st.Relevant
		// Only the snapshots before the first acknowledgement may be
		// full: the rest are deltas against the acknowledged tick, as
		// a game's are. More means the acknowledged tables fell out of
		// the history, and the run measured full snapshots instead.
		if st.FullSnapshots > 8 {
			r.b.Fatalf("capacity %s: client %d was sent %d full snapshots of %d: want deltas", r.cfg.Name(), id+1, st.FullSnapshots, st.Snapshots)
		}
	}
	res.Relevant = float64(relevant) / float64(len(r.clients))
	return res
}

// CapacityCases are the configurations the capacity benchmark and the
// report run: interest management at 10, 100 and 1000 clients and 1k,
// 10k and 50k entities, and the "every entity to every client" baseline
// up to 100 clients x 50k entities (beyond, it takes minutes per tick
// and gigabytes).
var CapacityCases = []Capacity{
	{10, 1000, true}, {10, 10_000, true}, {10, 50_000, true},
	{100, 1000, true}, {100, 10_000, true}, {100, 50_000, true},
	{1000, 1000, true}, {1000, 10_000, true}, {1000, 50_000, true},
	{10, 1000, false}, {10, 10_000, false}, {10, 50_000, false},
	{100, 1000, false}, {100, 10_000, false}, {100, 50_000, false},
}

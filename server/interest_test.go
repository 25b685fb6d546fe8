package server

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/wire"
)

// lineWorld sets n entities at x = 10·k (NetID k+1), standing still.
func lineWorld(t testing.TB, s *Session, n int) {
	t.Helper()
	for k := range n {
		if err := s.SetEntity(wire.Entity{NetID: uint32(k + 1), Pos: mgl32.Vec3{float32(10 * k), 0, 0}}); err != nil {
			t.Fatal(err)
		}
	}
}

// held returns the NetIDs a test client's newest complete tick holds.
func held(c *testClient) []uint32 {
	newest, ok := c.dec.Acked()
	if !ok {
		return nil
	}
	var ids []uint32
	for _, r := range c.dec.State(newest).Records() {
		ids = append(ids, r.NetID)
	}
	return ids
}

// deliverTick sends the current tick's snapshot of client 1 to c and
// acknowledges it.
func deliverTick(t testing.TB, s *Session, c *testClient) {
	t.Helper()
	packets, err := s.Snapshot(1, s.Tick(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c.entities = c.entities[:0]
	for _, p := range packets {
		c.receive(p, s.Tick())
	}
	if err := s.Receive(1, c.ack(t, s.Tick()), s.Tick()); err != nil {
		t.Fatal(err)
	}
}

// snapshotTo decodes client 1's snapshot of tick (sent at tick*50 ms) in
// c, calling each, if set, after every packet, and returns its bytes.
func snapshotTo(t testing.TB, s *Session, c *testClient, tick uint32, each func()) int {
	t.Helper()
	packets, err := s.Snapshot(1, tick*50, nil)
	if err != nil {
		t.Fatal(err)
	}
	bytes := 0
	for _, p := range packets {
		bytes += len(p)
		c.receive(p, tick*50)
		if each != nil {
			each()
		}
	}
	return bytes
}

// A client with interest management holds the entities around its view:
// those that enter arrive whole, as spawns, those that leave are
// despawned; moving the view swaps one set for the other.
func TestInterestEnterAndLeave(t *testing.T) {
	s := newServer(t, SessionConfig{Interest: &InterestConfig{CellSize: 25}})
	s.Connect(1)
	c := newTestClient(t, wire.Config{})
	s.BeginTick(1)
	lineWorld(t, s, 100)
	if err := s.SetView(1, View{Pos: mgl32.Vec3{0, 0, 0}, Radius: 100}); err != nil {
		t.Fatal(err)
	}
	deliverTick(t, s, c)
	if got, want := held(c), []uint32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}; !slices.Equal(got, want) {
		t.Fatalf("near x=0: holds %v, want %v", got, want)
	}
	for _, e := range c.entities {
		if e.Flags&wire.Spawn == 0 {
			t.Fatalf("entity %d entered without a spawn: %v", e.NetID, e.Flags)
		}
	}
	s.BeginTick(2)
	s.SetView(1, View{Pos: mgl32.Vec3{500, 0, 0}, Radius: 100})
	deliverTick(t, s, c)
	if got, want := held(c), []uint32{41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61}; !slices.Equal(got, want) {
		t.Fatalf("near x=500: holds %v, want %v", got, want)
	}
	despawns, spawns := 0, 0
	for _, e := range c.entities {
		switch {
		case e.Flags&wire.Despawn != 0:
			despawns++
		case e.Flags&wire.Spawn != 0:
			spawns++
		}
	}
	if despawns != 11 || spawns != 21 {
		t.Fatalf("moving the view: %d despawns, %d spawns", despawns, spawns)
	}
}

// Hysteresis: an entity that wavers on the border of the view stays
// relevant once it entered, until it is clearly out.
func TestInterestHysteresis(t *testing.T) {
	s := newServer(t, SessionConfig{Interest: &InterestConfig{CellSize: 25, Hysteresis: 0.1}})
	s.Connect(1)
	c := newTestClient(t, wire.Config{})
	changes := 0
	was := false
	for tick := uint32(1); tick <= 60; tick++ {
		s.BeginTick(tick)
		x := 100 + 8*float32(math.Sin(float64(tick)))
		if tick > 50 {
			x = 120 // clearly out
		}
		s.SetEntity(wire.Entity{NetID: 7, Pos: mgl32.Vec3{x, 0, 0}})
		s.SetView(1, View{Radius: 100})
		deliverTick(t, s, c)
		is := slices.Contains(held(c), 7)
		if is != was {
			changes++
			was = is
		}
	}
	if changes != 2 || was {
		t.Fatalf("%d changes of relevance, relevant at the end %v: want in once and out once", changes, was)
	}
}

// Rules: Never hides an entity however near, SetAlways shows one however
// far, and the entity a client controls is always relevant to it.
func TestInterestRules(t *testing.T) {
	s := newServer(t, SessionConfig{Interest: &InterestConfig{
		Rule: func(_ ClientID, netID uint32) Relevance {
			if netID == 2 {
				return Never
			}
			return ByDistance
		},
	}})
	s.Connect(1)
	c := newTestClient(t, wire.Config{})
	s.BeginTick(1)
	lineWorld(t, s, 100)
	s.SetAlways(90, true)
	s.Assign(1, 70)
	s.SetView(1, View{Radius: 25})
	deliverTick(t, s, c)
	if got, want := held(c), []uint32{1, 3, 70, 90}; !slices.Equal(got, want) {
		t.Fatalf("holds %v, want %v", got, want)
	}
	s.BeginTick(2)
	s.SetAlways(90, false)
	s.Assign(1, 0)
	deliverTick(t, s, c)
	if got, want := held(c), []uint32{1, 3}; !slices.Equal(got, want) {
		t.Fatalf("after the rules changed: holds %v, want %v", got, want)
	}
}

// A client without a view sees only what is always relevant.
func TestInterestWithoutView(t *testing.T) {
	s := newServer(t, SessionConfig{Interest: &InterestConfig{}})
	s.Connect(1)
	c := newTestClient(t, wire.Config{})
	s.BeginTick(1)
	lineWorld(t, s, 20)
	s.SetAlways(5, true)
	deliverTick(t, s, c)
	if got := held(c); !slices.Equal(got, []uint32{5}) {
		t.Fatalf("holds %v", got)
	}
	if err := s.SetView(1, View{Radius: float32(math.NaN())}); err == nil {
		t.Fatal("a NaN radius accepted")
	}
}

// swarm moves n entities on circles around the origin, radii 5 to 300.
func swarm(t testing.TB, s *Session, n int, tick uint32) {
	t.Helper()
	for k := range n {
		r := 5 + 295*float64(k)/float64(n)
		a := float64(tick)*0.05 + float64(k)
		p := mgl32.Vec3{float32(r * math.Cos(a)), float32(r * math.Sin(a)), 0}
		if err := s.SetEntity(wire.Entity{NetID: uint32(k + 1), Pos: p}); err != nil {
			t.Fatal(err)
		}
	}
}

// A budget holds: every second of snapshots stays within the bytes a
// second it allows, every changed entity is sent at least every
// MaxInterval, and near entities are sent more often than far ones.
func TestBudget(t *testing.T) {
	const n, rate, tickRate = 300, 8000, 20
	s := newServer(t, SessionConfig{TickRate: tickRate, Budget: BudgetConfig{BytesPerSecond: rate}})
	s.Connect(1)
	s.SetView(1, View{Radius: 300})
	c := newTestClient(t, wire.Config{})
	last := map[uint32]uint32{}
	gaps := map[uint32][]uint32{}
	var perTick []int
	for tick := uint32(1); tick <= 400; tick++ {
		s.BeginTick(tick)
		swarm(t, s, n, tick)
		packets, err := s.Snapshot(1, tick, nil)
		if err != nil {
			t.Fatal(err)
		}
		bytes := 0
		c.entities = c.entities[:0]
		for _, p := range packets {
			bytes += len(p)
			c.receive(p, tick)
		}
		perTick = append(perTick, bytes)
		s.Receive(1, c.ack(t, tick), tick)
		for _, e := range c.entities {
			if tick > 40 {
				gaps[e.NetID] = append(gaps[e.NetID], tick-last[e.NetID])
			}
			last[e.NetID] = tick
		}
	}
	// Every second, from any tick on once every entity has been sent,
	// headers and NetID gaps included.
	most := 0
	for i := 2 * tickRate; i+tickRate <= len(perTick); i++ {
		sum := 0
		for _, b := range perTick[i : i+tickRate] {
			sum += b
		}
		if sum > rate {
			t.Fatalf("second from tick %d: %d bytes, budget %d", i+1, sum, rate)
		}
		most = max(most, sum)
	}
	if most < rate*95/100 {
		t.Fatalf("the fullest second carried %d bytes of %d", most, rate)
	}
	maxGap := uint32(0)
	mean := func(ids []uint32) float64 {
		var sum, k float64
		for _, id := range ids {
			for _, g := range gaps[id] {
				sum += float64(g)
				k++
				maxGap = max(maxGap, g)
			}
		}
		return sum / k
	}
	near, far := mean([]uint32{1, 2, 3, 4, 5}), mean([]uint32{n - 4, n - 3, n - 2, n - 1, n})
	t.Logf("mean interval, near %.1f ticks, far %.1f ticks; longest %d ticks", near, far, maxGap)
	if maxGap > 10 {
		t.Fatalf("an entity waited %d ticks, MaxInterval is 10", maxGap)
	}
	if !(near < far/2) {
		t.Fatalf("near entities every %.1f ticks, far every %.1f", near, far)
	}
	if st, _ := s.Stats(1); st.Deferred == 0 || st.Incomplete == 0 {
		t.Fatalf("the budget deferred nothing: %+v", st)
	}
}

// Under a budget, what a lost packet carried is sent again once the loss
// is known (a round trip and a tick later), instead of after another
// MaxInterval: the longest wait stays MaxInterval plus the time to notice.
func TestBudgetResendsLost(t *testing.T) {
	const n = 300
	run := func(lose func(tick uint32, part int) bool) (maxGap uint32, st ClientStats) {
		s := newServer(t, SessionConfig{TickRate: 20, Budget: BudgetConfig{BytesPerSecond: 8000}})
		s.Connect(1)
		s.SetView(1, View{Radius: 300})
		c := newTestClient(t, wire.Config{})
		last := map[uint32]uint32{}
		for tick := uint32(1); tick <= 400; tick++ {
			s.BeginTick(tick)
			swarm(t, s, n, tick)
			packets, err := s.Snapshot(1, tick*50, nil)
			if err != nil {
				t.Fatal(err)
			}
			c.entities = c.entities[:0]
			for i, p := range packets {
				if !lose(tick, i) {
					c.receive(p, tick*50)
				}
			}
			s.Receive(1, c.ack(t, tick*50+10), tick*50+10)
			for _, e := range c.entities {
				if tick > 40 {
					maxGap = max(maxGap, tick-last[e.NetID])
				}
				last[e.NetID] = tick
			}
		}
		st, _ = s.Stats(1)
		return maxGap, st
	}
	clean, st := run(func(uint32, int) bool { return false })
	if st.Resent != 0 || clean > 10 {
		t.Fatalf("without loss: longest wait %d ticks, %d resent", clean, st.Resent)
	}
	// Every packet of every 7th tick is lost.
	lossy, st := run(func(tick uint32, _ int) bool { return tick%7 == 0 })
	t.Logf("longest wait %d ticks without loss, %d with; %d records resent", clean, lossy, st.Resent)
	if st.Resent == 0 {
		t.Fatal("nothing resent")
	}
	// MaxInterval (10 ticks), the round trip (1 tick) and a tick to
	// notice, and the tick lost.
	if lossy > 10+3 {
		t.Fatalf("an entity waited %d ticks", lossy)
	}
}

// Interest management and a budget over a bad network: the client's
// state is always the server's (no tick diverges from its hash), whatever
// entered, left or waited, and the server never has to resync it.
func TestInterestAndBudgetStayConsistent(t *testing.T) {
	cfg := wire.Config{MaxInputs: 8}
	s := newServer(t, SessionConfig{Wire: cfg, Interest: &InterestConfig{CellSize: 20}, Budget: BudgetConfig{BytesPerSecond: 6000}})
	s.Connect(1)
	c := newTestClient(t, cfg)
	down, _ := netsim.NewLink[[]byte](badNetwork, 5)
	up, _ := netsim.NewLink[[]byte](badNetwork, 6)
	rng := rand.New(rand.NewPCG(1, 2))
	var inbox []netsim.Timed[[]byte]
	const n = 400
	for k := range 600 {
		now := time.Duration(k) * 50 * time.Millisecond
		ms := uint32(now.Milliseconds())
		for _, d := range up.DeliverTimed(now, inbox[:0]) {
			s.Receive(1, d.Msg, uint32(d.At.Milliseconds()))
		}
		tick := uint32(k + 1)
		s.BeginTick(tick)
		swarm(t, s, n, tick)
		if k%50 == 25 { // churn
			id := uint32(rng.IntN(n) + 1)
			s.Despawn(id)
		}
		a := float64(k) * 0.02
		s.SetView(1, View{Pos: mgl32.Vec3{float32(150 * math.Cos(a)), float32(150 * math.Sin(a)), 0}, Radius: 80})
		packets, err := s.Snapshot(1, ms, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range packets {
			down.Send(now, append([]byte(nil), p...))
		}
		for _, d := range down.DeliverTimed(now, inbox[:0]) {
			c.receive(d.Msg, uint32(d.At.Milliseconds()))
		}
		up.Send(now, c.ack(t, ms))
	}
	st, _ := s.Stats(1)
	if c.dec.Divergences() != 0 || st.Resyncs != 0 {
		t.Fatalf("%d ticks diverged, %d resyncs", c.dec.Divergences(), st.Resyncs)
	}
	if newest, ok := c.dec.Acked(); !ok || newest < 500 {
		t.Fatalf("newest tick held %d", newest)
	}
	if len(held(c)) < 20 || len(held(c)) > n/2 {
		t.Fatalf("the client holds %d entities", len(held(c)))
	}
}

// Interest management and a budget allocate nothing per tick in steady
// state.
func TestInterestAndBudgetAllocs(t *testing.T) {
	s := newServer(t, SessionConfig{Interest: &InterestConfig{}, Budget: BudgetConfig{BytesPerSecond: 32000}})
	for id := ClientID(1); id <= 4; id++ {
		s.Connect(id)
	}
	var dst [][]byte
	tick := uint32(0)
	step := func() {
		tick++
		s.BeginTick(tick)
		swarm(t, s, 1000, tick)
		for id := ClientID(1); id <= 4; id++ {
			s.SetView(id, View{Pos: mgl32.Vec3{float32(id) * 50, 0, 0}, Radius: 100})
			var err error
			if dst, err = s.Snapshot(id, tick, dst[:0]); err != nil {
				t.Fatal(err)
			}
			s.mu.Lock()
			if c := s.clients[id]; tick > 2 {
				c.acked, c.hasAcked = tick-2, true
			}
			s.mu.Unlock()
		}
	}
	for range 3 * wire.DefaultHistory {
		step()
	}
	if n := testing.AllocsPerRun(20, step); n != 0 {
		t.Fatalf("%v allocations per tick", n)
	}
}

// SetInterest turns interest management off for one client, and back on.
func TestSetInterest(t *testing.T) {
	s := newServer(t, SessionConfig{Interest: &InterestConfig{}})
	s.Connect(1)
	c := newTestClient(t, wire.Config{})
	s.BeginTick(1)
	lineWorld(t, s, 50)
	s.SetView(1, View{Radius: 25})
	deliverTick(t, s, c)
	if n := len(held(c)); n != 3 {
		t.Fatalf("interest on: holds %d", n)
	}
	s.SetInterest(1, false)
	s.BeginTick(2)
	deliverTick(t, s, c)
	if n := len(held(c)); n != 50 {
		t.Fatalf("interest off: holds %d", n)
	}
	s.SetInterest(1, true)
	s.BeginTick(3)
	deliverTick(t, s, c)
	if n := len(held(c)); n != 3 {
		t.Fatalf("interest on again: holds %d", n)
	}
	if err := s.SetInterest(9, true); err == nil {
		t.Fatal("SetInterest of an unknown client")
	}
	if st, _ := s.Stats(1); st.Relevant != 3 {
		t.Fatalf("Relevant %d", st.Relevant)
	}
}

// Every entity relevant at once (interest off for two seconds: 3000
// entities, more than the budget carries within MaxInterval) takes no
// more than the budget: what MaxInterval forces may exceed a tick's
// allowance by a tick's worth, and the window of the last second holds
// the rest back. Nor is the burst owed: once it is over, the client gets
// its budget again at once.
func TestBudgetHoldsWhenEverythingIsRelevant(t *testing.T) {
	const rate, tickRate = 32000, 20
	s := newServer(t, SessionConfig{TickRate: tickRate, Interest: &InterestConfig{}, Budget: BudgetConfig{BytesPerSecond: rate}})
	s.Connect(1)
	s.SetView(1, View{Radius: 60})
	c := newTestClient(t, wire.Config{})
	var perTick []int
	for tick := uint32(1); tick <= 120; tick++ {
		s.SetInterest(1, tick <= 20 || tick > 60) // everything for two seconds
		s.BeginTick(tick)
		swarm(t, s, 3000, tick)
		perTick = append(perTick, snapshotTo(t, s, c, tick, nil))
		s.Receive(1, c.ack(t, tick*50+10), tick*50+10)
	}
	sum := func(ticks []int) (n int) {
		for _, b := range ticks {
			n += b
		}
		return n
	}
	burst, after := sum(perTick[20:60]), sum(perTick[62:82])
	t.Logf("the two seconds of everything: %d B; the second after: %d B (budget %d B/s)", burst, after, rate)
	if burst < 2*rate*9/10 {
		t.Fatalf("the two seconds of everything carried %d B: the budget was not used", burst)
	}
	if most := 2*rate + 2*rate/tickRate; burst > most {
		t.Fatalf("the two seconds of everything carried %d B, want at most the budget and two ticks' worth, %d B", burst, most)
	}
	if after < rate*3/4 {
		t.Fatalf("the second after the burst carried %d B of a %d B/s budget", after, rate)
	}
}

// Entities that enter together and that the budget leaves out are forced
// out by MaxInterval over several ticks, not all in one: no tick of the
// first seconds carries many times a tick's budget.
func TestEnteringTogetherIsStaggered(t *testing.T) {
	const n, rate, tickRate = 300, 4000, 20
	s := newServer(t, SessionConfig{TickRate: tickRate, Interest: &InterestConfig{}, Budget: BudgetConfig{BytesPerSecond: rate}})
	s.Connect(1)
	s.SetView(1, View{Radius: 310})
	c := newTestClient(t, wire.Config{})
	most, mostTick := 0, 0
	for tick := uint32(1); tick <= 3*tickRate; tick++ {
		s.BeginTick(tick)
		swarm(t, s, n, tick)
		if bytes := snapshotTo(t, s, c, tick, nil); bytes > most {
			most, mostTick = bytes, int(tick)
		}
		s.Receive(1, c.ack(t, tick*50+10), tick*50+10)
	}
	t.Logf("the fullest tick carried %d B, at tick %d (a tick's budget is %d B)", most, mostTick, rate/tickRate)
	if most > 3*rate/tickRate {
		t.Fatalf("tick %d carried %d B: entities entering together were forced out together", mostTick, most)
	}
}

// An entity that leaves a client's set after the client learned of it
// only from ticks it has not acknowledged is despawned there too, even
// when no complete tick lets the client sweep it: the server sends its
// despawn every tick until the client acknowledges one that carried it,
// as it does for the entities that died.
func TestLeftUnacknowledgedIsDespawned(t *testing.T) {
	filter := func(_ ClientID, netID uint32, _ uint32) bool { return netID != 60 } // every tick from 3 on is incomplete
	s := newServer(t, SessionConfig{Interest: &InterestConfig{CellSize: 25}, Filter: filter})
	s.Connect(1)
	c := newTestClient(t, wire.Config{})
	alive := map[uint32]bool{} // what the client draws
	// receive takes a tick's packets, acknowledging them or not, and
	// returns the NetIDs it despawned.
	receive := func(tick uint32, ack bool) []uint32 {
		t.Helper()
		s.BeginTick(tick)
		if tick == 1 {
			lineWorld(t, s, 100)
		}
		packets, err := s.Snapshot(1, tick, nil)
		if err != nil {
			t.Fatal(err)
		}
		var gone []uint32
		for _, p := range packets {
			c.receive(p, tick)
			for _, e := range c.entities {
				alive[e.NetID] = e.Flags&wire.Despawn == 0
				if e.Flags&wire.Despawn != 0 {
					gone = append(gone, e.NetID)
				}
			}
		}
		if ack {
			if err := s.Receive(1, c.ack(t, tick), tick); err != nil {
				t.Fatal(err)
			}
		}
		return gone
	}
	s.SetView(1, View{Pos: mgl32.Vec3{0, 0, 0}, Radius: 100}) // NetIDs 1 to 11
	receive(1, true)
	s.SetView(1, View{Pos: mgl32.Vec3{150, 0, 0}, Radius: 50}) // 11 to 21: 12 to 21 enter
	receive(2, false)
	for id := uint32(12); id <= 21; id++ {
		if !alive[id] {
			t.Fatalf("entity %d did not enter", id)
		}
	}
	// Tick 2 is not acknowledged: the baseline (tick 1) does not hold 12
	// to 21, but the client does.
	s.SetView(1, View{Pos: mgl32.Vec3{600, 0, 0}, Radius: 50}) // 56 to 66, but 60
	want := []uint32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21}
	for tick := uint32(3); tick <= 4; tick++ {
		if gone := receive(tick, tick == 4); !slices.Equal(gone, want) {
			t.Fatalf("tick %d despawned %v, want %v", tick, gone, want)
		}
	}
	// Tick 4 carried them and is acknowledged.
	if gone := receive(5, true); len(gone) != 0 {
		t.Fatalf("tick 5 despawned %v again", gone)
	}
	for id, ok := range alive {
		if ok && (id < 56 || id > 66) {
			t.Fatalf("the client still draws entity %d", id)
		}
	}
	if st, _ := s.Stats(1); st.AckedTick != 5 || st.Incomplete < 3 {
		t.Fatalf("acknowledged tick %d, %d incomplete", st.AckedTick, st.Incomplete)
	}
}

// A huge finite radius sees what it says: every entity, however far, and
// not an empty view from an overflow converting it to cells.
func TestInterestHugeRadius(t *testing.T) {
	for _, dims := range []int{2, 3} {
		s := newServer(t, SessionConfig{Interest: &InterestConfig{CellSize: 25, Dims: dims}})
		s.Connect(1)
		c := newTestClient(t, wire.Config{})
		s.BeginTick(1)
		lineWorld(t, s, 50)
		far := wire.Entity{NetID: 51, Pos: mgl32.Vec3{-1e6, 1e6, 1e6}}
		if err := s.SetEntity(far); err != nil {
			t.Fatal(err)
		}
		for _, radius := range []float32{math.MaxFloat32, 1e30, 1e12} {
			if err := s.SetView(1, View{Radius: radius}); err != nil {
				t.Fatal(err)
			}
			deliverTick(t, s, c)
			if got := held(c); len(got) != 51 {
				t.Fatalf("dims %d, radius %g: holds %d entities, want 51", dims, radius, len(got))
			}
			s.BeginTick(s.Tick() + 1)
		}
	}
}

// An entity that leaves, re-enters and is left out (by the budget or the
// Filter) before it leaves again is still despawned on a client that holds
// it from a tick it did not acknowledge: its re-entry does not forget that
// the client may hold it.
func TestReenteredDeferredIsDespawned(t *testing.T) {
	// NetID 2 is never sent, so that no tick is complete and the client
	// cannot sweep what a tick does not name; 51 is left out at tick 4.
	filter := func(_ ClientID, netID uint32, tick uint32) bool {
		return netID != 2 && (netID != 51 || tick != 4)
	}
	s := newServer(t, SessionConfig{Interest: &InterestConfig{CellSize: 25}, Filter: filter})
	s.Connect(1)
	c := newTestClient(t, wire.Config{})
	alive := map[uint32]bool{} // what the client draws
	// step runs a tick with the view at x, delivering its packets or not
	// and acknowledging them or not.
	step := func(tick uint32, x float32, deliver, ack bool) {
		t.Helper()
		s.BeginTick(tick)
		if tick == 1 {
			lineWorld(t, s, 100)
		}
		if err := s.SetView(1, View{Pos: mgl32.Vec3{x, 0, 0}, Radius: 15}); err != nil {
			t.Fatal(err)
		}
		packets, err := s.Snapshot(1, tick, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !deliver {
			return
		}
		for _, p := range packets {
			c.receive(p, tick)
			for _, e := range c.entities {
				alive[e.NetID] = e.Flags&wire.Despawn == 0
			}
		}
		if ack {
			if err := s.Receive(1, c.ack(t, tick), tick); err != nil {
				t.Fatal(err)
			}
		}
	}
	step(1, 0, true, true)    // 1 and 3 (2 is filtered)
	step(2, 500, true, false) // 51 enters (50 and 52 with it); not acknowledged
	if !alive[51] {
		t.Fatal("entity 51 did not enter")
	}
	step(3, 0, false, false) // 51 leaves; its despawn is lost
	step(4, 500, true, true) // 51 re-enters, left out
	step(5, 0, true, true)   // 51 leaves again
	for tick := uint32(6); tick <= 8; tick++ {
		step(tick, 0, true, true)
	}
	for id, ok := range alive {
		if ok && id > 3 {
			t.Fatalf("the client still draws entity %d", id)
		}
	}
}

// droppedByInsert is dropped as it was, one sorted insert per departure:
// the reference the merge must match.
func droppedByInsert(gone []leftEntry, old, next []relEntry, limit int) ([]leftEntry, int) {
	refused := 0
	for _, o := range old {
		if !o.sent || slices.ContainsFunc(next, func(e relEntry) bool { return e.netID == o.netID }) {
			continue
		}
		at, found := slices.BinarySearchFunc(gone, o.netID, cmpLeft)
		switch {
		case found:
			gone[at] = leftEntry{netID: o.netID}
		case len(gone) < limit:
			gone = slices.Insert(gone, at, leftEntry{netID: o.netID})
		default:
			refused++
		}
	}
	return gone, refused
}

// Thousands leaving at once (and some leaving again) end in c.gone as one
// sorted insert each would leave them; past Wire.MaxEntities entries they
// are counted, not kept.
func TestDroppedMergesDepartures(t *testing.T) {
	const limit = 6000
	s := newServer(t, SessionConfig{Wire: wire.Config{MaxEntities: limit}})
	s.Connect(1)
	c, err := s.peer(1)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var want []leftEntry
	refused := 0
	for round := range 6 {
		// A relevant set of up to 4000 of 20000 NetIDs, sent but for some,
		// and a next one keeping a few of them.
		var old, next []relEntry
		for id := uint32(1); id <= 20000; id++ {
			if rng.IntN(5) == 0 {
				old = append(old, relEntry{netID: id, priority: priority{sent: rng.IntN(10) > 0}})
				if rng.IntN(10) == 0 {
					next = append(next, relEntry{netID: id})
				}
			}
		}
		// Some left before and were acknowledged as despawned or not.
		for i := range c.gone {
			c.gone[i].hasDespawned = rng.IntN(2) == 0
		}
		want = append(want[:0], c.gone...)
		var n int
		want, n = droppedByInsert(want, old, next, limit)
		refused += n
		s.dropped(c, old, next)
		if !slices.Equal(c.gone, want) {
			t.Fatalf("round %d: %d entries, want %d (or the same count, different entries)", round, len(c.gone), len(want))
		}
		if c.stats.LeftUntracked != uint64(refused) {
			t.Fatalf("round %d: LeftUntracked %d, want %d", round, c.stats.LeftUntracked, refused)
		}
	}
	if refused == 0 || len(c.gone) != limit {
		t.Fatalf("the limit was not reached: %d entries, %d refused", len(c.gone), refused)
	}
}

// A view that jumps away from thousands of entities despawns every one of
// them on the client.
func TestThousandsLeaveAtOnce(t *testing.T) {
	const n = 5000
	s := newServer(t, SessionConfig{Interest: &InterestConfig{}})
	s.Connect(1)
	c := newTestClient(t, wire.Config{})
	s.BeginTick(1)
	lineWorld(t, s, n)
	s.SetView(1, View{Radius: 10 * n})
	deliverTick(t, s, c)
	if got := len(held(c)); got != n {
		t.Fatalf("holds %d, want %d", got, n)
	}
	s.BeginTick(2)
	s.SetView(1, View{Pos: mgl32.Vec3{-1e6, 0, 0}, Radius: 10})
	packets, err := s.Snapshot(1, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	despawns := 0
	for _, p := range packets {
		c.receive(p, 2)
		for _, e := range c.entities {
			if e.Flags&wire.Despawn != 0 {
				despawns++
			}
		}
	}
	if got := held(c); despawns != n || len(got) != 0 {
		t.Fatalf("%d despawns, still holds %d", despawns, len(got))
	}
}

// A flood of departures (interest turned back on after every entity was
// relevant: thousands of despawns, repeated until a client behind a
// three-tick round trip acknowledges them) does not starve the entities
// still relevant: each moving one still gets a record at least every
// MaxInterval, and once the despawns are acknowledged the snapshots are
// back within the budget.
func TestDepartureFloodDoesNotStarve(t *testing.T) {
	const (
		n      = 5000
		budget = 32_000
		off    = 20 // interest turned off at this tick
		on     = 80 // and back on
	)
	s := newServer(t, SessionConfig{Interest: &InterestConfig{}, Budget: BudgetConfig{BytesPerSecond: budget}})
	s.Connect(1)
	c := newTestClient(t, wire.Config{})
	last := map[uint32]uint32{} // the tick of each held entity's last record
	worst, flood := uint32(0), 0
	var acks [][]byte
	for tick := uint32(1); tick <= 160; tick++ {
		s.BeginTick(tick)
		for k := range n { // a 100 x 50 grid, every entity moving 4 units/s
			pos := mgl32.Vec3{float32(k%100)*10 + float32(tick)*0.2, float32(k/100) * 10, 0}
			if err := s.SetEntity(wire.Entity{NetID: uint32(k + 1), Pos: pos}); err != nil {
				t.Fatal(err)
			}
		}
		s.SetView(1, View{Pos: mgl32.Vec3{200, 200, 0}, Radius: 100})
		switch tick {
		case off:
			s.SetInterest(1, false)
		case on:
			s.SetInterest(1, true)
		}
		bytes := snapshotTo(t, s, c, tick, func() {
			for _, e := range c.entities {
				switch {
				case e.Flags&wire.Despawn != 0:
					delete(last, e.NetID)
					if tick >= on {
						flood++
					}
				case tick >= on:
					if l, ok := last[e.NetID]; ok {
						worst = max(worst, tick-l)
					}
					fallthrough
				default:
					last[e.NetID] = tick
				}
			}
		})
		if tick > on+6 && bytes > 2*budget/20 {
			t.Errorf("tick %d: %d bytes, want the flood over and at most two ticks' budget", tick, bytes)
		}
		acks = append(acks, c.ack(t, tick*50))
		if len(acks) > 3 { // a three-tick round trip
			if err := s.Receive(1, acks[0], tick*50); err != nil {
				t.Fatal(err)
			}
			acks = acks[1:]
		}
	}
	if flood < 4000 {
		t.Fatalf("%d despawns after interest came back on, want a flood of thousands", flood)
	}
	if maxWait := uint32(10); worst > maxWait { // 500 ms at 20 Hz
		t.Fatalf("a relevant entity waited %d ticks for a record during the flood, want at most %d", worst, maxWait)
	}
	t.Logf("%d despawns; longest wait of a relevant entity %d ticks", flood, worst)
}

// A client held back from full snapshots (it acknowledges no tick) still
// has its relevant set rebuilt: its turn to rebuild could fall on held
// ticks only, and an entity that walked into its view was never sent.
func TestHeldClientSeesEntitiesEnter(t *testing.T) {
	for _, id := range []ClientID{1, 2} { // the two phases of the staggered rebuild
		s := newServer(t, SessionConfig{TickRate: 20, Interest: &InterestConfig{}})
		if err := s.Connect(id); err != nil {
			t.Fatal(err)
		}
		if err := s.SetView(id, View{Radius: 50}); err != nil {
			t.Fatal(err)
		}
		c := newTestClient(t, wire.Config{})
		seen := uint32(0)
		for tick := uint32(1); tick <= 200 && seen == 0; tick++ {
			if err := s.BeginTick(tick); err != nil {
				t.Fatal(err)
			}
			x := float32(1000)
			if tick > 100 {
				x = 10 // walks into view at tick 101 and stays
			}
			if err := s.SetEntity(wire.Entity{NetID: 1, Pos: mgl32.Vec3{x, 0, 0}}); err != nil {
				t.Fatal(err)
			}
			packets, err := s.Snapshot(id, tick*50, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range packets {
				c.receive(p, tick*50)
				for _, e := range c.entities {
					if e.NetID == 1 {
						seen = tick
					}
				}
			}
		}
		// Full snapshots a second apart, at most: it is sent within one.
		if st, _ := s.Stats(id); seen == 0 || seen > 101+20 {
			t.Errorf("client %d (held %d ticks): the entity that came into view at tick 101 was first sent at tick %d", id, st.FullHeld, seen)
		}
	}
}

// A client at 60 Hz under a budget that keeps every snapshot incomplete
// (so that no tick sweeps what the client holds), on a link losing 10%
// with an 80 ms round trip, loses every packet both ways for 40 or 200
// ticks, longer than Wire.History (32), while the
// entities it held leave its view (the view jumps) or die. Their despawns
// must still reach it once it hears the server again, within 2 s: a
// despawn stops being sent only after the client acknowledged packets
// sent after it Wire.History times. When the count ran in ticks since the
// first despawn, a 40-tick outage left 344 entities drawn for good.
func TestDespawnsOutlastAnOutage(t *testing.T) {
	const rate, n, at = 60, 2000, 300
	for _, died := range []bool{false, true} {
		for _, outage := range []uint32{40, 200} {
			s := budgetedViewer(t, rate)
			c := newTestClient(t, wire.Config{})
			rng := rand.New(rand.NewPCG(uint64(outage), 7)) // 10% of packets lost outside the outage
			var acks [][]byte
			live := map[uint32]bool{}
			// stale reports whether the client should no longer hold id:
			// the 300 that die, or the 1000 the view leaves.
			stale := func(id uint32) bool { return id <= 300 || (!died && id <= 1000) }
			cleared := uint32(0)
			for tick := uint32(1); tick <= at+outage+240; tick++ {
				now := tick * 1000 / rate
				if err := s.BeginTick(tick); err != nil {
					t.Fatal(err)
				}
				for k := range n {
					if died && tick >= at && k < 300 {
						continue
					}
					// 1000 around the origin, 1000 around x = 1000, drifting.
					x := float32(k%1000%40)*4 + float32(tick)*0.01 - 80
					if k >= 1000 {
						x += 1000
					}
					if err := s.SetEntity(wire.Entity{NetID: uint32(k + 1), Pos: mgl32.Vec3{x, float32(k%1000/40)*4 - 50, 0}}); err != nil {
						t.Fatal(err)
					}
				}
				if tick == at {
					if died {
						for k := range 300 {
							s.Despawn(uint32(k + 1))
						}
					} else if err := s.SetView(1, View{Pos: mgl32.Vec3{1000, 0, 0}, Radius: 100}); err != nil {
						t.Fatal(err)
					}
				}
				packets, err := s.Snapshot(1, now, nil)
				if err != nil {
					t.Fatal(err)
				}
				if tick >= at && tick < at+outage {
					continue // the outage: nothing either way
				}
				for _, p := range packets {
					if rng.Float64() < 0.1 {
						continue
					}
					c.receive(p, now)
					for _, e := range c.entities {
						live[e.NetID] = e.Flags&wire.Despawn == 0
					}
				}
				// Acknowledged 5 ticks later (a round trip of about 80 ms).
				acks = append(acks, c.ack(t, now))
				if len(acks) > 5 {
					if err := s.Receive(1, acks[0], now); err != nil {
						t.Fatal(err)
					}
					acks = acks[1:]
				}
				if tick == at-1 || cleared == 0 && tick >= at+outage {
					held := 0
					for id, ok := range live {
						if ok && stale(id) {
							held++
						}
					}
					switch {
					case tick == at-1 && held < 300:
						t.Fatalf("before the outage the client holds %d of the entities, too few to test", held)
					case tick >= at+outage && held == 0:
						cleared = tick
					}
				}
			}
			st, _ := s.Stats(1)
			name := map[bool]string{false: "left the view", true: "died"}[died]
			t.Logf("%s, outage of %d ticks: despawned on the client %d ticks after it (%d of %d snapshots complete)",
				name, outage, int(cleared)-int(at+outage), st.Snapshots-st.Incomplete, st.Snapshots)
			if cleared == 0 || cleared > at+outage+2*rate {
				t.Errorf("%s, outage of %d ticks: the client still drew them 2 s after it", name, outage)
			}
		}
	}
}

// budgetedViewer returns a session of rate ticks a second with interest
// management and a budget of 32 kB/s, and client 1 connected, looking
// from the origin with a radius of 100.
func budgetedViewer(t *testing.T, rate float64) *Session {
	t.Helper()
	s := newServer(t, SessionConfig{TickRate: rate, Interest: &InterestConfig{}, Budget: BudgetConfig{BytesPerSecond: 32000}})
	if err := s.Connect(1); err != nil {
		t.Fatal(err)
	}
	if err := s.SetView(1, View{Radius: 100}); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestMassDepartureClearsInARoundTrip jumps a budgeted client's view away
// from 4,900 entities it holds: their despawns take a few ticks of its
// budget, and the client must be rid of them within that and about one
// round trip, not one round trip per tick's worth of despawns (the same
// first despawns resent every tick until acknowledged).
func TestMassDepartureClearsInARoundTrip(t *testing.T) {
	const rate, side, at = 20, 70, 200
	for _, tc := range []struct {
		rtt  uint32 // ticks
		loss float64
	}{{1, 0}, {10, 0}, {25, 0}, {1, 0.1}, {10, 0.1}, {25, 0.1}} { // 50 ms, 500 ms, 1.25 s
		rtt := tc.rtt
		rng := rand.New(rand.NewPCG(uint64(rtt), 3))
		s := budgetedViewer(t, rate)
		c := newTestClient(t, wire.Config{})
		live := map[uint32]bool{}
		var acks [][]byte
		cleared := uint32(0)
		for tick := uint32(1); tick <= at+200 && cleared == 0; tick++ {
			now := tick * 1000 / rate
			if err := s.BeginTick(tick); err != nil {
				t.Fatal(err)
			}
			// A 140-unit square of entities 2 units apart, drifting.
			for k := range side * side {
				p := mgl32.Vec3{float32(k%side)*2 - 70 + float32(tick)*0.01, float32(k/side)*2 - 70, 0}
				if err := s.SetEntity(wire.Entity{NetID: uint32(k + 1), Pos: p}); err != nil {
					t.Fatal(err)
				}
			}
			if tick == at {
				if err := s.SetView(1, View{Pos: mgl32.Vec3{1000, 0, 0}, Radius: 100}); err != nil {
					t.Fatal(err)
				}
			}
			packets, err := s.Snapshot(1, now, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range packets {
				if rng.Float64() < tc.loss {
					continue
				}
				c.receive(p, now)
				for _, e := range c.entities {
					live[e.NetID] = e.Flags&wire.Despawn == 0
				}
			}
			acks = append(acks, c.ack(t, now))
			if uint32(len(acks)) >= rtt {
				if err := s.Receive(1, acks[0], now); err != nil {
					t.Fatal(err)
				}
				acks = acks[1:]
			}
			held := 0
			for _, ok := range live {
				if ok {
					held++
				}
			}
			switch {
			case tick == at-1 && held < side*side:
				t.Fatalf("round trip %d ticks, loss %v: before the jump the client holds %d of %d entities", rtt, tc.loss, held, side*side)
			case tick >= at && held == 0:
				cleared = tick
			}
		}
		st, _ := s.Stats(1)
		t.Logf("round trip of %d ticks, loss %v: the client was rid of %d entities %d ticks after its view left them (%d B sent)",
			rtt, tc.loss, side*side, int(cleared)-at, st.BytesSent)
		// 14.7 kB of despawns take about 10 ticks of the budget.
		if limit := at + 20 + rtt; cleared == 0 || cleared > limit {
			t.Errorf("round trip of %d ticks, loss %v: the client was rid of them at tick %d, want by %d", rtt, tc.loss, cleared, limit)
		}
	}
}

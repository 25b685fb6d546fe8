package server

import (
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/netsmooth/netsmooth/wire"
)

// A client that acknowledges snapshot ticks (so it gets deltas) but never
// acknowledges a snapshot packet in its headers makes every record it was
// sent count as lost a round trip later: each entity then waits "from when
// it started waiting before" and is at once past MaxInterval again. Its
// fullest second stays within half a budget of the budget.
func TestClientAckingNoPacketStaysInBudget(t *testing.T) {
	const tickRate = 20
	n, rate := 1000, 16000
	run := func(hostile bool) (worst int) {
		s := newServer(t, SessionConfig{TickRate: tickRate, Budget: BudgetConfig{BytesPerSecond: rate}})
		s.Connect(1)
		s.SetView(1, View{Radius: 300})
		c := newTestClient(t, wire.Config{})
		var perTick []int
		for tick := uint32(1); tick <= 400; tick++ {
			s.BeginTick(tick)
			swarm(t, s, n, tick)
			perTick = append(perTick, snapshotTo(t, s, c, tick, nil))
			var pkt []byte
			if hostile {
				// An honest-looking input packet acking the tick, whose header
				// acknowledges no packet.
				p := wire.InputPacket{FirstSeq: c.firstUn}
				p.AckedTick, p.HasAckedTick = c.dec.Acked()
				h := wire.Header{Seq: c.seq, Sent: tick * 50}
				c.seq++
				var err error
				if pkt, err = wire.AppendInput(nil, &h, &p, nil); err != nil {
					t.Fatal(err)
				}
			} else {
				pkt = c.ack(t, tick*50+10)
			}
			if err := s.Receive(1, pkt, tick*50+10); err != nil {
				t.Fatal(err)
			}
		}
		for i := 2 * tickRate; i+tickRate <= len(perTick); i++ {
			sum := 0
			for _, b := range perTick[i : i+tickRate] {
				sum += b
			}
			worst = max(worst, sum)
		}
		return worst
	}
	honest, hostile := run(false), run(true)
	t.Logf("fullest second: honest client %d B, client acking no packet %d B (budget %d B/s)", honest, hostile, rate)
	if hostile > rate*3/2 {
		t.Fatalf("a client that acknowledges no packet is sent %d B in a second, budget %d B/s", hostile, rate)
	}
}

// A game that spawns and despawns short-lived entities (projectiles) has
// a hostile client that never acknowledges a snapshot tick: it pins
// no despawn in the session's graves beyond Wire.History ticks, and the
// despawns it is sent again and again stay within its budget.
func TestClientAckingNoTickPinsNoGraves(t *testing.T) {
	const tickRate, rate, shots = 20, 16000, 10
	s := newServer(t, SessionConfig{TickRate: tickRate, Budget: BudgetConfig{BytesPerSecond: rate}})
	s.Connect(1) // honest
	s.Connect(2) // hostile
	honest := newTestClient(t, wire.Config{})
	hostile := newTestClient(t, wire.Config{})
	next := uint32(1000)
	perTick := map[ClientID][]int{}
	for tick := uint32(1); tick <= 600; tick++ {
		s.BeginTick(tick)
		swarm(t, s, 100, tick)
		for k := range uint32(shots) { // this tick's projectiles
			s.SetEntity(wire.Entity{NetID: next + k, Pos: mgl32.Vec3{float32(k), float32(tick % 50), 0}})
		}
		if tick > 5 { // those of 5 ticks ago hit something
			for k := range uint32(shots) {
				s.Despawn(next - 5*shots + k)
			}
		}
		next += shots
		for id, c := range map[ClientID]*testClient{1: honest, 2: hostile} {
			packets, err := s.Snapshot(id, tick*50, nil)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, p := range packets {
				n += len(p)
				c.receive(p, tick*50)
			}
			perTick[id] = append(perTick[id], n)
			var pkt []byte
			if id == 1 {
				pkt = c.ack(t, tick*50+10)
			} else {
				// Acknowledges its packets in the header, but never a tick.
				p := wire.InputPacket{FirstSeq: c.firstUn}
				h := wire.Header{Seq: c.seq, Sent: tick * 50}
				c.seq++
				c.receipts.Stamp(&h, tick*50)
				pkt, err = wire.AppendInput(nil, &h, &p, nil)
				if err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Receive(id, pkt, tick*50+10); err != nil {
				t.Fatal(err)
			}
		}
	}
	sec := func(id ClientID) int {
		sum := 0
		for _, b := range perTick[id][len(perTick[id])-tickRate:] {
			sum += b
		}
		return sum
	}
	s.mu.Lock()
	graves := len(s.graves)
	s.mu.Unlock()
	t.Logf("graves held: %d; last second: honest %d B, hostile %d B (budget %d B/s)", graves, sec(1), sec(2), rate)
	if most := (s.cfg.Wire.History + 1) * shots; graves > most { // the last History ticks' despawns
		t.Errorf("the session holds %d despawns, pinned by a client that acknowledges no tick", graves)
	}
	if sec(2) > rate*3/2 {
		t.Errorf("the client that acknowledges no tick was sent %d B in the last second, budget %d B/s", sec(2), rate)
	}
}

// The same with interest management: the entities that leave the view of
// a client that acknowledges no tick are despawned again for Wire.History
// ticks at most, within its budget, and then forgotten.
func TestClientAckingNoTickGetsDeparturesInBudget(t *testing.T) {
	const tickRate, rate = 20, 16000
	s := newServer(t, SessionConfig{TickRate: tickRate, Interest: &InterestConfig{}, Budget: BudgetConfig{BytesPerSecond: rate}})
	s.Connect(1)
	c := newTestClient(t, wire.Config{})
	var perTick []int
	for tick := uint32(1); tick <= 600; tick++ {
		s.BeginTick(tick)
		if tick == 1 {
			for k := range 4000 { // a road of still entities, one a unit
				s.SetEntity(wire.Entity{NetID: uint32(k + 1), Pos: mgl32.Vec3{float32(k), 0, 0}})
			}
		}
		s.SetView(1, View{Pos: mgl32.Vec3{float32(tick) * 5, 0, 0}, Radius: 50}) // the player walks the road
		perTick = append(perTick, snapshotTo(t, s, c, tick, nil))
		p := wire.InputPacket{FirstSeq: c.firstUn} // acknowledges its packets, never a tick
		h := wire.Header{Seq: c.seq, Sent: tick * 50}
		c.seq++
		c.receipts.Stamp(&h, tick*50)
		pkt, err := wire.AppendInput(nil, &h, &p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Receive(1, pkt, tick*50+10); err != nil {
			t.Fatal(err)
		}
	}
	sum := 0
	for _, b := range perTick[len(perTick)-tickRate:] {
		sum += b
	}
	s.mu.Lock()
	gone := len(s.clients[1].gone)
	s.mu.Unlock()
	t.Logf("departures held: %d; last second: %d B (budget %d B/s)", gone, sum, rate)
	if gone > 1000 {
		t.Errorf("%d departures held for a client that acknowledges no tick, want those of the last History ticks", gone)
	}
	if sum > rate*3/2 {
		t.Errorf("a client that acknowledges no tick was sent %d B in the last second, budget %d B/s", sum, rate)
	}
}

// A client that acknowledges no tick is sent a full snapshot, the whole
// of what is relevant to it, whenever it has no baseline. One that never
// acknowledges one (it asks for a resync every 9 s, to look alive), and
// one that acknowledges a tick and asks for a resync by turns (and every
// packet it receives, as a client that receives its full snapshots
// only in part does), are sent
// full snapshots every tick for a second only, then at most about one a
// second, where they were sent one every tick; an honest client beside
// them is sent deltas throughout. With AllowNoDelta the session sends
// the whole world every tick, as before.
func TestClientAcknowledgingNoTickIsNotSentTheWorldEveryTick(t *testing.T) {
	const n, ticks, tickRate = 2000, 200, 20 // 10 s
	run := func(allow bool) (honest ClientStats, hostile [2]ClientStats, sent [3]int) {
		s := newServer(t, SessionConfig{TickRate: tickRate, AllowNoDelta: allow})
		honestClient := newTestClient(t, wire.Config{})
		for id := ClientID(1); id <= 3; id++ {
			if err := s.Connect(id); err != nil {
				t.Fatal(err)
			}
		}
		seq := [4]uint16{}
		var heard wire.Receipts // client 3's: it acknowledges the packets it receives
		send := func(id ClientID, p wire.InputPacket, now uint32) {
			h := wire.Header{Seq: seq[id], Sent: now}
			if id == 3 {
				heard.Stamp(&h, now)
			}
			seq[id]++
			b, err := wire.AppendInput(nil, &h, &p, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Receive(id, b, now); err != nil {
				t.Fatal(err)
			}
		}
		for tick := uint32(1); tick <= ticks; tick++ {
			now := tick * 1000 / tickRate
			if err := s.BeginTick(tick); err != nil {
				t.Fatal(err)
			}
			for k := range n {
				e := circle(k, 0, false)
				if k < 10 {
					e = circle(k, tick, false) // 10 of them move
				}
				if err := s.SetEntity(e); err != nil {
					t.Fatal(err)
				}
			}
			for id := ClientID(1); id <= 3; id++ {
				packets, err := s.Snapshot(id, now, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range packets {
					sent[id-1] += len(p)
					switch id {
					case 1:
						honestClient.receive(p, now)
					case 3:
						h, _, err := wire.ParseHeader(p)
						if err != nil {
							t.Fatal(err)
						}
						heard.Receive(&h, now)
					}
				}
			}
			if err := s.Receive(1, honestClient.ack(t, now+10), now+10); err != nil {
				t.Fatal(err)
			}
			if tick%180 == 1 {
				send(2, wire.InputPacket{Resync: true}, now+10)
			}
			if tick%2 == 1 {
				send(3, wire.InputPacket{AckedTick: tick, HasAckedTick: true}, now+10)
			} else {
				send(3, wire.InputPacket{Resync: true}, now+10)
			}
		}
		honest, _ = s.Stats(1)
		hostile[0], _ = s.Stats(2)
		hostile[1], _ = s.Stats(3)
		return honest, hostile, sent
	}

	honest, hostile, sent := run(false)
	t.Logf("honest: %d B, %d of %d snapshots full", sent[0], honest.FullSnapshots, honest.Snapshots)
	for i, st := range hostile {
		t.Logf("hostile %d: %d B, %d snapshots full, %d ticks held", i+1, sent[i+1], st.FullSnapshots, st.FullHeld)
		// A second's worth every tick, then one a second or fewer (the
		// gaps doubling from 2 ticks to 20): about 30 in 10 s.
		if st.FullSnapshots > 35 || st.FullSnapshots+st.FullHeld < ticks/2 {
			t.Errorf("hostile %d was sent %d full snapshots in %d ticks (%d held), want at most 35", i+1, st.FullSnapshots, ticks, st.FullHeld)
		}
		if sent[i+1] > ticks*sent[0]/2 {
			t.Errorf("hostile %d was sent %d B, honest %d B", i+1, sent[i+1], sent[0])
		}
	}
	if honest.FullSnapshots > 1 || honest.FullHeld != 0 || honest.Snapshots != ticks {
		t.Errorf("honest: %d full of %d snapshots, %d held; want 1 full and none held", honest.FullSnapshots, honest.Snapshots, honest.FullHeld)
	}
	_, allowed, allowedSent := run(true)
	if st := allowed[0]; st.FullSnapshots != ticks || st.FullHeld != 0 {
		t.Errorf("with AllowNoDelta: %d full snapshots of %d ticks, %d held; want every tick", st.FullSnapshots, ticks, st.FullHeld)
	}
	if allowedSent[1] < 5*sent[1] {
		t.Errorf("with AllowNoDelta the client that acknowledges nothing was sent %d B, without %d B: the hold saves less than expected", allowedSent[1], sent[1])
	}
}

// A round trip measured long (here 2 s, within Wire.History = 64 ticks at
// 20 Hz) no longer buys more than a second of full snapshots every tick
// after a resync.
func TestLongRoundTripFreeRunCapped(t *testing.T) {
	const rate = 20
	c := newHandClient(t, SessionConfig{TickRate: rate, Wire: wire.Config{History: 64}})
	// Acknowledges, with an echo, what was sent 40 ticks (2 s) before.
	for range 10 * rate {
		c.step(0, func(now uint32) {
			for _, l := range c.log {
				if l.tick+40 == c.tick {
					c.send(wire.Header{HasAck: true, Ack: l.seq, HasEcho: true, Echo: l.at}, wire.InputPacket{AckedTick: l.tick, HasAckedTick: true}, now)
				}
			}
		})
	}
	st, _ := c.s.Stats(1)
	if !st.HasRTT || st.RTT < 1900 {
		t.Fatalf("RTT %d (measured %v), want about 2 s", st.RTT, st.HasRTT)
	}
	c.send(wire.Header{}, wire.InputPacket{Resync: true}, c.now())
	run := 0
	for c.step(0, func(uint32) {}) {
		run++
	}
	if run > rate+1 {
		t.Errorf("after a resync with a 2 s round trip: %d full snapshots in a row, want a second's (%d) at most", run, rate)
	}
}

// A client whose round trip (here 600 ms, 12 ticks at 20 Hz) is longer
// than Wire.History ticks (8) acknowledges every tick, but too late for a
// delta against it. It is not held back like a client that acknowledges
// nothing: it is sent a full snapshot every tick, its round trip is
// measured, and its late acknowledgements are counted. One that
// acknowledges ticks sent longer ago than two seconds is held back.
func TestLongRoundTripBeyondHistoryIsServed(t *testing.T) {
	const rate = 20
	for _, c := range []struct {
		name      string
		age       uint32 // ticks between a snapshot and its acknowledgement
		served    bool
		rttAbout  uint32
		lateCount bool
	}{
		{"600 ms", 12, true, 600, true},
		{"3 s", 60, false, 0, false},
	} {
		hc := newHandClient(t, SessionConfig{TickRate: rate, Wire: wire.Config{History: 8}})
		sent := 0
		for range 10 * rate {
			if hc.step(50, hc.ackAged(c.age)) {
				sent++
			}
		}
		st, _ := hc.s.Stats(1)
		t.Logf("%s: %d snapshots in %d ticks (%d full, %d held), %d late acknowledgements, RTT %d ms (measured %v)",
			c.name, sent, 10*rate, st.FullSnapshots, st.FullHeld, st.LateAcks, st.RTT, st.HasRTT)
		if c.served {
			if st.FullHeld != 0 || sent != 10*rate {
				t.Errorf("%s: %d snapshots in %d ticks, %d held; want one every tick", c.name, sent, 10*rate, st.FullHeld)
			}
			if !st.HasRTT || st.RTT+50 < c.rttAbout || st.RTT > c.rttAbout+50 {
				t.Errorf("%s: RTT %d ms (measured %v), want about %d", c.name, st.RTT, st.HasRTT, c.rttAbout)
			}
		} else {
			if st.FullSnapshots > 35 || st.HasRTT {
				t.Errorf("%s: %d full snapshots in %d ticks, RTT measured %v; want at most 35 and none", c.name, st.FullSnapshots, 10*rate, st.HasRTT)
			}
		}
		if (st.LateAcks > 0) != c.lateCount {
			t.Errorf("%s: %d late acknowledgements counted", c.name, st.LateAcks)
		}
	}
}

// A client on a link losing 20% of packets, with 3,000 moving entities
// and no budget: each full snapshot is 30-odd parts, and hardly one
// arrives whole, so the client never holds a baseline. It acknowledges
// the packets it receives, and it is sent a full snapshot every tick,
// most of it arriving: it is not held back like a client that receives
// nothing. The same when it asks for a full snapshot in every packet, as
// client.Session does after a restart until one arrives whole: a resync
// that drops no baseline does not count against it (it was held to one
// a second, 5% of the entity updates arriving).
func TestLossyClientWithoutBaselineIsServed(t *testing.T) {
	const n, ticks, rate = 3000, 200, 20
	for _, wantFull := range []bool{false, true} {
		s := newServer(t, SessionConfig{TickRate: rate})
		if err := s.Connect(1); err != nil {
			t.Fatal(err)
		}
		c := newTestClient(t, wire.Config{})
		c.wantFull = wantFull
		rng := rand.New(rand.NewPCG(1, 2))
		parts, got := 0, 0
		for tick := uint32(1); tick <= ticks; tick++ {
			now := tick * 1000 / rate
			if err := s.BeginTick(tick); err != nil {
				t.Fatal(err)
			}
			setWorld(t, s, n, tick, false)
			packets, err := s.Snapshot(1, now, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range packets {
				if tick > rate {
					parts++
				}
				if rng.Float64() < 0.2 {
					continue
				}
				c.receive(p, now)
				if tick > rate {
					got += len(c.entities)
				}
			}
			if err := s.Receive(1, c.ack(t, now+30), now+30); err != nil {
				t.Fatal(err)
			}
		}
		st, _ := s.Stats(1)
		share := float64(got) / float64((ticks-rate)*n)
		t.Logf("asking for a full snapshot %v: %d snapshots (%d full, %d held, %d resyncs), %.1f parts each; after the first second %.0f%% of entity updates arrived",
			wantFull, st.Snapshots, st.FullSnapshots, st.FullHeld, st.Resyncs, float64(parts)/float64(ticks-rate), 100*share)
		if st.FullHeld != 0 || st.Snapshots != ticks {
			t.Errorf("asking for a full snapshot %v: %d snapshots in %d ticks, %d held; want one every tick", wantFull, st.Snapshots, ticks, st.FullHeld)
		}
		if wantFull && st.Resyncs == 0 {
			t.Errorf("the client asked for no full snapshot: the test tests nothing")
		}
		if share < 0.7 {
			t.Errorf("asking for a full snapshot %v: %.0f%% of entity updates arrived, want most", wantFull, 100*share)
		}
	}
}

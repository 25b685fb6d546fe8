package server

import (
	"testing"
	"time"

	"github.com/netsmooth/netsmooth/wire"
)

// A 60 Hz client on a 5 ms link inflates its round trip once, to about
// 2 s, by acknowledging one tick, then nothing for two seconds, then
// echoing that tick's packet. It then acknowledges every tick again (on
// deltas) but sends no echo. Each tick it acknowledges bounds its round
// trip by the tick's age, so the 2 s does not stick, and it is clamped
// like an honest client, instead of rewinding 2 s for good.
func TestForgedRoundTripDoesNotStick(t *testing.T) {
	const rate = 60
	hc := newHandClient(t, SessionConfig{TickRate: rate, History: &HistoryConfig{Window: 3 * time.Second}})
	if err := hc.s.Assign(1, 1); err != nil {
		t.Fatal(err)
	}
	newest := func() handPacket { return hc.log[len(hc.log)-1] }
	find := func(tick uint32) handPacket {
		for _, l := range hc.log {
			if l.tick == tick {
				return l
			}
		}
		t.Fatalf("tick %d not sent", tick)
		return handPacket{}
	}
	// Phase 1: honest, 2 s.
	for range 2 * rate {
		hc.step(2, func(now uint32) {
			n := newest()
			hc.send(wire.Header{HasAck: true, Ack: n.seq, HasEcho: true, Echo: n.at},
				wire.InputPacket{AckedTick: n.tick, HasAckedTick: true}, now+5)
		})
	}
	st, _ := hc.s.Stats(1)
	t.Logf("honest phase: RTT %d ms", st.RTT)
	// Phase 2: tick A acknowledged, then silence on ticks and packets (it
	// keeps sending input packets) for 119 ticks.
	a := hc.tick + 1
	hc.step(2, func(now uint32) {
		hc.send(wire.Header{}, wire.InputPacket{AckedTick: a, HasAckedTick: true}, now+5)
	})
	for range 118 {
		hc.step(2, func(now uint32) { hc.send(wire.Header{}, wire.InputPacket{}, now+5) })
	}
	pa := find(a)
	hc.step(2, func(now uint32) {
		hc.send(wire.Header{HasAck: true, Ack: pa.seq, HasEcho: true, Echo: pa.at}, wire.InputPacket{}, now)
	})
	st, _ = hc.s.Stats(1)
	t.Logf("after the forged echo: RTT %d ms (full %d, held %d)", st.RTT, st.FullSnapshots, st.FullHeld)
	// Phase 3: 30 s of deltas, acknowledging every tick and packet, no echo.
	before := st.FullSnapshots
	for range 30 * rate {
		hc.step(2, func(now uint32) {
			n := newest()
			hc.send(wire.Header{HasAck: true, Ack: n.seq}, wire.InputPacket{AckedTick: n.tick, HasAckedTick: true}, now+5)
		})
	}
	st, _ = hc.s.Stats(1)
	r, err := hc.s.Rewind(1, &wire.Drawn{Time: (hc.tick - 110) << 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("30 s later, on deltas (%d full snapshots in 30 s): RTT %d ms, a claim of 110 ticks back rewinds %.1f ticks, clamped %v",
		st.FullSnapshots-before, st.RTT, float64(hc.tick)-r.Tick, r.Clamped)
	if st.RTT > 100 && !r.Clamped {
		t.Errorf("a 5 ms client keeps a %d ms round trip on deltas, rewinds 110 ticks unclamped", st.RTT)
	}
}

// At 200 Hz, honest clients on round trips of 1.2 and 1.5 s (240 and 300
// ticks, under the two seconds served) are counted late on every tick
// from their first acknowledgement on: the send times kept cover two
// seconds at any tick rate (up to wire.MaxHistory ticks).
func TestFastTickRateLongRoundTripCountedLate(t *testing.T) {
	const rate = 200
	for _, age := range []uint32{240, 300} {
		hc := newHandClient(t, SessionConfig{TickRate: rate})
		for range 6 * rate {
			hc.step(1, hc.ackAged(age))
		}
		st, _ := hc.s.Stats(1)
		t.Logf("200 Hz, round trip %d ticks (%d ms): LateAcks %d, RTT %d ms (measured %v), full %d held %d",
			age, age*1000/rate, st.LateAcks, st.RTT, st.HasRTT, st.FullSnapshots, st.FullHeld)
		// Every tick from the first acknowledgement on is acknowledged late.
		if want := uint64(6*rate - age - rate); st.LateAcks < want {
			t.Errorf("round trip of %d ms (under 2 s): %d late acknowledgements counted, want over %d", age*1000/rate, st.LateAcks, want)
		}
	}
}

// A client that sends one 30-byte packet a second, acknowledging the
// newest packet it saw, and never a tick, is held back like a silent one:
// a client is taken to receive its full snapshots only if it acknowledges
// packets on a quarter of the ticks. It was sent the whole world every
// tick, about 6 times what the hold lets through.
func TestOneAcknowledgementASecondIsHeldBack(t *testing.T) {
	const n, ticks, rate = 2000, 200, 20
	for _, mode := range []string{"silent", "one ack a second"} {
		s := newServer(t, SessionConfig{TickRate: rate})
		if err := s.Connect(1); err != nil {
			t.Fatal(err)
		}
		var seq uint16
		var newest uint16
		seen := false
		bytes, pktsIn := 0, 0
		for tick := uint32(1); tick <= ticks; tick++ {
			now := tick * 1000 / rate
			if err := s.BeginTick(tick); err != nil {
				t.Fatal(err)
			}
			for k := range n {
				e := circle(k, 0, false)
				if k < 10 {
					e = circle(k, tick, false)
				}
				s.SetEntity(e)
			}
			packets, err := s.Snapshot(1, now, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range packets {
				bytes += len(p)
				h, _, _ := wire.ParseHeader(p)
				newest, seen = h.Seq, true
			}
			if tick%rate == 1 { // one packet a second
				h := wire.Header{Seq: seq, Sent: now}
				if mode != "silent" && seen {
					h.HasAck, h.Ack = true, newest
				}
				seq++
				b, _ := wire.AppendInput(nil, &h, &wire.InputPacket{}, nil)
				pktsIn++
				if err := s.Receive(1, b, now); err != nil {
					t.Fatal(err)
				}
			}
		}
		st, _ := s.Stats(1)
		t.Logf("%s: %d packets in, %.2f MB out in 10 s, %d full snapshots, %d held", mode, pktsIn, float64(bytes)/1e6, st.FullSnapshots, st.FullHeld)
		if mode != "silent" && st.FullSnapshots > 35 {
			t.Errorf("%s: %d packets sent over 10 s buy %d full snapshots (%.2f MB)", mode, pktsIn, st.FullSnapshots, float64(bytes)/1e6)
		}
	}
}

// A session configured for long round trips (History 64 at 20 Hz, 3.2 s)
// measures an honest 2.5 s round trip: the round trips served reach
// History when it is longer than two seconds. Without a measure, Rewind
// would take the round trip as 0 and the budget would count every
// record lost 3 ticks after it was sent.
func TestLongHistoryMeasuresLongRoundTrip(t *testing.T) {
	const rate, age = 20, 50 // 2.5 s
	hc := newHandClient(t, SessionConfig{TickRate: rate, Wire: wire.Config{History: 64}})
	for range 10 * rate {
		hc.step(1, hc.ackAged(age))
	}
	st, _ := hc.s.Stats(1)
	t.Logf("History 64 at 20 Hz, round trip 2.5 s: RTT %d ms (measured %v), %d full, %d deltas, %d held",
		st.RTT, st.HasRTT, st.FullSnapshots, st.Snapshots-st.FullSnapshots, st.FullHeld)
	if !st.HasRTT {
		t.Errorf("a 2.5 s round trip within History (3.2 s) is not measured")
	}
}

// A 600 ms client (History 8 at 20 Hz) sent full snapshots of several
// parts, no budget, acknowledges every tick late: its round trip is
// measured from the ticks' ages, though the packets its echoes name are
// older than the 64 whose send times the echo check keeps.
func TestLateRoundTripMeasuredWithManyParts(t *testing.T) {
	const rate, age = 20, 12
	for _, n := range []int{50, 1000} {
		hc := newHandClient(t, SessionConfig{TickRate: rate, Wire: wire.Config{History: 8}})
		parts := 0
		for range 10 * rate {
			hc.step(n, func(now uint32) {
				var last handPacket
				found := false
				for _, l := range hc.log {
					if l.tick+age == hc.tick {
						last, found = l, true
					}
				}
				if found {
					hc.send(wire.Header{HasAck: true, Ack: last.seq, HasEcho: true, Echo: last.at},
						wire.InputPacket{AckedTick: last.tick, HasAckedTick: true}, now)
				}
			})
		}
		parts = len(hc.log)
		st, _ := hc.s.Stats(1)
		t.Logf("%d entities, %.1f parts a snapshot: LateAcks %d, RTT %d ms (measured %v), held %d",
			n, float64(parts)/float64(10*rate), st.LateAcks, st.RTT, st.HasRTT, st.FullHeld)
		if !st.HasRTT {
			t.Errorf("%d entities: 600 ms round trip, acknowledged late every tick, never measured", n)
		}
	}
}

// The check that a client receives its packets survives the sequence
// number wrapping: a client acknowledging, one tick late, the newest
// packet it received and never a tick is held on no tick across 65,536
// packets.
func TestReceivingAcrossSequenceWrap(t *testing.T) {
	const rate = 20
	hc := newHandClient(t, SessionConfig{TickRate: rate})
	var prev handPacket
	for hc.tick < 12000 {
		hc.step(1000, func(now uint32) {
			if hc.tick > 1 {
				hc.send(wire.Header{HasAck: true, Ack: prev.seq}, wire.InputPacket{}, now)
			}
			prev = hc.log[len(hc.log)-1]
		})
		if len(hc.log) > 4096 {
			hc.log = append(hc.log[:0], hc.log[len(hc.log)-16:]...)
		}
	}
	st, _ := hc.s.Stats(1)
	t.Logf("%d packets sent (seq now %d), %d full, %d held", st.PacketsSent, prev.seq, st.FullSnapshots, st.FullHeld)
	if st.PacketsSent < 70000 || st.FullHeld != 0 {
		t.Errorf("%d packets, %d held", st.PacketsSent, st.FullHeld)
	}
}

// A session starting at tick 0 or just below the uint32 wrap, snapshots
// every tick or every other tick, a spectator: a 300 ms client (6 ticks
// at 20 Hz, History 4) acknowledging every tick and packet late is
// counted late, measured, and held on no tick after its first second.
func TestLateAcknowledgementEdges(t *testing.T) {
	const rate, age = 20, 6
	for _, start := range []uint32{0, 1<<32 - 100} {
		for _, every := range []uint32{1, 2} {
			for _, spectator := range []bool{false, true} {
				s := newServer(t, SessionConfig{TickRate: rate, Wire: wire.Config{History: 4}})
				var err error
				if spectator {
					err = s.ConnectSpectator(1)
				} else {
					err = s.Connect(1)
				}
				if err != nil {
					t.Fatal(err)
				}
				var log []handPacket
				var seq uint16
				heldLate := uint64(0)
				for i := uint32(0); i < 10*rate; i++ {
					tick := start + i
					now := i * 1000 / rate
					if err := s.BeginTick(tick); err != nil {
						t.Fatal(err)
					}
					s.SetEntity(wire.Entity{NetID: 1})
					if i%every == 0 {
						packets, err := s.Snapshot(1, now, nil)
						if err != nil {
							t.Fatal(err)
						}
						for _, p := range packets {
							h, _, _ := wire.ParseHeader(p)
							log = append(log, handPacket{tick, h.Seq, h.Sent})
						}
					}
					for _, l := range log {
						if l.tick+age == tick {
							h := wire.Header{Seq: seq, Sent: now, HasAck: true, Ack: l.seq, HasEcho: true, Echo: l.at}
							seq++
							b, _ := wire.AppendInput(nil, &h, &wire.InputPacket{AckedTick: l.tick, HasAckedTick: true}, nil)
							if err := s.Receive(1, b, now); err != nil {
								t.Fatal(err)
							}
						}
					}
					if i == 2*rate {
						st, _ := s.Stats(1)
						heldLate = st.FullHeld
					}
				}
				st, _ := s.Stats(1)
				t.Logf("start %d, every %d, spectator %v: %d snapshots (%d full), held %d (after 2 s: %d), late %d, RTT %d (%v)",
					start, every, spectator, st.Snapshots, st.FullSnapshots, st.FullHeld, st.FullHeld-heldLate, st.LateAcks, st.RTT, st.HasRTT)
				// Every other tick, 6 ticks are 3 sent: the acknowledged table
				// is still there when acknowledged, but is the next to go, so
				// the client gets full snapshots and is counted late too.
				if st.FullHeld != heldLate || st.LateAcks == 0 || !st.HasRTT || st.RTT != age*1000/rate {
					t.Errorf("start %d every %d spectator %v: held %d after 2 s, late %d, RTT %d (%v)", start, every, spectator, st.FullHeld-heldLate, st.LateAcks, st.RTT, st.HasRTT)
				}
			}
		}
	}
}

// A round trip of History-1 sent ticks: the tick the client acknowledges
// still has its table when acknowledged, but it is the next to go, so
// every snapshot is full; LateAcks, the sign to raise History, counts
// those acknowledgements.
func TestRoundTripOfHistoryCountsLate(t *testing.T) {
	const rate = 20
	for _, age := range []uint32{2, 3, 4} {
		hc := newHandClient(t, SessionConfig{TickRate: rate, Wire: wire.Config{History: 4}})
		for range 5 * rate {
			hc.step(1, hc.ackAged(age))
		}
		st, _ := hc.s.Stats(1)
		t.Logf("History 4, round trip %d ticks: %d of %d snapshots full, LateAcks %d", age, st.FullSnapshots, st.Snapshots, st.LateAcks)
		if st.FullSnapshots > 10 && st.LateAcks == 0 {
			t.Errorf("round trip %d ticks: %d full snapshots and no late acknowledgement counted", age, st.FullSnapshots)
		}
	}
}

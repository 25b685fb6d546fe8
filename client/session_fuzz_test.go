package client

import (
	"errors"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/wire"
)

// fuzzWire declares two custom fields: a health and a wrapping angle.
var fuzzWire = wire.Config{Quantizer: wire.Quantizer{Fields: []wire.FieldSpec{
	{Min: 0, Max: 100, Precision: 0.5},
	{Min: -180, Max: 180, Precision: 1, Wrap: true},
}}}

// fuzzServer returns the packets of a few ticks of a small world for
// client 1, assigned NetID 3: a full snapshot, then deltas.
func fuzzServer() [][]byte {
	s, _ := server.NewSession(server.SessionConfig{Wire: fuzzWire})
	s.Connect(1)
	s.Assign(1, 3)
	c, _ := NewSession(SessionConfig{Wire: fuzzWire, Inbox: systems.NewInbox(0), Fields: systems.NewFieldInbox(0)})
	var out [][]byte
	for tick := uint32(1); tick <= 3; tick++ {
		s.BeginTick(tick)
		s.SetEntity(wire.Entity{NetID: 1, Pos: mgl32.Vec3{float32(tick), 0, 0}, Flags: wire.Spawn, Fields: [wire.MaxFields]float32{100 - float32(tick), 170 + 5*float32(tick)}})
		s.SetEntity(wire.Entity{NetID: 3, State: uint16(tick)})
		s.SetEntity(wire.Entity{NetID: 4, Fields: [wire.MaxFields]float32{float32(tick)}})
		if tick == 2 {
			s.Despawn(1)
		}
		packets, _ := s.Snapshot(1, tick*50, nil)
		for _, p := range packets {
			out = append(out, append([]byte(nil), p...))
			c.Receive(p, tick*50)
		}
		c.QueueInput(tick, []byte{byte(tick)})
		in, _ := c.InputPacket(tick*50+10, nil)
		s.Receive(1, in, tick*50+20)
		s.NextInput(1, nil)
	}
	return out
}

// FuzzClientReceive: any bytes given to a client's Receive never panic,
// are refused with an error wrapping the codec's or taken (decoded,
// dropped as duplicates or for a missing baseline), keep the counters
// adding up and every message pushed counted, and leave the client able
// to take a good snapshot and build input packets.
func FuzzClientReceive(f *testing.F) {
	packets := fuzzServer()
	for _, p := range packets {
		f.Add(p, packets[len(packets)-1])
	}
	f.Add([]byte("NS"), []byte{})
	codecErrs := []error{wire.ErrTruncated, wire.ErrMagic, wire.ErrVersion, wire.ErrType, wire.ErrLimit, wire.ErrMalformed, wire.ErrRange}
	// A good full snapshot of a tick far ahead, for after the fuzzed ones.
	s, _ := server.NewSession(server.SessionConfig{Wire: fuzzWire})
	s.Connect(1)
	s.BeginTick(1 << 30)
	s.SetEntity(wire.Entity{NetID: 5})
	good, _ := s.Snapshot(1, 0, nil)
	f.Fuzz(func(t *testing.T, a, b []byte) {
		inbox, fields := systems.NewInbox(0), systems.NewFieldInbox(0)
		owns := 0
		c, err := NewSession(SessionConfig{Wire: fuzzWire, Inbox: inbox, Fields: fields, OnOwn: func(Own) { owns++ }})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Receive(packets[0], 0); err != nil {
			t.Fatal(err)
		}
		bad := 0
		for i, p := range [][]byte{a, b} {
			if err := c.Receive(p, uint32(10+i)); err != nil {
				bad++
				known := false
				for _, e := range codecErrs {
					known = known || errors.Is(err, e)
				}
				if !known {
					t.Fatalf("error wraps no codec error: %v", err)
				}
			}
		}
		st := c.Stats()
		if st.BadPackets != uint64(bad) || st.PacketsReceived != 3 {
			t.Fatalf("counters do not add up (%d refused): %+v", bad, st)
		}
		msgs, dropped := inbox.Drain(nil)
		if uint64(len(msgs))+dropped != st.Pushed || uint64(owns) != st.Own {
			t.Fatalf("%d messages in the inbox, %d own records; stats %+v", len(msgs), owns, st)
		}
		// One field message per entity state pushed, its values in range.
		states := 0
		for _, m := range msgs {
			if m.Kind != systems.Despawn && m.Kind != systems.Complete {
				states++
			}
		}
		if n := fields.Len(); n != states {
			t.Fatalf("%d field messages for %d entity states", n, states)
		}
		fms, _ := fields.Drain(nil)
		for _, fm := range fms {
			if h, a := fm.Values[0], fm.Values[1]; !(h >= 0 && h <= 100) || !(a >= -180 && a < 180) {
				t.Fatalf("field values %v out of their ranges", fm.Values)
			}
		}
		if id := c.NetID(); id == 0 && st.Reassigned == 0 {
			t.Fatalf("NetID 0 without a reassignment: %+v", st)
		}
		if st.Snapshots+st.DuplicatePackets+st.NoBaseline+st.SeqJumps+st.BadPackets != st.PacketsReceived {
			t.Fatalf("counters do not add up: %+v", st)
		}
		// Still usable: a good full snapshot of a new tick, an input packet.
		if err := c.Receive(good[0], 20); err != nil {
			t.Fatalf("a good snapshot after fuzzed ones: %v", err)
		}
		if _, err := c.InputPacket(30, nil); err != nil {
			t.Fatal(err)
		}
		c.Sync()
		c.ServerTick(40)
	})
}

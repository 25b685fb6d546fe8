package server

import (
	"errors"
	"testing"

	"github.com/netsmooth/netsmooth/wire"
)

// FuzzReceive: any bytes given to Receive never panic, are either refused
// with an error wrapping the codec's or accepted, and leave the server
// able to serve the client: the counters add up, an assigned NetID stays
// whatever the packets say, and the next snapshot and input work.
func FuzzReceive(f *testing.F) {
	for _, p := range []wire.InputPacket{
		{FirstSeq: 1, Inputs: [][]byte{{1}, {2}}},
		{HasAckedTick: true, AckedTick: 1, Resync: true, FirstSeq: 1 << 31, Inputs: [][]byte{{}, make([]byte, 64)}},
		{HasAckedTick: true, AckedTick: 2},
	} {
		b, _ := wire.AppendInput(nil, &wire.Header{Seq: 1, HasAck: true, HasEcho: true, Echo: 5}, &p, nil)
		f.Add(b, b)
	}
	f.Add([]byte("NS"), []byte{})
	drawn := wire.InputPacket{FirstSeq: 2, Inputs: [][]byte{{1}}, Drawn: []wire.Drawn{{Time: 9, Late: []wire.Late{{NetID: 3, Behind: 1, Span: 2, Back: 2}}}}}
	b, _ := wire.AppendInput(nil, &wire.Header{Seq: 2}, &drawn, nil)
	bad := append([]byte(nil), b...)
	bad[len(bad)-1] = 3 // Back 3 > Span 2: a rule of the format broken
	f.Add(b, bad)
	codecErrs := []error{wire.ErrTruncated, wire.ErrMagic, wire.ErrVersion, wire.ErrType, wire.ErrLimit, wire.ErrMalformed}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		s, _ := NewSession(SessionConfig{})
		s.Connect(1)
		s.BeginTick(1)
		s.SetEntity(wire.Entity{NetID: 1})
		s.SetEntity(wire.Entity{NetID: 3, State: 2})
		assigned := len(a)%2 == 1
		if assigned {
			s.Assign(1, 3)
		}
		if _, err := s.Snapshot(1, 0, nil); err != nil {
			t.Fatal(err)
		}
		bad := 0
		for _, p := range [][]byte{a, b} {
			err := s.Receive(1, p, 10)
			if err != nil {
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
		st, _ := s.Stats(1)
		if st.BadPackets != uint64(bad) || st.PacketsReceived != 2 {
			t.Fatalf("counted %d bad of %d, refused %d", st.BadPackets, st.PacketsReceived, bad)
		}
		if id, _ := s.Controlled(1); id != st.NetID || assigned && id != 3 || !assigned && id != 0 {
			t.Fatalf("Controlled %d, stats %+v (assigned %v)", id, st, assigned)
		}
		for range 3 {
			if _, err := s.NextInput(1, nil); err != nil {
				t.Fatal(err)
			}
		}
		s.BeginTick(2)
		if _, err := s.Snapshot(1, 20, nil); err != nil {
			t.Fatal(err)
		}
	})
}

package server

import (
	"testing"

	"github.com/netsmooth/netsmooth/wire"
)

// Steady state allocates nothing: a tick's Receive, NextInput, world
// updates and Snapshot for a client acknowledging every tick, with or
// without an entity assigned to it.
func TestSteadyStateAllocs(t *testing.T) {
	for _, assign := range []bool{false, true} {
		steadyStateAllocs(t, assign)
	}
}

func steadyStateAllocs(t *testing.T, assign bool) {
	s := newServer(t, SessionConfig{})
	s.Connect(1)
	if assign {
		s.Assign(1, 5)
	}
	c := newTestClient(t, wire.Config{})
	var dst [][]byte
	var entities []wire.Entity
	payload := []byte{1, 2}
	tick := uint32(0)
	var buf []byte
	in := wire.InputPacket{Inputs: [][]byte{payload}}
	var inBuf []byte
	step := func() {
		tick++
		// Client → server: an input acknowledging the newest tick.
		in.FirstSeq = tick
		in.AckedTick, in.HasAckedTick = c.dec.Acked()
		var err error
		if inBuf, err = wire.AppendInput(inBuf[:0], &wire.Header{Seq: uint16(tick)}, &in, nil); err != nil {
			t.Fatal(err)
		}
		if err := s.Receive(1, inBuf, tick); err != nil {
			t.Fatal(err)
		}
		if _, err := s.NextInput(1, buf); err != nil {
			t.Fatal(err)
		}
		if err := s.BeginTick(tick); err != nil {
			t.Fatal(err)
		}
		for k := range 200 {
			if err := s.SetEntity(circle(k, tick, true)); err != nil {
				t.Fatal(err)
			}
		}
		if dst, err = s.Snapshot(1, tick, dst[:0]); err != nil {
			t.Fatal(err)
		}
		for _, p := range dst {
			if _, entities, err = c.dec.Decode(p, entities[:0]); err != nil {
				t.Fatal(err)
			}
		}
	}
	buf = make([]byte, 0, 64)
	for range 3 * wire.DefaultHistory {
		step()
	}
	if n := testing.AllocsPerRun(50, step); n != 0 {
		t.Fatalf("assign %v: %v allocations per tick", assign, n)
	}
	want := uint32(0)
	if assign {
		want = 5
	}
	if st, _ := s.Stats(1); st.NetID != want || st.InputsApplied < 3*wire.DefaultHistory {
		t.Fatalf("assign %v: NetID %d, %d inputs applied", assign, st.NetID, st.InputsApplied)
	}
}

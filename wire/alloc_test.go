package wire

import (
	"errors"
	"testing"
)

// Steady state is allocation-free: encoding into the previous packets,
// decoding into a reused slice, and input packets both ways.
func TestSteadyStateAllocs(t *testing.T) {
	q := DefaultQuantizer()
	t0 := tableOf(t, q, circleWorld(1000, 0, 20, true, false))
	t1 := tableOf(t, q, circleWorld(1000, 3, 20, true, true))
	enc, _ := NewEncoder(Config{})
	dec, _ := NewDecoder(Config{})
	decodeAll(t, dec, encodeDiff(t, enc, 100, 0, nil, t0))

	var parts [][]byte
	tick := uint32(100)
	dst := make([]Entity, 0, 1000)
	step := func() {
		tick++
		if err := enc.Begin(Header{}, SnapshotInfo{Tick: tick, Delta: true, Baseline: 100, Controlled: 7, HasControlled: true}, parts); err != nil {
			t.Fatal(err)
		}
		cur := t1
		if tick%2 == 0 {
			cur = t0
		}
		if err := enc.Diff(dec.State(100), cur); err != nil {
			t.Fatal(err)
		}
		var err error
		if parts, err = enc.Finish(true, cur.Hash()); err != nil {
			t.Fatal(err)
		}
		for _, p := range parts {
			if _, dst, err = dec.Decode(p, dst[:0]); err != nil {
				t.Fatal(err)
			}
		}
		// Keep the baseline: drop the tick just completed unless it is 100.
		if tick != 100 {
			dec.history.Drop(tick)
		}
	}
	for range 2 * DefaultHistory { // warm up every table slot
		step()
	}
	if n := testing.AllocsPerRun(50, step); n != 0 {
		t.Errorf("snapshot encode+decode: %v allocs per tick", n)
	}

	in := InputPacket{HasAckedTick: true, AckedTick: 5, Resync: true, FirstSeq: 9, Inputs: [][]byte{{1}, {2}, {3}}}
	buf := make([]byte, 0, 256)
	var out InputPacket
	out.Inputs = make([][]byte, 0, 8)
	if n := testing.AllocsPerRun(100, func() {
		var err error
		if buf, err = AppendInput(buf[:0], &Header{}, &in, nil); err != nil {
			t.Fatal(err)
		}
		if _, err = DecodeInput(buf, &out, nil); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("input encode+decode: %v allocs", n)
	}
}

// Input packets with drawn records and without them, by turns, decode
// into one InputPacket without allocating: a client alternating them
// must not make the server allocate for each packet.
func TestInputDrawnAllocs(t *testing.T) {
	with := InputPacket{FirstSeq: 1, Inputs: [][]byte{{1}, {2}}, Drawn: []Drawn{{Time: 5, Late: []Late{{NetID: 2, Behind: 3}}}, {Time: 6}}}
	without := InputPacket{FirstSeq: 3, Inputs: [][]byte{{3}}}
	var packets [2][]byte
	for i, p := range []*InputPacket{&with, &without} {
		var err error
		if packets[i], err = AppendInput(nil, &Header{}, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	var out InputPacket
	decode := func() {
		for i, b := range packets {
			if _, err := DecodeInput(b, &out, nil); err != nil {
				t.Fatal(err)
			}
			if got := out.Drawn != nil; got != (i == 0) {
				t.Fatalf("packet %d: Drawn %v, want drawn records %v", i, out.Drawn, i == 0)
			}
		}
	}
	decode() // the arrays' first growth
	if n := testing.AllocsPerRun(100, decode); n != 0 {
		t.Errorf("decoding with and without drawn records by turns: %v allocs", n)
	}
	if _, err := DecodeInput(packets[0], &out, nil); err != nil || len(out.Drawn) != 2 || out.Drawn[0].Time != 5 || out.Drawn[1].Time != 6 || len(out.Drawn[0].Late) != 1 {
		t.Fatalf("drawn records %+v, %v", out.Drawn, err)
	}
}

// A snapshot that outgrows MaxParts fills its parts and stops with an
// error wrapping ErrLimit, allocating nothing: a server whose world does
// not fit must not allocate for every client every tick.
func TestFullSnapshotAllocs(t *testing.T) {
	cur := tableOf(t, DefaultQuantizer(), circleWorld(1000, 3, 20, true, true))
	enc, _ := NewEncoder(Config{MaxParts: 2})
	var parts [][]byte
	tick := uint32(0)
	step := func() {
		tick++
		if err := enc.Begin(Header{}, SnapshotInfo{Tick: tick}, parts); err != nil {
			t.Fatal(err)
		}
		if err := enc.Diff(nil, cur); !errors.Is(err, ErrLimit) || !enc.Full() {
			t.Fatalf("1000 entities in 2 parts: Diff gave %v, Full %v; want ErrLimit and full", err, enc.Full())
		}
		var err error
		if parts, err = enc.Finish(true, cur.Hash()); err != nil || len(parts) != 2 {
			t.Fatalf("Finish: %d parts, %v", len(parts), err)
		}
	}
	step()
	if n := testing.AllocsPerRun(50, step); n != 0 {
		t.Errorf("a snapshot beyond MaxParts: %v allocs per tick", n)
	}
}

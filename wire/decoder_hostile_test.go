package wire

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// A table's hash follows every change, whichever method made it.
func TestTableHashFollowsChanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	q := DefaultQuantizer()
	var tb, other Table
	for range 2000 {
		id := uint32(rng.IntN(300)) + 1
		switch rng.IntN(4) {
		case 0, 1:
			tb.Set(randomRecord(rng, q, id))
		case 2:
			tb.Delete(id)
		case 3:
			if n := tb.Len(); n == 0 || tb.recs[n-1].NetID < 1000+id {
				if err := tb.Append(randomRecord(rng, q, 1000+id)); err != nil {
					t.Fatal(err)
				}
			}
		}
		if tb.Hash() != hashOf(tb.recs...) {
			t.Fatal("hash does not follow the table")
		}
	}
	other.CopyFrom(&tb)
	if other.Hash() != tb.Hash() || tb.Hash() == 0 {
		t.Fatal("CopyFrom")
	}
	other.Reset()
	if other.Hash() != 0 {
		t.Fatal("Reset")
	}
	// One field of one record moves the hash.
	r := tb.recs[len(tb.recs)/2]
	r.Pos[2]++
	before := tb.Hash()
	tb.Set(r)
	if tb.Hash() == before {
		t.Fatal("a changed position left the hash alone")
	}
}

// The tables a decoder assembles carry the right hash, however the parts
// arrive.
func TestDecoderTablesHash(t *testing.T) {
	q := DefaultQuantizer()
	cfg := Config{MaxPacket: 300, MaxInputs: 2, MaxInputSize: 8}
	base := tableOf(t, q, circleWorld(200, 0, 20, true, false))
	cur := tableOf(t, q, circleWorld(220, 3, 20, true, true))
	cur.Delete(7)
	enc, dec := decoderAt(t, cfg, base)
	parts := encodeDiff(t, enc, 13, 10, base, cur)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, i := range rng.Perm(len(parts)) {
		if _, _, err := dec.Decode(parts[i], nil); err != nil {
			t.Fatal(err)
		}
	}
	got := dec.State(13)
	if got == nil || !got.Equal(cur) || got.Hash() != cur.Hash() || dec.Diverged() {
		t.Fatal("assembled table or its hash differs")
	}
}

// A forged "complete" snapshot of the next tick becomes a baseline the
// server does not have. The server's next delta against that tick then
// assembles to another state than the server's: the decoder notices by
// the hash, drops the forged baseline, asks for a full snapshot until one
// arrives, and is right again after it.
func TestDecoderRecoversFromForgedBaseline(t *testing.T) {
	q := DefaultQuantizer()
	t10 := tableOf(t, q, circleWorld(100, 10, 20, true, false))
	t11 := tableOf(t, q, circleWorld(100, 11, 20, true, false))
	t12 := tableOf(t, q, circleWorld(100, 12, 20, true, false))
	enc, dec := decoderAt(t, Config{}, t10)

	// The forgery: tick 11, full, complete, empty, with its own hash.
	forged := encodeDiff(t, enc, 11, 0, nil, &Table{})
	s, es, err := dec.Decode(forged[0], nil)
	if err != nil || !s.Done || len(es) != 100 {
		t.Fatalf("forgery: %+v, %d entities, %v", s, len(es), err)
	}
	if n, _ := dec.Acked(); n != 11 {
		t.Fatal("the forged tick is not the newest baseline: nothing to test")
	}
	// The server's tick 11 now counts as a duplicate, and its tick 12 is
	// a delta against its own tick 11.
	for _, p := range encodeDiff(t, enc, 11, 10, t10, t11) {
		if _, _, err := dec.Decode(p, nil); !errors.Is(err, ErrDuplicate) {
			t.Fatalf("the genuine tick 11: %v, want a duplicate", err)
		}
	}
	var diverged bool
	for _, p := range encodeDiff(t, enc, 12, 11, t11, t12) {
		s, _, err := dec.Decode(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		diverged = diverged || s.Diverged
	}
	if !diverged || !dec.Diverged() || dec.Divergences() != 1 || dec.State(11) != nil || dec.State(12) != nil {
		t.Fatalf("divergence not noticed: %v %v, tables %v %v", diverged, dec.Diverged(), dec.State(11) != nil, dec.State(12) != nil)
	}
	if n, _ := dec.Acked(); n != 10 {
		t.Fatalf("acks %d after dropping the forged tick, want the genuine 10", n)
	}
	// Deltas against the genuine tick still decode, but the decoder keeps
	// asking for a full snapshot until one arrives.
	decodeAll(t, dec, encodeDiff(t, enc, 13, 10, t10, t12))
	if !dec.Diverged() {
		t.Fatal("a delta ended the request for a full snapshot")
	}
	_, es = decodeAll(t, dec, encodeDiff(t, enc, 14, 0, nil, t12))
	if dec.Diverged() || !dec.State(14).Equal(t12) {
		t.Fatal("a full snapshot did not put the decoder right")
	}
	if len(es) != 100 {
		t.Fatalf("full snapshot gave %d entities", len(es))
	}
}

// Parts of forged far-future ticks fill every assembly slot; the genuine
// ticks that follow still complete, and the entities the forgeries named
// are despawned by the next complete tick.
func TestDecoderForgedFutureTicks(t *testing.T) {
	q := DefaultQuantizer()
	cfg := Config{}
	t10 := tableOf(t, q, circleWorld(50, 10, 20, false, false))
	enc, dec := decoderAt(t, cfg, t10)
	phantom, _ := q.Record(Entity{NetID: 900})
	for i := range dec.cfg.MaxPendingTicks {
		half := twoParts(t, enc, SnapshotInfo{Tick: 1_000_000 + uint32(i), Complete: true}, &phantom, 0)
		if _, es, err := dec.Decode(half, nil); err != nil || len(es) != 1 {
			t.Fatalf("forged half tick: %v", err)
		}
	}
	for tick := uint32(11); tick < 15; tick++ {
		var done bool
		var es []Entity
		for _, p := range encodeDiff(t, enc, tick, tick-1, t10, t10) {
			s, e, err := dec.Decode(p, nil)
			if err != nil {
				t.Fatalf("tick %d: %v", tick, err)
			}
			done, es = done || s.Done, append(es, e...)
		}
		if !done {
			t.Fatalf("genuine tick %d did not complete", tick)
		}
		if tick == 11 && (len(es) != 1 || es[0].NetID != 900 || es[0].Flags != Despawn) {
			t.Fatalf("tick 11's sweep: %+v, want the phantom despawned", es)
		}
	}
}

package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestSnapshotRoundTripFullAndDelta(t *testing.T) {
	q := DefaultQuantizer()
	enc, err := NewEncoder(Config{})
	if err != nil {
		t.Fatal(err)
	}
	dec, err := NewDecoder(Config{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := tableOf(t, q, circleWorld(1000, 0, 20, true, false))
	parts := encodeDiff(t, enc, 100, 0, nil, t0)
	if len(parts) < 2 {
		t.Fatalf("1000 entities in %d part(s), want a split", len(parts))
	}
	snaps, es := decodeAll(t, dec, parts)
	if !snaps[len(snaps)-1].Done {
		t.Fatal("last part did not complete the tick")
	}
	if len(es) != 1000 {
		t.Fatalf("decoded %d entities, want 1000", len(es))
	}
	if got := dec.State(100); got == nil || !got.Equal(t0) {
		t.Fatal("decoder's table of tick 100 differs from the encoded one")
	}
	if a, ok := dec.Acked(); !ok || a != 100 {
		t.Fatalf("Acked = %d, %v; want 100", a, ok)
	}
	for i, e := range es {
		want := q.Entity(t0.recs[i])
		if e != want {
			t.Fatalf("entity %d: got %+v, want %+v", i, e, want)
		}
	}

	t1 := tableOf(t, q, circleWorld(1000, 3, 20, true, true))
	parts = encodeDiff(t, enc, 103, 100, t0, t1)
	snaps, es = decodeAll(t, dec, parts)
	if !snaps[0].Delta || snaps[0].Baseline != 100 {
		t.Fatalf("delta info %+v", snaps[0].SnapshotInfo)
	}
	if len(es) != 500 {
		t.Fatalf("delta decoded %d entities, want the 500 that moved", len(es))
	}
	if got := dec.State(103); got == nil || !got.Equal(t1) {
		t.Fatal("decoder's table of tick 103 differs")
	}
}

func TestSnapshotEveryField(t *testing.T) {
	q := DefaultQuantizer()
	rng := rand.New(rand.NewPCG(1, 2))
	enc, _ := NewEncoder(Config{})
	dec, _ := NewDecoder(Config{})
	var base Table
	for i := range 200 {
		base.Set(randomRecord(rng, q, uint32(i*7+1)))
	}
	parts := encodeDiff(t, enc, 10, 0, nil, &base)
	decodeAll(t, dec, parts)
	// Change every field of some entity, one field of others, remove some,
	// add some.
	var cur Table
	cur.CopyFrom(&base)
	for i := range cur.recs {
		r := &cur.recs[i]
		switch i % 8 {
		case 0:
			*r = randomRecord(rng, q, r.NetID)
		case 1:
			r.Pos[i%3]++
		case 2:
			r.Vel[1] = -r.Vel[1]
			r.Flags ^= HasVelocity
		case 3:
			r.State++
		case 4:
			r.Epoch++
		case 5:
			r.Rot = q.identity()
		}
	}
	cur.Delete(base.recs[10].NetID)
	cur.Delete(base.recs[11].NetID)
	cur.Set(randomRecord(rng, q, 5000))
	cur.Set(randomRecord(rng, q, 3))
	parts = encodeDiff(t, enc, 11, 10, &base, &cur)
	_, es := decodeAll(t, dec, parts)
	if got := dec.State(11); got == nil || !got.Equal(&cur) {
		t.Fatal("delta with every field changed did not reconstruct the table")
	}
	despawns := 0
	for i, e := range es {
		if i > 0 && es[i-1].NetID >= e.NetID {
			t.Fatalf("entities not in NetID order: %d then %d", es[i-1].NetID, e.NetID)
		}
		if e.Flags&Despawn != 0 {
			despawns++
		}
	}
	if despawns != 2 {
		t.Fatalf("%d despawns, want 2", despawns)
	}
}

func TestSnapshotEvents(t *testing.T) {
	q := DefaultQuantizer()
	enc, _ := NewEncoder(Config{})
	dec, _ := NewDecoder(Config{})
	r1, _ := q.Record(Entity{NetID: 1})
	r2, _ := q.Record(Entity{NetID: 2})
	if err := enc.Begin(Header{}, SnapshotInfo{Tick: 5, InputAck: 77, HasInputAck: true}, nil); err != nil {
		t.Fatal(err)
	}
	if err := enc.Add(&r1, nil, Spawn); err != nil {
		t.Fatal(err)
	}
	if err := enc.Add(&r2, nil, Teleport|Spawn); err != nil {
		t.Fatal(err)
	}
	if err := enc.Add(&r2, nil, 0); !errors.Is(err, ErrOrder) {
		t.Fatalf("repeated NetID: %v, want ErrOrder", err)
	}
	if err := enc.Add(&Record{NetID: 9}, nil, Despawn); !errors.Is(err, ErrRange) {
		t.Fatalf("Despawn through Add: %v, want ErrRange", err)
	}
	parts, err := enc.Finish(true, hashOf(r1, r2))
	if err != nil {
		t.Fatal(err)
	}
	s, es, err := dec.Decode(parts[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	if !s.HasInputAck || s.InputAck != 77 || !s.Complete || !s.Done || s.Tick != 5 || s.Records != 2 {
		t.Fatalf("snapshot %+v", s)
	}
	if es[0].Flags != Spawn || es[1].Flags != Spawn|Teleport {
		t.Fatalf("flags %v %v", es[0].Flags, es[1].Flags)
	}
	// A zero-state entity costs its NetID gap and the mask, two bytes here
	// since events sit in the mask's second byte.
	if n := len(parts[0]) - HeaderSize - snapFixed - 4; n != 3+3 {
		t.Fatalf("two empty records took %d bytes", n)
	}
}

func TestSnapshotPartsInAnyOrder(t *testing.T) {
	q := DefaultQuantizer()
	enc, _ := NewEncoder(Config{})
	t0 := tableOf(t, q, circleWorld(600, 0, 20, true, false))
	parts := encodeDiff(t, enc, 1, 0, nil, t0)
	if len(parts) < 4 {
		t.Fatalf("%d parts", len(parts))
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for range 5 {
		dec, _ := NewDecoder(Config{})
		order := rng.Perm(len(parts))
		for k, i := range order {
			s, _, err := dec.Decode(parts[i], nil)
			if err != nil {
				t.Fatal(err)
			}
			if s.Part != i || s.Parts != len(parts) || s.Done != (k == len(parts)-1) {
				t.Fatalf("part %d (%d-th): %+v", i, k, s)
			}
		}
		if !dec.State(1).Equal(t0) {
			t.Fatal("parts in another order built another table")
		}
	}
}

func TestSnapshotSplitsAtMaxPacket(t *testing.T) {
	q := DefaultQuantizer()
	for _, size := range []int{MinPacket, 200, 1200, 9000} {
		cfg := Config{MaxPacket: size, MaxInputs: 1, MaxInputSize: 8}
		enc, err := NewEncoder(cfg)
		if err != nil {
			t.Fatal(err)
		}
		dec, _ := NewDecoder(cfg)
		t0 := tableOf(t, q, circleWorld(300, 0, 20, true, false))
		parts := encodeDiff(t, enc, 1, 0, nil, t0)
		for i, p := range parts {
			if len(p) > size {
				t.Fatalf("MaxPacket %d: part %d is %d bytes", size, i, len(p))
			}
			if h, _, _ := ParseHeader(p); h.Seq != uint16(1+i) {
				t.Fatalf("part %d has sequence %d", i, h.Seq)
			}
		}
		decodeAll(t, dec, parts)
		if !dec.State(1).Equal(t0) {
			t.Fatalf("MaxPacket %d: table differs", size)
		}
	}
}

func TestSnapshotIncompleteWhenPartsRunOut(t *testing.T) {
	q := DefaultQuantizer()
	cfg := Config{MaxPacket: 200, MaxParts: 2, MaxInputs: 1, MaxInputSize: 8}
	enc, _ := NewEncoder(cfg)
	dec, _ := NewDecoder(cfg)
	t0 := tableOf(t, q, circleWorld(100, 0, 20, false, false))
	if err := enc.Begin(Header{}, SnapshotInfo{Tick: 1}, nil); err != nil {
		t.Fatal(err)
	}
	err := enc.Diff(nil, t0)
	if !errors.Is(err, ErrLimit) || !enc.Full() {
		t.Fatalf("Diff: %v, Full %v", err, enc.Full())
	}
	sent := enc.Records()
	if sent == 0 || sent >= 100 {
		t.Fatalf("%d records sent", sent)
	}
	if err := enc.Add(&t0.recs[99], nil, 0); !errors.Is(err, ErrLimit) {
		t.Fatalf("Add after full: %v", err)
	}
	parts, err := enc.Finish(true, hashOf(t0.recs[:sent]...))
	if err != nil || len(parts) != 2 {
		t.Fatalf("%d parts, %v", len(parts), err)
	}
	snaps, es := decodeAll(t, dec, parts)
	if snaps[0].Complete || snaps[1].Complete || !snaps[1].Done || len(es) != sent {
		t.Fatalf("complete %v/%v, done %v, %d entities", snaps[0].Complete, snaps[1].Complete, snaps[1].Done, len(es))
	}
	if dec.State(1).Len() != sent {
		t.Fatal("the incomplete tick's table must hold what was sent")
	}
}

func TestSnapshotEmpty(t *testing.T) {
	enc, _ := NewEncoder(Config{})
	dec, _ := NewDecoder(Config{})
	parts := encodeDiff(t, enc, 7, 0, nil, &Table{})
	if len(parts) != 1 || len(parts[0]) != HeaderSize+snapFixed {
		t.Fatalf("empty snapshot: %d parts, %d bytes", len(parts), len(parts[0]))
	}
	s, es, err := dec.Decode(parts[0], nil)
	if err != nil || !s.Done || !s.Complete || len(es) != 0 || s.Parts != 1 {
		t.Fatalf("%+v %v %v", s, es, err)
	}
}

func TestEncoderMisuse(t *testing.T) {
	enc, _ := NewEncoder(Config{})
	if err := enc.Add(&Record{}, nil, 0); !errors.Is(err, ErrOrder) {
		t.Errorf("Add before Begin: %v", err)
	}
	if _, err := enc.Finish(true, 0); !errors.Is(err, ErrOrder) {
		t.Errorf("Finish before Begin: %v", err)
	}
	if err := enc.Begin(Header{}, SnapshotInfo{Tick: 5, Delta: true, Baseline: 5}, nil); !errors.Is(err, ErrRange) {
		t.Errorf("delta against itself: %v", err)
	}
	if err := enc.Begin(Header{}, SnapshotInfo{Tick: 5}, nil); err != nil {
		t.Fatal(err)
	}
	if err := enc.Despawn(3); err != nil {
		t.Fatal(err)
	}
	if err := enc.Despawn(3); !errors.Is(err, ErrOrder) {
		t.Errorf("despawn twice: %v", err)
	}
}

// decoderAt returns a decoder holding tick 10 = base (a full snapshot).
func decoderAt(t *testing.T, cfg Config, base *Table) (*Encoder, *Decoder) {
	t.Helper()
	enc, err := NewEncoder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := NewDecoder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	decodeAll(t, dec, encodeDiff(t, enc, 10, 0, nil, base))
	return enc, dec
}

func TestDecodeNoBaseline(t *testing.T) {
	q := DefaultQuantizer()
	t0 := tableOf(t, q, circleWorld(10, 0, 20, false, false))
	t1 := tableOf(t, q, circleWorld(10, 1, 20, false, false))
	enc, dec := decoderAt(t, Config{}, t0)
	parts := encodeDiff(t, enc, 12, 11, t0, t1) // baseline 11 was never received
	_, es, err := dec.Decode(parts[0], nil)
	if !errors.Is(err, ErrNoBaseline) || len(es) != 0 {
		t.Fatalf("%v, %d entities", err, len(es))
	}
	if n, _ := dec.Acked(); n != 10 {
		t.Fatal("acked tick moved")
	}
}

func TestDecodeDuplicates(t *testing.T) {
	q := DefaultQuantizer()
	t0 := tableOf(t, q, circleWorld(300, 0, 20, false, false))
	enc, _ := NewEncoder(Config{})
	dec, _ := NewDecoder(Config{})
	parts := encodeDiff(t, enc, 1, 0, nil, t0)
	if _, _, err := dec.Decode(parts[0], nil); err != nil {
		t.Fatal(err)
	}
	if _, es, err := dec.Decode(parts[0], nil); !errors.Is(err, ErrDuplicate) || len(es) != 0 {
		t.Fatalf("same part twice: %v", err)
	}
	decodeAll(t, dec, parts[1:])
	if _, _, err := dec.Decode(parts[1], nil); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("part of a complete tick: %v", err)
	}
}

// twoParts returns a one-record snapshot packet re-labelled as part i of 2.
func twoParts(t *testing.T, enc *Encoder, info SnapshotInfo, r *Record, i int) []byte {
	t.Helper()
	if err := enc.Begin(Header{}, info, nil); err != nil {
		t.Fatal(err)
	}
	if err := enc.Add(r, nil, 0); err != nil {
		t.Fatal(err)
	}
	parts, err := enc.Finish(info.Complete, info.Hash)
	if err != nil {
		t.Fatal(err)
	}
	p := bytes.Clone(parts[0])
	binary.LittleEndian.PutUint16(p[HeaderSize+snapPart:], uint16(i))
	binary.LittleEndian.PutUint16(p[HeaderSize+snapParts:], 2)
	return p
}

// TestDecodeContradictingPartRestartsTick: a part whose tick-wide fields
// contradict the earlier parts of its tick (a restarted or confused
// server, or garbage that got there first) starts the tick afresh: the
// latest word wins. Parts that agree must not name an entity twice.
func TestDecodeContradictingPartRestartsTick(t *testing.T) {
	q := DefaultQuantizer()
	enc, _ := NewEncoder(Config{})
	dec, _ := NewDecoder(Config{})
	r1, _ := q.Record(Entity{NetID: 1})
	r2, _ := q.Record(Entity{NetID: 2})
	if _, _, err := dec.Decode(twoParts(t, enc, SnapshotInfo{Tick: 3, Complete: true}, &r1, 0), nil); err != nil {
		t.Fatal(err)
	}
	h := hashOf(r1, r2)
	s, _, err := dec.Decode(twoParts(t, enc, SnapshotInfo{Tick: 3, Hash: h}, &r2, 1), nil)
	if err != nil || s.Done {
		t.Fatalf("a part disagreeing on Complete: %+v %v; want it taken as the start of the tick afresh", s, err)
	}
	_, _, err = dec.Decode(twoParts(t, enc, SnapshotInfo{Tick: 3, Hash: h}, &r2, 0), nil)
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "two parts") {
		t.Fatalf("NetID in two parts: %v", err)
	}
	s, _, err = dec.Decode(twoParts(t, enc, SnapshotInfo{Tick: 3, Hash: h}, &r1, 0), nil)
	if err != nil || !s.Done || s.Complete {
		t.Fatalf("the new tick's part 0: %+v %v", s, err)
	}
	recs := dec.State(3).Records()
	if len(recs) != 2 {
		t.Fatalf("tick 3 holds %d records, want the new assembly's 2", len(recs))
	}
	for _, r := range recs {
		if r.Flags != 0 {
			t.Fatalf("committed record keeps flags %v", r.Flags)
		}
	}
}

// A packet that fails anywhere leaves no trace: not in dst, not in the
// decoder.
func TestDecodeIsAtomic(t *testing.T) {
	q := DefaultQuantizer()
	t0 := tableOf(t, q, circleWorld(50, 0, 20, true, false))
	t1 := tableOf(t, q, circleWorld(50, 1, 20, true, false))
	enc, dec := decoderAt(t, Config{}, t0)
	_, ref := decoderAt(t, Config{}, t0)
	parts := encodeDiff(t, enc, 11, 10, t0, t1)
	p := parts[0]
	prefix := []Entity{{NetID: 999}}
	for cut := HeaderSize; cut < len(p); cut++ {
		_, out, err := dec.Decode(p[:cut], prefix)
		if err == nil {
			t.Fatalf("truncated at %d of %d decoded", cut, len(p))
		}
		if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrMalformed) {
			t.Fatalf("truncated at %d: %v", cut, err)
		}
		if len(out) != 1 || out[0].NetID != 999 {
			t.Fatalf("truncated at %d: dst changed to %d entities", cut, len(out))
		}
	}
	_, a := decodeAll(t, dec, parts)
	_, b := decodeAll(t, ref, parts)
	if !slices.Equal(a, b) || !dec.State(11).Equal(ref.State(11)) || len(dec.live) != len(ref.live) {
		t.Fatal("failed decodes changed the decoder")
	}
}

func TestDecodeSweepsGoneEntities(t *testing.T) {
	q := DefaultQuantizer()
	rec := func(id uint32) Record { r, _ := q.Record(Entity{NetID: id, State: 1}); return r }
	tab := func(ids ...uint32) *Table {
		var tb Table
		for _, id := range ids {
			tb.Set(rec(id))
		}
		return &tb
	}
	enc, dec := decoderAt(t, Config{}, tab(1, 2, 3))

	// Tick 11: a delta in two parts; only the part naming a new entity 5
	// arrives.
	r5 := rec(5)
	if _, es, err := dec.Decode(twoParts(t, enc, SnapshotInfo{Tick: 11, Delta: true, Baseline: 10, Complete: true}, &r5, 0), nil); err != nil || len(es) != 1 {
		t.Fatal(err)
	}
	// Tick 13 names entity 7, not yet complete.
	r7 := rec(7)
	if _, _, err := dec.Decode(twoParts(t, enc, SnapshotInfo{Tick: 13, Delta: true, Baseline: 10, Complete: true}, &r7, 0), nil); err != nil {
		t.Fatal(err)
	}
	// Tick 12, a complete delta against 10 in which 2 despawned: 5 was
	// never in a baseline and is gone too, 7 was named later and stays.
	parts := encodeDiff(t, enc, 12, 10, tab(1, 2, 3), tab(1, 3))
	s, es, err := dec.Decode(parts[0], nil)
	if err != nil || !s.Done {
		t.Fatal(err)
	}
	var despawned []uint32
	for _, e := range es {
		if e.Flags&Despawn != 0 {
			despawned = append(despawned, e.NetID)
		}
	}
	if !slices.Equal(despawned, []uint32{2, 5}) {
		t.Fatalf("despawned %v, want [2 5]", despawned)
	}

	// A full complete snapshot (the server lost the baseline) without 3:
	// 3 is reported gone; 7 too, since this tick is newer than 13.
	parts = encodeDiff(t, enc, 20, 0, nil, tab(1))
	_, es, err = dec.Decode(parts[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	despawned = despawned[:0]
	for _, e := range es {
		if e.Flags&Despawn != 0 {
			despawned = append(despawned, e.NetID)
		}
	}
	if !slices.Equal(despawned, []uint32{3, 7}) {
		t.Fatalf("despawned %v, want [3 7]", despawned)
	}
	// Nothing is swept by an incomplete tick.
	if err := enc.Begin(Header{}, SnapshotInfo{Tick: 21, Delta: true, Baseline: 20}, nil); err != nil {
		t.Fatal(err)
	}
	if err := enc.Despawn(1); err != nil {
		t.Fatal(err)
	}
	parts, _ = enc.Finish(false, 0)
	if _, es, _ = dec.Decode(parts[0], nil); len(es) != 1 || es[0].Flags != Despawn {
		t.Fatalf("incomplete tick: %+v", es)
	}
}

func TestDecodePendingLimit(t *testing.T) {
	q := DefaultQuantizer()
	cfg := Config{MaxPendingTicks: 1}
	enc, _ := NewEncoder(cfg)
	dec, _ := NewDecoder(cfg)
	r1, _ := q.Record(Entity{NetID: 1})
	r2, _ := q.Record(Entity{NetID: 2})
	dec.Decode(twoParts(t, enc, SnapshotInfo{Tick: 20}, &r1, 0), nil)
	dec.Decode(twoParts(t, enc, SnapshotInfo{Tick: 21, Hash: hashOf(r1, r2)}, &r1, 0), nil) // abandons 20
	s, es, err := dec.Decode(twoParts(t, enc, SnapshotInfo{Tick: 20}, &r2, 1), nil)
	if err != nil || s.Done || len(es) != 1 {
		t.Fatalf("late part of an abandoned tick: %+v %v", s, err)
	}
	s, _, err = dec.Decode(twoParts(t, enc, SnapshotInfo{Tick: 21, Hash: hashOf(r1, r2)}, &r2, 1), nil)
	if err != nil || !s.Done {
		t.Fatalf("tick 21: %+v %v", s, err)
	}
	if _, ok := dec.Acked(); !ok || dec.State(20) != nil {
		t.Fatal("acked")
	}
}

func TestDecodeLimits(t *testing.T) {
	q := DefaultQuantizer()
	big := tableOf(t, q, circleWorld(20, 0, 20, false, false))
	enc, _ := NewEncoder(Config{})
	parts := encodeDiff(t, enc, 1, 0, nil, big)
	dec, _ := NewDecoder(Config{MaxEntities: 10})
	if _, _, err := dec.Decode(parts[0], nil); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "MaxEntities") {
		t.Errorf("MaxEntities: %v", err)
	}
	dec, _ = NewDecoder(Config{MaxPacket: 128, MaxInputs: 1, MaxInputSize: 8})
	if _, _, err := dec.Decode(parts[0], nil); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "MaxPacket") {
		t.Errorf("MaxPacket: %v", err)
	}
	dec, _ = NewDecoder(Config{MaxParts: 1})
	p := bytes.Clone(parts[0])
	binary.LittleEndian.PutUint16(p[HeaderSize+snapParts:], 2)
	if _, _, err := dec.Decode(p, nil); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "MaxParts") {
		t.Errorf("MaxParts: %v", err)
	}
	in, _ := AppendInput(nil, &Header{}, &InputPacket{}, nil)
	if _, _, err := dec.Decode(in, nil); !errors.Is(err, ErrType) {
		t.Errorf("input packet: %v", err)
	}
}

// Fields equal to the reference must be left out: the decoder refuses a
// packet that sends one anyway.
func TestDecodeRefusesUnchangedFields(t *testing.T) {
	q := DefaultQuantizer()
	r, _ := q.Record(Entity{NetID: 1, State: 5})
	enc, _ := NewEncoder(Config{})
	dec, _ := NewDecoder(Config{})
	if err := enc.Begin(Header{}, SnapshotInfo{Tick: 1}, nil); err != nil {
		t.Fatal(err)
	}
	enc.Add(&r, nil, 0)
	parts, _ := enc.Finish(true, hashOf(r))
	p := parts[0]
	// The record is: gap 1, mask mState, state 5. Make the state 0 (the
	// zero record's).
	if p[len(p)-1] != 5 {
		t.Fatalf("layout: %v", p[len(p)-4:])
	}
	p[len(p)-1] = 0
	if _, _, err := dec.Decode(p, nil); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "state") {
		t.Fatalf("%v", err)
	}
}

// A despawn need not name an entity of the baseline: the client may know
// the entity from a tick it received only in part.
func TestDecodeDespawnOutsideBaseline(t *testing.T) {
	q := DefaultQuantizer()
	r1, _ := q.Record(Entity{NetID: 1})
	var base Table
	base.Set(r1)
	enc, dec := decoderAt(t, Config{}, &base)
	if err := enc.Begin(Header{}, SnapshotInfo{Tick: 11, Delta: true, Baseline: 10}, nil); err != nil {
		t.Fatal(err)
	}
	if err := enc.Despawn(77); err != nil {
		t.Fatal(err)
	}
	parts, _ := enc.Finish(true, base.Hash())
	s, es, err := dec.Decode(parts[0], nil)
	if err != nil || !s.Done || len(es) != 1 || es[0] != (Entity{NetID: 77, Flags: Despawn}) {
		t.Fatalf("%+v %+v %v", s, es, err)
	}
	if !dec.State(11).Equal(&base) {
		t.Fatal("the despawn of an absent entity changed the table")
	}
}

// The controlled NetID travels in every part of a tick, full or delta,
// costs its varint and nothing else, and a snapshot without it has the
// bytes it had before the field existed.
func TestSnapshotControlled(t *testing.T) {
	q := DefaultQuantizer()
	enc, _ := NewEncoder(Config{})
	dec, _ := NewDecoder(Config{})
	t0 := tableOf(t, q, circleWorld(600, 0, 20, true, false))
	t1 := tableOf(t, q, circleWorld(600, 1, 20, true, true))

	const own = 300 // a two-byte varint
	small := tableOf(t, q, circleWorld(20, 0, 20, true, false))
	plain := encodeDiff(t, enc, 1, 0, nil, small)
	if len(plain) != 1 || plain[0][HeaderSize+snapFlags]&snapControlled != 0 {
		t.Fatal("controlled bit set without HasControlled")
	}
	plainLen := len(plain[0])
	one := encodeInfo(t, enc, SnapshotInfo{Tick: 1, Controlled: own, HasControlled: true}, nil, small)
	if len(one) != 1 || len(one[0]) != plainLen+2 {
		t.Fatalf("%d bytes, %d without the controlled NetID; want 2 more", len(one[0]), plainLen)
	}

	parts := encodeInfo(t, enc, SnapshotInfo{Tick: 10, Controlled: own, HasControlled: true}, nil, t0)
	if len(parts) < 2 {
		t.Fatalf("%d parts, want a split", len(parts))
	}
	snaps, _ := decodeAll(t, dec, parts)
	for i, s := range snaps {
		if !s.HasControlled || s.Controlled != own {
			t.Fatalf("part %d: controlled %d %v, want %d", i, s.Controlled, s.HasControlled, own)
		}
	}
	if !dec.State(10).Equal(t0) {
		t.Fatal("full snapshot with a controlled NetID: table differs")
	}

	info := SnapshotInfo{Tick: 11, Delta: true, Baseline: 10, InputAck: 9, HasInputAck: true, Controlled: 0xffffffff, HasControlled: true}
	snaps, _ = decodeAll(t, dec, encodeInfo(t, enc, info, t0, t1))
	last := snaps[len(snaps)-1]
	if !last.Done || last.Controlled != 0xffffffff || !last.HasControlled || last.InputAck != 9 || last.Baseline != 10 {
		t.Fatalf("delta: %+v", last.SnapshotInfo)
	}
	if !dec.State(11).Equal(t1) {
		t.Fatal("delta with a controlled NetID: table differs")
	}

	if err := enc.Begin(Header{}, SnapshotInfo{Tick: 12, HasControlled: true}, nil); !errors.Is(err, ErrRange) {
		t.Fatalf("HasControlled with NetID 0: %v, want ErrRange", err)
	}
}

// The controlled NetID field is checked: not 0, minimal, present when
// announced, and the flag bits beyond it are still refused.
func TestDecodeControlledMalformed(t *testing.T) {
	enc, _ := NewEncoder(Config{})
	parts := encodeDiff(t, enc, 5, 0, nil, &Table{}) // header and fixed fields only
	if len(parts) != 1 || len(parts[0]) != HeaderSize+snapFixed {
		t.Fatalf("empty snapshot of %d bytes", len(parts[0]))
	}
	with := func(flags byte, tail ...byte) []byte {
		p := append(bytes.Clone(parts[0]), tail...)
		p[HeaderSize+snapFlags] |= flags
		return p
	}
	for _, c := range []struct {
		name   string
		packet []byte
		want   error
		text   string
	}{
		{"NetID 0", with(snapControlled, 0), ErrMalformed, "controlled NetID flag set with NetID 0"},
		{"missing", with(snapControlled), ErrTruncated, "controlled NetID"},
		{"cut varint", with(snapControlled, 0x81), ErrTruncated, "controlled NetID"},
		{"not minimal", with(snapControlled, 0x81, 0x00), ErrMalformed, "not minimal"},
		{"too long", with(snapControlled, 0x81, 0x80, 0x80, 0x80, 0x80, 0x01), ErrMalformed, "longer"},
		{"beyond 32 bits", with(snapControlled, 0xff, 0xff, 0xff, 0xff, 0x7f), ErrLimit, "controlled NetID"},
		{"trailing", with(snapControlled, 1, 0), ErrMalformed, "trailing bytes"},
		{"unknown bit", with(1<<4, 1), ErrMalformed, "unknown bits"},
	} {
		dec, _ := NewDecoder(Config{})
		s, es, err := dec.Decode(c.packet, nil)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) || len(es) != 0 {
			t.Errorf("%s: %v (%d entities), want %v mentioning %q", c.name, err, len(es), c.want, c.text)
		}
		if _, ok := dec.Acked(); ok {
			t.Errorf("%s: a refused packet completed a tick (%+v)", c.name, s)
		}
	}
	dec, _ := NewDecoder(Config{})
	s, _, err := dec.Decode(with(snapControlled, 0x80, 0x01), nil)
	if err != nil || !s.HasControlled || s.Controlled != 128 || !s.Done {
		t.Fatalf("a good controlled NetID: %+v %v", s, err)
	}
}

// A part that disagrees with the earlier parts of its tick on the
// controlled NetID starts the tick afresh, like any tick-wide field.
func TestDecodeContradictingControlled(t *testing.T) {
	q := DefaultQuantizer()
	enc, _ := NewEncoder(Config{})
	dec, _ := NewDecoder(Config{})
	r1, _ := q.Record(Entity{NetID: 1})
	r2, _ := q.Record(Entity{NetID: 2})
	if _, _, err := dec.Decode(twoParts(t, enc, SnapshotInfo{Tick: 3, Controlled: 1, HasControlled: true}, &r1, 0), nil); err != nil {
		t.Fatal(err)
	}
	info := SnapshotInfo{Tick: 3, Controlled: 2, HasControlled: true, Hash: hashOf(r1, r2)}
	s, _, err := dec.Decode(twoParts(t, enc, info, &r2, 1), nil)
	if err != nil || s.Done || s.Controlled != 2 {
		t.Fatalf("a part with another controlled NetID: %+v %v; want the tick started afresh", s, err)
	}
	s, _, err = dec.Decode(twoParts(t, enc, info, &r1, 0), nil)
	if err != nil || !s.Done {
		t.Fatalf("the new assembly's part 0: %+v %v", s, err)
	}
}

// RecordSize is exactly what Add writes, less the NetID gap.
func TestRecordSize(t *testing.T) {
	q := DefaultQuantizer()
	rng := rand.New(rand.NewPCG(3, 4))
	enc, _ := NewEncoder(Config{})
	for i := range 500 {
		cur := randomRecord(rng, q, 1)
		base := randomRecord(rng, q, 1)
		switch i % 4 {
		case 0:
			base = cur
			base.Pos[rng.IntN(3)] += int32(rng.IntN(300))
		case 1:
			base = cur
		}
		var ev Flags
		if i%3 == 0 {
			ev = Spawn
		}
		for _, b := range []*Record{&base, nil} {
			enc.Begin(Header{}, SnapshotInfo{Tick: 1}, nil)
			if err := enc.Add(&cur, b, ev); err != nil {
				t.Fatal(err)
			}
			parts, _ := enc.Finish(false, 0)
			got := len(parts[0]) - HeaderSize - snapFixed - 1 // one byte of NetID gap
			if want := enc.RecordSize(&cur, b, ev); got != want {
				t.Fatalf("record %d: wrote %d bytes, RecordSize says %d", i, got, want)
			}
		}
	}
	if DespawnSize != len(appendDespawn(nil, 0))-1 {
		t.Fatal("DespawnSize")
	}
}

// RecordSize and Add each work out which fields differ (RecordSize
// without writing them): they agree for a record that differs from its
// baseline in any one element of any field, the custom fields and the
// velocity flag included, with either event or none.
func TestRecordSizeEveryField(t *testing.T) {
	spec := FieldSpec{Min: 0, Max: 100, Precision: 0.01}
	cfg := Config{Quantizer: Quantizer{Fields: []FieldSpec{spec, spec, spec, spec}}}
	enc, err := NewEncoder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	q := enc.cfg.Quantizer
	rng := rand.New(rand.NewPCG(5, 6))
	base := randomRecord(rng, q, 1)
	base.Fields = [MaxFields]int32{10, 20, 30, 40}
	variants := []func(r *Record){
		func(r *Record) {},
		func(r *Record) { r.Rot = q.identity() },
		func(r *Record) { r.State++ },
		func(r *Record) { r.Epoch++ },
		func(r *Record) { r.Flags ^= HasVelocity },
	}
	for i := range 3 {
		variants = append(variants,
			func(r *Record) { r.Pos[i] += 1000 },
			func(r *Record) { r.Vel[i] -= 3 })
	}
	for i := range MaxFields {
		variants = append(variants, func(r *Record) { r.Fields[i] = 9000 })
	}
	for v, change := range variants {
		cur := base
		change(&cur)
		for _, ev := range []Flags{0, Spawn, Teleport, Spawn | Teleport} {
			enc.Begin(Header{}, SnapshotInfo{Tick: 1}, nil)
			if err := enc.Add(&cur, &base, ev); err != nil {
				t.Fatal(err)
			}
			parts, _ := enc.Finish(false, 0)
			got := len(parts[0]) - HeaderSize - snapFixed - 1 // one byte of NetID gap
			if want := enc.RecordSize(&cur, &base, ev); got != want {
				t.Errorf("variant %d, events %v: wrote %d bytes, RecordSize says %d", v, ev, got, want)
			}
		}
	}
}

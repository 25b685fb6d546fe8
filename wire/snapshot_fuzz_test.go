package wire

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// fuzzFields are the custom fields of the fuzz targets' decoders: a
// linear one of 1001 steps and a wrapping angle of 360.
var fuzzFields = []FieldSpec{{Min: 0, Max: 100, Precision: 0.1}, {Min: -180, Max: 180, Precision: 1, Wrap: true}}

// fuzzBase is the baseline (tick 100) of the decoders the fuzz targets use.
func fuzzBase(t testing.TB) *Table {
	q := DefaultQuantizer()
	return tableOf(t, q, circleWorld(64, 100, 20, true, false))
}

// FuzzDecodeSnapshot: any bytes, given to a decoder that holds a baseline,
// decode without panicking, to an error wrapping one of the package's
// errors and leaving dst alone; what decodes re-encodes to the same bytes
// (the encoding is canonical), and the decoder's tables stay sorted and
// within MaxEntities.
func FuzzDecodeSnapshot(f *testing.F) {
	q := DefaultQuantizer()
	base := fuzzBase(f)
	cur := tableOf(f, q, circleWorld(64, 103, 20, true, true))
	cur.Delete(5)
	cur.Set(randomRecord(rand.New(rand.NewPCG(1, 1)), q, 1000))
	enc, _ := NewEncoder(Config{MaxPacket: 400, MaxInputs: 1, MaxInputSize: 8})
	for _, p := range encodeDiff(f, enc, 103, 100, base, cur) {
		f.Add(p)
	}
	for _, p := range encodeDiff(f, enc, 101, 0, nil, cur) {
		f.Add(p)
	}
	for _, p := range encodeInfo(f, enc, SnapshotInfo{Tick: 104, Delta: true, Baseline: 100, InputAck: 3, HasInputAck: true, Controlled: 1000, HasControlled: true}, base, cur) {
		f.Add(p)
	}
	// Custom fields: a delta in which some entities' fields change (one
	// across the wrap of the angle), and a full snapshot carrying them.
	cfg := Config{MaxEntities: 256, Quantizer: Quantizer{Fields: fuzzFields}}
	fenc, _ := NewEncoder(Config{MaxPacket: 400, MaxInputs: 1, MaxInputSize: 8, Quantizer: cfg.Quantizer})
	withFields := tableOf(f, q, circleWorld(64, 103, 20, true, true))
	for i, r := range withFields.Records() {
		if i%3 == 0 {
			r.Fields = [MaxFields]int32{int32(i * 7), int32(359 - i%2*358)}
			withFields.Set(r)
		}
	}
	for _, p := range encodeDiff(f, fenc, 105, 100, base, withFields) {
		f.Add(p)
	}
	for _, p := range encodeDiff(f, fenc, 106, 0, nil, withFields) {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dec, _ := NewDecoder(cfg)
		enc, _ := NewEncoder(cfg)
		decodeAll(t, dec, encodeDiff(t, enc, 100, 0, nil, base))
		prefix := []Entity{{NetID: 42}}
		s, out, err := dec.Decode(b, prefix)
		if err != nil {
			if !isPackageError(err) {
				t.Fatalf("error wraps no package error: %v", err)
			}
			if len(out) != 1 || out[0].NetID != 42 {
				t.Fatal("failed decode changed dst")
			}
			return
		}
		if len(out) < 1+s.Records {
			t.Fatalf("%d entities for %d records", len(out)-1, s.Records)
		}
		for _, tb := range dec.history.slots {
			checkSorted(t, &tb.table, cfg.MaxEntities)
		}
		for _, p := range dec.pend {
			if p.used {
				checkSorted(t, &p.table, cfg.MaxEntities)
			}
		}

		// Re-encode the records (relative to the same reference: the
		// baseline, or nothing) and compare with the packet.
		if s.Tick == 100 {
			return
		}
		var ref *Table
		if s.Delta {
			ref = base
		}
		if err := enc.Begin(s.Header, s.SnapshotInfo, nil); err != nil {
			t.Fatal(err)
		}
		for _, sr := range dec.scratch {
			var err error
			if sr.ev&Despawn != 0 {
				err = enc.Despawn(sr.rec.NetID)
			} else {
				var bp *Record
				if ref != nil {
					if i, ok := ref.index(sr.rec.NetID); ok {
						bp = &ref.recs[i]
					}
				}
				r := sr.rec
				err = enc.Add(&r, bp, sr.ev)
			}
			if err != nil {
				t.Fatalf("re-encoding a decoded record: %v", err)
			}
		}
		parts, err := enc.Finish(s.Complete, s.Hash)
		if err != nil || len(parts) != 1 {
			t.Fatalf("re-encoded into %d parts: %v", len(parts), err)
		}
		again := parts[0]
		binary.LittleEndian.PutUint16(again[HeaderSize+snapPart:], uint16(s.Part))
		binary.LittleEndian.PutUint16(again[HeaderSize+snapParts:], uint16(s.Parts))
		if !bytes.Equal(again, b) {
			t.Fatalf("re-encoded\n% x\nfrom\n% x", again, b)
		}
	})
}

func checkSorted(t *testing.T, tb *Table, limit int) {
	t.Helper()
	if tb.Len() > limit {
		t.Fatalf("table of %d > %d entities", tb.Len(), limit)
	}
	for i := 1; i < tb.Len(); i++ {
		if tb.recs[i-1].NetID >= tb.recs[i].NetID {
			t.Fatalf("table not sorted at %d", i)
		}
	}
}

// FuzzSnapshotRoundTrip: for valid snapshots built from the fuzzer's
// numbers (random records, random changes, a random packet size, a
// controlled NetID or none), decoding what the encoder wrote gives back
// exactly the encoded tables, entities and tick-wide fields, whatever
// order the parts arrive in.
func FuzzSnapshotRoundTrip(f *testing.F) {
	f.Add(uint64(1), uint16(10), uint16(200), uint8(0))
	f.Add(uint64(2), uint16(300), uint16(128), uint8(10))
	f.Add(uint64(3), uint16(2000), uint16(1200), uint8(20))
	f.Add(uint64(4), uint16(500), uint16(300), uint8(0x80|10))
	f.Fuzz(func(t *testing.T, seed uint64, n, packet uint16, bits uint8) {
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		cfg := Config{
			MaxPacket:    MinPacket + int(packet)%9000,
			MaxParts:     MaxPartsLimit,
			MaxInputs:    1,
			MaxInputSize: 8,
			Quantizer:    Quantizer{RotBits: 4 + int(bits)%17},
		}
		q := cfg.Quantizer
		count := int(n) % 3000
		var base, cur Table
		for i := range count {
			id := uint32(i*3) + uint32(rng.IntN(3))
			if rng.IntN(2) == 0 {
				id = rng.Uint32()
			}
			base.Set(randomRecord(rng, q, id))
		}
		cur.CopyFrom(&base)
		for i := range cur.recs {
			switch rng.IntN(4) {
			case 0:
				cur.recs[i].Pos[rng.IntN(3)] += int32(rng.IntN(2001) - 1000)
			case 1:
				cur.recs[i] = randomRecord(rng, q, cur.recs[i].NetID)
			}
		}
		for range rng.IntN(20) {
			if cur.Len() > 0 {
				cur.Delete(cur.recs[rng.IntN(cur.Len())].NetID)
			}
			cur.Set(randomRecord(rng, q, rng.Uint32()))
		}
		enc, err := NewEncoder(cfg)
		if err != nil {
			t.Fatal(err)
		}
		dec, _ := NewDecoder(cfg)
		full := encodeDiff(t, enc, 50, 0, nil, &base)
		info := SnapshotInfo{Tick: 53, Delta: true, Baseline: 50}
		if bits&0x80 != 0 {
			info.Controlled, info.HasControlled = max(1, rng.Uint32()>>rng.IntN(32)), true
		}
		delta := encodeInfo(t, enc, info, &base, &cur)
		for k, parts := range [][][]byte{full, delta} {
			for _, i := range rng.Perm(len(parts)) {
				s, _, err := dec.Decode(parts[i], nil)
				if err != nil {
					t.Fatal(err)
				}
				if k == 1 && (s.HasControlled != info.HasControlled || s.Controlled != info.Controlled) {
					t.Fatalf("controlled %d %v, sent %d %v", s.Controlled, s.HasControlled, info.Controlled, info.HasControlled)
				}
			}
		}
		if !dec.State(50).Equal(&base) || !dec.State(53).Equal(&cur) {
			t.Fatal("round trip changed the tables")
		}
	})
}

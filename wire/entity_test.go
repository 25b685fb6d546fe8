package wire

import (
	"testing"
)

// hashRecord is a record with every word of state set.
func hashRecord() Record {
	return Record{
		NetID: 7, State: 3, Epoch: 2, Flags: HasVelocity, Rot: 0x1234_5678_9abc,
		Pos: [3]int32{100, -200, 300}, Vel: [3]int32{-4, 5, -6},
		Fields: [MaxFields]int32{11, -12, 13, -14},
	}
}

// TestRecordHashTellsEveryWordApart changes each part of a record's state
// by one step: every change changes the hash.
func TestRecordHashTellsEveryWordApart(t *testing.T) {
	base := hashRecord()
	h := base.Hash()
	changes := map[string]func(*Record){
		"NetID": func(r *Record) { r.NetID++ }, "State": func(r *Record) { r.State++ },
		"Epoch": func(r *Record) { r.Epoch++ }, "Flags": func(r *Record) { r.Flags = 0 },
		"Rot": func(r *Record) { r.Rot ^= 1 << 40 },
	}
	for i := range 3 {
		changes["Pos"+string(rune('0'+i))] = func(r *Record) { r.Pos[i]++ }
		changes["Vel"+string(rune('0'+i))] = func(r *Record) { r.Vel[i]-- }
	}
	for i := range MaxFields {
		changes["Field"+string(rune('0'+i))] = func(r *Record) { r.Fields[i]++ }
	}
	for name, change := range changes {
		r := base
		change(&r)
		if r.Hash() == h {
			t.Errorf("changing %s leaves the hash at %#x", name, h)
		}
	}
}

// TestTableHashSeesExchangedWords: two records that exchange a word (their
// positions, velocities, rotations or fields) leave every word of the
// table as it was, but not its hash, the XOR of the records' hashes.
func TestTableHashSeesExchangedWords(t *testing.T) {
	a, b := hashRecord(), hashRecord()
	b.NetID, b.Pos, b.Vel, b.Rot, b.Fields = 8, [3]int32{-1, 2, -3}, [3]int32{9, 8, 7}, 0xfeed, [MaxFields]int32{1, 2, 3, 4}
	before := a.Hash() ^ b.Hash()
	swaps := map[string]func(x, y *Record){
		"Pos":    func(x, y *Record) { x.Pos, y.Pos = y.Pos, x.Pos },
		"Vel":    func(x, y *Record) { x.Vel, y.Vel = y.Vel, x.Vel },
		"Rot":    func(x, y *Record) { x.Rot, y.Rot = y.Rot, x.Rot },
		"Fields": func(x, y *Record) { x.Fields, y.Fields = y.Fields, x.Fields },
		"Pos.Z and Vel.X": func(x, y *Record) {
			x.Pos[2], y.Pos[2] = y.Pos[2], x.Pos[2]
			x.Vel[0], y.Vel[0] = y.Vel[0], x.Vel[0]
		},
	}
	for name, swap := range swaps {
		x, y := a, b
		swap(&x, &y)
		if x.Hash()^y.Hash() == before {
			t.Errorf("exchanging %s leaves the table hash at %#x", name, before)
		}
	}
}

// TestRecordHashWithoutFields: a record whose fields are all zero hashes
// as a record of a game that declares none.
func TestRecordHashWithoutFields(t *testing.T) {
	r := hashRecord()
	r.Fields = [MaxFields]int32{}
	if r.Hash() == hashRecord().Hash() {
		t.Fatal("fields do not count")
	}
	if r.Hash() == 0 {
		t.Fatal("hash is 0")
	}
}

func BenchmarkRecordHash(b *testing.B) {
	recs := make([]Record, 1024)
	for i := range recs {
		recs[i] = hashRecord()
		recs[i].NetID = uint32(i)
		recs[i].Fields = [MaxFields]int32{}
	}
	var h uint64
	for b.Loop() {
		for i := range recs {
			h ^= recs[i].Hash()
		}
	}
	if h == 1 {
		b.Log(h)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(recs)), "ns/record")
}

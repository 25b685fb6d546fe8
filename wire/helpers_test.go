package wire

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// circleWorld is the scorecard's ground truth at scale: entity k (NetID
// k+1) moves on a circle of radius 8 at 1.25 rad/s (10 units/s), centred
// 30 units apart, facing where it goes. With still set, entities with an
// even NetID stand still (they keep their tick-0 state).
func circleWorld(n int, tick uint32, rate float64, velocity, still bool) []Entity {
	out := make([]Entity, n)
	for k := range n {
		id := uint32(k + 1)
		t := float64(tick) / rate
		if still && id%2 == 0 {
			t = 0
		}
		a := 1.25*t + float64(k)*0.7
		e := Entity{
			NetID: id,
			Pos:   mgl32.Vec3{float32(k*30) + float32(8*math.Cos(a)), float32(8 * math.Sin(a)), 0},
			Rot:   mgl32.QuatRotate(float32(a+math.Pi/2), mgl32.Vec3{0, 0, 1}),
			State: uint16(k % 3),
		}
		if velocity {
			e.Flags = HasVelocity
			e.Vel = mgl32.Vec3{float32(-10 * math.Sin(a)), float32(10 * math.Cos(a)), 0}
		}
		out[k] = e
	}
	return out
}

// tableOf quantises entities into a table.
func tableOf(t testing.TB, q Quantizer, es []Entity) *Table {
	t.Helper()
	var tb Table
	for _, e := range es {
		r, err := q.Record(e)
		if err != nil {
			t.Fatal(err)
		}
		tb.Set(r)
	}
	return &tb
}

// randomRecord returns a valid record with every field random.
func randomRecord(rng *rand.Rand, q Quantizer, id uint32) Record {
	q = q.mustNorm()
	r := Record{NetID: id, State: uint16(rng.Uint32()), Epoch: uint8(rng.Uint32())}
	for i := range 3 {
		r.Pos[i] = int32(rng.Uint32())
	}
	if rng.IntN(2) == 0 {
		r.Flags = HasVelocity
		for i := range 3 {
			r.Vel[i] = int32(rng.Uint32())
		}
	}
	rot := mgl32.Quat{W: rng.Float32()*2 - 1, V: mgl32.Vec3{rng.Float32()*2 - 1, rng.Float32()*2 - 1, rng.Float32()*2 - 1}}
	p, err := q.PackRotation(rot)
	if err != nil {
		panic(err)
	}
	r.Rot = p
	return r
}

// decodeAll decodes packets in order with d, failing the test on error.
func decodeAll(t testing.TB, d *Decoder, packets [][]byte) ([]Snapshot, []Entity) {
	t.Helper()
	var snaps []Snapshot
	var es []Entity
	for _, p := range packets {
		s, out, err := d.Decode(p, es)
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		es = out
		snaps = append(snaps, s)
	}
	return snaps, es
}

// encodeDiff encodes the snapshot of cur against base (nil: full).
func encodeDiff(t testing.TB, e *Encoder, tick uint32, baseTick uint32, base, cur *Table) [][]byte {
	t.Helper()
	info := SnapshotInfo{Tick: tick}
	if base != nil {
		info.Delta, info.Baseline = true, baseTick
	}
	return encodeInfo(t, e, info, base, cur)
}

// encodeInfo encodes the snapshot info.Tick of cur against base (nil:
// full; info's Delta and Baseline must agree), with info's other fields.
func encodeInfo(t testing.TB, e *Encoder, info SnapshotInfo, base, cur *Table) [][]byte {
	t.Helper()
	if err := e.Begin(Header{Seq: uint16(info.Tick)}, info, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.Diff(base, cur); err != nil {
		t.Fatal(err)
	}
	parts, err := e.Finish(true, hashOf(cur.recs...)) // cur.recs may have been written directly
	if err != nil {
		t.Fatal(err)
	}
	return parts
}

func totalLen(parts [][]byte) int {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	return n
}

// hashOf returns the state hash of a table holding rs.
func hashOf(rs ...Record) uint32 {
	var h uint64
	for _, r := range rs {
		h ^= r.Hash()
	}
	return uint32(h)
}

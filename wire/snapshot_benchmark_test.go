package wire

import "testing"

// The benchmarks encode and decode one client's snapshot of 1000 entities
// on the scorecard's circles (see circleWorld) at 20 Hz: a full snapshot,
// and a delta three ticks (150 ms) after its baseline in which the
// entities with an even NetID did not move. "B/entity" is wire bytes per
// entity of the world (headers included), "B/changed" per record sent.

type benchCase struct {
	name      string
	velocity  bool
	delta     bool
	base, cur *Table
}

func benchCases(b *testing.B) []benchCase {
	q := DefaultQuantizer()
	var cs []benchCase
	for _, vel := range []bool{false, true} {
		t0 := tableOf(b, q, circleWorld(1000, 100, 20, vel, false))
		t1 := tableOf(b, q, circleWorld(1000, 103, 20, vel, true))
		// Entities that stand still keep their state of tick 100.
		for i := range t1.recs {
			if t1.recs[i].NetID%2 == 0 {
				t1.recs[i] = t0.recs[i]
			}
		}
		suffix := ""
		if vel {
			suffix = "+vel"
		}
		cs = append(cs,
			benchCase{name: "full" + suffix, velocity: vel, cur: t0},
			benchCase{name: "delta" + suffix, velocity: vel, delta: true, base: t0, cur: t1})
	}
	return cs
}

func changed(base, cur *Table) int {
	if base == nil {
		return cur.Len()
	}
	n := 0
	for i := range cur.recs {
		if r, ok := base.Find(cur.recs[i].NetID); !ok || r != cur.recs[i] {
			n++
		}
	}
	return n
}

func BenchmarkEncode(b *testing.B) {
	for _, c := range benchCases(b) {
		b.Run(c.name+"/1000", func(b *testing.B) {
			enc, _ := NewEncoder(Config{})
			info := SnapshotInfo{Tick: 103, HasInputAck: true, InputAck: 1}
			if c.delta {
				info.Delta, info.Baseline = true, 100
			} else {
				info.Tick = 100
			}
			var parts [][]byte
			var bytes int
			b.ReportAllocs()
			for b.Loop() {
				if err := enc.Begin(Header{}, info, parts); err != nil {
					b.Fatal(err)
				}
				if err := enc.Diff(c.base, c.cur); err != nil {
					b.Fatal(err)
				}
				var err error
				if parts, err = enc.Finish(true, c.cur.Hash()); err != nil {
					b.Fatal(err)
				}
				bytes = totalLen(parts)
			}
			b.ReportMetric(float64(bytes)/1000, "B/entity")
			b.ReportMetric(float64(bytes)/float64(changed(c.base, c.cur)), "B/changed")
			b.ReportMetric(float64(len(parts)), "packets")
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, c := range benchCases(b) {
		b.Run(c.name+"/1000", func(b *testing.B) {
			enc, _ := NewEncoder(Config{})
			dec, _ := NewDecoder(Config{})
			first := c.cur
			if c.delta {
				first = c.base
			}
			full := encodeDiff(b, enc, 100, 0, nil, first)
			decodeAll(b, dec, full)
			parts := full
			tick := uint32(100)
			if c.delta {
				parts = encodeDiff(b, enc, 103, 100, c.base, c.cur)
				tick = 103
			}
			dst := make([]Entity, 0, 2000)
			decode := func() {
				dec.history.Drop(tick)
				dst = dst[:0]
				for _, p := range parts {
					var err error
					if _, dst, err = dec.Decode(p, dst); err != nil {
						b.Fatal(err)
					}
				}
			}
			for range 2 * DefaultHistory { // every table slot reaches its size
				decode()
			}
			b.ReportAllocs()
			for b.Loop() {
				decode()
			}
			if dec.State(tick) == nil || !dec.State(tick).Equal(c.cur) {
				b.Fatal("decoded table differs")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(dst)), "ns/record")
		})
	}
}

func BenchmarkInput(b *testing.B) {
	payloads := make([][]byte, 8)
	for i := range payloads {
		payloads[i] = []byte{byte(i), 0x7f, 0x01, 0x40}
	}
	p := InputPacket{AckedTick: 100, HasAckedTick: true, FirstSeq: 1000, Inputs: payloads}
	b.Run("encode", func(b *testing.B) {
		buf := make([]byte, 0, 256)
		b.ReportAllocs()
		for b.Loop() {
			var err error
			if buf, err = AppendInput(buf[:0], &Header{}, &p, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(buf)), "B/packet")
	})
	b.Run("decode", func(b *testing.B) {
		pkt, _ := AppendInput(nil, &Header{}, &p, nil)
		var out InputPacket
		b.ReportAllocs()
		for b.Loop() {
			if _, err := DecodeInput(pkt, &out, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkRecordSize weighs every record of a delta against its
// baseline's, as a server filling a byte budget does for each candidate.
func BenchmarkRecordSize(b *testing.B) {
	for _, c := range benchCases(b) {
		if !c.delta {
			continue
		}
		b.Run(c.name+"/1000", func(b *testing.B) {
			enc, _ := NewEncoder(Config{})
			n := 0
			for b.Loop() {
				n = 0
				for i := range c.cur.recs {
					n += enc.RecordSize(&c.cur.recs[i], &c.base.recs[i], 0)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(c.cur.recs)), "ns/record")
			b.ReportMetric(float64(n)/float64(len(c.cur.recs)), "B/record")
		})
	}
}

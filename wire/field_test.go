package wire

import (
	"errors"
	"math"
	"testing"
)

// fieldConfig declares a health of 0..100 at 0.1 and an angle in radians
// at about a thousandth of a turn.
func fieldConfig() Config {
	return Config{Quantizer: Quantizer{Fields: []FieldSpec{
		{Min: 0, Max: 100, Precision: 0.1},
		{Min: -math.Pi, Max: math.Pi, Precision: 2 * math.Pi / 1024, Wrap: true},
	}}}
}

func TestFieldSpecQuantize(t *testing.T) {
	h := fieldConfig().Quantizer.Fields[0]
	if n := h.Steps(); n != 1000 {
		t.Fatalf("health steps %d, want 1000", n)
	}
	for _, v := range []float32{0, 0.04, 0.06, 37.25, 99.96, 100} {
		s, err := h.Quantize(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := h.Value(s); math.Abs(float64(got-v)) > 0.05+1e-5 {
			t.Errorf("%v -> step %d -> %v, off by more than half a step", v, s, got)
		}
	}
	for _, v := range []float32{-0.01, 100.01, float32(math.NaN()), float32(math.Inf(1))} {
		if _, err := h.Quantize(v); !errors.Is(err, ErrRange) {
			t.Errorf("Quantize(%v) = %v, want ErrRange", v, err)
		}
	}
	a := fieldConfig().Quantizer.Fields[1]
	for _, c := range []struct {
		v    float32
		want int32
	}{{-math.Pi, 0}, {math.Pi, 0}, {0, 512}, {3 * math.Pi, 0}, {-3 * math.Pi / 2, 768}} {
		s, err := a.Quantize(c.v)
		if err != nil || s != c.want {
			t.Errorf("angle Quantize(%v) = %d, %v; want %d", c.v, s, err, c.want)
		}
	}
	if _, err := a.Quantize(float32(math.NaN())); !errors.Is(err, ErrRange) {
		t.Errorf("angle NaN: %v", err)
	}
	if d := a.delta(1023, 1); d != -2 {
		t.Errorf("delta across the wrap = %d, want -2", d)
	}
	if s, ok := a.apply(1, -2); !ok || s != 1023 {
		t.Errorf("apply(1, -2) = %d, %v", s, ok)
	}
}

func TestFieldConfigValidate(t *testing.T) {
	for _, f := range [][]FieldSpec{
		{{Min: 1, Max: 1, Precision: 1}},
		{{Min: 0, Max: 1, Precision: 0}},
		{{Min: 0, Max: float32(math.Inf(1)), Precision: 1}},
		{{Min: 0, Max: 1e9, Precision: 1e-9}},
		make([]FieldSpec, MaxFields+1),
	} {
		if err := (Config{Quantizer: Quantizer{Fields: f}}).Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("fields %+v: %v, want ErrConfig", f, err)
		}
	}
	if err := fieldConfig().Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestFieldRoundTrip: field values survive a full snapshot and a delta
// within half a step, an unchanged field costs no byte, a changed one a
// mask byte and its difference, and an angle that crosses the wrap is
// sent the short way round.
func TestFieldRoundTrip(t *testing.T) {
	cfg := fieldConfig()
	q := cfg.Quantizer
	enc, _ := NewEncoder(cfg)
	dec, _ := NewDecoder(cfg)
	ents := circleWorld(3, 100, 20, true, false)
	for i := range ents {
		ents[i].Fields = [MaxFields]float32{float32(10 * (i + 1)), 3.1}
	}
	base := tableOf(t, q, ents)
	_, got := decodeAll(t, dec, encodeDiff(t, enc, 100, 0, nil, base))
	for i, e := range got {
		if math.Abs(float64(e.Fields[0]-ents[i].Fields[0])) > 0.05 || math.Abs(float64(e.Fields[1]-3.1)) > math.Pi/1024 {
			t.Fatalf("entity %d fields %v, want %v", i, e.Fields, ents[i].Fields)
		}
	}

	// Tick 101: entity 1 moves, entity 2's angle crosses the wrap, entity
	// 3 only changes health.
	cur := tableOf(t, q, ents)
	r := cur.recs[0]
	r.Pos[0] += 10
	cur.Set(r)
	e2 := ents[1]
	e2.Fields[1] = -3.1
	r2, err := q.Record(e2)
	if err != nil {
		t.Fatal(err)
	}
	cur.Set(r2)
	e3 := ents[2]
	e3.Fields[0] = 29.5
	r3, _ := q.Record(e3)
	cur.Set(r3)

	moved := appendRecord(nil, 0, &cur.recs[0], &base.recs[0], 0, q.mustNorm().rotationBytes(), q.Fields)
	noFields := appendRecord(nil, 0, &cur.recs[0], &base.recs[0], 0, q.mustNorm().rotationBytes(), nil)
	if len(moved) != len(noFields) {
		t.Errorf("unchanged fields cost %d bytes, want 0", len(moved)-len(noFields))
	}
	wrapped := appendRecord(nil, 0, &cur.recs[1], &base.recs[1], 0, q.mustNorm().rotationBytes(), q.Fields)
	// gap 1, mask 2 (bit 13), field mask 1, zigzag of a small delta 1
	if len(wrapped) != 5 {
		t.Errorf("angle across the wrap: %d bytes % x, want 5 (the short way round)", len(wrapped), wrapped)
	}
	t.Logf("moved entity, fields unchanged: %d bytes; angle across the wrap only: %d bytes", len(moved), len(wrapped))

	parts := encodeDiff(t, enc, 101, 100, base, cur)
	ss, got := decodeAll(t, dec, parts)
	if !ss[len(ss)-1].Done {
		t.Fatal("tick not done (hash mismatch?)")
	}
	if len(got) != 3 {
		t.Fatalf("%d entities decoded, want 3", len(got))
	}
	if g := got[1].Fields[1]; math.Abs(float64(g+3.1)) > math.Pi/1024 {
		t.Errorf("wrapped angle %v, want -3.1", g)
	}
	if g := got[2].Fields[0]; math.Abs(float64(g-29.5)) > 0.05 {
		t.Errorf("health %v, want 29.5", g)
	}
	if !dec.State(101).Equal(cur) {
		t.Error("decoded table differs from the server's")
	}
}

// TestFieldRefused: out-of-range and NaN values are refused when
// quantised and when added; a record whose decoded field leaves its range,
// or names an undeclared field, is refused by the decoder.
func TestFieldRefused(t *testing.T) {
	cfg := fieldConfig()
	q := cfg.Quantizer
	for _, v := range []float32{-1, 101, float32(math.NaN())} {
		if _, err := q.Record(Entity{NetID: 1, Fields: [MaxFields]float32{v}}); !errors.Is(err, ErrRange) {
			t.Errorf("Record with health %v: %v, want ErrRange", v, err)
		}
	}
	enc, _ := NewEncoder(cfg)
	for _, r := range []Record{
		{NetID: 1, Fields: [MaxFields]int32{1001}},
		{NetID: 2, Fields: [MaxFields]int32{0, 1024}},
		{NetID: 3, Fields: [MaxFields]int32{0, 0, 5}},
	} {
		r.Rot = q.Zero(0).Rot
		_ = enc.Begin(Header{}, SnapshotInfo{Tick: 1}, nil)
		if err := enc.Add(&r, nil, 0); !errors.Is(err, ErrRange) {
			t.Errorf("Add %+v: %v, want ErrRange", r.Fields, err)
		}
	}

	// A forged record: health step 1000 + 5.
	plain, _ := NewEncoder(Config{Quantizer: Quantizer{Fields: []FieldSpec{{Min: 0, Max: 200, Precision: 0.1}}}})
	r := Record{NetID: 1, Rot: q.Zero(0).Rot, Fields: [MaxFields]int32{1005}}
	_ = plain.Begin(Header{}, SnapshotInfo{Tick: 1}, nil)
	if err := plain.Add(&r, nil, 0); err != nil {
		t.Fatal(err)
	}
	parts, _ := plain.Finish(true, hashOf(r))
	dec, _ := NewDecoder(cfg)
	if _, _, err := dec.Decode(parts[0], nil); !errors.Is(err, ErrRange) {
		t.Errorf("decoding health step 1005 of 1000: %v, want ErrRange", err)
	}
	// The same record to a decoder that declares no fields.
	none, _ := NewDecoder(Config{})
	if _, _, err := none.Decode(parts[0], nil); !errors.Is(err, ErrMalformed) {
		t.Errorf("fields to a decoder without: %v, want ErrMalformed", err)
	}
}

// TestFieldSpecNoStep: a Precision far above the range leaves it no step
// (an infinite step, NaN values, a wrapped value quantised to MinInt32):
// Validate refuses it, and Record refuses a quantizer holding it.
func TestFieldSpecNoStep(t *testing.T) {
	for _, f := range []FieldSpec{
		{Min: 0, Max: 1, Precision: 1e10},
		{Min: 0, Max: 1, Precision: 1e10, Wrap: true},
	} {
		q := Quantizer{Fields: []FieldSpec{f}}
		if err := q.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: Validate = %v, want ErrConfig", f, err)
		}
		if _, err := q.Record(Entity{NetID: 7, Fields: [MaxFields]float32{0.5}}); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: Record = %v, want ErrConfig", f, err)
		}
	}
}

// TestQuantizerTooManyFields: a quantizer of more than MaxFields fields
// that skips Validate is refused by Record and gives fields at zero from
// Entity, where both indexed records out of range and panicked.
func TestQuantizerTooManyFields(t *testing.T) {
	spec := FieldSpec{Min: 0, Max: 1, Precision: 0.5}
	q := Quantizer{PosStep: 1. / 256, VelStep: 1. / 256, RotBits: 10, Fields: []FieldSpec{spec, spec, spec, spec, spec}}
	e := Entity{NetID: 3, Pos: [3]float32{1, 2, 3}, Fields: [MaxFields]float32{1, 1, 1, 1}}
	if _, err := q.Record(e); !errors.Is(err, ErrConfig) {
		t.Fatalf("Record with %d fields = %v, want ErrConfig", len(q.Fields), err)
	}
	var r Record
	if err := q.RecordTo(&r, &e); !errors.Is(err, ErrConfig) || r != (Record{}) {
		t.Fatalf("RecordTo with %d fields = %v, record %+v; want ErrConfig, record unchanged", len(q.Fields), err, r)
	}
	good := Quantizer{Fields: []FieldSpec{spec}}
	rec, err := good.Record(e)
	if err != nil {
		t.Fatal(err)
	}
	got := q.Entity(rec)
	if got.Pos != e.Pos || got.Fields != ([MaxFields]float32{}) {
		t.Fatalf("Entity with %d fields = pos %v fields %v, want pos %v and fields at zero", len(q.Fields), got.Pos, got.Fields, e.Pos)
	}
}

// TestFieldStepsWorkedOnce: the quantizer an encoder holds carries its
// fields' steps worked out, equal to the spec's own, in a copy that
// leaves the game's slice as it was; records quantise alike with either.
func TestFieldStepsWorkedOnce(t *testing.T) {
	cfg := fieldConfig()
	game := cfg.Quantizer.Fields
	enc, err := NewEncoder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	q := enc.Config().Quantizer
	for i, f := range q.Fields {
		g := game[i]
		if g.n != 0 || f.n == 0 {
			t.Fatalf("field %d: game's steps cached %d, encoder's %d; want 0 and worked out", i, g.n, f.n)
		}
		if f.Steps() != g.Steps() || f.Step() != g.Step() {
			t.Errorf("field %d: cached %d steps of %v, want %d of %v", i, f.Steps(), f.Step(), g.Steps(), g.Step())
		}
	}
	e := Entity{NetID: 9, Fields: [MaxFields]float32{37.25, 3.1}}
	a, errA := q.Record(e)
	b, errB := cfg.Quantizer.Record(e)
	if errA != nil || errB != nil || a != b {
		t.Fatalf("records %+v (%v) and %+v (%v), want equal", a, errA, b, errB)
	}
	if q.Entity(a) != cfg.Quantizer.Entity(b) {
		t.Fatalf("entities %+v and %+v, want equal", q.Entity(a), cfg.Quantizer.Entity(b))
	}
}

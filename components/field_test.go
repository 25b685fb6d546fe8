package components

import (
	"slices"
	"testing"
)

func fieldTicks(r *FieldRing[float32]) []uint32 {
	var out []uint32
	for i := range r.Len() {
		t, _ := r.At(i)
		out = append(out, t)
	}
	return out
}

func TestFieldRingPut(t *testing.T) {
	var r FieldRing[float32]
	for _, tick := range []uint32{10, 12, 11, 14} {
		if !r.Put(tick, float32(tick)) {
			t.Fatalf("Put(%d) refused", tick)
		}
	}
	if got := fieldTicks(&r); !slices.Equal(got, []uint32{10, 11, 12, 14}) {
		t.Fatalf("ticks %v", got)
	}
	r.Put(11, 99) // replaces
	if _, v := r.At(1); v != 99 || r.Len() != 4 {
		t.Fatalf("replace: %v, len %d", v, r.Len())
	}
	if i, j := r.Bracket(11, 13); i != 1 || j != 2 {
		t.Fatalf("Bracket(11, 13) = %d, %d; want 1, 2", i, j)
	}
	if i, j := r.Bracket(5, 9); i != -1 || j != -1 {
		t.Fatalf("Bracket before the oldest = %d, %d", i, j)
	}
	for tick := uint32(15); tick < 15+RingCapacity; tick++ {
		r.Put(tick, float32(tick))
	}
	if r.Len() != RingCapacity {
		t.Fatalf("len %d", r.Len())
	}
	if first, _ := r.At(0); first != 15 {
		t.Fatalf("oldest %d after evictions, want 15", first)
	}
	if r.Put(3, 3) {
		t.Fatal("a sample older than a full ring was stored")
	}
	if !r.Put(20, 7) {
		t.Fatal("replacing inside a full ring refused")
	}
	r.Clear()
	if r.Len() != 0 {
		t.Fatal("Clear")
	}
}

func TestFieldRingCache(t *testing.T) {
	var r FieldRing[float32]
	r.Put(1, 1)
	r.Put(2, 2)
	r.Cache(1, 2, 1, 2)
	if a, b, ok := r.Cached(1, 2); !ok || a != 1 || b != 2 {
		t.Fatal("cache not held")
	}
	if _, _, ok := r.Cached(2, 3); ok {
		t.Fatal("cache held for another span")
	}
	r.Put(3, 3) // after the span: still valid
	if _, _, ok := r.Cached(1, 2); !ok {
		t.Fatal("a newer sample dropped the cache")
	}
	r.Put(2, 5) // inside the span: stale
	if _, _, ok := r.Cached(1, 2); ok {
		t.Fatal("a sample inside the span kept the cache")
	}
}

package wire

import (
	"errors"
	"math"
	"testing"
)

func ids(t *Table) []uint32 {
	var out []uint32
	for _, r := range t.Records() {
		out = append(out, r.NetID)
	}
	return out
}

func TestTable(t *testing.T) {
	var tb Table
	for _, id := range []uint32{5, 1, 9, 3, 7} {
		tb.Set(Record{NetID: id, State: uint16(id)})
	}
	if got := ids(&tb); len(got) != 5 || got[0] != 1 || got[1] != 3 || got[4] != 9 {
		t.Fatalf("not sorted: %v", got)
	}
	tb.Set(Record{NetID: 3, State: 33})
	if r, ok := tb.Find(3); !ok || r.State != 33 || tb.Len() != 5 {
		t.Fatalf("replace: %+v %v len %d", r, ok, tb.Len())
	}
	if _, ok := tb.Find(4); ok {
		t.Fatal("found an absent NetID")
	}
	if !tb.Delete(1) || tb.Delete(1) || tb.Len() != 4 {
		t.Fatal("delete")
	}
	if err := tb.Append(Record{NetID: 9}); !errors.Is(err, ErrOrder) {
		t.Fatalf("append out of order: %v", err)
	}
	if err := tb.Append(Record{NetID: math.MaxUint32}); err != nil {
		t.Fatal(err)
	}
	var c Table
	c.CopyFrom(&tb)
	if !c.Equal(&tb) {
		t.Fatal("copy differs")
	}
	c.Set(Record{NetID: 2})
	if c.Equal(&tb) {
		t.Fatal("copy aliases the original")
	}
	c.Reset()
	if c.Len() != 0 {
		t.Fatal("reset")
	}
}

func TestHistory(t *testing.T) {
	h := NewHistory(3)
	if h.Cap() != 3 || h.Len() != 0 {
		t.Fatal("new history")
	}
	if _, ok := h.Newest(); ok {
		t.Fatal("empty history has a newest tick")
	}
	for _, tick := range []uint32{10, 11, 12} {
		h.Put(tick).Set(Record{NetID: tick})
	}
	if h.Len() != 3 {
		t.Fatal("three ticks")
	}
	// A fourth evicts the oldest.
	h.Put(13).Set(Record{NetID: 13})
	if h.Get(10) != nil || h.Get(11) == nil || h.Get(13) == nil {
		t.Fatal("the oldest tick was not the one evicted")
	}
	// A tick older than everything held when full is not stored.
	if h.Put(9) != nil {
		t.Fatal("stored a tick older than everything held")
	}
	// Putting a held tick empties its table.
	if tb := h.Put(12); tb.Len() != 0 || h.Len() != 3 {
		t.Fatal("re-put")
	}
	if n, ok := h.Newest(); !ok || n != 13 {
		t.Fatalf("newest %d", n)
	}
	if !h.Drop(11) || h.Drop(11) || h.Len() != 2 {
		t.Fatal("drop")
	}
	h.Reset()
	if h.Len() != 0 || h.Get(13) != nil {
		t.Fatal("reset")
	}
}

func TestHistoryWraps(t *testing.T) {
	h := NewHistory(2)
	h.Put(math.MaxUint32 - 1)
	h.Put(math.MaxUint32)
	h.Put(0) // newer than MaxUint32: evicts MaxUint32-1
	if h.Get(math.MaxUint32-1) != nil || h.Get(0) == nil {
		t.Fatal("eviction across the wrap")
	}
	if n, _ := h.Newest(); n != 0 {
		t.Fatalf("newest across the wrap: %d", n)
	}
}

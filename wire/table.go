package wire

import (
	"fmt"
	"slices"
)

// Table is one tick's state of every entity an end knows, as quantised
// records sorted by NetID: the baseline a snapshot is delta-encoded against
// and reconstructed from. It is a plain slice of fixed-size records; it
// grows as needed and reuses its memory after [Table.Reset], so a table
// filled every tick stops allocating once it has reached its size.
//
// A table also keeps its state hash ([Table.Hash]) up to date as it
// changes, so that both ends can check cheaply that they hold the same
// state.
//
// The zero value is an empty table ready to use.
type Table struct {
	recs []Record
	hash uint64 // XOR of the records' hashes
}

// Len returns the number of records.
func (t *Table) Len() int { return len(t.recs) }

// Records returns the records in NetID order. The slice aliases the table:
// it is valid until the table next changes and must not be modified.
func (t *Table) Records() []Record { return t.recs }

// Reset empties the table, keeping its memory.
func (t *Table) Reset() { t.recs, t.hash = t.recs[:0], 0 }

// CopyFrom makes t a copy of src, reusing t's memory.
func (t *Table) CopyFrom(src *Table) { t.recs, t.hash = append(t.recs[:0], src.recs...), src.hash }

// Hash returns the table's state hash: the XOR of its records' hashes
// ([Record.Hash]), cut to 32 bits. A snapshot carries the hash of the
// table the server holds for the client after the tick
// ([SnapshotInfo.Hash]); a decoder that assembles a different one knows
// its state has drifted from the server's (a bug, or a packet that was
// not the server's) and asks for a full snapshot instead of building on
// it. It is a consistency check, not a security measure: anyone who can
// write a table can compute its hash.
func (t *Table) Hash() uint32 { return uint32(t.hash) }

// index returns the position of netID, or where it would be inserted.
func (t *Table) index(netID uint32) (int, bool) {
	lo, hi := 0, len(t.recs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.recs[m].NetID < netID {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(t.recs) && t.recs[lo].NetID == netID
}

// Find returns the record of netID.
func (t *Table) Find(netID uint32) (Record, bool) {
	i, ok := t.index(netID)
	if !ok {
		return Record{}, false
	}
	return t.recs[i], true
}

// Set inserts r, or replaces the record with the same NetID. Inserting
// anywhere but at the end moves the records after it.
func (t *Table) Set(r Record) {
	if n := len(t.recs); n == 0 || t.recs[n-1].NetID < r.NetID {
		t.hash ^= r.Hash()
		t.recs = append(t.recs, r)
		return
	}
	i, ok := t.index(r.NetID)
	if ok {
		t.hash ^= t.recs[i].Hash() ^ r.Hash()
		t.recs[i] = r
		return
	}
	t.hash ^= r.Hash()
	t.recs = slices.Insert(t.recs, i, r)
}

// Append adds r at the end: the fast way to build a table in NetID order.
// It fails with [ErrOrder] unless r.NetID is greater than every NetID in the
// table.
func (t *Table) Append(r Record) error {
	if n := len(t.recs); n > 0 && t.recs[n-1].NetID >= r.NetID {
		return fmt.Errorf("%w: NetID %d appended after %d", ErrOrder, r.NetID, t.recs[n-1].NetID)
	}
	t.hash ^= r.Hash()
	t.recs = append(t.recs, r)
	return nil
}

// Delete removes the record of netID and reports whether there was one.
func (t *Table) Delete(netID uint32) bool {
	i, ok := t.index(netID)
	if ok {
		t.hash ^= t.recs[i].Hash()
		t.recs = slices.Delete(t.recs, i, i+1)
	}
	return ok
}

// Equal reports whether t and o hold the same records.
func (t *Table) Equal(o *Table) bool { return slices.Equal(t.recs, o.recs) }

// History keeps the state tables of the last few ticks, keyed by tick: a
// ring of a fixed number of tables whose memory is reused, so its size is
// bounded by the number of slots times the largest table. A server session
// keeps one per client (the state the client has if it received each tick
// it was sent); a client's [Decoder] keeps one of the ticks it completely
// received. Ticks compare with wrap-around.
type History struct {
	slots []historySlot
}

type historySlot struct {
	tick  uint32
	used  bool
	table Table
}

// NewHistory returns a history of n tables (at least 1).
func NewHistory(n int) *History {
	return &History{slots: make([]historySlot, max(n, 1))}
}

// Cap returns the number of tables the history keeps.
func (h *History) Cap() int { return len(h.slots) }

// Len returns the number of ticks held.
func (h *History) Len() int {
	n := 0
	for i := range h.slots {
		if h.slots[i].used {
			n++
		}
	}
	return n
}

// Get returns the table of tick, or nil if it is not held.
func (h *History) Get(tick uint32) *Table {
	for i := range h.slots {
		if s := &h.slots[i]; s.used && s.tick == tick {
			return &s.table
		}
	}
	return nil
}

// Put returns an empty table for tick, to be filled by the caller: the one
// tick already had (emptied), a free one, or the oldest tick's, which is
// evicted. When every table is in use by a tick newer than tick, nothing is
// evicted and Put returns nil.
func (h *History) Put(tick uint32) *Table {
	victim := -1
	for i := range h.slots {
		s := &h.slots[i]
		switch {
		case s.used && s.tick == tick:
			s.table.Reset()
			return &s.table
		case !s.used:
			if victim < 0 || h.slots[victim].used {
				victim = i
			}
		case victim < 0 || (h.slots[victim].used && tickBefore(s.tick, h.slots[victim].tick)):
			victim = i
		}
	}
	s := &h.slots[victim]
	if s.used && tickBefore(tick, s.tick) {
		return nil
	}
	s.used, s.tick = true, tick
	s.table.Reset()
	return &s.table
}

// Newest returns the newest tick held.
func (h *History) Newest() (uint32, bool) {
	var newest uint32
	found := false
	for i := range h.slots {
		if s := &h.slots[i]; s.used && (!found || tickBefore(newest, s.tick)) {
			newest, found = s.tick, true
		}
	}
	return newest, found
}

// Drop forgets tick and reports whether it was held.
func (h *History) Drop(tick uint32) bool {
	for i := range h.slots {
		if s := &h.slots[i]; s.used && s.tick == tick {
			s.used = false
			s.table.Reset()
			return true
		}
	}
	return false
}

// Reset forgets every tick, keeping the tables' memory.
func (h *History) Reset() {
	for i := range h.slots {
		h.slots[i].used = false
		h.slots[i].table.Reset()
	}
}

package components

// testRing is a ring with its samples stored inline, for the tests of
// RingHead and Ring: RingCapacity samples ordered by tick (not by
// arrival), at most one per tick; out-of-order samples are inserted at
// their place and, when full, the oldest sample makes room for a newer
// one. The pipeline keeps the same head in Span and the samples in
// ring slot columns.
//
// The zero value is an empty ring. Index 0 is always the oldest sample.
type testRing struct {
	head  RingHead
	slots [RingCapacity]Sample
}

// View returns the general view of the ring. It points into r.
func (r *testRing) View() Ring {
	v := Ring{Head: &r.head}
	for i := range r.slots {
		v.Slots[i] = &r.slots[i]
	}
	return v
}

// Len returns the number of stored samples.
func (r *testRing) Len() int { return int(r.head.count) }

// At returns the i-th sample counted from the oldest (0 <= i < Len). The
// pointer stays valid until the ring is modified.
func (r *testRing) At(i int) *Sample { return &r.slots[r.head.Phys(i)] }

// Newest returns the newest sample, or nil when the ring is empty.
func (r *testRing) Newest() *Sample {
	v := r.View()
	return v.Newest()
}

// Oldest returns the oldest sample, or nil when the ring is empty.
func (r *testRing) Oldest() *Sample {
	v := r.View()
	return v.Oldest()
}

// Insert stores s at its tick position and reports what happened. The
// common case, a sample newer than all others, costs one copy.
func (r *testRing) Insert(s Sample) InsertResult {
	if r.head.count == 0 || s.Tick > r.head.newest {
		p, evicted := r.head.Append(s.Tick)
		r.slots[p] = s
		if evicted {
			return InsertedEvicting
		}
		return Inserted
	}
	v := r.View()
	return v.Insert(s)
}

// Search returns the index of the newest sample whose tick is at or before
// tick, or -1 when tick is before the oldest sample (or the ring is empty,
// or tick is NaN).
func (r *testRing) Search(tick float64) int {
	v := r.View()
	return v.Search(tick)
}

// Contains reports whether a sample with exactly this tick is stored.
func (r *testRing) Contains(tick uint32) bool {
	v := r.View()
	return v.Contains(tick)
}

// DropBefore removes every sample older than tick and returns how many it
// removed.
func (r *testRing) DropBefore(tick uint32) int {
	v := r.View()
	return v.DropBefore(tick)
}

// DropAfter removes every sample newer than tick and returns how many it
// removed.
func (r *testRing) DropAfter(tick uint32) int {
	v := r.View()
	return v.DropAfter(tick)
}

// Clear empties the ring.
func (r *testRing) Clear() { r.head.start, r.head.count = 0, 0 }

package components

// RingCapacity is the number of samples a [SnapshotRing] keeps: 800 ms of
// history at 20 snapshots per second, 267 ms at 60. It is a compile-time
// constant so the ring is inline, fixed-size data and a whole archetype
// column of rings is one block of memory.
const RingCapacity = 16

const ringMask = RingCapacity - 1

// InsertResult says what [SnapshotRing.Insert] did with a sample.
type InsertResult uint8

const (
	// Inserted: the sample was stored at its tick position.
	Inserted InsertResult = iota
	// InsertedEvicting: the ring was full, its oldest sample was dropped and
	// the new one stored.
	InsertedEvicting
	// Duplicate: a sample with the same tick is already stored; nothing changed.
	Duplicate
	// TooOld: the ring is full and the sample is older than everything in
	// it; nothing changed.
	TooOld
)

// SnapshotRing is the cold per-entity buffer of a remote entity's recent
// snapshots, ordered by tick (not by arrival), with at most one sample per
// tick. Out-of-order samples are inserted at their place. When full, the
// oldest sample makes room for a newer one.
//
// The zero value is an empty ring. Index 0 is always the oldest sample.
type SnapshotRing struct {
	start uint8
	count uint8
	slots [RingCapacity]Sample
}

// Len returns the number of stored samples.
func (r *SnapshotRing) Len() int { return int(r.count) }

// At returns the i-th sample counted from the oldest (0 <= i < Len). The
// pointer stays valid until the ring is modified or the entity changes
// archetype.
func (r *SnapshotRing) At(i int) *Sample {
	return &r.slots[(int(r.start)+i)&ringMask]
}

// Newest returns the newest sample, or nil when the ring is empty.
func (r *SnapshotRing) Newest() *Sample {
	if r.count == 0 {
		return nil
	}
	return r.At(int(r.count) - 1)
}

// Oldest returns the oldest sample, or nil when the ring is empty.
func (r *SnapshotRing) Oldest() *Sample {
	if r.count == 0 {
		return nil
	}
	return &r.slots[r.start]
}

// Insert stores s at its tick position and reports what happened. The
// common case, a sample newer than all others, costs one copy.
func (r *SnapshotRing) Insert(s Sample) InsertResult {
	n := int(r.count)
	// Find the insertion point scanning from the newest end: samples almost
	// always arrive in order or nearly so.
	pos := n
	for pos > 0 {
		t := r.At(pos - 1).Tick
		if t == s.Tick {
			return Duplicate
		}
		if t < s.Tick {
			break
		}
		pos--
	}
	res := Inserted
	if n == RingCapacity {
		if pos == 0 {
			return TooOld
		}
		// Drop the oldest; every index shifts down by one.
		r.start = uint8((int(r.start) + 1) & ringMask)
		n--
		pos--
		res = InsertedEvicting
	}
	for i := n; i > pos; i-- {
		*r.At(i) = *r.At(i - 1)
	}
	*r.At(pos) = s
	r.count = uint8(n + 1)
	return res
}

// Search returns the index of the newest sample whose tick is at or before
// tick, or -1 when tick is before the oldest sample (or the ring is empty,
// or tick is NaN).
func (r *SnapshotRing) Search(tick float64) int {
	if tick != tick {
		return -1
	}
	i := int(r.count) - 1
	for i >= 0 && float64(r.At(i).Tick) > tick {
		i--
	}
	return i
}

// Contains reports whether a sample with exactly this tick is stored.
func (r *SnapshotRing) Contains(tick uint32) bool {
	for i := int(r.count) - 1; i >= 0; i-- {
		t := r.At(i).Tick
		if t == tick {
			return true
		}
		if t < tick {
			return false
		}
	}
	return false
}

// DropBefore removes every sample older than tick and returns how many it
// removed.
func (r *SnapshotRing) DropBefore(tick uint32) int {
	dropped := 0
	for r.count > 0 && r.slots[r.start].Tick < tick {
		r.start = uint8((int(r.start) + 1) & ringMask)
		r.count--
		dropped++
	}
	return dropped
}

// Clear empties the ring.
func (r *SnapshotRing) Clear() { r.start, r.count = 0, 0 }

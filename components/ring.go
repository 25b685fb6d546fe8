package components

// RingCapacity is the number of samples a remote entity's ring keeps: 800 ms
// of history at 20 snapshots per second, 267 ms at 60. It is a compile-time
// constant so the ring is inline, fixed-size data.
const RingCapacity = 16

const ringMask = RingCapacity - 1

// InsertResult says what an insert did with a sample.
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

// RingHead is the bookkeeping of a ring of samples ordered by tick: which of
// its [RingCapacity] physical slots hold samples, and the newest tick. The
// samples themselves live elsewhere: in the pipeline, in the ring slot
// columns of the entity. The zero value is an empty ring.
//
// Samples never move between physical slots except when a sample is
// inserted out of order; appending the newest sample (the common case) and
// evicting the oldest touch one slot.
type RingHead struct {
	start  uint8
	count  uint8
	_      [2]uint8
	newest uint32
}

// Len returns the number of stored samples.
func (h *RingHead) Len() int { return int(h.count) }

// Phys returns the physical slot of the i-th sample counted from the oldest.
func (h *RingHead) Phys(i int) int { return (int(h.start) + i) & ringMask }

// Logical returns the position, counted from the oldest, of physical slot p.
func (h *RingHead) Logical(p int) int { return (p - int(h.start)) & ringMask }

// NewestTick returns the newest sample's tick; ok is false for an empty ring.
func (h *RingHead) NewestTick() (tick uint32, ok bool) { return h.newest, h.count > 0 }

// Append reserves the slot for a sample newer than every stored one and
// returns its physical index; the caller writes the sample there. When the
// ring is full the oldest sample is dropped (evicted is true). It must only
// be called with tick > NewestTick (or on an empty ring).
func (h *RingHead) Append(tick uint32) (phys int, evicted bool) {
	if h.count == RingCapacity {
		// The oldest slot takes the sample, and the next is the oldest.
		phys = int(h.start)
		h.start = uint8((phys + 1) & ringMask)
		evicted = true
	} else {
		phys = (int(h.start) + int(h.count)) & ringMask
		h.count++
	}
	h.newest = tick
	return phys, evicted
}

// Ring is a view of a ring: its head and pointers to its physical slots. It
// performs the general operations (out-of-order insert, search, drop);
// building one costs RingCapacity pointer lookups, so the pipeline uses it
// only off the common path.
type Ring struct {
	Head  *RingHead
	Slots [RingCapacity]*Sample
}

// Len returns the number of stored samples.
func (r *Ring) Len() int { return int(r.Head.count) }

// At returns the i-th sample counted from the oldest (0 <= i < Len).
func (r *Ring) At(i int) *Sample { return r.Slots[r.Head.Phys(i)] }

// Newest returns the newest sample, or nil when the ring is empty.
func (r *Ring) Newest() *Sample {
	if r.Head.count == 0 {
		return nil
	}
	return r.At(int(r.Head.count) - 1)
}

// Oldest returns the oldest sample, or nil when the ring is empty.
func (r *Ring) Oldest() *Sample {
	if r.Head.count == 0 {
		return nil
	}
	return r.At(0)
}

// Insert stores s at its tick position and reports what happened.
func (r *Ring) Insert(s Sample) InsertResult {
	h := r.Head
	if h.count == 0 || s.Tick > h.newest {
		p, evicted := h.Append(s.Tick)
		*r.Slots[p] = s
		if evicted {
			return InsertedEvicting
		}
		return Inserted
	}
	n := int(h.count)
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
		h.start = uint8((int(h.start) + 1) & ringMask)
		n--
		pos--
		res = InsertedEvicting
	}
	for i := n; i > pos; i-- {
		*r.At(i) = *r.At(i - 1)
	}
	*r.At(pos) = s
	h.count = uint8(n + 1)
	return res
}

// Search returns the index of the newest sample whose tick is at or before
// tick, or -1 when tick is before the oldest sample (or the ring is empty,
// or tick is NaN).
func (r *Ring) Search(tick float64) int {
	if tick != tick {
		return -1
	}
	i := int(r.Head.count) - 1
	for i >= 0 && float64(r.At(i).Tick) > tick {
		i--
	}
	return i
}

// Find returns the stored sample with exactly this tick, or nil.
func (r *Ring) Find(tick uint32) *Sample {
	for i := int(r.Head.count) - 1; i >= 0; i-- {
		s := r.At(i)
		if s.Tick == tick {
			return s
		}
		if s.Tick < tick {
			return nil
		}
	}
	return nil
}

// Contains reports whether a sample with exactly this tick is stored.
func (r *Ring) Contains(tick uint32) bool {
	for i := int(r.Head.count) - 1; i >= 0; i-- {
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
func (r *Ring) DropBefore(tick uint32) int {
	h := r.Head
	dropped := 0
	for h.count > 0 && r.At(0).Tick < tick {
		h.start = uint8((int(h.start) + 1) & ringMask)
		h.count--
		dropped++
	}
	return dropped
}

// DropAfter removes every sample newer than tick and returns how many it
// removed.
func (r *Ring) DropAfter(tick uint32) int {
	h := r.Head
	dropped := 0
	for h.count > 0 && r.At(int(h.count)-1).Tick > tick {
		h.count--
		dropped++
	}
	if h.count > 0 {
		h.newest = r.At(int(h.count) - 1).Tick
	}
	return dropped
}

// Clear empties the ring.
func (r *Ring) Clear() { r.Head.start, r.Head.count = 0, 0 }

package components

// FieldRing is a remote entity's buffer of one custom field's samples
// (a size, a health, an aim angle of type T), ordered by tick: the
// companion of the entity's position samples, in a component of its own so
// that entities and games without custom fields carry none of it. The
// field system of T fills it from the pipeline's field inbox and draws T
// from it at the ticks the entity's [Span] brackets.
//
// It holds [RingCapacity] samples inline; the zero value is empty. Ticks
// compare as plain integers, as the position ring's do.
type FieldRing[T any] struct {
	// The values the field was last drawn from, for the span from tick
	// from to tick to: what a frame reads while the span lasts, instead of
	// searching the samples.
	from, to uint32
	a, b     T
	cached   bool

	start uint8
	count uint8
	// slots are the samples by physical slot, each tick beside its value
	// so that reading or writing one touches one cache line.
	slots [RingCapacity]fieldSample[T]
}

// fieldSample is one sample of a field.
type fieldSample[T any] struct {
	tick uint32
	v    T
}

// Cached returns the values last drawn from for the span from..to (see
// [FieldRing.Cache]), and false when they are for another span, or a
// sample stored since may change them.
func (r *FieldRing[T]) Cached(from, to uint32) (a, b T, ok bool) {
	return r.a, r.b, r.cached && r.from == from && r.to == to
}

// Cache keeps a and b as the values of the span from..to, until a sample
// at or before to is stored.
func (r *FieldRing[T]) Cache(from, to uint32, a, b T) {
	r.from, r.to, r.a, r.b, r.cached = from, to, a, b, true
}

// Len returns the number of samples held.
func (r *FieldRing[T]) Len() int { return int(r.count) }

// phys returns the physical slot of the i-th sample from the oldest.
func (r *FieldRing[T]) phys(i int) int { return (int(r.start) + i) & ringMask }

// At returns the tick and value of the i-th sample from the oldest
// (0 <= i < Len).
func (r *FieldRing[T]) At(i int) (uint32, T) {
	x := &r.slots[r.phys(i)]
	return x.tick, x.v
}

// Put stores v as the sample of tick: appended when it is the newest (the
// common case: one slot written), inserted in order otherwise, replacing
// a sample of the same tick. When the ring is full the oldest sample is
// dropped, or v when it is older than every sample held; Put reports
// whether v was stored.
func (r *FieldRing[T]) Put(tick uint32, v T) bool {
	if tick <= r.to {
		r.cached = false
	}
	n := int(r.count)
	if n == 0 || tick > r.slots[r.phys(n-1)].tick {
		if n == RingCapacity {
			r.start = uint8(r.phys(1))
			n--
		}
		r.slots[r.phys(n)] = fieldSample[T]{tick, v}
		r.count = uint8(n + 1)
		return true
	}
	pos := n
	for pos > 0 {
		t := r.slots[r.phys(pos-1)].tick
		if t == tick {
			r.slots[r.phys(pos-1)].v = v
			return true
		}
		if t < tick {
			break
		}
		pos--
	}
	if n == RingCapacity {
		if pos == 0 {
			return false
		}
		r.start = uint8(r.phys(1))
		n--
		pos--
	}
	for i := n; i > pos; i-- {
		r.slots[r.phys(i)] = r.slots[r.phys(i-1)]
	}
	r.slots[r.phys(pos)] = fieldSample[T]{tick, v}
	r.count = uint8(n + 1)
	return true
}

// Bracket returns the positions (from the oldest) of the newest samples at
// or before tick from and at or before tick to (from <= to), -1 where
// there is none: the samples a field is drawn from over a span. It scans
// from the newest sample, which the render time trails by a few.
func (r *FieldRing[T]) Bracket(from, to uint32) (i, j int) {
	k := int(r.count) - 1
	for k >= 0 && r.slots[r.phys(k)].tick > to {
		k--
	}
	j = k
	for k >= 0 && r.slots[r.phys(k)].tick > from {
		k--
	}
	return k, j
}

// Clear empties the ring.
func (r *FieldRing[T]) Clear() { r.start, r.count, r.cached = 0, 0, false }

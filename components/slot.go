package components

// RingSlot is one physical slot of a remote entity's ring of samples, as a
// component. The ring's [RingCapacity] slots are RingCapacity distinct
// component types, RingSlot[P0] to RingSlot[P15], so that slot k of every
// entity of an archetype sits in one contiguous column: when all entities
// receive a snapshot for the same tick (the common case) their samples go to
// the same slot, and both writing them and reading them back stream through
// memory instead of jumping a kilobyte per entity. The ring's head is in
// [Span].
type RingSlot[P any] struct {
	Sample
}

// P0 to P15 are the position markers that make the RingSlot types distinct.
type (
	P0  struct{}
	P1  struct{}
	P2  struct{}
	P3  struct{}
	P4  struct{}
	P5  struct{}
	P6  struct{}
	P7  struct{}
	P8  struct{}
	P9  struct{}
	P10 struct{}
	P11 struct{}
	P12 struct{}
	P13 struct{}
	P14 struct{}
	P15 struct{}
)

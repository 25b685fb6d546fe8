package components

//go:generate go run github.com/netsmooth/netsmooth/internal/ringgen slot_gen.go

// RingSlot is one physical slot of a remote entity's ring of samples, as a
// component. The ring's [RingCapacity] slots are RingCapacity distinct
// component types, RingSlot[P0], RingSlot[P1], ... (the markers are
// generated from RingCapacity into slot_gen.go), so that slot k of every
// entity of an archetype sits in one contiguous column: when all entities
// receive a snapshot for the same tick (the common case) their samples go to
// the same slot, and both writing them and reading them back stream through
// memory instead of jumping a kilobyte per entity. The ring's head is in
// [Span].
type RingSlot[P any] struct {
	Sample
}

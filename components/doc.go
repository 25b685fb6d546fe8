// Package components holds the per-entity data that netsmooth keeps in an
// arche world: plain, fixed-size, pointer-free structs that the systems in
// package [github.com/netsmooth/netsmooth/systems] read and write.
//
// # Outline
//
//   - Identity and role: [NetID] is the server's name for an entity;
//     [Remote] marks entities drawn from buffered snapshots, [Predicted]
//     marks the locally controlled ones.
//   - The ring of samples: every remote entity keeps its last [RingCapacity]
//     snapshots ([Sample]), ordered by server tick. The ring's head lives in
//     [Span]; its samples live in RingCapacity components of the pipeline's
//     own, one per slot position, so that slot k of all entities is one
//     contiguous column. [Ring] is a view of a head and its slots,
//     for the operations off the common path (out-of-order insert,
//     search, drop).
//   - Hot data: [Span] also holds the two samples that bracket the render
//     time, so the per-frame interpolation touches one small component.
//   - Output: [Render] is what to draw this frame; [Correction] is a visual
//     offset that the Smooth system decays to zero so that corrections glide
//     instead of popping.
//   - Predicted entities: [PredictedState], [InputHistory], [InputCommand]
//     and [PredictedStatus].
//
// # Why columns
//
// A whole archetype column of a component is one contiguous block of memory.
// Servers send most entities a snapshot for the same tick, so with one
// column per ring slot, receiving a tick writes one column front to back,
// and the render time crossing a sample reads the next column front to back:
// streaming access instead of a jump of a kilobyte per entity (DESIGN.md
// has the measurements). The per-frame systems otherwise stream through
// [Span], [Render] and [Correction] only.
//
// Nothing here has behaviour beyond small helpers on the ring; the
// interpolation maths lives in [github.com/netsmooth/netsmooth/blend] and the
// frame logic in the systems.
package components

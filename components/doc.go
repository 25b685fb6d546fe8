// Package components holds the per-entity data that netsmooth keeps in an
// arche world: plain, fixed-size, pointer-free structs that the systems in
// package [github.com/netsmooth/netsmooth/systems] read and write.
//
// # Outline
//
//   - Identity and role: [NetID] is the server's name for an entity;
//     [Remote] marks entities drawn from buffered snapshots, [Predicted]
//     marks the locally controlled ones.
//   - Cold storage: [SnapshotRing] keeps the last [RingCapacity] snapshots of
//     a remote entity, ordered by server tick. Each slot is a [Sample].
//   - Hot data: [Span] holds only the two samples that bracket the render
//     time, so the per-frame interpolation touches one small component
//     instead of a ring of a kilobyte.
//   - Output: [Render] is what to draw this frame; [Correction] is a visual
//     offset that the Smooth system decays to zero so that corrections glide
//     instead of popping.
//
// # Why the split
//
// A whole archetype column of a component is one contiguous block of memory.
// The per-frame systems stream through [Span], [Render] and [Correction]
// (about 140 bytes per entity in all); the ring (about 780 bytes) is touched
// only when a snapshot arrives or when the render time crosses a sample,
// every few frames. Keeping the two apart is what makes a frame over 100k
// entities cost a few nanoseconds per entity.
//
// Nothing here has behaviour beyond small helpers on the ring; the
// interpolation maths lives in [github.com/netsmooth/netsmooth/blend] and the
// frame logic in the systems.
package components

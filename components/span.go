package components

import "github.com/go-gl/mathgl/mgl32"

// SpanMode says how the Interpolate system evaluates a [Span].
type SpanMode uint8

const (
	// SpanEmpty: the entity has no samples yet; nothing is drawn.
	SpanEmpty SpanMode = iota
	// SpanBefore: the render time is before the oldest sample; draw the
	// oldest sample (From, Pos0) without inventing motion.
	SpanBefore
	// SpanLerp: the render time lies in [From, To); blend sample 0 toward
	// sample 1.
	SpanLerp
	// SpanStep: a discontinuity (teleport, epoch change, snap distance) lies
	// between the two samples; hold sample 0 until To, then switch.
	SpanStep
	// SpanPast: the render time is at or after the newest sample (From);
	// apply the extrapolation policy from Pos0 along Vel.
	SpanPast
)

// SpanFlags are bits kept on a [Span] between frames.
type SpanFlags uint8

const (
	// SpanDirty is set by Receive when a new sample may change the span; the
	// next Interpolate rebuilds it from the ring and smooths any jump.
	SpanDirty SpanFlags = 1 << iota
	// SpanCutAhead says the span is a [SpanStep] caused by a discontinuity:
	// crossing To is a teleport.
	SpanCutAhead
	// SpanTeleported is set by Interpolate on the frame the render time
	// crosses a teleport; Snap clears it after dropping the correction and
	// the samples from before the teleport.
	SpanTeleported
	// SpanHidden says the entity is not yet visible (the render time has not
	// reached its spawn sample).
	SpanHidden
)

// Span is the hot per-entity interpolation state: the two samples that
// bracket the render time, copied out of the [SnapshotRing] when the render
// time crosses a sample or a new sample lands inside the span. The
// per-frame work reads only this component.
//
// 84 bytes, no pointers.
type Span struct {
	// From and To are the ticks of sample 0 and sample 1. In SpanPast, From
	// is the newest sample's tick and To is unused.
	From, To uint32
	// Inv is 1/(To-From), so the blend factor is (renderTick-From)*Inv.
	Inv float32
	// State is the discrete state word to show while this span is current.
	State uint16
	// Mode says how to evaluate the span.
	Mode SpanMode
	// Flags holds the bits in [SpanFlags].
	Flags SpanFlags
	// Pos0 and Pos1 are the positions of sample 0 and sample 1.
	Pos0, Pos1 mgl32.Vec3
	// Rot0 and Rot1 are the rotations of sample 0 and sample 1, with Rot1
	// already flipped to the same hemisphere as Rot0 (shortest path).
	Rot0, Rot1 mgl32.Quat
	// Vel is the extrapolation velocity in units per second (SpanPast only).
	Vel mgl32.Vec3
}

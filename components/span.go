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
	// SpanStep: a discontinuity (teleport, epoch change, teleport distance) lies
	// between the two samples; hold sample 0 until To, then switch.
	SpanStep
	// SpanPast: the render time is at or after the newest sample (From);
	// apply the extrapolation policy from Pos0 along the velocity in Pos1.
	SpanPast
)

// SpanFlags are bits kept on a [Span] between frames.
type SpanFlags uint8

const (
	// SpanDirty is set (through [Span.NoteArrival]) when a new sample may
	// change the span; the next Interpolate rebuilds it from the ring and
	// smooths any jump.
	SpanDirty SpanFlags = 1 << iota
	// SpanTeleported is set by Interpolate while it handles the frame in
	// which the render time crosses a teleport.
	SpanTeleported
	// SpanHidden says the entity is not yet visible (the render time has not
	// reached its spawn sample).
	SpanHidden
	// SpanHeld is set by Receive, only while it stores a frame's
	// snapshots on several goroutines, on an entity one of whose messages
	// it left for the world's goroutine, so that the entity's later
	// messages wait for it too and are stored in order. It is cleared in
	// the same frame; after a panic that ended a frame, by the next frame
	// on several goroutines, which holds the entity's first message for
	// the world's goroutine and clears it there.
	SpanHeld
)

// Span is the hot per-entity state of a remote entity: the head of its ring
// of samples (whose slots are the pipeline's ring slot columns) and the two
// samples that bracket the render time, copied out of the ring. The per-frame work
// reads only this component; when the render time crosses To, the next
// sample is one slot read away (ToPhys+1), and only unusual changes (a
// sample landing inside the span, a teleport, extrapolation ending) rebuild
// the span from the whole ring.
//
// 92 bytes, no pointers.
type Span struct {
	// From and To are the ticks of sample 0 and sample 1. In SpanPast and
	// SpanBefore, From is the tick of the sample held and To is unused.
	From, To uint32
	// Inv is 1/(To-From), so the blend factor is (renderTick-From)*Inv.
	Inv float32
	// State is the discrete state word to show while this span is current
	// (sample 0's); State1 is sample 1's, shown once the span moves on.
	State, State1 uint16
	// Mode says how to evaluate the span.
	Mode SpanMode
	// Flags holds the bits in [SpanFlags].
	Flags SpanFlags
	// ToPhys is the ring slot holding sample 1 (in SpanPast and SpanBefore,
	// the slot of the sample held).
	ToPhys uint8
	// Epoch1 is sample 1's lifecycle epoch.
	Epoch1 uint8
	// Ring is the head of the entity's ring of samples.
	Ring RingHead
	// Interval is the entity's own measured send interval in ticks (zero
	// until two samples arrived), written by Receive: a server that sends
	// distant entities less often (interest management) gives them a
	// longer one.
	Interval float32
	// Lag is how many ticks behind the pipeline's render time this entity
	// is drawn, maintained by Interpolate from Interval: an entity sent
	// less often than the others needs more buffering, and gets it without
	// raising everybody's delay.
	Lag float32
	// Pos0 and Pos1 are the positions of sample 0 and sample 1. In
	// SpanPast, Pos1 holds the extrapolation velocity in units per second.
	Pos0, Pos1 mgl32.Vec3
	// Rot0 and Rot1 are the rotations of sample 0 and sample 1, with Rot1
	// already flipped to the same hemisphere as Rot0 (shortest path).
	Rot0, Rot1 mgl32.Quat
}

// Passed reports whether the render time has reached the span's first
// sample (From), so that anything older can no longer be drawn.
func (s *Span) Passed() bool {
	return s.Mode == SpanLerp || s.Mode == SpanStep || s.Mode == SpanPast
}

// Stale reports whether a sample at tick comes too late to be drawn: the
// render time has already passed the span's first sample, which is newer.
func (s *Span) Stale(tick uint32) bool { return tick < s.From && s.Passed() }

// LosesBracket reports whether inserting one more sample would evict a
// sample the span is built from: the ring is full and the span starts at
// its oldest sample.
func (s *Span) LosesBracket() bool {
	return s.Ring.Len() == RingCapacity && s.Ring.Logical(int(s.ToPhys)) <= 1 &&
		(s.Mode == SpanLerp || s.Mode == SpanStep || s.Mode == SpanBefore)
}

// NoteArrival records that a sample at tick was stored in the ring, and
// marks the span for a rebuild if that sample may change what is drawn: it
// lands inside or before the span, the span had nothing to draw from or
// was extrapolating, or (lost, from [Span.LosesBracket] before the insert)
// the insert evicted a sample the span is built from. Samples beyond the
// span are picked up when the render time reaches them, at no cost now.
func (s *Span) NoteArrival(tick uint32, lost bool) {
	dirty := lost
	switch s.Mode {
	case SpanEmpty, SpanPast:
		dirty = true
	case SpanBefore:
		dirty = dirty || tick < s.From
	default:
		dirty = dirty || tick < s.To
	}
	if dirty {
		s.Flags |= SpanDirty
	}
}

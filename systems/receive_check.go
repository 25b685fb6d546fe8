package systems

import (
	"math"
	"unsafe"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/blend"
)

// Receive checks the numbers of every message that carries a state before
// it stores it: a client of an untrusted server must, so that nothing it
// draws can be NaN or overflow. Most messages pass as they are
// (plainNumbers), tested in a few instructions; check finds what is wrong
// with the others, or repairs a rotation off the unit sphere.

// plainNumbers reports whether every number of msg is within the limit
// that bound holds (see pairBound), and its rotation a unit quaternion
// (as servers send them) or none (see plainRotation): the numbers check
// passes as they are, and the paths that store without check take.
func plainNumbers(msg *Message, bound uint64) bool {
	return withinBoth(msg, bound) && plainRotation(&msg.Rot)
}

// withinBoth is plainNumbers' test of the position and the velocity,
// reading the six coordinates, adjacent in a Message, as three 64-bit
// words of two coordinates each against the limit as pairBound gives it,
// rather than testing the six apart. With its sign bit cleared, a
// coordinate's bits order as its absolute value does and put NaN and the
// infinities above every finite number; a lane's (lim + 1<<31) - |x|
// keeps its top bit exactly when |x| <= lim, and never borrows from the
// lane above.
func withinBoth(msg *Message, bound uint64) bool {
	const abs, top = 0x7fffffff_7fffffff, 0x80000000_80000000
	b := (*[3]uint64)(unsafe.Pointer(&msg.Pos))
	return (bound-b[0]&abs)&(bound-b[1]&abs)&(bound-b[2]&abs)&top == top
}

// pairBound returns withinBoth's form of the limit lim (positive and
// finite): its bits in both halves of a word, each with its top bit set.
func pairBound(lim float32) uint64 {
	l := uint64(math.Float32bits(lim) & 0x7fffffff)
	return l<<32 | l | 0x80000000_80000000
}

// withinBoth reads Vel as the three words after Pos.
var _ = [1]struct{}{}[unsafe.Offsetof(Message{}.Vel)-unsafe.Offsetof(Message{}.Pos)-12]

// within is check's test of one vector's coordinates.
func within(v *mgl32.Vec3, lim float32) bool {
	const abs = 0x7fffffff
	return max(math.Float32bits(v[0])&abs, math.Float32bits(v[1])&abs, math.Float32bits(v[2])&abs) <= math.Float32bits(lim)
}

// plainRotation reports whether q is a unit quaternion within float32
// rounding of its squared norm (as servers send them), or none (every
// component zero, of either sign, which fill stores as the identity): a
// rotation stored as it is. No square root is needed.
func plainRotation(q *mgl32.Quat) bool {
	n := q.W*q.W + q.V[0]*q.V[0] + q.V[1]*q.V[1] + q.V[2]*q.V[2]
	return n > 0.99999 && n < 1.00001 || zeroQuat(q)
}

// zeroQuat reports whether every component of q is zero, of either sign
// (as q == mgl32.Quat{} does), testing their bits at once rather than
// making four float compares.
func zeroQuat(q *mgl32.Quat) bool {
	b := (*[2]uint64)(unsafe.Pointer(q))
	return (b[0]|b[1])&0x7fffffff_7fffffff == 0
}

// accept is check's verdict for a good message (not a reason).
const accept = NumRejectReasons

// check validates a snapshot's numbers and normalises its rotation into rot.
func (r *Receive) check(msg *Message, rot *mgl32.Quat) RejectReason {
	if plainNumbers(msg, r.bound) {
		return accept // the common case
	}
	lim := r.cfg.MaxAbs
	p, v, q := &msg.Pos, &msg.Vel, &msg.Rot
	for _, x := range [...]float32{p[0], p[1], p[2], v[0], v[1], v[2], q.W, q.V[0], q.V[1], q.V[2]} {
		if !finite32(x) {
			return RejectNonFinite
		}
	}
	if !within(p, lim) || !within(v, lim) {
		return RejectInvalid
	}
	var ok bool
	if *rot, ok = blend.Normalize(*q); !ok {
		return RejectInvalid
	}
	return accept
}

// finite32 reports whether x is neither NaN nor infinite (its exponent bits
// are not all ones).
func finite32(x float32) bool { return math.Float32bits(x)&0x7f800000 != 0x7f800000 }

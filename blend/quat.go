package blend

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// Dot returns the 4D dot product of two quaternions.
func Dot(a, b *mgl32.Quat) float32 {
	return a.W*b.W + a.V[0]*b.V[0] + a.V[1]*b.V[1] + a.V[2]*b.V[2]
}

// Align returns b or -b, whichever lies in the same hemisphere as a. Both
// stand for the same rotation; blending a toward the aligned one takes the
// shortest path.
func Align(a, b *mgl32.Quat) mgl32.Quat {
	if Dot(a, b) < 0 {
		return mgl32.Quat{W: -b.W, V: mgl32.Vec3{-b.V[0], -b.V[1], -b.V[2]}}
	}
	return *b
}

// NlerpAligned blends a toward b by t and normalises, assuming b has already
// been aligned to a (see [Align]). It is the per-frame rotation blend: for
// the small angles between consecutive snapshots it is indistinguishable from
// slerp at a fraction of the cost. If the blend degenerates it returns a.
func NlerpAligned(a, b *mgl32.Quat, t float32) mgl32.Quat {
	w, x, y, z := LerpQuat(a, b, t)
	if !(w*w+x*x+y*y+z*z > 1e-12) {
		return *a
	}
	var q mgl32.Quat
	SetUnit(&q, w, x, y, z)
	return q
}

// LerpQuat blends each component of a toward b by t, without
// normalising: the blend of [NlerpAligned] as four numbers (W and V), for
// a caller that draws many blends and normalises them with [SetUnit].
func LerpQuat(a, b *mgl32.Quat, t float32) (w, x, y, z float32) {
	return a.W + (b.W-a.W)*t, a.V[0] + (b.V[0]-a.V[0])*t, a.V[1] + (b.V[1]-a.V[1])*t, a.V[2] + (b.V[2]-a.V[2])*t
}

// SetUnit sets dst to the quaternion (w, x, y, z) scaled to length 1,
// without the check [NlerpAligned] makes that the length is not near
// zero: a blend of two aligned unit quaternions is at least 0.7 long.
func SetUnit(dst *mgl32.Quat, w, x, y, z float32) {
	inv := 1 / float32(math.Sqrt(float64(w*w+x*x+y*y+z*z)))
	dst.W, dst.V[0], dst.V[1], dst.V[2] = w*inv, x*inv, y*inv, z*inv
}

// Nlerp blends a toward b along the shortest path by t and normalises.
func Nlerp(a, b *mgl32.Quat, t float32) mgl32.Quat {
	bb := Align(a, b)
	return NlerpAligned(a, &bb, t)
}

// Slerp is the constant-angular-speed blend of a toward b along the shortest
// path. It costs a few trigonometric calls more than [Nlerp]; use it where
// large angles between samples must turn at an even rate.
func Slerp(a, b *mgl32.Quat, t float32) mgl32.Quat {
	bb := Align(a, b)
	d := float64(Dot(a, &bb))
	if d > 0.9995 {
		return NlerpAligned(a, &bb, t)
	}
	theta := math.Acos(d)
	s := math.Sin(theta)
	wa := float32(math.Sin((1-float64(t))*theta) / s)
	wb := float32(math.Sin(float64(t)*theta) / s)
	return mgl32.Quat{
		W: a.W*wa + bb.W*wb,
		V: mgl32.Vec3{
			a.V[0]*wa + bb.V[0]*wb,
			a.V[1]*wa + bb.V[1]*wb,
			a.V[2]*wa + bb.V[2]*wb,
		},
	}
}

// Mul returns the Hamilton product a*b (apply b, then a).
func Mul(a, b *mgl32.Quat) mgl32.Quat {
	return mgl32.Quat{
		W: a.W*b.W - a.V[0]*b.V[0] - a.V[1]*b.V[1] - a.V[2]*b.V[2],
		V: mgl32.Vec3{
			a.W*b.V[0] + a.V[0]*b.W + a.V[1]*b.V[2] - a.V[2]*b.V[1],
			a.W*b.V[1] - a.V[0]*b.V[2] + a.V[1]*b.W + a.V[2]*b.V[0],
			a.W*b.V[2] + a.V[0]*b.V[1] - a.V[1]*b.V[0] + a.V[2]*b.W,
		},
	}
}

// Conj returns the conjugate of q, the inverse of a unit quaternion.
func Conj(q *mgl32.Quat) mgl32.Quat {
	return mgl32.Quat{W: q.W, V: mgl32.Vec3{-q.V[0], -q.V[1], -q.V[2]}}
}

// Normalize returns q scaled to unit length. The zero quaternion, which
// netsmooth treats as "no rotation sent", becomes the identity. ok is false
// when q is not finite or too short to have a direction.
func Normalize(q mgl32.Quat) (out mgl32.Quat, ok bool) {
	if q.W == 0 && q.V == (mgl32.Vec3{}) {
		return mgl32.Quat{W: 1}, true
	}
	n := float64(q.W)*float64(q.W) + float64(q.V[0])*float64(q.V[0]) +
		float64(q.V[1])*float64(q.V[1]) + float64(q.V[2])*float64(q.V[2])
	if n > 0.99999 && n < 1.00001 {
		return q, true // already unit within float32 rounding
	}
	if !(n > 1e-12) || math.IsInf(n, 0) {
		return mgl32.QuatIdent(), false
	}
	inv := float32(1 / math.Sqrt(n))
	return mgl32.Quat{W: q.W * inv, V: mgl32.Vec3{q.V[0] * inv, q.V[1] * inv, q.V[2] * inv}}, true
}

// Offset returns the rotation offset r that carries to onto from
// (r * to = from), as the vector part of a unit quaternion with a
// non-negative scalar part. Correction components store rotations this way
// so that their zero value means "no offset".
func Offset(from, to *mgl32.Quat) mgl32.Vec3 {
	c := Conj(to)
	r := Mul(from, &c)
	if r.W < 0 {
		return mgl32.Vec3{-r.V[0], -r.V[1], -r.V[2]}
	}
	return r.V
}

// OffsetQuat rebuilds the unit quaternion whose vector part is v (as stored
// by [Offset]).
func OffsetQuat(v *mgl32.Vec3) mgl32.Quat {
	s := 1 - LenSq(v)
	if s < 0 {
		s = 0
	}
	return mgl32.Quat{W: float32(math.Sqrt(float64(s))), V: *v}
}

// ApplyOffset returns the rotation offset v applied to q (offset * q).
func ApplyOffset(v *mgl32.Vec3, q *mgl32.Quat) mgl32.Quat {
	o := OffsetQuat(v)
	return Mul(&o, q)
}

// ComposeOffsets returns the offset that applies b and then a, in the
// representation of [Offset].
func ComposeOffsets(a, b *mgl32.Vec3) mgl32.Vec3 {
	qa, qb := OffsetQuat(a), OffsetQuat(b)
	r := Mul(&qa, &qb)
	if r.W < 0 {
		return mgl32.Vec3{-r.V[0], -r.V[1], -r.V[2]}
	}
	return r.V
}

// ScaleOffset scales the angle of the rotation offset v by k (0 <= k <= 1),
// keeping its axis: the rotational counterpart of multiplying a position
// offset by k.
func ScaleOffset(v *mgl32.Vec3, k float32) mgl32.Vec3 {
	s := float64(LenSq(v))
	if s == 0 {
		return mgl32.Vec3{}
	}
	s = math.Sqrt(s)
	if s > 1 {
		s = 1
	}
	half := math.Asin(s)
	f := float32(math.Sin(half*float64(k)) / s)
	return mgl32.Vec3{v[0] * f, v[1] * f, v[2] * f}
}

// OffsetAngle returns the rotation angle, in radians, of the offset v.
func OffsetAngle(v *mgl32.Vec3) float32 {
	s := math.Sqrt(float64(LenSq(v)))
	if s > 1 {
		s = 1
	}
	return float32(2 * math.Asin(s))
}

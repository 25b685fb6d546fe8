package blend

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// QuatFromAngle returns the rotation by angle radians about the Z axis: how
// a 2D game stores its heading in netsmooth's quaternion fields. Blending two
// such quaternions follows the shortest way around, as [LerpAngle] does.
func QuatFromAngle(angle float32) mgl32.Quat {
	s, c := math.Sincos(float64(angle) / 2)
	return mgl32.Quat{W: float32(c), V: mgl32.Vec3{0, 0, float32(s)}}
}

// AngleOf returns the rotation about the Z axis of q, in (-pi, pi]: the
// inverse of [QuatFromAngle] for 2D games.
func AngleOf(q *mgl32.Quat) float32 {
	w, z := float64(q.W), float64(q.V[2])
	if w < 0 { // q and -q are the same rotation; take the one with w >= 0
		w, z = -w, -z
	}
	return float32(2 * math.Atan2(z, w))
}

// WrapAngle maps an angle in radians into (-pi, pi].
func WrapAngle(a float32) float32 {
	x := math.Mod(float64(a)+math.Pi, 2*math.Pi)
	if x <= 0 {
		x += 2 * math.Pi
	}
	return float32(x - math.Pi)
}

// LerpAngle blends angle a toward b by t along the shorter way around the
// circle (Godot's lerp_angle): from 170 to -170 degrees it passes 180, not 0.
func LerpAngle(a, b, t float32) float32 {
	d := WrapAngle(b - a)
	return WrapAngle(a + d*t)
}

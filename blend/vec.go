package blend

import "github.com/go-gl/mathgl/mgl32"

// Lerp returns a + (b-a)*t. t is not clamped.
func Lerp(a, b *mgl32.Vec3, t float32) mgl32.Vec3 {
	return mgl32.Vec3{
		a[0] + (b[0]-a[0])*t,
		a[1] + (b[1]-a[1])*t,
		a[2] + (b[2]-a[2])*t,
	}
}

// AddScaled returns a + v*s.
func AddScaled(a, v *mgl32.Vec3, s float32) mgl32.Vec3 {
	return mgl32.Vec3{a[0] + v[0]*s, a[1] + v[1]*s, a[2] + v[2]*s}
}

// DistSq returns the squared distance between a and b.
func DistSq(a, b *mgl32.Vec3) float32 {
	x, y, z := a[0]-b[0], a[1]-b[1], a[2]-b[2]
	return x*x + y*y + z*z
}

// LenSq returns the squared length of v.
func LenSq(v *mgl32.Vec3) float32 {
	return v[0]*v[0] + v[1]*v[1] + v[2]*v[2]
}

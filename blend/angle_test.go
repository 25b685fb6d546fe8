package blend

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// angleDiff returns the wrapped difference a-b in radians, in [0, pi].
func angleDiff(a, b float32) float64 {
	d := math.Mod(float64(a)-float64(b), 2*math.Pi)
	if d < 0 {
		d += 2 * math.Pi
	}
	return math.Min(d, 2*math.Pi-d)
}

// angleGrid returns angles spread over (-pi, pi], both ends included as
// float32 values: float32(pi) is slightly more than pi.
func angleGrid() []float32 {
	var out []float32
	for i := -179; i <= 180; i++ {
		out = append(out, float32(float64(i)*deg))
	}
	for i := 1; i <= 1000; i++ {
		out = append(out, float32(-math.Pi+2*math.Pi*float64(i)/1000))
	}
	return append(out, math.Nextafter32(-math.Pi, 0), 1e-7, -1e-7, 0)
}

func TestQuatFromAngleAngleOf(t *testing.T) {
	for _, a := range angleGrid() {
		q := QuatFromAngle(a)
		if l := quatLen(q); math.Abs(l-1) > 1e-6 {
			t.Fatalf("QuatFromAngle(%v) = %v: length %v", a, q, l)
		}
		if q.V[0] != 0 || q.V[1] != 0 {
			t.Fatalf("QuatFromAngle(%v) = %v: not about Z", a, q)
		}
		if want := mgl32.QuatRotate(a, zAxis); !quatNear(q, want, 1e-6) {
			t.Fatalf("QuatFromAngle(%v) = %v, mgl32.QuatRotate = %v", a, q, want)
		}
		got := AngleOf(&q)
		// float32(pi) lies just above pi, so its round trip wraps to just
		// above -pi: compare on the circle.
		if d := math.Remainder(float64(got)-float64(a), 2*math.Pi); math.Abs(d) > 1e-6 {
			t.Fatalf("AngleOf(QuatFromAngle(%v)) = %v", a, got)
		}
		if got <= -math.Pi || got > math.Pi {
			t.Fatalf("AngleOf(QuatFromAngle(%v)) = %v outside (-pi, pi]", a, got)
		}
	}
	// Rotating +X by QuatFromAngle(a) gives (cos a, sin a).
	for _, a := range []float32{0, 0.5, math.Pi / 2, 2, -1} {
		q := QuatFromAngle(a)
		got := q.Rotate(mgl32.Vec3{1, 0, 0})
		want := mgl32.Vec3{float32(math.Cos(float64(a))), float32(math.Sin(float64(a))), 0}
		if !vecNear(got, want, 1e-6) {
			t.Errorf("QuatFromAngle(%v) rotates +X to %v, want %v", a, got, want)
		}
	}
}

// TestAngleOfRange checks the documented range of AngleOf, (-pi, pi], for
// quaternions with a negative scalar part: -q (the same rotation as q), and
// the blend of two headings across the ±180° seam, which is what Nlerp and
// the Interpolate system produce for a 2D entity turning through 180°.
func TestAngleOfRange(t *testing.T) {
	for _, a := range angleGrid() {
		q := neg(QuatFromAngle(a))
		got := AngleOf(&q)
		if got < -math.Pi || got > math.Pi || angleDiff(got, a) > 1e-6 {
			t.Errorf("AngleOf(-QuatFromAngle(%v)) = %v, want %v (in (-pi, pi])", a, got, a)
			break
		}
	}
	a := QuatFromAngle(170 * deg)
	b := QuatFromAngle(-170 * deg)
	q := Nlerp(&a, &b, 0.75)
	if got := AngleOf(&q); got < -math.Pi || got > math.Pi || angleDiff(got, -175*deg) > 1e-3 {
		t.Errorf("AngleOf(Nlerp(170°, -170°, 0.75)) = %v (%v°), want -175° in (-pi, pi]", got, got/deg)
	}
}

func TestWrapAngle(t *testing.T) {
	tests := []struct{ in, want float64 }{
		{0, 0},
		{1, 1},
		{-1, -1},
		{math.Pi / 2, math.Pi / 2},
		{3 * math.Pi / 2, -math.Pi / 2},
		{-3 * math.Pi / 2, math.Pi / 2},
		{2 * math.Pi, 0},
		{-2 * math.Pi, 0},
		{4*math.Pi + 0.5, 0.5},
		{-6*math.Pi - 0.5, -0.5},
		{7, 7 - 2*math.Pi},
		{190 * deg, -170 * deg},
		{-190 * deg, 170 * deg},
		{1000, 1000 - 159*2*math.Pi},
	}
	for _, tt := range tests {
		got := WrapAngle(float32(tt.in))
		if math.Abs(float64(got)-tt.want) > 2e-6 {
			t.Errorf("WrapAngle(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
	r := rand.New(rand.NewPCG(23, 24))
	lim := float32(math.Pi) // the float32 nearest pi, a little above it
	for i := 0; i < 10000; i++ {
		a := float32((r.Float64()*2 - 1) * 100)
		got := WrapAngle(a)
		if got < -lim || got > lim {
			t.Fatalf("WrapAngle(%v) = %v, out of [-pi, pi]", a, got)
		}
		if angleDiff(got, a) > 1e-5 {
			t.Fatalf("WrapAngle(%v) = %v, not the same angle", a, got)
		}
		// Inside the range, the angle is kept.
		if a > -3.14 && a < 3.14 {
			if math.Abs(float64(got-a)) > 1e-6 {
				t.Fatalf("WrapAngle(%v) = %v, want unchanged", a, got)
			}
		}
	}
}

func TestLerpAngle(t *testing.T) {
	a, b := float32(170*deg), float32(-170*deg)

	// Halfway passes through 180°, not 0.
	if got := LerpAngle(a, b, 0.5); math.Abs(math.Abs(float64(got))-math.Pi) > 1e-6 {
		t.Errorf("LerpAngle(170°, -170°, 0.5) = %v°, want ±180°", got/deg)
	}
	if got := LerpAngle(b, a, 0.5); math.Abs(math.Abs(float64(got))-math.Pi) > 1e-6 {
		t.Errorf("LerpAngle(-170°, 170°, 0.5) = %v°, want ±180°", got/deg)
	}
	tests := []struct{ a, b, t, want float64 }{
		{170, -170, 0, 170},
		{170, -170, 0.25, 175},
		{170, -170, 0.75, -175},
		{170, -170, 1, -170},
		{-170, 170, 0.25, -175},
		{10, -10, 0.5, 0},
		{0, 90, 0.5, 45},
		{-90, 90 + 1, 0.5, 180.5 - 360}, // 181° apart: the short way is through 180
		{350, 10, 0.5, 0},               // inputs outside (-180, 180]
		{0, 720 + 30, 1, 30},
		{30, 60, 2, 90}, // t is not clamped
	}
	for _, tt := range tests {
		got := LerpAngle(float32(tt.a*deg), float32(tt.b*deg), float32(tt.t))
		if angleDiff(got, float32(tt.want*deg)) > 1e-5 || got < -math.Pi-1e-6 || got > math.Pi+1e-6 {
			t.Errorf("LerpAngle(%v°, %v°, %v) = %v°, want %v°", tt.a, tt.b, tt.t, got/deg, tt.want)
		}
	}

	// Sweeping t from 0 to 1 moves in steps of a hundredth of the 20° span and
	// never comes near 0.
	prev := LerpAngle(a, b, 0)
	for i := 1; i <= 100; i++ {
		cur := LerpAngle(a, b, float32(i)/100)
		if d := angleDiff(cur, prev); d > 0.2*deg+1e-6 {
			t.Fatalf("LerpAngle step %d: jumped %v° from %v° to %v°", i, d/deg, prev/deg, cur/deg)
		}
		if math.Abs(float64(cur)) < 170*deg-1e-5 {
			t.Fatalf("LerpAngle(170°, -170°, %v) = %v°: went the long way", float32(i)/100, cur/deg)
		}
		prev = cur
	}
}

func TestLerpAngleMatchesNlerp(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for i := 0; i < 10000; i++ {
		a := float32(math.Pi - r.Float64()*2*math.Pi)
		span := (r.Float64()*2 - 1) * 30 * deg
		if i%10 == 0 { // across the ±180° seam
			a = float32(math.Pi - r.Float64()*0.1)
		}
		b := WrapAngle(a + float32(span))
		tt := float32(r.Float64())
		qa, qb := QuatFromAngle(a), QuatFromAngle(b)
		q := Nlerp(&qa, &qb, tt)
		want := AngleOf(&q)
		got := LerpAngle(a, b, tt)
		if d := angleDiff(got, want); d > 1e-3 {
			t.Fatalf("LerpAngle(%v, %v, %v) = %v, AngleOf(Nlerp) = %v", a, b, tt, got, want)
		}
	}
}

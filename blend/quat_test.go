package blend

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

const deg = math.Pi / 180

var zAxis = mgl32.Vec3{0, 0, 1}

// randQuat returns a uniformly distributed unit quaternion.
func randQuat(r *rand.Rand) mgl32.Quat {
	for {
		q := mgl32.Quat{
			W: float32(r.NormFloat64()),
			V: mgl32.Vec3{float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64())},
		}
		if l := q.Len(); l > 1e-3 {
			return q.Scale(1 / l)
		}
	}
}

func neg(q mgl32.Quat) mgl32.Quat {
	return mgl32.Quat{W: -q.W, V: mgl32.Vec3{-q.V[0], -q.V[1], -q.V[2]}}
}

func quatLen(q mgl32.Quat) float64 {
	return math.Sqrt(float64(q.W)*float64(q.W) + float64(q.V[0])*float64(q.V[0]) +
		float64(q.V[1])*float64(q.V[1]) + float64(q.V[2])*float64(q.V[2]))
}

func quatHasNaN(q mgl32.Quat) bool {
	for _, x := range [4]float32{q.W, q.V[0], q.V[1], q.V[2]} {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return true
		}
	}
	return false
}

// sameRotation reports whether a and b stand for the same rotation (q and -q
// do): |dot| is 1 within tol.
func sameRotation(a, b mgl32.Quat, tol float64) bool {
	return math.Abs(math.Abs(float64(Dot(&a, &b)))-1) <= tol
}

// quatNear compares component-wise.
func quatNear(a, b mgl32.Quat, tol float32) bool {
	return abs32(a.W-b.W) <= tol && abs32(a.V[0]-b.V[0]) <= tol &&
		abs32(a.V[1]-b.V[1]) <= tol && abs32(a.V[2]-b.V[2]) <= tol
}

// vecNear compares component-wise with an absolute tolerance.
func vecNear(a, b mgl32.Vec3, tol float32) bool {
	return abs32(a[0]-b[0]) <= tol && abs32(a[1]-b[1]) <= tol && abs32(a[2]-b[2]) <= tol
}

func abs32(x float32) float32 { return float32(math.Abs(float64(x))) }

// rotationAngle returns the angle in [0, pi] of the rotation between a and b.
func rotationAngle(a, b mgl32.Quat) float64 {
	d := math.Abs(float64(Dot(&a, &b)))
	if d > 1 {
		d = 1
	}
	return 2 * math.Acos(d)
}

type quatBlend struct {
	name string
	fn   func(a, b *mgl32.Quat, t float32) mgl32.Quat
}

var quatBlends = []quatBlend{{"Nlerp", Nlerp}, {"Slerp", Slerp}}

func TestBlendShortestPath(t *testing.T) {
	for _, bl := range quatBlends {
		// Identity toward a 350° turn about Z, which is the -10° rotation: the
		// midpoint is -5°, not 175°.
		a := mgl32.QuatIdent()
		b := mgl32.QuatRotate(350*deg, zAxis)
		got := bl.fn(&a, &b, 0.5)
		want := mgl32.QuatRotate(-5*deg, zAxis)
		if !sameRotation(got, want, 1e-6) {
			t.Errorf("%s(identity, 350°Z, 0.5) = %v (%v°), want -5° %v", bl.name, got, AngleOf(&got)/deg, want)
		}
		if ang := AngleOf(&got); math.Abs(float64(ang)+5*deg) > 1e-5 {
			t.Errorf("%s(identity, 350°Z, 0.5): angle %v°, want -5°", bl.name, ang/deg)
		}
		if l := quatLen(got); math.Abs(l-1) > 1e-6 {
			t.Errorf("%s(identity, 350°Z, 0.5): |q| = %v, want 1", bl.name, l)
		}

		// The same from a non-identity start: 30° toward 380° (20°).
		a = mgl32.QuatRotate(30*deg, zAxis)
		b = mgl32.QuatRotate(380*deg, zAxis)
		got = bl.fn(&a, &b, 0.5)
		if ang := AngleOf(&got); math.Abs(float64(ang)-25*deg) > 1e-5 {
			t.Errorf("%s(30°, 380°, 0.5): angle %v°, want 25°", bl.name, ang/deg)
		}

		// Same in 3D about an arbitrary axis, both signs of b.
		axis := mgl32.Vec3{1, -2, 0.5}.Normalize()
		a = mgl32.QuatRotate(40*deg, axis)
		for _, b := range []mgl32.Quat{mgl32.QuatRotate(-60*deg, axis), neg(mgl32.QuatRotate(-60*deg, axis))} {
			got = bl.fn(&a, &b, 0.5)
			want = mgl32.QuatRotate(-10*deg, axis)
			if !sameRotation(got, want, 1e-6) {
				t.Errorf("%s(40°, -60° (sign %v), 0.5) = %v, want -10° %v", bl.name, b.W > 0, got, want)
			}
			// The result stays in a's hemisphere.
			if Dot(&a, &got) < 0 {
				t.Errorf("%s result %v not in the hemisphere of a %v", bl.name, got, a)
			}
		}
	}
}

func TestBlendEndpointsUnit(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, bl := range quatBlends {
		for i := 0; i < 2000; i++ {
			a, b := randQuat(r), randQuat(r)
			if got := bl.fn(&a, &b, 0); !quatNear(got, a, 1e-6) {
				t.Fatalf("%s(a, b, 0) = %v, want a = %v", bl.name, got, a)
			}
			if got := bl.fn(&a, &b, 1); !sameRotation(got, b, 1e-6) {
				t.Fatalf("%s(a, b, 1) = %v, want the rotation of b = %v", bl.name, got, b)
			}
			tt := float32(r.Float64())
			got := bl.fn(&a, &b, tt)
			if l := quatLen(got); math.Abs(l-1) > 1e-5 {
				t.Fatalf("%s(%v, %v, %v) = %v has length %v, want 1", bl.name, a, b, tt, got, l)
			}
			// Shortest path: the blend never turns further from a than b is.
			if ra, rb := rotationAngle(a, got), rotationAngle(a, b); ra > rb+1e-3 {
				t.Fatalf("%s(%v, %v, %v): %v rad from a, more than b's %v", bl.name, a, b, tt, ra, rb)
			}
		}
	}
}

func TestNlerpOfNegatedIsSame(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 1000; i++ {
		a := randQuat(r)
		b := neg(a) // the same rotation
		for _, tt := range []float32{0, 0.3, 0.5, 1} {
			if got := Nlerp(&a, &b, tt); !quatNear(got, a, 1e-6) {
				t.Fatalf("Nlerp(a, -a, %v) = %v, want a = %v", tt, got, a)
			}
			if got := Slerp(&a, &b, tt); !quatNear(got, a, 1e-6) {
				t.Fatalf("Slerp(a, -a, %v) = %v, want a = %v", tt, got, a)
			}
		}
	}
}

func TestSlerpMatchesMgl32(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for i := 0; i < 10000; i++ {
		a, b := randQuat(r), randQuat(r)
		if i%4 == 0 {
			// Close pairs, including the nlerp fallback below dot 0.9995.
			axis := randVec(r, 1).Normalize()
			d := mgl32.QuatRotate(float32(r.Float64()*0.2), axis)
			b = Mul(&d, &a)
		}
		tt := float32(r.Float64())
		got := Slerp(&a, &b, tt)
		want := mgl32.QuatSlerp(a, b, tt)
		want = Align(&got, &want)
		if !quatNear(got, want, 1e-5) {
			t.Fatalf("Slerp(%v, %v, %v) = %v, mgl32.QuatSlerp = %v", a, b, tt, got, want)
		}
		// Constant angular speed: the angle turned is t times the whole.
		if ra, rb := rotationAngle(a, got), rotationAngle(a, b); math.Abs(ra-float64(tt)*rb) > 2e-3 {
			t.Fatalf("Slerp(%v, %v, %v) turned %v rad, want %v", a, b, tt, ra, float64(tt)*rb)
		}
	}
}

func TestNlerpAligned(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < 10000; i++ {
		a, b := randQuat(r), randQuat(r)
		tt := float32(r.Float64()*1.2 - 0.1)
		bb := Align(&a, &b)
		if Dot(&a, &bb) < 0 {
			t.Fatalf("Align(%v, %v) = %v, still in the other hemisphere", a, b, bb)
		}
		if bb != b && bb != neg(b) {
			t.Fatalf("Align(%v, %v) = %v, want b or -b", a, b, bb)
		}
		if got, want := NlerpAligned(&a, &bb, tt), Nlerp(&a, &b, tt); got != want {
			t.Fatalf("NlerpAligned(a, Align(a, b), %v) = %v, Nlerp = %v", tt, got, want)
		}
		got := NlerpAligned(&a, &bb, tt)
		want := mgl32.QuatNlerp(a, bb, tt)
		if !quatNear(got, want, 1e-6) {
			t.Fatalf("NlerpAligned(%v, %v, %v) = %v, mgl32.QuatNlerp = %v", a, bb, tt, got, want)
		}
		// Its two halves, as a caller drawing many blends uses them, give
		// the same bits.
		var parts mgl32.Quat
		w, x, y, z := LerpQuat(&a, &bb, tt)
		SetUnit(&parts, w, x, y, z)
		if parts != got {
			t.Fatalf("SetUnit(LerpQuat(%v, %v, %v)) = %v, NlerpAligned = %v", a, bb, tt, parts, got)
		}
	}
}

func TestBlendDegenerate(t *testing.T) {
	id := mgl32.QuatIdent()
	zRot := mgl32.QuatRotate(1, zAxis)
	halfTurn := mgl32.Quat{V: mgl32.Vec3{0, 0, 1}} // 180° about Z, dot with identity 0
	tiny := mgl32.Quat{W: 1e-20}
	almost := mgl32.QuatRotate(1e-6, zAxis) // dot with identity ~1
	cases := []struct {
		name string
		a, b mgl32.Quat
		unit bool // unit inputs must give a unit output
	}{
		{"zero, zero", mgl32.Quat{}, mgl32.Quat{}, false},
		{"zero, identity", mgl32.Quat{}, id, false},
		{"identity, zero", id, mgl32.Quat{}, false},
		{"tiny, tiny", tiny, tiny, false},
		{"tiny, -tiny", tiny, neg(tiny), false},
		{"a, a", zRot, zRot, true},
		{"a, -a", zRot, neg(zRot), true},
		{"identity, half turn (dot 0)", id, halfTurn, true},
		{"identity, almost identity", id, almost, true},
		{"non-unit, dot > 1", zRot.Scale(2), zRot.Scale(3), false},
	}
	for _, c := range cases {
		for _, bl := range quatBlends {
			for _, tt := range []float32{0, 0.5, 1, -0.5, 1.5} {
				got := bl.fn(&c.a, &c.b, tt)
				if quatHasNaN(got) {
					t.Errorf("%s(%s, t=%v) = %v: not finite", bl.name, c.name, tt, got)
					continue
				}
				if c.unit {
					if l := quatLen(got); math.Abs(l-1) > 1e-5 {
						t.Errorf("%s(%s, t=%v) = %v: length %v, want 1", bl.name, c.name, tt, got, l)
					}
				}
			}
		}
	}
	// A blend that degenerates to the zero quaternion returns a.
	a := mgl32.Quat{W: 1}
	b := mgl32.Quat{W: 3} // a + (b-a)*(-0.5) = 0
	if got := NlerpAligned(&a, &b, -0.5); got != a {
		t.Errorf("NlerpAligned through zero = %v, want a = %v", got, a)
	}
}

func TestMulConj(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	id := mgl32.QuatIdent()
	for i := 0; i < 10000; i++ {
		q := randQuat(r)
		c := Conj(&q)
		if c != q.Conjugate() {
			t.Fatalf("Conj(%v) = %v, want %v", q, c, q.Conjugate())
		}
		if got := Mul(&q, &c); !quatNear(got, id, 1e-6) {
			t.Fatalf("q*conj(q) = %v for q = %v, want identity", got, q)
		}
		if got := Mul(&c, &q); !quatNear(got, id, 1e-6) {
			t.Fatalf("conj(q)*q = %v for q = %v, want identity", got, q)
		}
		if got := Mul(&q, &id); got != q {
			t.Fatalf("q*1 = %v, want %v", got, q)
		}

		a, b := randQuat(r), randQuat(r)
		if i%2 == 0 { // non-unit operands too
			a, b = a.Scale(float32(r.Float64()*4)), b.Scale(float32(r.Float64()*4))
		}
		got, want := Mul(&a, &b), a.Mul(b)
		if !quatNear(got, want, 1e-5) {
			t.Fatalf("Mul(%v, %v) = %v, mgl32 Quat.Mul = %v", a, b, got, want)
		}
	}

	// Mul(a, b) applies b, then a.
	a := mgl32.QuatRotate(90*deg, zAxis)
	b := mgl32.QuatRotate(90*deg, mgl32.Vec3{1, 0, 0})
	ab := Mul(&a, &b)
	v := mgl32.Vec3{0, 1, 0}
	// b takes +Y to +Z, a leaves +Z in place.
	if got := ab.Rotate(v); !vecNear(got, mgl32.Vec3{0, 0, 1}, 1e-6) {
		t.Errorf("Mul(90°Z, 90°X) rotates +Y to %v, want +Z", got)
	}
}

func TestNormalize(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	id := mgl32.QuatIdent()

	if got, ok := Normalize(mgl32.Quat{}); got != id || !ok {
		t.Errorf("Normalize(0) = %v, %v; want identity, true", got, ok)
	}
	bad := []mgl32.Quat{
		{W: nan},
		{W: 1, V: mgl32.Vec3{0, nan, 0}},
		{W: inf},
		{W: 1, V: mgl32.Vec3{0, 0, -inf}},
		{W: 1e-20},
		{W: 1e-20, V: mgl32.Vec3{1e-20, -1e-20, 1e-20}},
		{W: 1e-7}, // shorter than the direction threshold of 1e-6
	}
	for _, q := range bad {
		if got, ok := Normalize(q); ok || got != id {
			t.Errorf("Normalize(%v) = %v, %v; want identity, false", q, got, ok)
		}
	}

	good := []struct{ in, want mgl32.Quat }{
		{mgl32.Quat{W: 2}, id},
		{mgl32.Quat{W: -3}, mgl32.Quat{W: -1}},
		{mgl32.Quat{W: 1, V: mgl32.Vec3{1, 1, 1}}, mgl32.Quat{W: 0.5, V: mgl32.Vec3{0.5, 0.5, 0.5}}},
		{mgl32.Quat{V: mgl32.Vec3{0, 3, 4}}, mgl32.Quat{V: mgl32.Vec3{0, 0.6, 0.8}}},
		{mgl32.Quat{W: 1e-5}, id},
		{mgl32.Quat{W: 3e38, V: mgl32.Vec3{3e38, 3e38, 3e38}}, mgl32.Quat{W: 0.5, V: mgl32.Vec3{0.5, 0.5, 0.5}}},
	}
	for _, g := range good {
		got, ok := Normalize(g.in)
		if !ok || !quatNear(got, g.want, 1e-6) {
			t.Errorf("Normalize(%v) = %v, %v; want %v, true", g.in, got, ok, g.want)
		}
	}

	r := rand.New(rand.NewPCG(15, 16))
	for i := 0; i < 1000; i++ {
		q := randQuat(r)
		s := float32(math.Pow(10, r.Float64()*10-4)) // 1e-4 .. 1e6
		got, ok := Normalize(q.Scale(s))
		if !ok || !quatNear(got, q, 1e-6) {
			t.Fatalf("Normalize(%v * %v) = %v, %v; want %v, true", q, s, got, ok, q)
		}
	}
}

func TestOffsetRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for i := 0; i < 10000; i++ {
		a, b := randQuat(r), randQuat(r)
		v := Offset(&a, &b)
		if l := LenSq(&v); l > 1+1e-6 {
			t.Fatalf("Offset(%v, %v) = %v: |v|² = %v > 1", a, b, v, l)
		}
		got := ApplyOffset(&v, &b)
		if !sameRotation(got, a, 1e-5) {
			t.Fatalf("ApplyOffset(Offset(a, b), b) = %v, want the rotation of a = %v (b = %v)", got, a, b)
		}
		// The offset does not depend on the sign of either operand.
		na, nb := neg(a), neg(b)
		if w := Offset(&na, &b); !vecNear(w, v, 1e-6) {
			t.Fatalf("Offset(-a, b) = %v, want %v", w, v)
		}
		if w := Offset(&a, &nb); !vecNear(w, v, 1e-6) {
			t.Fatalf("Offset(a, -b) = %v, want %v", w, v)
		}
		// No offset between a rotation and itself, whatever its sign.
		if w := Offset(&a, &a); LenSq(&w) > 1e-12 {
			t.Fatalf("Offset(a, a) = %v, want zero", w)
		}
		if w := Offset(&a, &na); LenSq(&w) > 1e-12 {
			t.Fatalf("Offset(a, -a) = %v, want zero", w)
		}
	}

	// Known value: from 90° about Z to identity is sin(45°) along Z.
	from, to := mgl32.QuatRotate(90*deg, zAxis), mgl32.QuatIdent()
	v := Offset(&from, &to)
	if want := (mgl32.Vec3{0, 0, float32(math.Sqrt2 / 2)}); !vecNear(v, want, 1e-6) {
		t.Errorf("Offset(90°Z, identity) = %v, want %v", v, want)
	}
	if got := OffsetAngle(&v); math.Abs(float64(got)-math.Pi/2) > 1e-6 {
		t.Errorf("OffsetAngle = %v, want pi/2", got)
	}
	// The zero offset rebuilds the identity and leaves q alone.
	var zero mgl32.Vec3
	if got := OffsetQuat(&zero); got != mgl32.QuatIdent() {
		t.Errorf("OffsetQuat(0) = %v, want identity", got)
	}
	q := mgl32.QuatRotate(1, mgl32.Vec3{0, 1, 0})
	if got := ApplyOffset(&zero, &q); got != q {
		t.Errorf("ApplyOffset(0, q) = %v, want %v", got, q)
	}
	if got := OffsetAngle(&zero); got != 0 {
		t.Errorf("OffsetAngle(0) = %v, want 0", got)
	}
	// A half turn: |v| = 1, W rebuilt as 0.
	half := mgl32.Vec3{1, 0, 0}
	if got := OffsetAngle(&half); math.Abs(float64(got)-math.Pi) > 1e-6 {
		t.Errorf("OffsetAngle(half turn) = %v, want pi", got)
	}
	if got := OffsetQuat(&half); got != (mgl32.Quat{V: half}) {
		t.Errorf("OffsetQuat(half turn) = %v, want %v", got, mgl32.Quat{V: half})
	}
	// Slightly longer than 1 from rounding: W clamps to 0, no NaN.
	long := mgl32.Vec3{1.0000001, 0, 0}
	if got := OffsetQuat(&long); quatHasNaN(got) || got.W != 0 {
		t.Errorf("OffsetQuat(%v) = %v, want W = 0", long, got)
	}
	if got := OffsetAngle(&long); math.Abs(float64(got)-math.Pi) > 1e-6 {
		t.Errorf("OffsetAngle(%v) = %v, want pi", long, got)
	}
}

func TestScaleOffset(t *testing.T) {
	var zero mgl32.Vec3
	if got := ScaleOffset(&zero, 0.5); got != zero {
		t.Errorf("ScaleOffset(0, 0.5) = %v, want 0", got)
	}

	r := rand.New(rand.NewPCG(19, 20))
	for i := 0; i < 10000; i++ {
		a, b := randQuat(r), randQuat(r)
		if i%2 == 0 { // small corrections, the common case
			axis := randVec(r, 1).Normalize()
			d := mgl32.QuatRotate(float32(r.Float64()*0.3), axis)
			b = Mul(&d, &a)
		}
		v := Offset(&a, &b)
		ang := OffsetAngle(&v)

		if got := ScaleOffset(&v, 0); got != zero {
			t.Fatalf("ScaleOffset(%v, 0) = %v, want 0", v, got)
		}
		if got := ScaleOffset(&v, 1); !vecNear(got, v, 1e-6) {
			t.Fatalf("ScaleOffset(%v, 1) = %v, want v", v, got)
		}
		h := ScaleOffset(&v, 0.5)
		// Angles near a half turn are ill-conditioned in this representation
		// (asin near 1), hence the looser tolerance there.
		tol := 1e-5
		if ang > 3 {
			tol = 2e-3
		}
		if got := OffsetAngle(&h); math.Abs(float64(got)-float64(ang)/2) > tol {
			t.Fatalf("OffsetAngle(ScaleOffset(%v, 0.5)) = %v, want %v/2", v, got, ang)
		}
		k := float32(r.Float64())
		s := ScaleOffset(&v, k)
		if got := OffsetAngle(&s); math.Abs(float64(got)-float64(ang*k)) > tol {
			t.Fatalf("OffsetAngle(ScaleOffset(%v, %v)) = %v, want %v", v, k, got, ang*k)
		}
		// Same axis: parallel, same direction.
		if LenSq(&v) > 1e-8 {
			if c := v.Cross(s); c.Len() > 1e-5 {
				t.Fatalf("ScaleOffset(%v, %v) = %v changed the axis", v, k, s)
			}
			if v.Dot(s) < 0 {
				t.Fatalf("ScaleOffset(%v, %v) = %v reversed the axis", v, k, s)
			}
		}
		// Two halves make the whole.
		if got := ComposeOffsets(&h, &h); !vecNear(got, v, 1e-5) {
			if ang < 3 { // near a half turn v and -v are both valid
				t.Fatalf("ComposeOffsets(h, h) = %v, want %v", got, v)
			}
		}
	}
}

func TestComposeOffsets(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	var zero mgl32.Vec3
	for i := 0; i < 10000; i++ {
		a1, a2, b1, b2, q := randQuat(r), randQuat(r), randQuat(r), randQuat(r), randQuat(r)
		va, vb := Offset(&a1, &a2), Offset(&b1, &b2)
		c := ComposeOffsets(&va, &vb)
		if l := LenSq(&c); l > 1+1e-6 {
			t.Fatalf("ComposeOffsets(%v, %v) = %v: |v|² = %v > 1", va, vb, c, l)
		}
		got := ApplyOffset(&c, &q)
		qb := ApplyOffset(&vb, &q)
		want := ApplyOffset(&va, &qb)
		if !sameRotation(got, want, 1e-5) {
			t.Fatalf("ApplyOffset(ComposeOffsets(a, b), q) = %v, want ApplyOffset(a, ApplyOffset(b, q)) = %v", got, want)
		}
		if got := ComposeOffsets(&va, &zero); !vecNear(got, va, 1e-6) {
			t.Fatalf("ComposeOffsets(a, 0) = %v, want %v", got, va)
		}
		if got := ComposeOffsets(&zero, &vb); !vecNear(got, vb, 1e-6) {
			t.Fatalf("ComposeOffsets(0, b) = %v, want %v", got, vb)
		}
		// An offset composed with its inverse cancels.
		inv := mgl32.Vec3{-va[0], -va[1], -va[2]}
		if got := ComposeOffsets(&va, &inv); LenSq(&got) > 1e-10 {
			t.Fatalf("ComposeOffsets(a, -a) = %v, want zero", got)
		}
	}
	// Two quarter turns about Z make a half turn.
	q := Offset(ptr(mgl32.QuatRotate(90*deg, zAxis)), ptr(mgl32.QuatIdent()))
	h := ComposeOffsets(&q, &q)
	if got := OffsetAngle(&h); math.Abs(float64(got)-math.Pi) > 1e-3 {
		t.Errorf("two quarter turns: angle %v, want pi", got)
	}
}

func ptr[T any](v T) *T { return &v }

func TestQuatNoAlloc(t *testing.T) {
	a := mgl32.QuatRotate(0.3, zAxis)
	b := mgl32.QuatRotate(-2, mgl32.Vec3{0, 1, 0})
	var sink mgl32.Quat
	var v mgl32.Vec3
	n := testing.AllocsPerRun(100, func() {
		sink = Nlerp(&a, &b, 0.3)
		sink = Slerp(&sink, &b, 0.3)
		sink = Mul(&sink, &a)
		sink, _ = Normalize(sink)
		v = Offset(&a, &sink)
		v = ScaleOffset(&v, 0.5)
		v = ComposeOffsets(&v, &v)
		sink = ApplyOffset(&v, &sink)
	})
	if n != 0 {
		t.Errorf("allocations per run = %v, want 0", n)
	}
}

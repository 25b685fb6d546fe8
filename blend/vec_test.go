package blend

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// ulp32 returns the distance from |x| to the next larger float32.
func ulp32(x float32) float32 {
	x = float32(math.Abs(float64(x)))
	return math.Nextafter32(x, float32(math.Inf(1))) - x
}

func randVec(r *rand.Rand, scale float64) mgl32.Vec3 {
	return mgl32.Vec3{
		float32((r.Float64()*2 - 1) * scale),
		float32((r.Float64()*2 - 1) * scale),
		float32((r.Float64()*2 - 1) * scale),
	}
}

func TestLerp(t *testing.T) {
	a := mgl32.Vec3{1, -2, 3}
	b := mgl32.Vec3{5, 6, -7}

	tests := []struct {
		t    float32
		want mgl32.Vec3
	}{
		{0, a},
		{1, b},
		{0.5, mgl32.Vec3{3, 2, -2}},
		{0.25, mgl32.Vec3{2, 0, 0.5}},
		// t is not clamped.
		{2, mgl32.Vec3{9, 14, -17}},
		{-1, mgl32.Vec3{-3, -10, 13}},
	}
	for _, tt := range tests {
		if got := Lerp(&a, &b, tt.t); got != tt.want {
			t.Errorf("Lerp(%v, %v, %v) = %v, want %v", a, b, tt.t, got, tt.want)
		}
	}
	if got := Lerp(&a, &a, 0.37); got != a {
		t.Errorf("Lerp(a, a, 0.37) = %v, want %v", got, a)
	}
}

func TestLerpRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 10000; i++ {
		a, b := randVec(r, 1000), randVec(r, 1000)
		if got := Lerp(&a, &b, 0); got != a {
			t.Fatalf("Lerp(%v, %v, 0) = %v, want a exactly", a, b, got)
		}
		// a + (b-a)*1 rounds twice: it is within a couple of ulps of b, not
		// always b itself.
		got := Lerp(&a, &b, 1)
		for k := 0; k < 3; k++ {
			tol := 2 * max(ulp32(a[k]), ulp32(b[k]))
			if d := float32(math.Abs(float64(got[k] - b[k]))); d > tol {
				t.Fatalf("Lerp(%v, %v, 1)[%d] = %v, want %v within %g", a, b, k, got[k], b[k], tol)
			}
		}
		tt := float32(r.Float64())
		got = Lerp(&a, &b, tt)
		for k := 0; k < 3; k++ {
			want := float64(a[k]) + (float64(b[k])-float64(a[k]))*float64(tt)
			if d := math.Abs(float64(got[k]) - want); d > 1e-3 {
				t.Fatalf("Lerp(%v, %v, %v)[%d] = %v, want %v", a, b, tt, k, got[k], want)
			}
		}
	}
}

func TestAddScaled(t *testing.T) {
	a := mgl32.Vec3{1, 2, 3}
	v := mgl32.Vec3{4, -5, 0.5}
	if got, want := AddScaled(&a, &v, 2), (mgl32.Vec3{9, -8, 4}); got != want {
		t.Errorf("AddScaled(%v, %v, 2) = %v, want %v", a, v, got, want)
	}
	if got := AddScaled(&a, &v, 0); got != a {
		t.Errorf("AddScaled(a, v, 0) = %v, want %v", got, a)
	}
	if got, want := AddScaled(&a, &v, -0.5), (mgl32.Vec3{-1, 4.5, 2.75}); got != want {
		t.Errorf("AddScaled(%v, %v, -0.5) = %v, want %v", a, v, got, want)
	}
	// Linear dead reckoning: 5 units/tick for one tick from x = 5.
	p, vel := mgl32.Vec3{5, 0, 0}, mgl32.Vec3{5, 0, 0}
	if got := AddScaled(&p, &vel, 1); got != (mgl32.Vec3{10, 0, 0}) {
		t.Errorf("AddScaled(5, 5, 1) = %v, want [10 0 0]", got)
	}
}

func TestDistSqLenSq(t *testing.T) {
	a := mgl32.Vec3{1, 2, 3}
	b := mgl32.Vec3{4, 6, 3}
	if got := DistSq(&a, &b); got != 25 {
		t.Errorf("DistSq(%v, %v) = %v, want 25", a, b, got)
	}
	if got := DistSq(&b, &a); got != 25 {
		t.Errorf("DistSq(%v, %v) = %v, want 25", b, a, got)
	}
	if got := DistSq(&a, &a); got != 0 {
		t.Errorf("DistSq(a, a) = %v, want 0", got)
	}
	v := mgl32.Vec3{3, -4, 12}
	if got := LenSq(&v); got != 169 {
		t.Errorf("LenSq(%v) = %v, want 169", v, got)
	}
	var zero mgl32.Vec3
	if got := DistSq(&v, &zero); got != LenSq(&v) {
		t.Errorf("DistSq(v, 0) = %v, want LenSq(v) = %v", got, LenSq(&v))
	}

	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 1000; i++ {
		a, b := randVec(r, 100), randVec(r, 100)
		want := a.Sub(b).LenSqr()
		if got := DistSq(&a, &b); math.Abs(float64(got-want)) > 1e-5*float64(want)+1e-6 {
			t.Fatalf("DistSq(%v, %v) = %v, want %v", a, b, got, want)
		}
	}
}

func TestVecNoAlloc(t *testing.T) {
	a, b := mgl32.Vec3{1, 2, 3}, mgl32.Vec3{4, 5, 6}
	var sink mgl32.Vec3
	var f float32
	n := testing.AllocsPerRun(100, func() {
		sink = Lerp(&a, &b, 0.5)
		sink = AddScaled(&sink, &b, 0.1)
		f += DistSq(&a, &sink) + LenSq(&sink)
	})
	if n != 0 {
		t.Errorf("allocations per run = %v, want 0", n)
	}
	_ = f
}

package blend

import (
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// benchN inputs per benchmark: the index walks slices that the compiler
// cannot see through, and every result is stored to an output slice so that
// no call can be folded or dropped.
const benchN = 1024

func benchVecs() (a, b []mgl32.Vec3, t []float32) {
	r := rand.New(rand.NewPCG(100, 101))
	a, b, t = make([]mgl32.Vec3, benchN), make([]mgl32.Vec3, benchN), make([]float32, benchN)
	for i := range a {
		a[i], b[i], t[i] = randVec(r, 100), randVec(r, 100), float32(r.Float64())
	}
	return a, b, t
}

// benchQuats returns pairs a few degrees apart, as consecutive snapshots
// are, with b already aligned to a.
func benchQuats() (a, b []mgl32.Quat, t []float32) {
	r := rand.New(rand.NewPCG(102, 103))
	a, b, t = make([]mgl32.Quat, benchN), make([]mgl32.Quat, benchN), make([]float32, benchN)
	for i := range a {
		a[i] = randQuat(r)
		// Wide enough that slerp takes its trigonometric path (dot < 0.9995).
		d := mgl32.QuatRotate(float32(0.1+r.Float64()*0.3), randVec(r, 1).Normalize())
		b[i] = Mul(&d, &a[i])
		b[i] = Align(&a[i], &b[i])
		t[i] = float32(r.Float64())
	}
	return a, b, t
}

func BenchmarkLerp(b *testing.B) {
	as, bs, ts := benchVecs()
	b.ReportAllocs()
	b.ResetTimer()
	out := make([]mgl32.Vec3, benchN)
	for i := 0; i < b.N; i++ {
		j := i & (benchN - 1)
		out[j] = Lerp(&as[j], &bs[j], ts[j])
	}
}

func BenchmarkMgl32Lerp(b *testing.B) {
	as, bs, ts := benchVecs()
	b.ReportAllocs()
	b.ResetTimer()
	out := make([]mgl32.Vec3, benchN)
	for i := 0; i < b.N; i++ {
		j := i & (benchN - 1)
		out[j] = as[j].Add(bs[j].Sub(as[j]).Mul(ts[j]))
	}
}

func BenchmarkNlerpAligned(b *testing.B) {
	as, bs, ts := benchQuats()
	b.ReportAllocs()
	b.ResetTimer()
	out := make([]mgl32.Quat, benchN)
	for i := 0; i < b.N; i++ {
		j := i & (benchN - 1)
		out[j] = NlerpAligned(&as[j], &bs[j], ts[j])
	}
}

func BenchmarkNlerp(b *testing.B) {
	as, bs, ts := benchQuats()
	b.ReportAllocs()
	b.ResetTimer()
	out := make([]mgl32.Quat, benchN)
	for i := 0; i < b.N; i++ {
		j := i & (benchN - 1)
		out[j] = Nlerp(&as[j], &bs[j], ts[j])
	}
}

func BenchmarkMgl32QuatNlerp(b *testing.B) {
	as, bs, ts := benchQuats()
	b.ReportAllocs()
	b.ResetTimer()
	out := make([]mgl32.Quat, benchN)
	for i := 0; i < b.N; i++ {
		j := i & (benchN - 1)
		out[j] = mgl32.QuatNlerp(as[j], bs[j], ts[j])
	}
}

func BenchmarkSlerp(b *testing.B) {
	as, bs, ts := benchQuats()
	b.ReportAllocs()
	b.ResetTimer()
	out := make([]mgl32.Quat, benchN)
	for i := 0; i < b.N; i++ {
		j := i & (benchN - 1)
		out[j] = Slerp(&as[j], &bs[j], ts[j])
	}
}

func BenchmarkMgl32QuatSlerp(b *testing.B) {
	as, bs, ts := benchQuats()
	b.ReportAllocs()
	b.ResetTimer()
	out := make([]mgl32.Quat, benchN)
	for i := 0; i < b.N; i++ {
		j := i & (benchN - 1)
		out[j] = mgl32.QuatSlerp(as[j], bs[j], ts[j])
	}
}

package wire

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

func randomQuat(rng *rand.Rand) mgl32.Quat {
	// Uniform on the 3-sphere (normalised Gaussian 4-vector).
	q := mgl32.Quat{W: float32(rng.NormFloat64()), V: mgl32.Vec3{float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())}}
	return q.Normalize()
}

// angleBetween is the rotation angle, in radians, that takes unit
// quaternion a to b: 4·asin(|a∓b|/2), well conditioned for small angles
// (unlike 2·acos of the dot product).
func angleBetween(a, b mgl32.Quat) float64 {
	x := [4]float64{float64(a.W), float64(a.V[0]), float64(a.V[1]), float64(a.V[2])}
	y := [4]float64{float64(b.W), float64(b.V[0]), float64(b.V[1]), float64(b.V[2])}
	dot := 0.0
	for i := range 4 {
		dot += x[i] * y[i]
	}
	s := 1.0
	if dot < 0 {
		s = -1
	}
	d := 0.0
	for i := range 4 {
		d += (x[i] - s*y[i]) * (x[i] - s*y[i])
	}
	return 4 * math.Asin(math.Min(1, math.Sqrt(d)/2))
}

// rotationBound is the documented worst-case angle error of smallest-three
// at n bits: each sent component is off by at most d = 1/(2·M·√2); the
// recomputed largest one (at least 1/2) by at most about 3·d·√2; the
// quaternion by |Δq| ≤ √(3 + 18)·d < 4.6·d, and the angle by 2·|Δq|.
func rotationBound(n int) float64 {
	m := float64(int(1)<<(n-1) - 1)
	d := 1 / (2 * m * math.Sqrt2)
	return 2 * 4.6 * d
}

func TestSmallestThreeErrorBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, bits := range []int{4, 6, 8, 10, 12, 16, 20} {
		q := Quantizer{RotBits: bits}
		worst := 0.0
		for range 50000 {
			r := randomQuat(rng)
			p, err := q.PackRotation(r)
			if err != nil {
				t.Fatal(err)
			}
			back, err := q.UnpackRotation(p)
			if err != nil {
				t.Fatal(err)
			}
			if l := back.Len(); math.Abs(float64(l)-1) > 1e-6 {
				t.Fatalf("%d bits: unpacked length %v", bits, l)
			}
			worst = max(worst, angleBetween(r, back))
		}
		if b := rotationBound(bits); worst > b+1e-6 { // + float32 rounding
			t.Errorf("%d bits: worst angle error %.6f rad > bound %.6f", bits, worst, b)
		}
		t.Logf("%2d bits (%d bytes): worst angle error %.4f° (bound %.4f°)", bits, q.mustNorm().rotationBytes(), worst*180/math.Pi, rotationBound(bits)*180/math.Pi)
	}
}

func TestSmallestThreeExactCases(t *testing.T) {
	q := DefaultQuantizer()
	for _, r := range []mgl32.Quat{{W: 1}, {}, {W: -1}, {W: 5}} {
		p, err := q.PackRotation(r)
		if err != nil || p != q.identity() {
			t.Errorf("%v packs to %#x, %v; want the identity %#x", r, p, err, q.identity())
		}
	}
	back, err := q.UnpackRotation(q.identity())
	if err != nil || back != (mgl32.Quat{W: 1}) {
		t.Errorf("identity unpacks to %v, %v", back, err)
	}
	// Quarter turns are exact too: components 0 and ±1/√2 are levels.
	r := mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{0, 0, 1})
	p, _ := q.PackRotation(r)
	back, _ = q.UnpackRotation(p)
	if a := angleBetween(r, back); a > 1e-6 {
		t.Errorf("quarter turn off by %g rad", a)
	}
}

func TestSmallestThreeSign(t *testing.T) {
	q := DefaultQuantizer()
	rng := rand.New(rand.NewPCG(7, 8))
	for range 1000 {
		r := randomQuat(rng)
		a, _ := q.PackRotation(r)
		b, _ := q.PackRotation(mgl32.Quat{W: -r.W, V: r.V.Mul(-1)})
		if a != b {
			t.Fatalf("q and -q pack differently: %#x %#x", a, b)
		}
	}
}

func TestUnpackRotationRejects(t *testing.T) {
	q := DefaultQuantizer() // 32 bits packed
	if _, err := q.UnpackRotation(1 << 32); !errors.Is(err, ErrRange) {
		t.Errorf("bits above: %v", err)
	}
	if _, err := q.UnpackRotation(3 | 1023<<2); !errors.Is(err, ErrRange) { // level 1023 > 2·511
		t.Errorf("level 2M+1: %v", err)
	}
	if _, err := q.PackRotation(mgl32.Quat{V: mgl32.Vec3{float32(math.Inf(1)), 0, 0}}); !errors.Is(err, ErrRange) {
		t.Errorf("infinite: %v", err)
	}
	// Entity never fails: an invalid packed rotation reads as the identity.
	if e := q.Entity(Record{Rot: 1 << 40}); e.Rot != (mgl32.Quat{W: 1}) {
		t.Errorf("invalid rotation converted to %v", e.Rot)
	}
}

// The encoder refuses a record whose packed rotation the quantizer could
// not have produced, at each of its three components and above its bits,
// and takes every level up to 2M.
func TestEncoderRefusesInvalidRotation(t *testing.T) {
	q := DefaultQuantizer()
	n := uint(q.RotBits)
	ones := uint64(1)<<n - 1
	enc, _ := NewEncoder(Config{})
	if err := enc.Begin(Header{}, SnapshotInfo{Tick: 1}, nil); err != nil {
		t.Fatal(err)
	}
	id := uint32(0)
	add := func(rot uint64) error {
		id++
		return enc.Add(&Record{NetID: id, Rot: rot}, nil, 0)
	}
	for k := range uint(3) {
		if err := add(3 | ones<<(2+k*n)); !errors.Is(err, ErrRange) {
			t.Errorf("component %d at level 2M+1: %v, want ErrRange", k, err)
		}
		if err := add(3 | (ones-1)<<(2+k*n)); err != nil {
			t.Errorf("component %d at level 2M: %v", k, err)
		}
	}
	if err := add(3 | 1<<(2+3*n)); !errors.Is(err, ErrRange) {
		t.Errorf("a bit above the packed rotation: %v, want ErrRange", err)
	}
	if err := add(q.identity()); err != nil {
		t.Errorf("identity: %v", err)
	}
}

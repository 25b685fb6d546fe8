package systems

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	c "github.com/netsmooth/netsmooth/components"
)

// TestCorrectionBitsZero: the word-wise test Interpolate runs on every
// entity's Correction never calls a correction empty that IsZero would
// count, and passes every other case on to IsZero.
func TestCorrectionBitsZero(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	tiny := float32(math.SmallestNonzeroFloat32)
	cases := []struct {
		name     string
		corr     c.Correction
		bitsZero bool
	}{
		{"zero", c.Correction{}, true},
		{"negative zero position", c.Correction{Pos: mgl32.Vec3{0, negZero, 0}}, false},
		{"negative zero rotation", c.Correction{Rot: mgl32.Vec3{0, 0, negZero}}, false},
		{"smallest position", c.Correction{Pos: mgl32.Vec3{0, 0, tiny}}, false},
		{"smallest rotation", c.Correction{Rot: mgl32.Vec3{tiny, 0, 0}}, false},
		{"position", c.Correction{Pos: mgl32.Vec3{1, 2, 3}}, false},
		{"rotation", c.Correction{Rot: mgl32.Vec3{0, 0.1, 0}}, false},
	}
	for _, tc := range cases {
		got := correctionBitsZero(&tc.corr)
		if got != tc.bitsZero {
			t.Errorf("%s: correctionBitsZero = %v, want %v", tc.name, got, tc.bitsZero)
		}
		// What Interpolate counts: only a correction IsZero calls non-empty.
		counted := !got && !tc.corr.IsZero()
		if counted == tc.corr.IsZero() {
			t.Errorf("%s: counted = %v but IsZero = %v", tc.name, counted, tc.corr.IsZero())
		}
	}
}

// TestAheadCounts: the counts give the minimum, mean and maximum of the
// values counted, also merged from two passes, and zeros for none.
func TestAheadCounts(t *testing.T) {
	var a, b aheadCounts
	for _, v := range []int{3, 3, 5, 1} {
		a.add(v)
	}
	for _, v := range []int{16, 3, 0} {
		b.add(v)
	}
	a.merge(&b)
	if lo, mean, hi := a.stats(); lo != 0 || hi != 16 || math.Abs(mean-31.0/7) > 1e-12 {
		t.Fatalf("stats %d, %v, %d; want 0, 31/7, 16", lo, mean, hi)
	}
	var none aheadCounts
	if lo, mean, hi := none.stats(); lo != 0 || mean != 0 || hi != 0 {
		t.Fatalf("stats of nothing %d, %v, %d; want zeros", lo, mean, hi)
	}
}

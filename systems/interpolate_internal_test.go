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

// TestAheadCounts: the counts give the same sum, count, minimum and
// maximum as tallying every entity one by one.
func TestAheadCounts(t *testing.T) {
	values := []int{3, 3, 5, 1, 16, 3, 0}
	var h aheadCounts
	want := frameCounts{aheadMin: c.RingCapacity}
	for _, v := range values {
		h.add(v)
		want.ahead(v)
	}
	got := frameCounts{aheadMin: c.RingCapacity}
	h.tally(&got)
	if got != want {
		t.Fatalf("tally %+v, want %+v", got, want)
	}
	if got.aheadSum != 31 || got.aheadN != 7 || got.aheadMin != 0 || got.aheadMax != 16 {
		t.Fatalf("tally %+v, want sum 31 of 7, 0..16", got)
	}
}

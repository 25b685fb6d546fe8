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

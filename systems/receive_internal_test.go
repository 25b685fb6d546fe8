package systems

import (
	"math"
	"testing"
	"unsafe"

	"github.com/go-gl/mathgl/mgl32"
)

// plainNumbers compares the bits of absolute values: it must agree with
// comparing the values, for every kind of float, in every coordinate.
func TestPlainNumbersAgreesWithValues(t *testing.T) {
	const lim = float32(1e9)
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	negZero := float32(math.Copysign(0, -1))
	values := []float32{0, negZero, 1, -1, lim, -lim,
		math.Nextafter32(lim, inf), -math.Nextafter32(lim, inf), math.Nextafter32(lim, 0),
		math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, math.MaxFloat32, -math.MaxFloat32,
		inf, -inf, nan, -nan}
	for coord := range 6 {
		for _, x := range values {
			msg := Message{Rot: mgl32.QuatIdent()}
			if coord < 3 {
				msg.Pos[coord] = x
			} else {
				msg.Vel[coord-3] = x
			}
			want := float32(math.Abs(float64(x))) <= lim
			if got := plainNumbers(&msg, pairBound(lim)); got != want {
				t.Errorf("coordinate %d = %v: plainNumbers %v, want %v", coord, x, got, want)
			}
		}
	}
	for _, c := range []struct {
		rot  mgl32.Quat
		want bool
	}{
		{mgl32.QuatIdent(), true},
		{mgl32.Quat{}, true}, // none sent
		{mgl32.Quat{W: negZero, V: mgl32.Vec3{0, negZero, 0}}, true},
		{mgl32.Quat{W: math.SmallestNonzeroFloat32}, false},
		{mgl32.Quat{V: mgl32.Vec3{0, 0, -math.SmallestNonzeroFloat32}}, false},
		{mgl32.QuatRotate(1, mgl32.Vec3{0, 1, 0}), true},
		{mgl32.Quat{W: 2}, false},
		{mgl32.Quat{W: 0.5}, false},
		{mgl32.Quat{W: nan}, false},
		{mgl32.Quat{W: inf}, false},
		{mgl32.Quat{W: 1, V: mgl32.Vec3{nan, 0, 0}}, false},
	} {
		msg := Message{Rot: c.rot}
		if got := plainNumbers(&msg, pairBound(lim)); got != c.want {
			t.Errorf("rotation %v: plainNumbers %v, want %v", c.rot, got, c.want)
		}
	}
}

// withinBoth tests two coordinates in each 64-bit word: every pair of
// values, in any two coordinates (the same word or not), under limits
// from tiny to the largest float, must be judged as comparing each value
// does.
func TestWithinBothPairs(t *testing.T) {
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	for _, lim := range []float32{math.SmallestNonzeroFloat32, 1, 1e9, math.MaxFloat32} {
		values := []float32{0, float32(math.Copysign(0, -1)), 1, -1, lim, -lim,
			math.Nextafter32(lim, inf), -math.Nextafter32(lim, inf), math.Nextafter32(lim, 0),
			math.MaxFloat32, -math.MaxFloat32, inf, -inf, nan, -nan}
		bound := pairBound(lim)
		for a := range 6 {
			for b := range 6 {
				for _, x := range values {
					for _, y := range values {
						var msg Message
						coords := (*[6]float32)(unsafe.Pointer(&msg.Pos))
						coords[a], coords[b] = x, y
						want := true
						for _, v := range coords {
							want = want && float32(math.Abs(float64(v))) <= lim
						}
						if got := withinBoth(&msg, bound); got != want {
							t.Fatalf("lim %v, coordinates %v: withinBoth %v, want %v", lim, *coords, got, want)
						}
					}
				}
			}
		}
	}
}

// unchangedUntil answers the common case in one compare, which relies on
// prev never being newer than newest: after any sequence of Complete
// markers and rebases (a clock reset) it must answer what the full test of
// both ticks answers.
func TestCompleteTicksUnchangedUntil(t *testing.T) {
	full := func(c completeTicks, newest, tick uint32) uint32 {
		switch {
		case c.newest < tick && c.newest > newest:
			return c.newest
		case c.prev < tick && c.prev > newest:
			return c.prev
		}
		return newest
	}
	const ticks = 7
	var check func(c completeTicks, depth int)
	check = func(c completeTicks, depth int) {
		if c.prev > c.newest {
			t.Fatalf("%+v: prev is newer than newest", c)
		}
		for newest := uint32(0); newest < ticks; newest++ {
			for tick := newest + 1; tick <= ticks; tick++ {
				if got, want := c.unchangedUntil(newest, tick), full(c, newest, tick); got != want {
					t.Fatalf("%+v: unchangedUntil(%d, %d) = %d, want %d", c, newest, tick, got, want)
				}
			}
		}
		if depth == 0 {
			return
		}
		for tick := uint32(1); tick <= ticks; tick++ {
			next := c
			next.note(tick)
			check(next, depth-1)
			next = c
			next.forgetBeyond(tick) // a clock reset
			check(next, depth-1)
		}
	}
	check(completeTicks{}, 4)
}

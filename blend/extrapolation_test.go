package blend

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

var policies = []Extrapolation{Coast, Hold, Linear, DampedReturn}

// TestTravelDampedReturnLostStream is a lost stream: one last sample moving
// at 3000 units/s, extrapolated every 10 ms for 200 ms with a 100 ms limit.
// The position stays bounded (peak 75 units, at 50 ms) and is back on the
// newest sample from the limit on.
func TestTravelDampedReturnLostStream(t *testing.T) {
	const v = 3000
	const limit = float32(0.1)
	peak := float32(0)
	for ms := 0; ms <= 200; ms += 10 {
		ahead := float32(ms) / 1000
		x := v * DampedReturn.Travel(ahead, limit)
		peak = max(peak, abs32(x))
		if ms >= 100 && x != 0 {
			t.Errorf("DampedReturn at %d ms: x = %v, want 0 (frozen on the newest sample)", ms, x)
		}
		if x < 0 {
			t.Errorf("DampedReturn at %d ms: x = %v < 0", ms, x)
		}
	}
	if peak > 100 {
		t.Errorf("DampedReturn peak = %v, want <= 100", peak)
	}
	if x := v * DampedReturn.Travel(0.05, limit); math.Abs(float64(x)-75) > 1e-3 {
		t.Errorf("DampedReturn at 50 ms: x = %v, want 75", x)
	}
	if peak != v*DampedReturn.Travel(0.05, limit) {
		t.Errorf("DampedReturn peak %v not at 50 ms", peak)
	}
	// Frozen long after: 200 ms and 4 s past the newest sample travel alike.
	if a, b := DampedReturn.Travel(0.2, limit), DampedReturn.Travel(4, limit); a != b || a != 0 {
		t.Errorf("DampedReturn at 200 ms and 4 s = %v, %v; want 0, 0", a, b)
	}
	// Exactly at the limit.
	if got := DampedReturn.Travel(limit, limit); got != 0 {
		t.Errorf("DampedReturn.Travel(limit, limit) = %v, want 0", got)
	}
}

// TestTravelLinear covers linear dead reckoning: velocity times the time past
// the newest sample, measured in ticks, and the same in seconds clamped at a
// 150 ms limit.
func TestTravelLinear(t *testing.T) {
	// In ticks: newest sample x = 5 at tick 101 moving 5 units/tick, render
	// tick 102: one tick ahead gives x = 10.
	for _, limit := range []float32{1, 2, 10} {
		if got := Linear.Travel(1, limit); got != 1 {
			t.Errorf("Linear.Travel(1, %v) = %v, want 1", limit, got)
		}
	}
	pos, vel := mgl32.Vec3{5, 0, 0}, mgl32.Vec3{5, 0, 0}
	if got := AddScaled(&pos, &vel, Linear.Travel(1, 4)); got[0] != 10 {
		t.Errorf("one tick ahead: extrapolated x = %v, want 10", got[0])
	}

	// In seconds, with a 150 ms limit: travel = clamp(ahead, 0, 0.15).
	const limit = float32(0.15)
	tests := []struct{ ahead, want float32 }{
		{0, 0},
		{0.05, 0.05},
		{0.1, 0.1},
		{0.15, 0.15},
		{0.151, 0.15},
		{0.3, 0.15},
		{10, 0.15},
		{float32(math.Inf(1)), 0.15},
	}
	for _, tt := range tests {
		if got := Linear.Travel(tt.ahead, limit); got != tt.want {
			t.Errorf("Linear.Travel(%v, %v) = %v, want %v", tt.ahead, limit, got, tt.want)
		}
	}
}

func TestTravelCoast(t *testing.T) {
	for _, limit := range []float32{0.1, 0.15, 0.25, 1} {
		const h = 1e-4
		half := limit / 2
		prev := float32(0)
		n := int(2 * float64(limit) / h)
		for i := 1; i <= n; i++ {
			ahead := float32(float64(i) * h)
			got := Coast.Travel(ahead, limit)
			if got < prev {
				t.Fatalf("Coast.Travel(%v, %v) = %v < %v at the previous step: not monotonic", ahead, limit, got, prev)
			}
			if got > half {
				t.Fatalf("Coast.Travel(%v, %v) = %v > limit/2 = %v", ahead, limit, got, half)
			}
			// The speed fades from 1 at 0 to 0 at the limit: no step moves
			// more than the step itself (plus rounding).
			if d := got - prev; float64(d) > h*(1-float64(ahead-h)/float64(limit))+1e-6 && ahead <= limit {
				t.Fatalf("Coast.Travel jumps by %v between %v and %v (limit %v)", d, ahead-h, ahead, limit)
			}
			if ahead >= limit && got != half {
				t.Fatalf("Coast.Travel(%v, %v) = %v, want limit/2 = %v after the limit", ahead, limit, got, half)
			}
			if want := float64(ahead) - float64(ahead)*float64(ahead)/(2*float64(limit)); ahead < limit && math.Abs(float64(got)-want) > 1e-6 {
				t.Fatalf("Coast.Travel(%v, %v) = %v, want %v", ahead, limit, got, want)
			}
			prev = got
		}
		// Continuous at the limit.
		just := math.Nextafter32(limit, 0)
		if a, b := Coast.Travel(just, limit), Coast.Travel(limit, limit); math.Abs(float64(a-b)) > 1e-6 {
			t.Errorf("Coast.Travel jumps at the limit %v: %v -> %v", limit, a, b)
		}
		// Derivative 1 at 0 (no jump in speed when extrapolation starts) and
		// 0 at the limit (no jerk when it stops).
		const e = 1e-5
		if d := Coast.Travel(e, limit) / e; math.Abs(float64(d)-1) > 1e-3 {
			t.Errorf("Coast derivative at 0 (limit %v) = %v, want 1", limit, d)
		}
		if d := (Coast.Travel(limit, limit) - Coast.Travel(limit-1e-3, limit)) / 1e-3; math.Abs(float64(d)) > 0.02 {
			t.Errorf("Coast derivative at the limit %v = %v, want ~0", limit, d)
		}
		if got := Coast.Travel(float32(math.Inf(1)), limit); got != half {
			t.Errorf("Coast.Travel(+Inf, %v) = %v, want %v", limit, got, half)
		}
	}
}

func TestTravelHold(t *testing.T) {
	for _, ahead := range []float32{0, 0.01, 0.05, 0.1, 1, float32(math.Inf(1))} {
		for _, limit := range []float32{0.1, 1, float32(math.Inf(1))} {
			if got := Hold.Travel(ahead, limit); got != 0 {
				t.Errorf("Hold.Travel(%v, %v) = %v, want 0", ahead, limit, got)
			}
		}
	}
}

func TestTravelBadInput(t *testing.T) {
	nan := float32(math.NaN())
	ninf := float32(math.Inf(-1))
	negZero := float32(math.Copysign(0, -1))
	for _, e := range append(policies, Extrapolation(9)) {
		for _, ahead := range []float32{0, negZero, -0.01, -1, nan, ninf} {
			if got := e.Travel(ahead, 0.1); got != 0 {
				t.Errorf("%v.Travel(%v, 0.1) = %v, want 0", e, ahead, got)
			}
		}
		for _, limit := range []float32{0, negZero, -0.1, nan, ninf} {
			for _, ahead := range []float32{0.05, 1} {
				if got := e.Travel(ahead, limit); got != 0 {
					t.Errorf("%v.Travel(%v, %v) = %v, want 0", e, ahead, limit, got)
				}
			}
		}
	}
	// An unknown policy does not move.
	if got := Extrapolation(9).Travel(0.05, 0.1); got != 0 {
		t.Errorf("Extrapolation(9).Travel = %v, want 0", got)
	}
}

func TestMoving(t *testing.T) {
	const limit = 0.1
	for _, e := range policies {
		for _, ahead := range []float32{0, 0.01, 0.05, 0.099, 0.1, 0.2, 5} {
			got := e.Moving(ahead, limit)
			want := e != Hold && ahead < limit
			if got != want {
				t.Errorf("%v.Moving(%v, %v) = %v, want %v", e, ahead, limit, got, want)
			}
			// Not moving means Travel stays put from here on.
			if !got && ahead > 0 {
				if a, b := e.Travel(ahead, limit), e.Travel(ahead+0.5, limit); a != b {
					t.Errorf("%v.Moving(%v) = false, but Travel goes %v -> %v", e, ahead, a, b)
				}
			}
		}
		if e.Moving(0.05, 0) || e.Moving(0.05, -1) {
			t.Errorf("%v.Moving with limit <= 0 = true, want false", e)
		}
		if e.Moving(float32(math.NaN()), limit) || e.Moving(0.05, float32(math.NaN())) {
			t.Errorf("%v.Moving with NaN = true, want false", e)
		}
	}
}

func TestExtrapolationString(t *testing.T) {
	names := map[Extrapolation]string{
		Coast:        "coast",
		Hold:         "hold",
		Linear:       "linear",
		DampedReturn: "damped-return",
	}
	var zero Extrapolation
	if zero != Coast {
		t.Errorf("zero Extrapolation = %v, want coast (the default)", zero)
	}
	for e, name := range names {
		if got := e.String(); got != name {
			t.Errorf("%d.String() = %q, want %q", uint8(e), got, name)
		}
		got, err := ParseExtrapolation(name)
		if err != nil || got != e {
			t.Errorf("ParseExtrapolation(%q) = %v, %v; want %v, nil", name, got, err, e)
		}
	}
	if got := Extrapolation(9).String(); got != "Extrapolation(9)" {
		t.Errorf("Extrapolation(9).String() = %q", got)
	}
	for _, s := range []string{"bogus", "", "Coast", " coast", "Extrapolation(9)"} {
		got, err := ParseExtrapolation(s)
		if err == nil {
			t.Errorf("ParseExtrapolation(%q) = %v, nil; want an error", s, got)
			continue
		}
		if got != Coast {
			t.Errorf("ParseExtrapolation(%q) returned %v with its error, want coast", s, got)
		}
		msg := err.Error()
		for _, want := range []string{"blend:", `"` + s + `"`, "coast", "hold", "linear", "damped-return"} {
			if !strings.Contains(msg, want) {
				t.Errorf("ParseExtrapolation(%q) error %q does not mention %q", s, msg, want)
			}
		}
	}
}

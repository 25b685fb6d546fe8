package netsim

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func TestDriftClockTenMinutesAtOnePercent(t *testing.T) {
	d, err := NewDriftClock(1.01, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d.PPB != 10_000_000 {
		t.Fatalf("NewDriftClock(1.01) PPB = %d, want 10000000", d.PPB)
	}
	// 10 minutes at 1 % fast gain 6 s: exactly, not just within 1 ms.
	if gain := d.At(10*time.Minute) - 10*time.Minute; gain != 6*time.Second {
		t.Errorf("gain over 10 min = %v, want exactly 6s", gain)
	}
	if got := d.TrueTime(606 * time.Second); got != 10*time.Minute {
		t.Errorf("TrueTime(10m6s) = %v, want 10m0s", got)
	}
	slow, _ := NewDriftClock(0.99, 0)
	if loss := 10*time.Minute - slow.At(10*time.Minute); loss != 6*time.Second {
		t.Errorf("loss over 10 min at 1%% slow = %v, want exactly 6s", loss)
	}
	if got := d.Rate(); got != 1.01 {
		t.Errorf("Rate() = %v, want 1.01", got)
	}
}

func TestDriftClockOffsetAndIdentity(t *testing.T) {
	var zero DriftClock
	for _, x := range []time.Duration{math.MinInt64, -1, 0, 1, 12345, math.MaxInt64} {
		if zero.At(x) != x || zero.TrueTime(x) != x {
			t.Errorf("zero DriftClock: At(%d) = %d, TrueTime = %d; want identity", x, zero.At(x), zero.TrueTime(x))
		}
	}
	if zero.Rate() != 1 {
		t.Errorf("zero DriftClock Rate = %v, want 1", zero.Rate())
	}
	// A server clock that started 3 s before the client's epoch and runs
	// 200 ppm fast.
	d := DriftClock{Offset: 3 * time.Second, PPB: 200_000}
	if got := d.At(0); got != 3*time.Second {
		t.Errorf("At(0) = %v, want the offset 3s", got)
	}
	if got := d.At(100 * time.Second); got != 103*time.Second+20*ms {
		t.Errorf("At(100s) = %v, want 1m43.02s", got)
	}
	if got := d.TrueTime(3 * time.Second); got != 0 {
		t.Errorf("TrueTime(3s) = %v, want 0", got)
	}
	// Negative true times (before the epoch) drift symmetrically.
	if got := d.At(-100 * time.Second); got != -97*time.Second-20*ms {
		t.Errorf("At(-100s) = %v, want -1m37.02s", got)
	}
}

// checkDriftRoundTrip checks the round-trip guarantees documented on
// TrueTime at x, both as a true time and as a reading.
func checkDriftRoundTrip(t *testing.T, d DriftClock, x time.Duration) {
	const lim = math.MaxInt64 / 4 // stay clear of saturation
	a := d.At(x)
	if a <= -lim || a >= lim {
		return
	}
	back := d.TrueTime(a)
	if d.PPB >= 0 && back != x {
		t.Fatalf("%+v: TrueTime(At(%d)) = %d, want %d", d, x, back, x)
	}
	if d.PPB < 0 {
		// A slow clock holds each reading for up to 1/rate true ns; the
		// earliest true time showing it is at most that far back.
		if back > x || float64(x-back) >= 1/d.Rate() {
			t.Fatalf("%+v: TrueTime(At(%d)) = %d, want within 1/rate below", d, x, back)
		}
	}
	tt := d.TrueTime(x)
	if tt <= -lim || tt >= lim {
		return
	}
	fwd := d.At(tt)
	if d.PPB <= 0 && fwd != x {
		t.Fatalf("%+v: At(TrueTime(%d)) = %d, want %d", d, x, fwd, x)
	}
	if d.PPB > 0 && (fwd < x || float64(fwd-x) >= d.Rate()) {
		t.Fatalf("%+v: At(TrueTime(%d)) = %d, want in [x, x+rate)", d, x, fwd)
	}
	// Earliest: one true nanosecond earlier the clock had not reached x.
	if d.At(tt-1) >= x {
		t.Fatalf("%+v: At(TrueTime(%d)-1) = %d, already reached", d, x, d.At(tt-1))
	}
}

func TestDriftClockRoundTrips(t *testing.T) {
	clocks := []DriftClock{
		{},
		{PPB: 10_000_000},
		{PPB: -10_000_000},
		{PPB: 50_000, Offset: -7 * time.Second},
		{PPB: -50_000, Offset: 123456789},
		{PPB: 1, Offset: 1},
		{PPB: -1},
		{PPB: 1_000_000_000},  // twice as fast
		{PPB: 2_500_000_000},  // 3.5x
		{PPB: -999_999_000},   // a thousand times slower
		{PPB: -600_000_000},   // 0.4x
		{PPB: 333_333_333},    // 4/3
		{PPB: -math.MaxInt64}, // clamped to 1 ns per second
		{PPB: math.MaxInt64},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, d := range clocks {
		for x := time.Duration(-2000); x <= 2000; x++ {
			checkDriftRoundTrip(t, d, x)
		}
		for range 20_000 {
			x := time.Duration(rng.Int64N(int64(24*time.Hour))) - 12*time.Hour
			checkDriftRoundTrip(t, d, x)
			checkDriftRoundTrip(t, d, time.Duration(rng.Int64()))
		}
		// Monotonic over a stretch.
		prev := d.At(-1000)
		for x := time.Duration(-999); x < 1000; x++ {
			if a := d.At(x); a < prev {
				t.Fatalf("%+v: At(%d) = %d < At(%d) = %d", d, x, a, x-1, prev)
			} else {
				prev = a
			}
		}
	}
}

func TestDriftClockSaturates(t *testing.T) {
	for _, d := range []DriftClock{
		{PPB: math.MaxInt64, Offset: math.MaxInt64},
		{PPB: math.MaxInt64, Offset: math.MinInt64},
		{PPB: -math.MaxInt64, Offset: math.MaxInt64},
		{PPB: 10_000_000, Offset: math.MinInt64},
	} {
		for _, x := range []time.Duration{math.MinInt64, math.MinInt64 + 1, -1, 0, 1, math.MaxInt64 - 1, math.MaxInt64} {
			d.At(x) // must not panic
			d.TrueTime(x)
		}
	}
	fast := DriftClock{PPB: 10_000_000}
	if got := fast.At(math.MaxInt64); got != math.MaxInt64 {
		t.Errorf("fast At(MaxInt64) = %d, want saturated", got)
	}
	if got := fast.At(math.MinInt64); got != math.MinInt64 {
		t.Errorf("fast At(MinInt64) = %d, want saturated", got)
	}
	// An offset can bring an out-of-range product back into range exactly.
	d := DriftClock{PPB: 1_000_000_000, Offset: math.MinInt64}
	if got := d.At(math.MaxInt64 / 2); got != math.MinInt64+(math.MaxInt64/2)*2 {
		t.Errorf("At = %d, want %d", got, math.MinInt64+(math.MaxInt64/2)*2)
	}
	if got := d.TrueTime(math.MaxInt64); got != math.MaxInt64 {
		// (MaxInt64 - MinInt64) / 2 rounded up is 2^63, beyond MaxInt64.
		t.Errorf("TrueTime(MaxInt64) = %d, want saturated", got)
	}
	// -1 - MinInt64 = MaxInt64; half of it rounded up is 2^62.
	if got := d.TrueTime(-1); got != 1<<62 {
		t.Errorf("TrueTime(-1) = %d, want 2^62", got)
	}
}

func TestNewDriftClock(t *testing.T) {
	for _, tt := range []struct {
		rate float64
		ppb  int64
	}{
		{1, 0}, {1.01, 10_000_000}, {0.99, -10_000_000}, {1.0002, 200_000},
		{0.99995, -50_000}, {2, 1_000_000_000}, {1e-9, -999_999_999},
	} {
		d, err := NewDriftClock(tt.rate, time.Second)
		if err != nil || d.PPB != tt.ppb || d.Offset != time.Second {
			t.Errorf("NewDriftClock(%v, 1s) = %+v, %v; want PPB %d", tt.rate, d, err, tt.ppb)
		}
	}
	for _, rate := range []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1), 1e-10, 1e10} {
		if d, err := NewDriftClock(rate, 0); err == nil {
			t.Errorf("NewDriftClock(%v) = %+v, want error", rate, d)
		}
	}
	_, err := NewDriftClock(-2, 0)
	if want := "netsim: NewDriftClock rate must be a finite number > 0, got -2"; err == nil || err.Error() != want {
		t.Errorf("NewDriftClock(-2) error = %v, want %q", err, want)
	}
}

// FuzzDriftClock checks the round-trip and monotonicity guarantees for
// arbitrary clocks and times.
func FuzzDriftClock(f *testing.F) {
	f.Add(int64(10_000_000), int64(0), int64(600e9), int64(1))
	f.Add(int64(-999_999_999), int64(-5), int64(-1), int64(math.MaxInt64))
	f.Add(int64(math.MaxInt64), int64(math.MinInt64), int64(math.MinInt64), int64(3))
	f.Fuzz(func(t *testing.T, ppb, offset, x, y int64) {
		d := DriftClock{PPB: ppb, Offset: time.Duration(offset)}
		checkDriftRoundTrip(t, d, time.Duration(x))
		lo, hi := min(x, y), max(x, y)
		if d.At(time.Duration(lo)) > d.At(time.Duration(hi)) || d.TrueTime(time.Duration(lo)) > d.TrueTime(time.Duration(hi)) {
			t.Fatalf("%+v: not monotonic between %d and %d", d, lo, hi)
		}
	})
}

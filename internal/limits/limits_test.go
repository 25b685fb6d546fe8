package limits

import (
	"math"
	"strings"
	"testing"
)

// Tick rates from 1 to 1e6 pass; a tick's length is named as one, with
// the rate it stands for; anything else is out of range, NaN included.
func TestCheckTickRate(t *testing.T) {
	for _, ok := range []float64{1, 20, 60, 144.5, 1e6} {
		if err := CheckTickRate(ok); err != nil {
			t.Errorf("%v: %v", ok, err)
		}
	}
	if err := CheckTickRate(1.0 / 60); err == nil || !strings.Contains(err.Error(), "0.01667 ticks per second is below 1; as a tick's length in seconds it would be 60 ticks per second") {
		t.Errorf("1/60: %v", err)
	}
	for _, bad := range []float64{0, -1, 1e-9, 5e-324, 1.5e6, math.Inf(1), math.Inf(-1), math.NaN()} {
		err := CheckTickRate(bad)
		if err == nil || !strings.Contains(err.Error(), "is outside [1, 1e+06]") {
			t.Errorf("%v: %v, want out of range", bad, err)
		}
	}
}

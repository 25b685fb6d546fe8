// Package limits holds the bounds that several packages share, so that
// all apply the same one: how long a frame may count and how long a gap
// between ticks counts in a send interval (the clock and the systems),
// and which tick rates a configuration or a Welcome may give (the
// pipeline, the clock, the server, the client and the wire codec).
package limits

import "fmt"

// MaxFrameDt is the longest frame accepted, in seconds; a longer dt (a
// debugger pause, a machine asleep for days) counts as this long. The
// clock re-anchors after such a gap anyway; the bound keeps every sum of
// frame times finite.
const MaxFrameDt = 3600

// SanitizeDt returns dt as a frame duration to use: negative or NaN dt
// counts as zero, and dt beyond MaxFrameDt (infinity included) as
// MaxFrameDt.
func SanitizeDt(dt float64) float64 {
	switch {
	case !(dt >= 0):
		return 0
	case dt > MaxFrameDt:
		return MaxFrameDt
	}
	return dt
}

// MaxIntervalTicks bounds a gap between new ticks counted in a send
// interval estimate, the stream's in the clock and an entity's in the
// Receive system: a longer one (a silence, an entity idle for seconds, an
// absurd tick) says nothing about the send rate, and must not make the
// estimate absurd.
const MaxIntervalTicks = 64

// Tick rates accepted anywhere a tick rate is configured, in ticks per
// second: from one tick a second (slower, nothing moves smoothly between
// snapshots anyway) to a million.
const (
	MinTickRate = 1
	MaxTickRate = 1e6
)

// CheckTickRate returns nil for a tick rate in [MinTickRate,
// MaxTickRate], else the clause that says what is wrong with it, for the
// caller to wrap with the field's name. A rate below one that is a valid
// tick's length in seconds (1.0/60 for 60 Hz, a common slip) is named as
// such, with the rate it stands for.
func CheckTickRate(rate float64) error {
	switch {
	case rate >= MinTickRate && rate <= MaxTickRate:
		return nil
	case rate > 0 && rate < MinTickRate && 1/rate <= MaxTickRate:
		return fmt.Errorf("%.4g ticks per second is below %d; as a tick's length in seconds it would be %.4g ticks per second", rate, MinTickRate, 1/rate)
	}
	return fmt.Errorf("%.4g ticks per second is outside [%d, %g]", rate, MinTickRate, float64(MaxTickRate))
}

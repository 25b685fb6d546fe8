// Package limits holds the bounds that the clock (package timeline) and
// the systems share, so that both apply the same one: how long a frame
// may count, and how long a gap between ticks counts in a send interval.
package limits

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

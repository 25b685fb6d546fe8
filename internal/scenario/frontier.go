package scenario

import (
	"fmt"
	"time"

	"github.com/netsmooth/netsmooth/blend"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/timeline"
)

// FixedLerp is the fixed-delay baseline at any delay: netsmooth's own
// timeline (the same server-time estimate and slewing) interpolating a
// fixed delay in the past, holding instead of extrapolating, never running
// past the newest sample. Comparing netsmooth with it at every delay
// isolates what the delay policy and extrapolation buy.
func FixedLerp(delay time.Duration) Factory {
	return netsmoothWith(fmt.Sprintf("fixed %d ms lerp", delay.Milliseconds()), func(c *nsecs.Config) {
		c.Clock.Delay = timeline.FixedDelay(delay.Seconds())
		c.Clock.MaxAhead = timeline.NeverAhead
		c.Interpolate.Extrapolation = blend.Hold
	})
}

// FrontierDelays are the fixed delays a frontier sweeps: 50 ms to 300 ms
// in steps of 25 ms.
func FrontierDelays() []time.Duration {
	var ds []time.Duration
	for d := 50 * time.Millisecond; d <= 300*time.Millisecond; d += 25 * time.Millisecond {
		ds = append(ds, d)
	}
	return ds
}

// Point is one client's place on a frontier: the delay it pays and the
// smoothness it buys.
type Point struct {
	Client string
	// MeanDelay is the mean presentation delay in seconds.
	MeanDelay float64
	// MaxJump is the largest per-frame move over the true motion.
	MaxJump float64
	// Underrun is the share of entity-frames drawn past the newest data.
	Underrun float64
}

func pointOf(r Result) Point {
	return Point{Client: r.Client, MeanDelay: r.MeanDelay, MaxJump: r.MaxJump, Underrun: r.Underrun}
}

// Dominates reports whether p is at least as smooth as q (max jump and
// underrun no worse, as the scorecard prints them: jumps to 0.01, underruns
// to 0.01%) at a lower mean delay (by at least a millisecond).
func (p Point) Dominates(q Point) bool {
	const jumpEps, underEps, delayEps = 0.005, 0.00005, 0.001
	return p.MeanDelay < q.MeanDelay-delayEps && p.MaxJump <= q.MaxJump+jumpEps && p.Underrun <= q.Underrun+underEps
}

// Frontier is netsmooth's default against fixed-delay lerps at every delay,
// in one scenario.
type Frontier struct {
	Scenario  string
	NetSmooth Point
	Fixed     []Point
}

// DominatedBy returns the fixed delays that give both a lower delay and
// equal-or-better smoothness than netsmooth's default: none, when the
// default is on the frontier.
func (f Frontier) DominatedBy() []Point {
	var by []Point
	for _, p := range f.Fixed {
		if p.Dominates(f.NetSmooth) {
			by = append(by, p)
		}
	}
	return by
}

// SweepFrontier runs sc for netsmooth's default and for a fixed-delay lerp
// at each of delays.
func SweepFrontier(sc Scenario, delays []time.Duration) Frontier {
	f := Frontier{Scenario: sc.Name, NetSmooth: pointOf(Run(sc, Default()))}
	for _, d := range delays {
		f.Fixed = append(f.Fixed, pointOf(Run(sc, FixedLerp(d))))
	}
	return f
}

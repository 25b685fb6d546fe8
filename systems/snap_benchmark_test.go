package systems_test

import (
	"fmt"
	"testing"

	"github.com/netsmooth/netsmooth/blend"
	"github.com/netsmooth/netsmooth/systems"
)

// BenchmarkSnap measures the Snap system per frame: in the steady
// scenario (nothing to snap); with every entity correcting by less than
// the snap distance (as in BenchmarkSmooth), where Snap has nothing to do
// either; and with every snapshot a teleport, so that every entity snaps
// each time the render time crosses a sample.
func BenchmarkSnap(b *testing.B) {
	for _, scenario := range []string{"steady", "correcting", "teleports"} {
		for _, n := range benchCounts {
			b.Run(fmt.Sprintf("scenario=%s/entities=%d", scenario, n), func(b *testing.B) {
				s := newStream(n)
				cfg := streamConfig(n)
				switch scenario {
				case "teleports":
					s.Kind = systems.Teleport
				case "correcting":
					cfg.Clock.Delay = ticksDelay(0)
					cfg.Interpolate.Extrapolation = blend.Hold
				}
				st := newSteady(b, cfg, s)
				if snaps := st.pipe.Metrics().Snaps; (scenario == "teleports") != (snaps > 0) {
					b.Fatalf("%s: %d snaps while warming up", scenario, snaps)
				}
				if got := activeCorrections(&st.world); (scenario == "correcting") != (got == n) {
					b.Fatalf("%s: %d of %d entities are correcting", scenario, got, n)
				}
				k := systemIndex[*systems.Snap](b, st.sys)
				timeOps(b, n, func() { st.step(b, k) })
			})
		}
	}
}

package systems_test

import (
	"fmt"
	"testing"

	"github.com/netsmooth/netsmooth/blend"
	"github.com/netsmooth/netsmooth/systems"
)

// BenchmarkSmooth measures the Smooth system per frame, in the steady
// scenario (nothing to correct) and with every entity correcting: with no
// interpolation delay and the Hold policy, each snapshot replaces the held
// guess of every entity, so each carries a correction all the time.
func BenchmarkSmooth(b *testing.B) {
	for _, scenario := range []string{"steady", "correcting"} {
		for _, n := range benchCounts {
			b.Run(fmt.Sprintf("scenario=%s/entities=%d", scenario, n), func(b *testing.B) {
				cfg := streamConfig(n)
				if scenario == "correcting" {
					cfg.Clock.Delay = ticksDelay(0)
					cfg.Interpolate.Extrapolation = blend.Hold
				}
				st := newSteady(b, cfg, newStream(n))
				if got := activeCorrections(&st.world); (scenario == "correcting") != (got == n) {
					b.Fatalf("%s: %d of %d entities are correcting", scenario, got, n)
				}
				k := systemIndex[*systems.Smooth](b, st.sys)
				timeOps(b, n, func() { st.step(b, k) })
			})
		}
	}
}

package systems_test

import (
	"fmt"
	"testing"

	"github.com/netsmooth/netsmooth/systems"
)

// BenchmarkSnap measures the Snap system per frame, in the steady scenario
// (nothing to snap) and with every snapshot a teleport, so that every
// entity snaps each time the render time crosses a sample.
func BenchmarkSnap(b *testing.B) {
	for _, scenario := range []string{"steady", "teleports"} {
		for _, n := range benchCounts {
			b.Run(fmt.Sprintf("scenario=%s/entities=%d", scenario, n), func(b *testing.B) {
				s := newStream(n)
				if scenario == "teleports" {
					s.Kind = systems.Teleport
				}
				st := newSteady(b, streamConfig(n), s)
				if snaps := st.pipe.Metrics().Snaps; (scenario == "teleports") != (snaps > 0) {
					b.Fatalf("%s: %d snaps while warming up", scenario, snaps)
				}
				k := systemIndex[*systems.Snap](b, st.sys)
				timeOps(b, n, func() { st.step(b, k) })
			})
		}
	}
}

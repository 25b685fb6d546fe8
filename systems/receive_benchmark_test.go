package systems_test

import (
	"fmt"
	"testing"

	"github.com/netsmooth/netsmooth/systems"
)

// Entity counts of the benchmarks.
var benchCounts = []int{10_000, 100_000}

// BenchmarkReceive measures ingesting one snapshot per entity in the steady
// scenario (20 Hz snapshots, 60 FPS): each operation is one tick, and only
// the Receive system of the frame the snapshots arrive in is timed.
func BenchmarkReceive(b *testing.B) {
	for _, n := range benchCounts {
		b.Run(fmt.Sprintf("entities=%d", n), func(b *testing.B) {
			st := newSteady(b, streamConfig(n), newStream(n))
			k := systemIndex[*systems.Receive](b, st.sys)
			timeOps(b, n, func() {
				st.step(b, k) // the snapshots arrive
				for f := 1; f < framesPerTick; f++ {
					st.step(nil, -1)
				}
			})
		})
	}
}

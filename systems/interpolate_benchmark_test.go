package systems_test

import (
	"fmt"
	"testing"

	"github.com/netsmooth/netsmooth/systems"
)

// BenchmarkInterpolate measures drawing every remote entity at the render
// time in the steady scenario: one operation is one frame, a third of
// which cross a sample.
func BenchmarkInterpolate(b *testing.B) {
	for _, n := range benchCounts {
		b.Run(fmt.Sprintf("entities=%d", n), func(b *testing.B) {
			st := newSteady(b, streamConfig(n), newStream(n))
			k := systemIndex[*systems.Interpolate](b, st.sys)
			timeOps(b, n, func() { st.step(b, k) })
		})
	}
}

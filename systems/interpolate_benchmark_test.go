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

// BenchmarkInterpolatePerEntity is BenchmarkInterpolate as it runs with an
// arche whose query does not say where an archetype ends: every entity's
// components fetched through Query.Get, a run of one at a time.
func BenchmarkInterpolatePerEntity(b *testing.B) {
	for _, n := range benchCounts {
		b.Run(fmt.Sprintf("entities=%d", n), func(b *testing.B) {
			st := newSteady(b, streamConfig(n), newStream(n))
			k := systemIndex[*systems.Interpolate](b, st.sys)
			systems.SetPerEntity(st.sys[k].(*systems.Interpolate))
			timeOps(b, n, func() { st.step(b, k) })
		})
	}
}

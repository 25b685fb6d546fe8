package bench

import (
	"fmt"
	"testing"

	"github.com/netsmooth/netsmooth/internal/perf"
)

// Entity counts of the suite. The naive baseline stops at 100k: at 1M its
// setup alone takes minutes and gigabytes.
var (
	allCounts   = []int{1_000, 10_000, 100_000, 1_000_000}
	naiveCounts = []int{1_000, 10_000, 100_000}
)

// sizes returns the entity counts to run: all of them, or with -short
// (as CI runs every benchmark once, to keep them working) those below
// 1M, whose setup takes most of such a run and exercises no code the
// 100k runs do not.
func sizes() []int {
	if testing.Short() {
		return allCounts[:len(allCounts)-1]
	}
	return allCounts
}

func BenchmarkFrame(b *testing.B) {
	for _, n := range sizes() {
		for _, impl := range []string{perf.NetSmooth, perf.Parallel, perf.MinimumName, perf.MinimumCheckedName, perf.MinimumOnArcheName, perf.MinimumOnArcheCheckedName, perf.FlatName, perf.NaiveName} {
			if impl == perf.NaiveName && n > naiveCounts[len(naiveCounts)-1] {
				continue
			}
			b.Run(fmt.Sprintf("impl=%s/entities=%d", impl, n), func(b *testing.B) { perf.Frame(b, impl, n) })
		}
	}
}

func BenchmarkFramePositionOnly(b *testing.B) {
	for _, n := range sizes() {
		for _, impl := range []string{perf.NetSmooth, perf.MinimumName, perf.MinimumOnArcheName} {
			b.Run(fmt.Sprintf("impl=%s/entities=%d", impl, n), func(b *testing.B) { perf.FramePositionOnly(b, impl, n) })
		}
	}
}

func BenchmarkFrameSplit(b *testing.B) {
	for _, n := range sizes() {
		for _, impl := range []string{perf.NetSmooth, perf.MinimumName, perf.MinimumOnArcheName} {
			b.Run(fmt.Sprintf("impl=%s/entities=%d", impl, n), func(b *testing.B) { perf.FrameSplit(b, impl, n) })
		}
	}
}

func BenchmarkIngest(b *testing.B) {
	for _, n := range sizes() {
		for _, impl := range []string{perf.NetSmooth, perf.Parallel, perf.MinimumName, perf.MinimumCheckedName, perf.MinimumOnArcheName, perf.MinimumOnArcheCheckedName, perf.FlatName, perf.NaiveName} {
			if impl == perf.NaiveName && n > naiveCounts[len(naiveCounts)-1] {
				continue
			}
			b.Run(fmt.Sprintf("impl=%s/entities=%d", impl, n), func(b *testing.B) { perf.Ingest(b, impl, n) })
		}
	}
}

func BenchmarkSystem(b *testing.B) {
	for _, n := range sizes() {
		for _, stage := range perf.Stages {
			b.Run(fmt.Sprintf("system=%s/entities=%d", stage, n), func(b *testing.B) { perf.System(b, stage, n) })
		}
	}
}

func BenchmarkMinimumInterpolate(b *testing.B) {
	for _, n := range sizes() {
		b.Run(fmt.Sprintf("entities=%d", n), func(b *testing.B) { perf.MinimumInterpolate(b, n) })
	}
}

func BenchmarkFlatInterpolate(b *testing.B) {
	for _, n := range sizes() {
		b.Run(fmt.Sprintf("entities=%d", n), func(b *testing.B) { perf.FlatInterpolate(b, n) })
	}
}

func BenchmarkChurn(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("entities=%d/per-tick=1%%", n), func(b *testing.B) { perf.Churn(b, n, 0.01) })
	}
}

func BenchmarkLifecycle(b *testing.B) {
	b.Run("batch=1000", func(b *testing.B) { perf.Lifecycle(b, 1000) })
}

func BenchmarkPredicted(b *testing.B) {
	for _, n := range []int{1, 4, 16, 64} {
		b.Run(fmt.Sprintf("entities=%d", n), func(b *testing.B) { perf.Predicted(b, n) })
	}
}

func BenchmarkMinimumOnArcheInterpolate(b *testing.B) {
	for _, n := range sizes() {
		b.Run(fmt.Sprintf("entities=%d", n), func(b *testing.B) { perf.MinimumOnArcheInterpolate(b, n) })
	}
}

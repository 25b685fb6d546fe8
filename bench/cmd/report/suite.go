package main

import (
	"cmp"
	"fmt"
	"io"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/netsmooth/netsmooth/internal/perf"
)

// Entity counts of the suite; the naive baseline runs up to naiveMax only
// (at 1M its setup alone takes minutes and gigabytes).
var counts = []int{1_000, 10_000, 100_000, 1_000_000}

const (
	naiveMax = 100_000
	// targetN is the entity count the targets are checked at.
	targetN = 100_000
	// lifecycleBatch is the batch size of the lifecycle benchmark.
	lifecycleBatch = 1000
	// churnFraction is the share of entities replaced every snapshot in the
	// churn benchmark.
	churnFraction = 0.01
)

var (
	churnCounts     = []int{10_000, 100_000}
	predictedCounts = []int{1, 4, 16, 64}
)

// Cases: the whole frame, each of netsmooth's systems (perf.Stages), and
// ingest (the receiving part of a frame with the snapshot handover, for
// netsmooth and the baselines), then the scenarios of the small table.
const (
	caseFrame       = "frame"
	caseReceive     = string(perf.Receive)
	caseTimeline    = string(perf.Timeline)
	caseInterpolate = string(perf.Interpolate)
	caseSmooth      = string(perf.Smooth)
	caseSnap        = string(perf.Snap)
	caseIngest      = "ingest"
	// caseCrossing and caseBetween split the frame: those in which the
	// render time crosses a sample, and the others.
	caseCrossing = "frame, crossing"
	caseBetween  = "frame, between"
	// casePositionOnly is the frame on a stream that never rotates.
	casePositionOnly = "frame, position only"
	// caseTwoWorkers is netsmooth's frame with Interpolate on two
	// goroutines (perf.Parallel), kept under perf.NetSmooth.
	caseTwoWorkers = "frame, 2 workers"
	caseChurn      = "churn"
	caseLifecycle  = "lifecycle"
	casePredicted  = "predicted"
)

// key names one measurement: a case, the implementation (perf.NetSmooth,
// perf.MinimumName, perf.MinimumCheckedName, perf.MinimumOnArcheName,
// perf.MinimumOnArcheCheckedName, perf.FlatName or perf.NaiveName) and
// the entity count (batch size for lifecycle).
type key struct {
	Case string
	Impl string
	N    int
}

// measurement is one benchmark's result.
type measurement struct {
	Value  float64 // the case's metric: ns/entity, ns/snapshot or ns/lifecycle
	Allocs int64   // allocs/op
	Bytes  int64   // bytes/op
	Iters  int     // b.N of the final run
	// Spread is how far the second fastest repeat was from the fastest,
	// the one kept (second / fastest - 1): how well another run bears
	// it out; 0 for a single run.
	Spread float64
}

// job is one benchmark to run.
type job struct {
	key    key
	metric string
	fn     func(b *testing.B)
}

// countsUpTo returns the suite's entity counts up to max.
func countsUpTo(max int) []int {
	var ns []int
	for _, n := range counts {
		if n <= max {
			ns = append(ns, n)
		}
	}
	return ns
}

// implsAt returns the implementations measured at n entities: netsmooth,
// its lower bound, the flat and naive baselines (naive up to naiveMax).
// The lower bound on arche runs the frames, Interpolate and ingest, the
// checked lower bound ingest only (it draws as the lower bound does).
func implsAt(n int) []string {
	if n > naiveMax {
		return []string{perf.NetSmooth, perf.MinimumName, perf.FlatName}
	}
	return []string{perf.NetSmooth, perf.MinimumName, perf.FlatName, perf.NaiveName}
}

// plan lists the suite's benchmarks for the given entity counts.
func plan(ns []int) []job {
	var jobs []job
	for _, n := range ns {
		for _, impl := range append(implsAt(n), perf.MinimumOnArcheName, perf.MinimumOnArcheCheckedName) {
			jobs = append(jobs, job{key{caseFrame, impl, n}, "ns/entity", func(b *testing.B) { perf.Frame(b, impl, n) }})
		}
		jobs = append(jobs, job{key{caseTwoWorkers, perf.NetSmooth, n}, "ns/entity", func(b *testing.B) { perf.Frame(b, perf.Parallel, n) }})
		for _, impl := range []string{perf.NetSmooth, perf.MinimumName, perf.MinimumOnArcheName} {
			jobs = append(jobs,
				job{key{caseCrossing, impl, n}, "ns/entity-crossing", func(b *testing.B) { perf.FrameSplit(b, impl, n) }},
				job{key{caseBetween, impl, n}, "ns/entity-between", func(b *testing.B) { perf.FrameSplit(b, impl, n) }},
				job{key{casePositionOnly, impl, n}, "ns/entity", func(b *testing.B) { perf.FramePositionOnly(b, impl, n) }})
		}
		for _, st := range perf.Stages {
			jobs = append(jobs, job{key{string(st), perf.NetSmooth, n}, "ns/entity", func(b *testing.B) { perf.System(b, st, n) }})
		}
		jobs = append(jobs,
			job{key{caseInterpolate, perf.MinimumName, n}, "ns/entity", func(b *testing.B) { perf.MinimumInterpolate(b, n) }},
			job{key{caseInterpolate, perf.MinimumOnArcheName, n}, "ns/entity", func(b *testing.B) { perf.MinimumOnArcheInterpolate(b, n) }},
			job{key{caseInterpolate, perf.FlatName, n}, "ns/entity", func(b *testing.B) { perf.FlatInterpolate(b, n) }})
		for _, impl := range append(implsAt(n), perf.MinimumCheckedName, perf.MinimumOnArcheName, perf.MinimumOnArcheCheckedName) {
			jobs = append(jobs, job{key{caseIngest, impl, n}, "ns/snapshot", func(b *testing.B) { perf.Ingest(b, impl, n) }})
		}
	}
	largest := ns[len(ns)-1]
	for _, n := range churnCounts {
		if n <= largest {
			jobs = append(jobs, job{key{caseChurn, perf.NetSmooth, n}, "ns/entity", func(b *testing.B) { perf.Churn(b, n, churnFraction) }})
		}
	}
	jobs = append(jobs, job{key{caseLifecycle, perf.NetSmooth, lifecycleBatch}, "ns/lifecycle", func(b *testing.B) { perf.Lifecycle(b, lifecycleBatch) }})
	for _, n := range predictedCounts {
		jobs = append(jobs, job{key{casePredicted, perf.NetSmooth, n}, "ns/entity", func(b *testing.B) { perf.Predicted(b, n) }})
	}
	return jobs
}

// runSuite runs the jobs for benchtime (an -benchtime value), reporting
// each to progress as its last run ends. The jobs run in rounds: every
// job runs once in the first, in order, and those at the targets' entity
// count once more in each further round (targetRepeats in all), so that
// netsmooth and the references it is judged against take turns, and a
// burst of noise that outlasts a benchmark's run falls on all of them
// instead of on every repeat of one.
func runSuite(jobs []job, benchtime string, progress io.Writer) (map[key]measurement, error) {
	results := make(map[key]measurement, len(jobs))
	runs := make([][]measurement, len(jobs))
	took := make([]time.Duration, len(jobs))
	done := 0
	for round := range targetRepeats {
		for i, j := range jobs {
			k := repeatsAt(j.key.N)
			if round >= k {
				continue
			}
			if err := setBenchtime(benchtime, j.key.N); err != nil {
				return nil, err
			}
			start := time.Now()
			m, err := measureOnce(j)
			if err != nil {
				return nil, fmt.Errorf("%s %s n=%d: %v", j.key.Case, j.key.Impl, j.key.N, err)
			}
			took[i] += time.Since(start)
			if runs[i] = append(runs[i], m); round < k-1 {
				continue
			}
			best := bestOf(runs[i])
			results[j.key] = best
			done++
			fmt.Fprintf(progress, "[%2d/%d] %-11s %-13s n=%-7d %9s %-12s %3d allocs/op  (%d iterations, %s)\n",
				done, len(jobs), j.key.Case, j.key.Impl, j.key.N, formatNs(best.Value), j.metric, best.Allocs, best.Iters,
				took[i].Round(10*time.Millisecond))
		}
	}
	return results, nil
}

// targetRepeats is how many times each benchmark at the targets' entity
// count runs; the report keeps the fastest. On a shared machine noise
// only ever adds time, in bursts that can outlast a run: the fastest of
// five is the run least disturbed, for netsmooth and the references
// alike, where a median of three still moved a ratio by a tenth when a
// burst took two of the three.
const targetRepeats = 5

// repeatsAt is how many times the benchmarks at n entities run.
func repeatsAt(n int) int {
	if n == targetN {
		return targetRepeats
	}
	return 1
}

// measureOnce runs job once, on a collected heap: the garbage of the run
// before (the naive baseline's above all) must not keep the collector
// busy on the other core during this one.
func measureOnce(j job) (measurement, error) {
	runtime.GC()
	return measure(j.fn, j.metric)
}

// bestOf returns the fastest of a job's runs (at least one), with the
// most allocations any of them saw, and how far the next fastest was.
func bestOf(runs []measurement) measurement {
	var allocs int64
	for _, m := range runs {
		allocs = max(allocs, m.Allocs)
	}
	m := fastest(runs)
	m.Allocs = allocs
	return m
}

// fastest returns the fastest of runs (at least one), with its Spread set
// to how far the next fastest was. It sorts runs.
func fastest(runs []measurement) measurement {
	slices.SortFunc(runs, func(a, b measurement) int { return cmp.Compare(a.Value, b.Value) })
	m := runs[0]
	if len(runs) > 1 && m.Value > 0 {
		m.Spread = runs[1].Value/m.Value - 1
	}
	return m
}

// measure runs one benchmark through testing.Benchmark and reads its
// metric.
func measure(fn func(b *testing.B), metric string) (measurement, error) {
	r := testing.Benchmark(fn)
	if r.N == 0 {
		return measurement{}, fmt.Errorf("benchmark failed")
	}
	v, ok := r.Extra[metric]
	if !ok {
		return measurement{}, fmt.Errorf("benchmark reported no %s", metric)
	}
	return measurement{Value: v, Allocs: r.AllocsPerOp(), Bytes: r.AllocedBytesPerOp(), Iters: r.N}, nil
}

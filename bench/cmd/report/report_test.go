package main

import (
	"bytes"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netsmooth/netsmooth/internal/perf"
)

// fakeReport fabricates a run over ns: netsmooth's frame costs 8 ns/entity
// (9 at 1M), the lower bound 7, flat 5, naive 100, and so on; no
// benchmark runs.
func fakeReport(ns []int) *report {
	r := &report{
		Machine: machine{OS: "linux", Arch: "amd64", CPU: "Test CPU @ 3.00GHz", CPUs: 2, Go: "go1.26.8",
			Date: time.Date(2025, 1, 2, 3, 4, 0, 0, time.UTC)},
		Benchtime:      describeBenchtime(autoBenchtime, ns),
		Elapsed:        3*time.Minute + 10*time.Second,
		Counts:         ns,
		Results:        map[key]measurement{},
		ComponentBytes: 916,
		HeapN:          100_000,
		HeapBytes:      1389.4,
		PNG:            "bench/ns-per-entity.png",
	}
	set := func(c, impl string, n int, v float64) {
		r.Results[key{c, impl, n}] = measurement{Value: v, Iters: 60}
	}
	for _, n := range ns {
		frame := 8.0
		if n == 1_000_000 {
			frame = 9
		}
		set(caseFrame, perf.NetSmooth, n, frame)
		set(caseFrame, perf.MinimumName, n, 7)
		set(caseFrame, perf.FlatName, n, 5)
		set(caseFrame, perf.MinimumOnArcheName, n, 7.5)
		set(caseFrame, perf.MinimumOnArcheCheckedName, n, 8)
		set(caseTwoWorkers, perf.NetSmooth, n, 6)
		set(caseCrossing, perf.NetSmooth, n, 16)
		set(caseCrossing, perf.MinimumName, n, 12)
		set(caseCrossing, perf.MinimumOnArcheName, n, 12.8)
		set(caseBetween, perf.NetSmooth, n, 4)
		set(caseBetween, perf.MinimumName, n, 4)
		set(caseBetween, perf.MinimumOnArcheName, n, 4)
		set(casePositionOnly, perf.NetSmooth, n, 12)
		set(casePositionOnly, perf.MinimumName, n, 6)
		set(casePositionOnly, perf.MinimumOnArcheName, n, 6.4)
		set(caseReceive, perf.NetSmooth, n, 2.5)
		set(caseTimeline, perf.NetSmooth, n, 0.01)
		set(caseInterpolate, perf.NetSmooth, n, 4)
		set(caseInterpolate, perf.MinimumName, n, 1.6)
		set(caseInterpolate, perf.MinimumOnArcheName, n, 2) // 2×: misses the 1.15× target
		set(caseInterpolate, perf.FlatName, n, 3)
		set(caseSmooth, perf.NetSmooth, n, 0.25)
		set(caseSnap, perf.NetSmooth, n, 0.125)
		set(caseIngest, perf.NetSmooth, n, 20)
		set(caseIngest, perf.MinimumName, n, 16)
		set(caseIngest, perf.FlatName, n, 10)
		set(caseIngest, perf.MinimumOnArcheName, n, 18.4)
		set(caseIngest, perf.MinimumCheckedName, n, 17)
		set(caseIngest, perf.MinimumOnArcheCheckedName, n, 19)
		if n <= naiveMax {
			set(caseFrame, perf.NaiveName, n, 100)
			set(caseIngest, perf.NaiveName, n, 400)
		}
	}
	for _, n := range churnCounts {
		set(caseChurn, perf.NetSmooth, n, 9)
	}
	set(caseLifecycle, perf.NetSmooth, lifecycleBatch, 250)
	for _, n := range predictedCounts {
		set(casePredicted, perf.NetSmooth, n, 300)
	}
	r.Results[key{caseLifecycle, perf.NetSmooth, lifecycleBatch}] = measurement{Value: 250, Allocs: 2, Bytes: 32768, Iters: 60}
	r.Results[key{caseChurn, perf.NetSmooth, 100_000}] = measurement{Value: 9, Allocs: 2, Iters: 60}
	return r
}

func TestTargets(t *testing.T) {
	r := fakeReport(counts)
	want := []struct {
		measured float64
		pass     bool
	}{
		{8.0 / 7.5, true}, // whole frame ≤ 1.15× the lower bound on arche
		{2, false},        // Interpolate ≤ 1.15× the lower bound on arche
		{20.0 / 17, true}, // ingest ≤ 1.25× the checked lower bound
		{12 / 6.4, false}, // position-only frame ≤ 1.15× the lower bound on arche's
		{0.75, true},      // 2 workers ≤ 0.75× 1
		{2, false},        // 0 allocations per frame: lifecycle's do not count, the churn's 2 do
		{12.5, true},      // ≥ 5× faster than naive
		{916, true},       // ≤ 1 KiB
		{1.125, true},     // 1M ≤ 2× 10k
	}
	got := r.Targets()
	if len(got) != len(want) {
		t.Fatalf("%d targets, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if !g.Taken || g.Measured != w.measured || g.Pass() != w.pass {
			t.Errorf("target %q: taken %v, measured %v, pass %v; want %v, %v", g.Name, g.Taken, g.Measured, g.Pass(), w.measured, w.pass)
		}
	}
	if ratio := got[6].Ratio(); ratio != 0.4 {
		t.Errorf("speed-up ratio %v, want 5/12.5 = 0.4", ratio)
	}
}

// TestNoise: the report says when the machine was busy, from a
// measurement whose fastest repeat no other bears out and from a frame
// that disagrees with its crossing and other frames, and says that it
// checked when it was not.
func TestNoise(t *testing.T) {
	r := fakeReport(counts)
	if found := r.noise(); len(found) != 0 {
		t.Fatalf("a quiet run found noisy: %q", found)
	}
	if md := r.Markdown(); !strings.Contains(md, "Noise check: at 100k entities the two fastest repeats of every measurement the targets use lie within 10% of each other") {
		t.Error("the quiet run does not say it was checked")
	}
	spread := r.Results[key{caseIngest, perf.MinimumName, 100_000}]
	spread.Spread = 0.25
	r.Results[key{caseIngest, perf.MinimumName, 100_000}] = spread
	slow := r.Results[key{caseFrame, perf.MinimumName, 100_000}]
	slow.Value = 9 // its crossing and other frames make 6.67
	r.Results[key{caseFrame, perf.MinimumName, 100_000}] = slow
	want := []string{
		"the two fastest repeats of the lower bound's ingest lie 25% apart",
		"the lower bound's frame (9.00) is +35% from its crossing and other frames ((12.0 + 2 × 4.00) / 3 = 6.67)",
	}
	found := r.noise()
	if len(found) != len(want) {
		t.Fatalf("found %q, want %q", found, want)
	}
	for i := range want {
		if found[i] != want[i] {
			t.Errorf("found %q, want %q", found[i], want[i])
		}
	}
	if md := r.Markdown(); !strings.Contains(md, "**The machine was busy during this run**: "+want[0]+"; "+want[1]+".") {
		t.Error("the busy run is not flagged in the markdown")
	}
}

// TestFastest: the report keeps the fastest repeat, says how far the
// next fastest was, and keeps the most allocations of any repeat.
func TestFastest(t *testing.T) {
	runs := []measurement{{Value: 5}, {Value: 4}, {Value: 9, Iters: 7}, {Value: 4.4}, {Value: 20}}
	if m := fastest(runs); m.Value != 4 || math.Abs(m.Spread-0.1) > 1e-12 {
		t.Errorf("fastest %+v, want 4 with a spread of 0.1", m)
	}
	if m := fastest([]measurement{{Value: 3}}); m.Value != 3 || m.Spread != 0 {
		t.Errorf("one run: %+v", m)
	}
	// The most allocations any run saw go with the fastest.
	runs = []measurement{{Value: 5, Allocs: 0}, {Value: 4, Allocs: 0}, {Value: 6, Allocs: 2}}
	if m := bestOf(runs); m.Value != 4 || m.Allocs != 2 {
		t.Errorf("bestOf: %+v, want 4 with 2 allocs", m)
	}
}

// TestSuiteRounds: the benchmarks at the targets' entity count take
// turns, five rounds of one run each, and the report keeps each one's
// fastest run; the others run once.
func TestSuiteRounds(t *testing.T) {
	var order []string
	calls := map[string]int{}
	fake := func(name string, n int, values ...float64) job {
		return job{key{caseFrame, name, n}, "ns/entity", func(b *testing.B) {
			if b.N > 1 { // testing.Benchmark probes with b.N = 1 first
				return
			}
			order = append(order, name)
			v := values[calls[name]%len(values)]
			calls[name]++
			b.ReportMetric(v, "ns/entity")
		}}
	}
	jobs := []job{
		fake("small", 1_000, 1),
		fake("a", targetN, 9, 7, 8, 6, 10),
		fake("b", targetN, 5, 5, 3, 4, 6),
	}
	results, err := runSuite(jobs, "1x", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := "small a b a b a b a b a b"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("ran %q, want %q", got, want)
	}
	if m := results[jobs[1].key]; m.Value != 6 {
		t.Errorf("a: kept %v, want its fastest run, 6", m.Value)
	}
	if m := results[jobs[2].key]; m.Value != 3 {
		t.Errorf("b: kept %v, want its fastest run, 3", m.Value)
	}
	if m := results[jobs[0].key]; m.Value != 1 {
		t.Errorf("small: kept %v, want 1", m.Value)
	}
}

func TestTargetsQuickRun(t *testing.T) {
	r := fakeReport(countsUpTo(100_000))
	ts := r.Targets()
	last := ts[len(ts)-1]
	if last.Taken || last.Pass() {
		t.Errorf("1M ÷ 10k target taken without a 1M run: %+v", last)
	}
	if row := last.row(); row[1] != "—" || row[4] != "not run" {
		t.Errorf("row %q", row)
	}
	for _, tg := range ts[:len(ts)-1] {
		if !tg.Taken {
			t.Errorf("target %q not taken", tg.Name)
		}
	}
}

func TestMarkdown(t *testing.T) {
	md := fakeReport(counts).Markdown()
	for _, want := range []string{
		"# Benchmarks\n",
		"go run ./bench/cmd/report",
		"| CPU | Test CPU @ 3.00GHz |",
		"| CPUs | 2 |",
		"| date | 2025-01-02 03:04 UTC |",
		"| benchtime | auto: 3000x at 1k, 600x at 10k, 60x at 100k, 30x at 1M entities |",
		"| whole frame ÷ lower bound on arche | 1.07× | ≤ 1.15× | 0.93 | PASS |",
		"| Interpolate ÷ lower bound on arche | 2.00× | ≤ 1.15× | 1.74 | MISS |",
		"| position-only frame ÷ lower bound on arche | 1.88× | ≤ 1.15× | 1.63 | MISS |",
		"| whole frame, on 2 workers ÷ on 1 | 0.75× | ≤ 0.75× | 1.00 | PASS |",
		"| allocations per frame (every netsmooth per-frame case) | 2 | ≤ 0 | +Inf | MISS |",
		"netsmooth's components take 916 B; the lower bound's data, 620 B.",
		"| naive frame ÷ whole frame (speed-up) | 12.50× | ≥ 5.00× | 0.40 | PASS |",
		"| component memory per remote entity | 916 B | ≤ 1024 B | 0.89 | PASS |",
		"heap grows by 1389 B per remote entity at 100k",
		"| 100k | frame | 8.00 | 7.00 | 1.14× | — | — | 7.50 | 1.07× | 5.00 | 100 | 12.50× | 0 | 0 |",
		"| 100k | frame, 2 workers | 6.00 | — | — | — | — | — | — | — | — | — | 0 | 0 |",
		"| 100k | frame, crossing | 16.0 | 12.0 | 1.33× | — | — | 12.8 | 1.25× | — | — | — | 0 | 0 |",
		"| 100k | frame, position only | 12.0 | 6.00 | 2.00× | — | — | 6.40 | 1.88× | — | — | — | 0 | 0 |",
		"| 100k | receive | 2.50 | — | — | — | — | — | — | — | — | — | 0 | 0 |",
		"| 100k | timeline | 0.01 | — | — | — | — | — | — | — | — | — | 0 | 0 |",
		"| 100k | interpolate | 4.00 | 1.60 | 2.50× | — | — | 2.00 | 2.00× | 3.00 | — | — | 0 | 0 |",
		"| 100k | ingest | 20.0 | 16.0 | 1.25× | 17.0 | 1.18× | 18.4 | 1.09× | 10.0 | 400 | 20.00× | 0 | 0 |",
		"| ingest ÷ lower bound with checks | 1.18× | ≤ 1.25× | 0.94 | PASS |",
		"Against the lower bound without checks, netsmooth ingests at 1.25× (20.0 against 16.0 ns per snapshot). The checks alone take the lower bound to 1.06× itself (17.0 ns)",
		"The checked lower bound written on arche's public API (its rings in arche components, each found through World.Get and World.GetUnchecked) ingests at 19.0 ns, 1.12× the checked lower bound: what finding a ring through arche's public API costs before any of netsmooth's own work. Netsmooth's ingest is 1.05× it. The checked lower bound on arche's whole frame takes 8.00 ns per entity, 1.07× the lower bound on arche's (7.50 ns): the share of the frame target's ratio that is the checks; netsmooth's frame is 1.00× it.",
		"Against the plain lower bound (no ECS), netsmooth takes: the whole frame 1.14×, Interpolate 2.50×, ingest 1.25×. The lower bound on arche's public API takes the whole frame 1.07×, Interpolate 1.25×, ingest 1.15× the plain one:",
		"| 1M | frame | 9.00 | 7.00 | 1.29× | — | — | 7.50 | 1.20× | 5.00 | — | — | 0 | 0 |",
		"| 1M | snap | 0.12 | — | — | — | — | — | — | — | — | — | 0 | 0 |",
		"| lifecycle | batches of 1000 | 250 | ns/lifecycle | 2 | 32.77 |",
		"| predicted | 64 entities | 300 | ns/entity | 0 | 0 |",
		"![ns/entity against entities](bench/ns-per-entity.png)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	// Rows in order: every count, every system.
	if a, b := strings.Index(md, "| 1k | frame |"), strings.Index(md, "| 1M | ingest |"); a < 0 || b < a {
		t.Errorf("main table out of order")
	}
	// Four tables: a header each, then machine, targets, systems, scenarios.
	if got, want := strings.Count(md, "\n| "), 4+7+9+4*11+7; got != want {
		t.Errorf("%d table lines, want %d", got, want)
	}
}

func TestMarkdownQuickRun(t *testing.T) {
	md := fakeReport(countsUpTo(100_000)).Markdown()
	if strings.Contains(md, "| 1M |") {
		t.Error("1M rows without a 1M run")
	}
	if !strings.Contains(md, "| whole frame per entity, 1M ÷ 10k | — | ≤ 2.00× | — | not run |") {
		t.Error("scaling target not marked as not run")
	}
}

func TestWriteTableAlignment(t *testing.T) {
	var b strings.Builder
	writeTable(&b, []string{"name", "value"}, [][]string{{"a", "1.5"}, {"b", "—"}})
	want := "| name | value |\n|---|---:|\n| a | 1.5 |\n| b | — |\n\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{formatNs(1234.5), "1234"},
		{formatNs(123.45), "123"},
		{formatNs(12.345), "12.3"},
		{formatNs(1.2345), "1.23"},
		{formatTimes(150), "150×"},
		{formatTimes(1.5), "1.50×"},
		{formatPerEntity(0, 1000), "0"},
		{formatPerEntity(1500, 1000), "1.50"},
		{countLabel(1_000), "1k"},
		{countLabel(100_000), "100k"},
		{countLabel(1_000_000), "1M"},
		{countLabel(64), "64"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestAutoIterations(t *testing.T) {
	for n, want := range map[int]int{1: 3000, 1_000: 3000, 10_000: 600, 100_000: 60, 1_000_000: 30} {
		if got := autoIterations(n); got != want {
			t.Errorf("autoIterations(%d) = %d, want %d", n, got, want)
		}
	}
	for n := 1; n < 2_000_000; n = n*3 + 1 {
		if it := autoIterations(n); it%perf.FramesPerTick != 0 || it < 30 || it > 3000 {
			t.Errorf("autoIterations(%d) = %d", n, it)
		}
	}
}

func TestPlan(t *testing.T) {
	jobs := plan(counts)
	seen := map[key]bool{}
	for _, j := range jobs {
		if seen[j.key] {
			t.Errorf("%v planned twice", j.key)
		}
		seen[j.key] = true
	}
	// 32 cases at 1k, 10k and 100k, 30 at 1M (no naive), 2 churn, 1
	// lifecycle, 4 predicted.
	if len(jobs) != 3*32+30+2+1+4 {
		t.Errorf("%d jobs", len(jobs))
	}
	if !seen[key{caseIngest, perf.MinimumOnArcheName, 1_000_000}] || !seen[key{caseInterpolate, perf.MinimumOnArcheName, 100_000}] {
		t.Error("the lower bound on arche's ingest or Interpolate not planned")
	}
	if !seen[key{caseIngest, perf.MinimumOnArcheCheckedName, 1_000_000}] || !seen[key{caseFrame, perf.MinimumOnArcheCheckedName, 100_000}] {
		t.Error("the checked lower bound on arche's ingest or frame not planned")
	}
	if !seen[key{caseIngest, perf.MinimumCheckedName, 1_000_000}] || seen[key{caseFrame, perf.MinimumCheckedName, 100_000}] {
		t.Error("the checked lower bound's ingest not planned, or its frame (the lower bound's but for ingest) planned")
	}
	if seen[key{caseFrame, perf.NaiveName, 1_000_000}] || !seen[key{caseIngest, perf.NaiveName, 100_000}] {
		t.Error("naive planned beyond 100k, or not up to it")
	}
	if quick := plan(countsUpTo(100_000)); len(quick) != 3*32+2+1+4 {
		t.Errorf("%d jobs up to 100k", len(quick))
	}
}

func TestCPUModel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpuinfo")
	info := "processor\t: 0\nvendor_id\t: Test\nmodel name\t: Test CPU @ 3.00GHz\n\nprocessor\t: 1\nmodel name\t: Other\n"
	if err := os.WriteFile(path, []byte(info), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := cpuModel(path); got != "Test CPU @ 3.00GHz" {
		t.Errorf("cpuModel = %q", got)
	}
	if got := cpuModel(filepath.Join(t.TempDir(), "missing")); got != "" {
		t.Errorf("cpuModel of a missing file = %q", got)
	}
}

func TestWritePlot(t *testing.T) {
	r := fakeReport(counts)
	path := filepath.Join(t.TempDir(), "bench", "plot.png")
	if err := writePlot(path, r.Results, r.Counts); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() < 600 || b.Dy() < 350 {
		t.Errorf("plot is %v", b)
	}
	if err := writePlot(path, map[key]measurement{}, r.Counts); err == nil {
		t.Error("plot of nothing written")
	}
}

func TestParseFlags(t *testing.T) {
	cfg, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg != (config{benchtime: autoBenchtime, max: 1_000_000, out: ".", png: "bench/ns-per-entity.png", capacity: true}) {
		t.Errorf("defaults %+v", cfg)
	}
	for _, args := range [][]string{
		{"-max", "999"},
		{"-benchtime", "fast"},
		{"-png", "../x.png"},
		{"extra"},
	} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
	if cfg, err := parseFlags([]string{"-benchtime", "20x", "-max", "100000"}, io.Discard); err != nil || cfg.max != 100_000 || cfg.benchtime != "20x" {
		t.Errorf("%+v, %v", cfg, err)
	}
}

// The capacity section shows every configuration and checks the targets
// at 100 clients x 50k entities: the time, the speed-up over the
// baseline, the budget (the most any client was sent, in any
// configuration) and the allocations.
func TestCapacityMarkdown(t *testing.T) {
	r := fakeReport(countsUpTo(100_000))
	if strings.Contains(r.Markdown(), "## Capacity") {
		t.Error("capacity section without a capacity run")
	}
	r.Capacity = []capacityRow{
		{Case: perf.Capacity{Clients: 10, Entities: 1000, Interest: true}, Ms: 0.4, Result: perf.CapacityResult{BytesPerClient: 31000, MostPerClient: 32500, Relevant: 280}},
		{Case: perf.Capacity{Clients: 100, Entities: 50_000, Interest: true}, Ms: 4, Result: perf.CapacityResult{BytesPerClient: 31900, MostPerClient: 31990, Relevant: 301}, Allocs: 0},
		{Case: perf.Capacity{Clients: 100, Entities: 50_000}, Ms: 280, Result: perf.CapacityResult{BytesPerClient: 6e6, MostPerClient: 6e6}, Allocs: 500},
	}
	md := r.Markdown()
	for _, want := range []string{
		"## Capacity",
		"| server work per tick (ms) | 4.00 ms | ≤ 5.00 ms | 0.80 | PASS |",
		"| speed-up over every entity to every client | 70.00× | ≥ 10.00× | 0.14 | PASS |",
		"| most bytes any client is sent per second, any configuration | 32500 B | ≤ 32000 B | 1.02 | MISS |",
		"| allocations per tick, any configuration | 0 | ≤ 0 | 0.00 | PASS |",
		"| interest | 100 | 50k | 301 | 4.00 | 31900 | 31990 | 0 |",
		"| everything | 100 | 50k | all | 280.00 | 6000000 | 6000000 | 500 |",
		"Noise check: the two runs of each configuration these targets use lie within 10% of each other.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	// A slower second run far from the one kept, in a configuration the
	// targets use, flags the capacity runs as disturbed; one elsewhere
	// does not.
	r.Capacity[0].Spread = 0.5
	r.Capacity[1].Spread = 0.25
	md = r.Markdown()
	want := "**The machine was busy during the capacity runs**: the two runs of interest at 100 clients × 50k entities lie 25% apart."
	if !strings.Contains(md, want) {
		t.Errorf("markdown lacks %q", want)
	}
	if strings.Contains(md, "Noise check: the two runs") {
		t.Error("a busy capacity run is also said to be checked")
	}
	// Both target configurations, the baseline too, are named; a spread
	// of exactly the limit passes.
	r.Capacity[2].Spread = 0.4
	want = "**The machine was busy during the capacity runs**: the two runs of interest at 100 clients × 50k entities lie 25% apart; the two runs of everything at 100 clients × 50k entities lie 40% apart."
	if md := r.Markdown(); !strings.Contains(md, want) {
		t.Errorf("markdown lacks %q", want)
	}
	r.Capacity[1].Spread, r.Capacity[2].Spread = noiseLimit, 0
	if md := r.Markdown(); !strings.Contains(md, "Noise check: the two runs of each configuration these targets use lie within 10% of each other.") {
		t.Error("a spread at the limit is flagged")
	}
}

// The custom fields section shows the frame and each field's share.
func TestFieldsMarkdown(t *testing.T) {
	r := fakeReport(countsUpTo(100_000))
	if strings.Contains(r.Markdown(), "## Custom fields") {
		t.Error("custom fields section without a run")
	}
	r.FieldsN = 100_000
	r.Fields = []fieldsRow{{Fields: 0, Frame: 21}, {Fields: 2, Frame: 50, PerField: 14.5}}
	md := r.Markdown()
	for _, want := range []string{"## Custom fields", "at 100k entities", "| 0 | 21.0 | — | 0 |", "| 2 | 50.0 | 14.5 | 0 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

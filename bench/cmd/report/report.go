package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/netsmooth/netsmooth/internal/perf"
)

// machine describes where the suite ran.
type machine struct {
	OS, Arch string
	CPU      string // model name, "" if unknown
	CPUs     int
	Go       string
	Date     time.Time
}

// thisMachine describes the running machine, at now.
func thisMachine(now time.Time) machine {
	return machine{
		OS:   runtime.GOOS,
		Arch: runtime.GOARCH,
		CPU:  cpuModel("/proc/cpuinfo"),
		CPUs: runtime.NumCPU(),
		Go:   runtime.Version(),
		Date: now.UTC(),
	}
}

// cpuModel returns the first "model name" of a /proc/cpuinfo file, or ""
// if there is none.
func cpuModel(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(name) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return ""
}

// report is everything BENCHMARKS.md shows.
type report struct {
	Machine   machine
	Benchtime string        // the -benchtime of the run, described
	Elapsed   time.Duration // how long the run took
	Counts    []int         // entity counts of the main table, ascending
	Results   map[key]measurement

	ComponentBytes uintptr // perf.ComponentBytes
	HeapN          int     // entity count of HeapBytes
	HeapBytes      float64 // perf.HeapBytesPerEntity(HeapN)

	PNG string // the plot's path relative to BENCHMARKS.md, slash-separated

	Capacity []capacityRow // the server's capacity, if run

	FieldsN int         // entity count of Fields
	Fields  []fieldsRow // the frame with custom fields
}

// get returns a measurement and whether it was taken.
func (r *report) get(c, impl string, n int) (measurement, bool) {
	m, ok := r.Results[key{c, impl, n}]
	return m, ok
}

// targetN is the entity count the targets are checked at: targetN, or the
// largest count below it if the run stopped earlier.
func (r *report) targetN() int {
	n := r.Counts[0]
	for _, c := range r.Counts {
		if c <= targetN {
			n = c
		}
	}
	return n
}

// Units of targets.
const (
	unitNs     = "ns"
	unitTimes  = "×"
	unitBytes  = "B"
	unitAllocs = "allocs/op"
	unitMs     = "ms"
)

// target is one performance target of the issue, checked on a run.
type target struct {
	Name     string
	Measured float64
	Limit    float64
	AtLeast  bool   // the target is Measured ≥ Limit, not Measured ≤ Limit
	Unit     string // unitNs, unitTimes, unitBytes, unitAllocs or unitMs
	Taken    bool   // false if this run did not measure it
}

// Ratio is the share of the target used: Measured/Limit, or Limit/Measured
// for an AtLeast target, so that at most 1 passes. A target of 0 is used
// up by anything above 0.
func (t target) Ratio() float64 {
	switch {
	case t.AtLeast:
		return t.Limit / t.Measured
	case t.Limit == 0 && t.Measured == 0:
		return 0
	case t.Limit == 0:
		return math.Inf(1)
	}
	return t.Measured / t.Limit
}

// Pass tells whether the target is met.
func (t target) Pass() bool { return t.Taken && t.Ratio() <= 1 }

// format shows a value in the target's unit.
func (t target) format(v float64) string {
	switch t.Unit {
	case unitNs:
		return formatNs(v) + " ns"
	case unitTimes:
		return formatTimes(v)
	case unitAllocs:
		return fmt.Sprintf("%.0f", v)
	case unitMs:
		return fmt.Sprintf("%.2f ms", v)
	}
	return fmt.Sprintf("%.0f %s", v, t.Unit)
}

// row is the target's row of the targets table.
func (t target) row() []string {
	op := "≤"
	if t.AtLeast {
		op = "≥"
	}
	limit := op + " " + t.format(t.Limit)
	if !t.Taken {
		return []string{t.Name, "—", limit, "—", "not run"}
	}
	result := "MISS"
	if t.Pass() {
		result = "PASS"
	}
	return []string{t.Name, t.format(t.Measured), limit, fmt.Sprintf("%.2f", t.Ratio()), result}
}

// ratioTarget is a target on a/b, taken if both were measured.
func ratioTarget(name string, a, b measurement, okA, okB bool, limit float64, atLeast bool) target {
	t := target{Name: name, Limit: limit, AtLeast: atLeast, Unit: unitTimes, Taken: okA && okB && b.Value > 0}
	if t.Taken {
		t.Measured = a.Value / b.Value
	}
	return t
}

// Targets checks the performance targets on the run. The per-frame ratios
// are judged against the lower bound written on arche's public API, which
// does the lower bound's work with arche components and queries and
// nothing else, so that netsmooth's speed never depends on reading
// arche's private state; the plain lower bound's ratios are given beside
// them (see writeFloors). Ingest is judged against the lower bound with
// the checks every snapshot of an untrusted server needs: those alone
// take the lower bound to about 1.2× itself (see writeChecksFloor).
func (r *report) Targets() []target {
	n := r.targetN()
	get := func(c, impl string) (measurement, bool) { return r.get(c, impl, n) }
	// ratio is the target a ≤ limit × b, on two measurements at n.
	ratio := func(name string, a, b key, limit float64) target {
		ma, okA := get(a.Case, a.Impl)
		mb, okB := get(b.Case, b.Impl)
		return ratioTarget(name, ma, mb, okA, okB, limit, false)
	}
	vsArche := func(name, c string, limit float64) target {
		return ratio(name, key{Case: c, Impl: perf.NetSmooth}, key{Case: c, Impl: perf.MinimumOnArcheName}, limit)
	}
	frame, okFrame := get(caseFrame, perf.NetSmooth)
	naive, okNaive := get(caseFrame, perf.NaiveName)
	small, okSmall := r.get(caseFrame, perf.NetSmooth, 10_000)
	large, okLarge := r.get(caseFrame, perf.NetSmooth, 1_000_000)
	return []target{
		vsArche("whole frame ÷ lower bound on arche", caseFrame, 1.15),
		vsArche("Interpolate ÷ lower bound on arche", caseInterpolate, 1.15),
		ratio("ingest ÷ lower bound with checks", key{Case: caseIngest, Impl: perf.NetSmooth}, key{Case: caseIngest, Impl: perf.MinimumCheckedName}, 1.25),
		vsArche("position-only frame ÷ lower bound on arche", casePositionOnly, 1.15),
		ratio("whole frame, on 2 workers ÷ on 1", key{Case: caseTwoWorkers, Impl: perf.NetSmooth}, key{Case: caseFrame, Impl: perf.NetSmooth}, 0.75),
		{Name: "allocations per frame (every netsmooth per-frame case)", Measured: float64(r.maxFrameAllocs()), Limit: 0, Unit: unitAllocs, Taken: len(r.Results) > 0},
		ratioTarget("naive frame ÷ whole frame (speed-up)", naive, frame, okNaive, okFrame, 5, true),
		{Name: "component memory per remote entity", Measured: float64(r.ComponentBytes), Limit: 1024, Unit: unitBytes, Taken: r.ComponentBytes > 0},
		ratioTarget("whole frame per entity, 1M ÷ 10k", large, small, okLarge, okSmall, 2, false),
	}
}

// maxFrameAllocs is the most allocations per operation of any of
// netsmooth's per-frame cases (the lifecycle benchmark allocates per batch
// by design; the naive baseline allocates all the time).
func (r *report) maxFrameAllocs() int64 {
	var most int64
	for k, m := range r.Results {
		if k.Impl == perf.NetSmooth && k.Case != caseLifecycle {
			most = max(most, m.Allocs)
		}
	}
	return most
}

// Markdown renders BENCHMARKS.md.
func (r *report) Markdown() string {
	var b strings.Builder
	r.writeIntro(&b)
	r.writeMachine(&b)
	r.writeTargets(&b)
	r.writeSystems(&b)
	r.writeScenarios(&b)
	r.writeFields(&b)
	r.writeCapacity(&b)
	fmt.Fprintf(&b, "## Plot\n\nns/entity against the entity count, both logarithmic (ingest in ns/snapshot).\n\n![ns/entity against entities](%s)\n", r.PNG)
	return b.String()
}

func (r *report) writeIntro(b *strings.Builder) {
	b.WriteString(`# Benchmarks

<!-- Generated by go run ./bench/cmd/report: do not edit by hand. -->

The steady scenario of ` + "`internal/perf`" + `: a server sends a snapshot
of every entity, with position and rotation, at 20 Hz; the client renders
60 frames per second with netsmooth's default config, so every third
frame receives one snapshot per entity, and every frame interpolates,
smooths and snaps all of them (generating the snapshots is not timed). In
the same run, lower bounds and baselines do the same work.

The **lower bound** (` + "`perf.Minimum`" + `) is the least work per entity that
draws what netsmooth draws, by hand, with no ECS, no index, no validation
and no generality, in the layout that work needs (a 68-byte hot bracket
per entity read every frame, an 8-byte ring head and a cold, slot-major
ring of 32-byte samples touched only on arrival and when the render time
crosses a sample); a test checks that it draws the same positions and
rotations as the pipeline, frame by frame. The **lower bound on arche**
(` + "`perf.MinimumOnArche`" + `) is the same work written on arche's public
API: every piece of its per-entity data an arche component, drawn by
iterating a query (` + "`Query.Next`, `Query.Get`" + `) and fed through
` + "`World.Get`" + ` and ` + "`World.GetUnchecked`" + `, nothing else; it draws exactly
what the lower bound draws. The per-frame targets are judged against it,
so that netsmooth's speed never depends on reading arche's private state;
the ratios to the plain lower bound are given beside them. For ingest the
reference is the **checked lower bound** (` + "`perf.MinimumChecked`" + `): the
lower bound with the checks a client of an untrusted server must make on
every snapshot before it stores it (a snapshot's kind, every coordinate
finite and within ` + "`MaxAbs`" + `, a unit rotation or none, a tick not too far
ahead), made as netsmooth's Receive makes them, and nothing else; a test
checks that on a stream with garbage in it, it refuses what the pipeline
refuses and draws what the pipeline draws, where the lower bound without
checks does not. For context: **flat**, a hand-written loop with
netsmooth's own data layout and maths (the 92-byte span, the ring's slot
columns, validation), which bounds the ECS and index overhead only; and
**naive**, an object per entity held by pointer in a map from NetID, with
a slice of snapshots sorted on every push and mathgl method chains, in
the style of a TypeScript snapshot buffer (the scorecard's "damped
buffer", here on netsmooth's clock). The rows "frame, 2 workers" are
netsmooth's frame with Receive and Interpolate split over two goroutines
(` + "`Config.WithWorkers(2)`" + `). Times are per entity and frame (ns/entity), or
per entity-snapshot received for ingest (ns/snapshot).

Regenerate this file and the plot from the repository root with

` + "```" + `
go run ./bench/cmd/report
` + "```" + `

(` + "`-max 100000`" + ` skips the 1M entity runs, ` + "`-capacity=false`" + ` the
server's capacity; ` + "`-benchtime`" + `, as for ` + "`go test`" + `, overrides the
iteration counts of the client's benchmarks, which by default scale with
the entity count). Each number comes from one short run, but at 100k entities,
where the targets are checked, from the fastest of five, run in five
rounds in which netsmooth and its references take turns (noise on a
shared machine only ever adds time, and a slow spell then falls on all
of them): expect some noise, and compare runs on the same machine only. Under the targets, the report says whether the
run looks disturbed (the two fastest repeats far apart, or a frame that
disagrees with its crossing and other frames).

`)
}

func (r *report) writeMachine(b *strings.Builder) {
	m := r.Machine
	cpu := m.CPU
	if cpu == "" {
		cpu = "unknown"
	}
	b.WriteString("## Machine\n\n")
	writeTable(b, []string{"", ""}, [][]string{
		{"OS/arch", m.OS + "/" + m.Arch},
		{"CPU", cpu},
		{"CPUs", fmt.Sprint(m.CPUs)},
		{"Go", m.Go},
		{"date", m.Date.UTC().Format("2006-01-02 15:04 MST")},
		{"benchtime", r.Benchtime},
		{"run took", r.Elapsed.Round(time.Second).String()},
	})
}

func (r *report) writeTargets(b *strings.Builder) {
	fmt.Fprintf(b, "## Targets\n\nMeasured in this run at %s entities unless noted. The ratio is the share of the target used: at most 1 passes.\n\n", countLabel(r.targetN()))
	var rows [][]string
	for _, t := range r.Targets() {
		rows = append(rows, t.row())
	}
	writeTable(b, []string{"check", "measured", "target", "ratio", "result"}, rows)
	r.writeNoise(b)
	r.writeFloors(b)
	r.writeChecksFloor(b)
	fmt.Fprintf(b, "Memory per remote entity: netsmooth's components take %d B; the lower bound's data, %d B.", r.ComponentBytes, perf.MinimumBytesPerEntity)
	if r.HeapN > 0 {
		fmt.Fprintf(b, " The heap grows by %.0f B per remote entity at %s entities (components, arche's and the NetID index's bookkeeping, and the inbox buffers).", r.HeapBytes, countLabel(r.HeapN))
	}
	b.WriteString("\n\n")
}

// noiseLimit is how far a measurement at the targets' entity count may be
// from its own repeats, or a frame from its crossing and other frames,
// before the report says the machine was busy.
const noiseLimit = 0.10

// noise lists the signs, at the targets' entity count, that the machine
// was busy during the run: a measurement the targets use whose fastest
// repeat, the one kept, no other comes within noiseLimit of, or a frame
// more than noiseLimit from the average of its crossing frame and two
// others (which it is made of, and which are timed at other moments). A
// disturbance long enough to slow every repeat of one benchmark alike
// shows only in the second.
func (r *report) noise() []string {
	n := r.targetN()
	var found []string
	for _, k := range []key{
		{caseFrame, perf.NetSmooth, n}, {caseFrame, perf.MinimumName, n}, {caseFrame, perf.MinimumOnArcheName, n},
		{caseInterpolate, perf.NetSmooth, n}, {caseInterpolate, perf.MinimumName, n}, {caseInterpolate, perf.MinimumOnArcheName, n},
		{caseIngest, perf.NetSmooth, n}, {caseIngest, perf.MinimumName, n}, {caseIngest, perf.MinimumCheckedName, n}, {caseIngest, perf.MinimumOnArcheCheckedName, n},
		{casePositionOnly, perf.NetSmooth, n}, {casePositionOnly, perf.MinimumOnArcheName, n}, {caseTwoWorkers, perf.NetSmooth, n},
	} {
		if m, ok := r.Results[k]; ok && m.Spread > noiseLimit {
			found = append(found, fmt.Sprintf("the two fastest repeats of %s's %s lie %.0f%% apart", implLabel(k.Impl), k.Case, 100*m.Spread))
		}
	}
	for _, impl := range []string{perf.NetSmooth, perf.MinimumName, perf.MinimumOnArcheName} {
		frame, ok1 := r.get(caseFrame, impl, n)
		crossing, ok2 := r.get(caseCrossing, impl, n)
		between, ok3 := r.get(caseBetween, impl, n)
		if !ok1 || !ok2 || !ok3 || frame.Value <= 0 {
			continue
		}
		parts := (crossing.Value + 2*between.Value) / 3
		if off := frame.Value/parts - 1; math.Abs(off) > noiseLimit {
			found = append(found, fmt.Sprintf("%s's frame (%s) is %+.0f%% from its crossing and other frames ((%s + 2 × %s) / 3 = %s)",
				implLabel(impl), formatNs(frame.Value), 100*off, formatNs(crossing.Value), formatNs(between.Value), formatNs(parts)))
		}
	}
	return found
}

// writeNoise says whether the run at the targets' entity count looks
// undisturbed (see noise).
func (r *report) writeNoise(b *strings.Builder) {
	if _, ok := r.get(caseFrame, perf.MinimumName, r.targetN()); !ok {
		return
	}
	if found := r.noise(); len(found) > 0 {
		fmt.Fprintf(b, "**The machine was busy during this run**: %s. A result within that margin of its target may be wrong: run the report again on a quiet machine.\n\n", strings.Join(found, "; "))
		return
	}
	fmt.Fprintf(b, "Noise check: at %s entities the two fastest repeats of every measurement the targets use lie within %.0f%% of each other, and every frame within %.0f%% of its crossing and other frames.\n\n",
		countLabel(r.targetN()), 100*noiseLimit, 100*noiseLimit)
}

// implLabel names an implementation in prose.
func implLabel(impl string) string {
	switch impl {
	case perf.NetSmooth:
		return "netsmooth"
	case perf.MinimumName:
		return "the lower bound"
	case perf.MinimumOnArcheName:
		return "the lower bound on arche"
	case perf.MinimumCheckedName:
		return "the checked lower bound"
	case perf.MinimumOnArcheCheckedName:
		return "the checked lower bound on arche"
	}
	return impl
}

// writeChecksFloor gives ingest against the lower bound without checks,
// and what the checks alone cost the lower bound, at the targets' entity
// count: why the ingest target is against the checked one.
func (r *report) writeChecksFloor(b *strings.Builder) {
	n := r.targetN()
	ns, ok1 := r.get(caseIngest, perf.NetSmooth, n)
	low, ok2 := r.get(caseIngest, perf.MinimumName, n)
	checked, ok3 := r.get(caseIngest, perf.MinimumCheckedName, n)
	if !ok1 || !ok2 || !ok3 || low.Value <= 0 {
		return
	}
	fmt.Fprintf(b, "Against the lower bound without checks, netsmooth ingests at %s (%s against %s ns per snapshot). The checks alone take the lower bound to %s itself (%s ns): the numbers of every snapshot, which a client of an untrusted server must test before it stores them, cost that much before any index, bookkeeping or ECS, so no implementation that checks them could come within 1.25× of the unchecked lower bound, and ingest is judged against the checked one.\n\n",
		formatTimes(ns.Value/low.Value), formatNs(ns.Value), formatNs(low.Value), formatTimes(checked.Value/low.Value), formatNs(checked.Value))
	if on, ok := r.get(caseIngest, perf.MinimumOnArcheCheckedName, n); ok && on.Value > 0 {
		fmt.Fprintf(b, "The checked lower bound written on arche's public API (its rings in arche components, each found through World.Get and World.GetUnchecked) ingests at %s ns, %s the checked lower bound: what finding a ring through arche's public API costs before any of netsmooth's own work. Netsmooth's ingest is %s it.",
			formatNs(on.Value), formatTimes(on.Value/checked.Value), formatTimes(ns.Value/on.Value))
		r.writeCheckedFrame(b)
		b.WriteString("\n\n")
	}
}

// writeCheckedFrame gives, for information, netsmooth's whole frame
// against the checked lower bound on arche's: the frame target is against
// the lower bound on arche without checks, whose ingest skips the tests
// every snapshot of an untrusted server needs.
func (r *report) writeCheckedFrame(b *strings.Builder) {
	n := r.targetN()
	ns, ok1 := r.get(caseFrame, perf.NetSmooth, n)
	on, ok2 := r.get(caseFrame, perf.MinimumOnArcheName, n)
	checked, ok3 := r.get(caseFrame, perf.MinimumOnArcheCheckedName, n)
	if !ok1 || !ok2 || !ok3 || on.Value <= 0 || checked.Value <= 0 {
		return
	}
	fmt.Fprintf(b, " The checked lower bound on arche's whole frame takes %s ns per entity, %s the lower bound on arche's (%s ns): the share of the frame target's ratio that is the checks; netsmooth's frame is %s it.",
		formatNs(checked.Value), formatTimes(checked.Value/on.Value), formatNs(on.Value), formatTimes(ns.Value/checked.Value))
}

// writeFloors gives, at the targets' entity count, netsmooth's frame,
// Interpolate and ingest against the plain lower bound as well, and what
// the lower bound on arche's public API costs over the plain one: the
// share of each ratio that is arche's before any of netsmooth's own work.
func (r *report) writeFloors(b *strings.Builder) {
	n := r.targetN()
	var mine, arche []string
	for _, c := range []struct{ name, c string }{{"the whole frame", caseFrame}, {"Interpolate", caseInterpolate}, {"ingest", caseIngest}} {
		low, ok := r.get(c.c, perf.MinimumName, n)
		if !ok || low.Value <= 0 {
			continue
		}
		if m, ok := r.get(c.c, perf.NetSmooth, n); ok {
			mine = append(mine, fmt.Sprintf("%s %s", c.name, formatTimes(m.Value/low.Value)))
		}
		if a, ok := r.get(c.c, perf.MinimumOnArcheName, n); ok {
			arche = append(arche, fmt.Sprintf("%s %s", c.name, formatTimes(a.Value/low.Value)))
		}
	}
	if len(mine) > 0 {
		fmt.Fprintf(b, "Against the plain lower bound (no ECS), netsmooth takes: %s.", strings.Join(mine, ", "))
	}
	if len(arche) > 0 {
		fmt.Fprintf(b, " The lower bound on arche's public API takes %s the plain one: that much of each ratio is arche's (a query's Next and Get per entity, World.Get per snapshot), before any of netsmooth's own work.", strings.Join(arche, ", "))
	}
	if len(mine)+len(arche) > 0 {
		b.WriteString("\n\n")
	}
}

// hasArcheFloor tells whether the lower bound on arche runs a case.
func hasArcheFloor(c string) bool {
	switch c {
	case caseFrame, caseCrossing, caseBetween, casePositionOnly, caseInterpolate, caseIngest:
		return true
	}
	return false
}

// hasLowerBound tells whether the lower bound (and flat, but for the
// split and position-only frames) runs a case.
func hasLowerBound(c string) bool {
	switch c {
	case caseFrame, caseCrossing, caseBetween, casePositionOnly, caseInterpolate, caseIngest:
		return true
	}
	return false
}

// systemTableCases are the cases of the per-system table, in order: the
// whole frame, its crossing and other frames, the position-only frame,
// each system in frame order, ingest.
func systemTableCases() []string {
	cases := []string{caseFrame, caseTwoWorkers, caseCrossing, caseBetween, casePositionOnly}
	for _, st := range perf.Stages {
		cases = append(cases, string(st))
	}
	return append(cases, caseIngest)
}

// hasNaive tells whether the naive baseline runs a case.
func hasNaive(c string) bool { return c == caseFrame || c == caseIngest }

func (r *report) writeSystems(b *strings.Builder) {
	b.WriteString(`## Per system

The whole frame; the frames in which the render time crosses a sample
(every bracket moves on; in this scenario they are also the frames a
snapshot arrives) and the others, timed one by one; the frame on a stream
that never sets a rotation (as a top-down 2D game sends it); each of
netsmooth's systems alone (the others run untimed); and ingest (handing a
snapshot of every entity over and running Receive, Timeline and Retire,
without interpolation; ns/snapshot). The lower bound and the lower bound
on arche run the same (their interpolation step alone for Interpolate,
and nothing for the other systems alone); the checked lower bound runs ingest;
flat and naive are context (naive up to 100k entities only). Allocations are per frame (per batch of
snapshots for ingest).

`)
	var rows [][]string
	for _, n := range r.Counts {
		for _, c := range systemTableCases() {
			if row, ok := r.systemRow(c, n); ok {
				rows = append(rows, row)
			}
		}
	}
	writeTable(b, []string{"N", "system", "ns/entity", "lower bound", "÷ lower bound", "checked", "÷ checked", "on arche", "÷ on arche", "flat", "naive", "naive ÷ netsmooth", "allocs/op", "B/op per entity"}, rows)
}

// systemRow is the row of a case at n entities, if netsmooth's was measured.
func (r *report) systemRow(c string, n int) ([]string, bool) {
	m, ok := r.get(c, perf.NetSmooth, n)
	if !ok {
		return nil, false
	}
	lower, lowerRatio, flat := "—", "—", "—"
	if hasLowerBound(c) {
		if l, ok := r.get(c, perf.MinimumName, n); ok {
			lower, lowerRatio = formatNs(l.Value), formatTimes(m.Value/l.Value)
		}
		if f, ok := r.get(c, perf.FlatName, n); ok {
			flat = formatNs(f.Value)
		}
	}
	checked, checkedRatio := "—", "—"
	if c == caseIngest {
		if l, ok := r.get(c, perf.MinimumCheckedName, n); ok {
			checked, checkedRatio = formatNs(l.Value), formatTimes(m.Value/l.Value)
		}
	}
	onArche, onArcheRatio := "—", "—"
	if hasArcheFloor(c) {
		if a, ok := r.get(c, perf.MinimumOnArcheName, n); ok {
			onArche, onArcheRatio = formatNs(a.Value), formatTimes(m.Value/a.Value)
		}
	}
	naive, naiveRatio := "—", "—"
	if hasNaive(c) {
		if v, ok := r.get(c, perf.NaiveName, n); ok {
			naive, naiveRatio = formatNs(v.Value), formatTimes(v.Value/m.Value)
		}
	}
	return []string{countLabel(n), c, formatNs(m.Value), lower, lowerRatio, checked, checkedRatio, onArche, onArcheRatio, flat, naive, naiveRatio,
		fmt.Sprint(m.Allocs), formatPerEntity(m.Bytes, n)}, true
}

func (r *report) writeScenarios(b *strings.Builder) {
	b.WriteString(`## Churn, lifecycle, prediction

Churn: the steady scenario while 1% of the entities are replaced every
snapshot (despawned and spawned under new NetIDs). Lifecycle: batches of
entities spawned and despawned through Receive, per entity spawned and
despawned. Predicted: locally predicted entities at 60 Hz ticks, each
reconciled every third tick with 6 inputs replayed.

`)
	var rows [][]string
	add := func(c, size, unit string, n, per int) {
		if m, ok := r.get(c, perf.NetSmooth, n); ok {
			rows = append(rows, []string{c, size, formatNs(m.Value), unit, fmt.Sprint(m.Allocs), formatPerEntity(m.Bytes, per)})
		}
	}
	for _, n := range churnCounts {
		add(caseChurn, countLabel(n)+" entities, 1% per snapshot", "ns/entity", n, n)
	}
	add(caseLifecycle, fmt.Sprintf("batches of %d", lifecycleBatch), "ns/lifecycle", lifecycleBatch, lifecycleBatch)
	for _, n := range predictedCounts {
		add(casePredicted, fmt.Sprintf("%d entities", n), "ns/entity", n, n)
	}
	writeTable(b, []string{"scenario", "size", "time", "unit", "allocs/op", "B/op per entity"}, rows)
}

// writeTable writes a markdown table, numbers right-aligned.
func writeTable(b *strings.Builder, header []string, rows [][]string) {
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for i := range header {
		if i > 0 && len(rows) > 0 && isNumeric(rows[0][i]) {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, row := range rows {
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	b.WriteString("\n")
}

// isNumeric tells whether a cell starts with a digit or a dash standing
// for a missing number.
func isNumeric(cell string) bool {
	return cell != "" && (cell[0] >= '0' && cell[0] <= '9' || cell == "—")
}

// formatNs shows a time in ns with about three significant digits.
func formatNs(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// formatTimes shows a ratio.
func formatTimes(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f×", v)
	}
	return fmt.Sprintf("%.2f×", v)
}

// formatPerEntity shows bytes per operation spread over n entities.
func formatPerEntity(bytes int64, n int) string {
	if bytes == 0 {
		return "0"
	}
	return fmt.Sprintf("%.2f", float64(bytes)/float64(n))
}

// countLabel shows an entity count: 1k, 10k, 1M.
func countLabel(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1_000 && n%1_000 == 0:
		return fmt.Sprintf("%dk", n/1_000)
	}
	return fmt.Sprint(n)
}

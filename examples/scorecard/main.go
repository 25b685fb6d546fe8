// Command scorecard measures how motion looks under a fixed, seeded set of
// bad networks, for netsmooth and for the baselines it replaces, and writes
// the results itself: SCORECARD.md (one table per scenario) and plots
// (an entity's true path, raw snapshots and rendered trail through a burst
// loss; delay and buffered samples over time under clock drift and around
// a suspend).
//
// It lives in its own module so that netsmooth does not depend on
// gonum/plot. Run it from the repository root (the workspace makes that
// work):
//
//	go run ./examples/scorecard
//
// Everything runs on virtual time: the numbers are the same on every
// machine and every run.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/netsmooth/netsmooth/internal/scenario"
)

func main() {
	fs := flag.NewFlagSet("scorecard", flag.ExitOnError)
	out := fs.String("out", "SCORECARD.md", "where to write the markdown scorecard")
	plots := fs.String("plots", "examples/scorecard/plots", "directory for the PNG plots (linked relative to -out)")
	quick := fs.Bool("quick", false, "shorten the 10-minute drift scenario to one minute")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "scorecard: measure motion quality under bad networks and write %s and plots.\n\nUsage: go run ./examples/scorecard [flags]\n\nFlags:\n", "SCORECARD.md")
		fs.PrintDefaults()
	}
	_ = fs.Parse(os.Args[1:])
	if err := run(*out, *plots, *quick, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "scorecard:", err)
		os.Exit(1)
	}
}

// card is everything measured.
type card struct {
	remote    []scenarioResults
	rough     []scenarioResults
	predicted scenarioResults
	frontiers []scenario.Frontier
	network   network
}

type scenarioResults struct {
	name    string
	about   string
	results []scenario.Result
}

func measure(quick bool, log io.Writer) (card, error) {
	var c card
	clients := append([]scenario.Factory{scenario.Default()}, scenario.Baselines()...)
	for _, sc := range scenario.Standard() {
		if quick && sc.Seconds > 60 {
			sc.Seconds = 60
		}
		fmt.Fprintf(log, "scenario %s\n", sc.Name)
		sr := scenarioResults{name: sc.Name, about: describe(sc)}
		for _, f := range clients {
			sr.results = append(sr.results, scenario.Run(sc, f))
		}
		c.remote = append(c.remote, sr)
	}
	for _, sc := range scenario.RoughEdges() {
		fmt.Fprintf(log, "scenario %s\n", sc.Name)
		sr := scenarioResults{name: sc.Name, about: describe(sc)}
		for _, f := range clients {
			sr.results = append(sr.results, scenario.Run(sc, f))
		}
		c.rough = append(c.rough, sr)
	}
	ps := scenario.StandardPredicted()
	fmt.Fprintf(log, "scenario %s\n", ps.Name)
	c.predicted = scenarioResults{name: ps.Name, about: "one predicted local player at 60 Hz ticks and 60 FPS; inputs go up and authoritative states come down over 50 ms ± 5 ms links with 10% loss each way; the server shoves the player every 150 inputs"}
	for _, f := range scenario.PredictedClients() {
		c.predicted.results = append(c.predicted.results, scenario.RunPredicted(ps, f))
	}
	c.frontiers = sweepFrontiers(log)
	var err error
	if c.network, err = measureNetwork(log); err != nil {
		return c, err
	}
	return c, nil
}

// describe says in words what a scenario does.
func describe(sc scenario.Scenario) string {
	var parts []string
	secs := sc.Seconds
	if secs <= 0 {
		secs = 20
	}
	rate := sc.TickRate
	if rate <= 0 {
		rate = 20
	}
	entities := sc.Entities
	if entities <= 0 {
		entities = 20
	}
	parts = append(parts, fmt.Sprintf("%d entities, %.0f s, %.0f Hz snapshots, %v ± %v", entities, secs, rate, sc.Link.Latency, sc.Link.Jitter))
	if sc.Paths != scenario.Circles {
		parts = append(parts, sc.Paths.String())
	}
	if sc.Link.Loss > 0 {
		parts = append(parts, fmt.Sprintf("%.0f%% loss", 100*sc.Link.Loss))
	}
	for _, w := range sc.Link.Outages {
		parts = append(parts, fmt.Sprintf("outage %v–%v", w.From, w.To))
	}
	for _, w := range sc.Link.Suspends {
		parts = append(parts, fmt.Sprintf("client suspended %v–%v", w.From, w.To))
	}
	if sc.Link.Reorder > 0 {
		parts = append(parts, fmt.Sprintf("%.0f%% reordered", 100*sc.Link.Reorder))
	}
	if sc.Link.Duplicate > 0 {
		parts = append(parts, fmt.Sprintf("%.0f%% duplicated", 100*sc.Link.Duplicate))
	}
	if sc.Drift != 0 {
		parts = append(parts, fmt.Sprintf("server clock %+.0f%%", 100*sc.Drift))
	}
	if sc.TeleportEvery > 0 {
		parts = append(parts, fmt.Sprintf("teleport every %v", sc.TeleportEvery))
	}
	if sc.ChurnPerSecond > 0 {
		parts = append(parts, fmt.Sprintf("%.0f%% of entities replaced per second", 100*sc.ChurnPerSecond))
	}
	if sc.SlowEvery > 1 {
		parts = append(parts, fmt.Sprintf("half the entities sent only every %d ticks (%.0f Hz)", sc.SlowEvery, rate/float64(sc.SlowEvery)))
	}
	if sc.StopGo > 0 {
		parts = append(parts, fmt.Sprintf("entities alternate %v moving and %v standing still; the server sends an entity only when it moved, with a Complete marker every tick", sc.StopGo, sc.StopGo))
	}
	if b := sc.Link.Burst; b.Enter > 0 {
		parts = append(parts, fmt.Sprintf("Gilbert–Elliott burst loss: bursts of %.0f snapshots on average, %.0f%% of the time (enter %.3g, exit %.3g per packet)", 1/b.Exit, 100*b.Enter/(b.Enter+b.Exit), b.Enter, b.Exit))
	}
	return strings.Join(parts, "; ")
}

func run(out, plotDir string, quick bool, log io.Writer) error {
	start := time.Now()
	c, err := measure(quick, log)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(plotDir, 0o755); err != nil {
		return err
	}
	plots, err := writePlots(c, plotDir)
	if err != nil {
		return err
	}
	rel := make([]plotRef, len(plots))
	for i, p := range plots {
		r, err := filepath.Rel(filepath.Dir(out), p.path)
		if err != nil {
			r = p.path
		}
		rel[i] = plotRef{title: p.title, path: filepath.ToSlash(r)}
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := writeMarkdown(f, c, rel, quick); err != nil {
		f.Close()
		return err
	}
	fmt.Fprintf(log, "wrote %s and %d plots in %s\n", out, len(plots), time.Since(start).Round(time.Millisecond))
	return f.Close()
}

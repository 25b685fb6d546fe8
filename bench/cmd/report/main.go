// Command report runs netsmooth's benchmark suite (the bodies in
// internal/perf that package bench names) briefly and writes the results:
// BENCHMARKS.md, with the performance targets checked, and a plot of
// ns/entity against the entity count.
//
// Run it from the repository root:
//
//	go run ./bench/cmd/report
//
// It lives in a module of its own (it needs gonum/plot); the go.work at the
// repository root makes the command above work there.
//
// Usage:
//
//	report [-benchtime d] [-max n] [-out dir] [-png path]
//
// The flags are:
//
//	-benchtime d
//		run each benchmark for duration d, or N times if d is of the form
//		Nx, as go test's -benchtime; the default, auto, runs about 6M
//		entity-frames a benchmark, a multiple of 3 iterations from 30 to
//		3000 (3000x at 1k entities, 600x at 10k, 60x at 100k, 30x at 1M):
//		the setup of the larger counts dominates the run, and a duration
//		would run the single-system benchmarks, which stop the timer for
//		the rest of the frame, for far longer than it says
//	-max n
//		largest entity count: the suite runs 1k, 10k, 100k and 1M entities,
//		those up to n (default 1000000; 100000 for a quick run)
//	-out dir
//		directory to write BENCHMARKS.md into: the repository root
//		(default ".")
//	-png path
//		where to write the plot, relative to -out
//		(default "bench/ns-per-entity.png")
//
// Progress goes to standard error.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netsmooth/netsmooth/internal/perf"
)

// config is the command line.
type config struct {
	benchtime string
	max       int
	out       string
	png       string
	capacity  bool
}

func main() {
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if err == flag.ErrHelp {
		return
	}
	if err != nil {
		os.Exit(2) // parseFlags has said why
	}
	if err := run(cfg, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

// parseFlags parses the command line (without the program name), writing
// usage and errors to stderr.
func parseFlags(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.benchtime, "benchtime", autoBenchtime, "run each benchmark for `d`, or N times if d is of the form Nx (as go test -benchtime); auto scales the iterations with the entity count")
	fs.IntVar(&cfg.max, "max", 1_000_000, "largest entity count `n` (the suite runs 1k, 10k, 100k, 1M up to n)")
	fs.StringVar(&cfg.out, "out", ".", "`dir`ectory to write BENCHMARKS.md into: the repository root")
	fs.BoolVar(&cfg.capacity, "capacity", true, "measure the server's capacity too (about two minutes)")
	fs.StringVar(&cfg.png, "png", "bench/ns-per-entity.png", "`path` of the plot, relative to -out")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: go run ./bench/cmd/report [flags]   (from the repository root)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	// Errors of the checks below are reported here, as fs.Parse reports its.
	fail := func(format string, args ...any) (config, error) {
		err := fmt.Errorf(format, args...)
		fmt.Fprintln(stderr, "report:", err)
		return cfg, err
	}
	if fs.NArg() > 0 {
		return fail("unexpected arguments %q", fs.Args())
	}
	if cfg.max < counts[0] {
		return fail("-max %d is below the smallest entity count, %d", cfg.max, counts[0])
	}
	if err := setBenchtime(cfg.benchtime, counts[0]); err != nil {
		return fail("%v", err)
	}
	if filepath.IsAbs(cfg.png) || strings.HasPrefix(filepath.Clean(cfg.png), "..") {
		return fail("-png %q must be a path inside -out", cfg.png)
	}
	return cfg, nil
}

// autoBenchtime is the default -benchtime: iterations scaled with the
// entity count, see autoIterations.
const autoBenchtime = "auto"

// autoIterations is the iteration count of -benchtime auto at n entities:
// about 6M entity-frames, a multiple of perf.FramesPerTick (so that whole
// frames receive snapshots in the steady proportion) from 30 to 3000.
func autoIterations(n int) int {
	const entityFrames, lo, hi = 6_000_000, 30, 3000
	it := min(max(entityFrames/n, lo), hi)
	return it - it%perf.FramesPerTick
}

// setBenchtime makes testing.Benchmark run the benchmarks of n entities
// for d, an -benchtime value; testing.Benchmark reads the test.benchtime
// flag.
func setBenchtime(d string, n int) error {
	if d == autoBenchtime {
		d = fmt.Sprintf("%dx", autoIterations(n))
	}
	testing.Init()
	if err := flag.CommandLine.Set("test.benchtime", d); err != nil {
		return fmt.Errorf("-benchtime %q: %v", d, err)
	}
	return nil
}

// describeBenchtime shows the -benchtime of a run over the entity counts
// ns in the report.
func describeBenchtime(d string, ns []int) string {
	if d != autoBenchtime {
		return d + " per benchmark"
	}
	var parts []string
	for _, n := range ns {
		parts = append(parts, fmt.Sprintf("%dx at %s", autoIterations(n), countLabel(n)))
	}
	return "auto: " + strings.Join(parts, ", ") + " entities"
}

// run measures the suite and writes the report and the plot.
func run(cfg config, progress io.Writer) error {
	start := time.Now()
	rep := report{
		Machine:   thisMachine(start),
		Benchtime: describeBenchtime(cfg.benchtime, countsUpTo(cfg.max)),
		Counts:    countsUpTo(cfg.max),
		PNG:       filepath.ToSlash(filepath.Clean(cfg.png)),
	}
	var err error
	rep.Results, err = runSuite(plan(rep.Counts), cfg.benchtime, progress)
	if err != nil {
		return err
	}
	rep.ComponentBytes = perf.ComponentBytes()
	rep.HeapN = min(targetN, cfg.max)
	fmt.Fprintf(progress, "heap per entity at %d entities\n", rep.HeapN)
	rep.HeapBytes = perf.HeapBytesPerEntity(rep.HeapN)
	rep.FieldsN = min(fieldsN, cfg.max)
	if rep.Fields, err = runFields(rep.FieldsN, cfg.benchtime, progress); err != nil {
		return err
	}
	if cfg.capacity {
		if rep.Capacity, err = runCapacity(progress); err != nil {
			return err
		}
	}
	rep.Elapsed = time.Since(start)

	pngPath := filepath.Join(cfg.out, filepath.FromSlash(rep.PNG))
	if err := writePlot(pngPath, rep.Results, rep.Counts); err != nil {
		return err
	}
	mdPath := filepath.Join(cfg.out, "BENCHMARKS.md")
	if err := os.WriteFile(mdPath, []byte(rep.Markdown()), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(progress, "wrote %s and %s in %s\n", mdPath, pngPath, rep.Elapsed.Round(time.Second))
	return nil
}

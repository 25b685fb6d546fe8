// Command report runs netsmooth's benchmark suite (package
// github.com/netsmooth/netsmooth/bench) briefly and writes the results:
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
//		Nx (as go test's -benchtime; default 0.1s)
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

	"github.com/netsmooth/netsmooth/bench"
)

// config is the command line.
type config struct {
	benchtime string
	max       int
	out       string
	png       string
}

func main() {
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if err == flag.ErrHelp {
		return
	}
	if err != nil {
		os.Exit(2)
	}
	if err := run(cfg, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

// parseFlags parses the command line (without the program name).
func parseFlags(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.benchtime, "benchtime", "0.1s", "run each benchmark for `d`, or N times if d is of the form Nx (as go test -benchtime)")
	fs.IntVar(&cfg.max, "max", 1_000_000, "largest entity count `n` (the suite runs 1k, 10k, 100k, 1M up to n)")
	fs.StringVar(&cfg.out, "out", ".", "`dir`ectory to write BENCHMARKS.md into: the repository root")
	fs.StringVar(&cfg.png, "png", "bench/ns-per-entity.png", "`path` of the plot, relative to -out")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: go run ./bench/cmd/report [flags]   (from the repository root)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "report: unexpected arguments %q\n", fs.Args())
		fs.Usage()
		return cfg, fmt.Errorf("unexpected arguments")
	}
	if cfg.max < counts[0] {
		fmt.Fprintf(stderr, "report: -max %d is below the smallest entity count, %d\n", cfg.max, counts[0])
		return cfg, fmt.Errorf("bad -max")
	}
	if filepath.IsAbs(cfg.png) || strings.HasPrefix(filepath.Clean(cfg.png), "..") {
		fmt.Fprintf(stderr, "report: -png %q must be a path inside -out\n", cfg.png)
		return cfg, fmt.Errorf("bad -png")
	}
	return cfg, nil
}

// setBenchtime makes testing.Benchmark run each benchmark for d, which
// it reads from the test.benchtime flag.
func setBenchtime(d string) error {
	testing.Init()
	if err := flag.CommandLine.Set("test.benchtime", d); err != nil {
		return fmt.Errorf("-benchtime %q: %v", d, err)
	}
	return nil
}

// run measures the suite and writes the report and the plot.
func run(cfg config, progress io.Writer) error {
	if err := setBenchtime(cfg.benchtime); err != nil {
		return err
	}
	start := time.Now()
	rep := report{
		Machine:   thisMachine(start),
		Benchtime: cfg.benchtime,
		Counts:    countsUpTo(cfg.max),
		PNG:       filepath.ToSlash(filepath.Clean(cfg.png)),
	}
	var err error
	rep.Results, err = runSuite(plan(rep.Counts), progress)
	if err != nil {
		return err
	}
	rep.ComponentBytes = bench.ComponentBytes()
	rep.HeapN = min(targetN, cfg.max)
	fmt.Fprintf(progress, "heap per entity at %d entities\n", rep.HeapN)
	rep.HeapBytes = bench.HeapBytesPerEntity(rep.HeapN)
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

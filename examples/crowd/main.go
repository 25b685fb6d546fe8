// Command crowd is netsmooth's main example scene, headless: a simulated
// server moves thousands of entities along curved paths and sends 20 Hz
// snapshots through a bad simulated network (netsim); the client pipeline
// renders them at 60 Hz. The scene ends with a verdict: how far what was
// drawn strayed from the true paths, in world units and as a share of how
// fast the entities move; how far behind the server it was drawn, against
// the link's latency; how often an entity ran past its newest snapshot;
// and what a frame cost. With -png it draws the trails of a few entities,
// true and drawn, around their worst moments.
//
//	go run ./examples/crowd
//	go run ./examples/crowd -entities 20000 -loss 0.1 -jitter 40ms
//	go run ./examples/crowd -png trails.png
//	go run ./examples/crowd -h
//
// Everything runs on virtual time, so a run is deterministic for a seed
// (except the measured cost).
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/netsmooth/netsmooth/components"
)

// options are the scene's settings, one flag each.
type options struct {
	entities      int
	seconds       float64
	tickRate      float64
	fps           float64
	perPacket     int
	latency       time.Duration
	jitter        time.Duration
	loss          float64
	reorder       float64
	duplicate     float64
	delay         time.Duration
	extrapolation string
	seed          uint64
	workers       int
	cpuProfile    string
	png           string
	trailIDs      []components.NetID // the entities to keep trails of
	parallelMin   int                // overrides the workers' default threshold (tests)
}

func main() {
	var o options
	fs := flag.NewFlagSet("crowd", flag.ExitOnError)
	fs.IntVar(&o.entities, "entities", 5000, "number of remote entities the server moves")
	fs.Float64Var(&o.seconds, "seconds", 10, "virtual seconds to simulate")
	fs.Float64Var(&o.tickRate, "tick-rate", 20, "server tick and snapshot rate in Hz (one snapshot per entity per tick)")
	fs.Float64Var(&o.fps, "fps", 60, "client render rate in frames per second")
	fs.IntVar(&o.perPacket, "per-packet", 64, "entity states per network packet (a lost packet loses all of them)")
	fs.DurationVar(&o.latency, "latency", 80*time.Millisecond, "one-way base latency of the link")
	fs.DurationVar(&o.jitter, "jitter", 20*time.Millisecond, "jitter: each packet's delay varies uniformly by ± this")
	fs.Float64Var(&o.loss, "loss", 0.05, "probability a packet is lost")
	fs.Float64Var(&o.reorder, "reorder", 0, "probability a packet is held back so later ones overtake it")
	fs.Float64Var(&o.duplicate, "duplicate", 0, "probability a packet is delivered twice")
	fs.DurationVar(&o.delay, "delay", 0, "fixed interpolation delay (render time = server time - delay); 0 adapts it to what the link needs")
	fs.StringVar(&o.extrapolation, "extrapolation", "coast", "policy past the newest sample: coast, hold, linear or damped-return")
	fs.Uint64Var(&o.seed, "seed", 1, "seed for the paths and the network")
	fs.IntVar(&o.workers, "workers", 1, "goroutines that store snapshots and draw entities in frames of 30,000 or more (Config.WithWorkers); the scene draws the same with any number")
	fs.StringVar(&o.png, "png", "", "write the trails of nine entities, true and drawn, around their worst moments, to this PNG file")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `crowd: netsmooth's example scene, headless.

A simulated server moves entities along curved paths and sends a snapshot of
each entity every tick through a simulated network (latency, jitter, loss,
reordering, duplication). The client runs the netsmooth pipeline at the render
rate and draws every entity a little in the past. At the end the scene prints
what happened and a verdict: the error between what was drawn and the true
path at the presented time, the delay behind the server against the link's
latency, the underruns, and the pipeline's cost per entity per frame. Time is
virtual: the run is deterministic for a seed, apart from the measured cost.

Usage: go run ./examples/crowd [flags]

Flags:
`)
		fs.PrintDefaults()
	}
	_ = fs.Parse(os.Args[1:])
	if err := scene(o); err != nil {
		fmt.Fprintln(os.Stderr, "crowd:", err)
		os.Exit(2)
	}
}

// scene runs the scene o describes and prints its table and verdict,
// writing the profile and the trails if asked to.
func scene(o options) error {
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	res, err := run(o)
	if err != nil {
		return err
	}
	res.print(os.Stdout, o)
	if o.png == "" {
		return nil
	}
	// The run is deterministic: run it again, keeping the trails of the
	// entities that strayed furthest.
	o.trailIDs = res.worstEntities(trailEntities)
	again, err := run(o)
	if err != nil {
		return err
	}
	if err := again.trails.writePNG(o.png); err != nil {
		return err
	}
	fmt.Printf("\nwrote %s: the trails of the %d entities that strayed furthest, around their largest errors (green: the true path; pink: where netsmooth drew the entity each frame, orange when extrapolating; a black ring marks the worst frame's drawing, a black line joins it to the truth; each panel is zoomed to its entity's path, and where it fits a grey bar at its foot is 1 unit long)\n",
		o.png, len(o.trailIDs))
	return nil
}

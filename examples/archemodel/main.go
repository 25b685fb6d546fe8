// Command archemodel runs netsmooth's systems inside an arche-model Model
// instead of netsmooth's own pipeline: the systems have arche-model's
// Initialize / Update / Finalize shape, so they are added one by one, in
// order, after a FrameTimer that supplies each frame's dt.
//
// It lives in its own module so that netsmooth itself does not depend on
// arche-model. Run it from this directory:
//
//	go run .
package main

import (
	"fmt"
	"io"
	"math"
	"os"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche-model/model"
	"github.com/mlange-42/arche-model/system"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

func main() {
	run(120, os.Stdout)
}

// run builds the model, runs it for frames steps and prints what a game
// would draw, then the metrics.
func run(frames int64, out io.Writer) {
	m := model.New()
	m.TPS = 0 // as fast as possible: this is a headless demonstration
	pipe, err := nsecs.New(&m.World, nsecs.DefaultConfig())
	if err != nil {
		panic(err)
	}

	// The frame clock first, then netsmooth's systems in order, then the
	// game's own systems.
	m.AddSystem(&systems.FrameTimer{Step: 1.0 / 60})
	for _, s := range pipe.Systems() {
		m.AddSystem(s)
	}
	m.AddSystem(&fakeServer{inbox: pipe.Inbox()})
	m.AddSystem(&printer{out: out})
	m.AddSystem(&system.FixedTermination{Steps: frames})
	m.Run()

	fmt.Fprint(out, "\nmetrics after the run:\n")
	pipe.Metrics().WriteTo(out)
}

// fakeServer stands in for a transport: every third frame (20 Hz at 60 FPS)
// it pushes a snapshot of three entities moving on circles.
type fakeServer struct {
	inbox *systems.Inbox
	frame int
	tick  uint32
}

func (s *fakeServer) Initialize(w *ecs.World) {}
func (s *fakeServer) Finalize(w *ecs.World)   {}
func (s *fakeServer) Update(w *ecs.World) {
	if s.frame%3 == 0 {
		t := float64(s.tick) / 20
		for id := 1; id <= 3; id++ {
			a := t + float64(id)
			s.inbox.Push(systems.Message{
				NetID: components.NetID(id),
				Tick:  s.tick,
				Pos:   mgl32.Vec3{float32(10 * math.Cos(a)), float32(10 * math.Sin(a)), 0},
			})
		}
		s.tick++
	}
	s.frame++
}

// printer is a game system reading netsmooth's output.
type printer struct {
	out    io.Writer
	filter *generic.Filter2[components.NetID, components.Render]
	frame  int
}

func (p *printer) Initialize(w *ecs.World) {
	p.filter = generic.NewFilter2[components.NetID, components.Render]()
}
func (p *printer) Finalize(w *ecs.World) {}
func (p *printer) Update(w *ecs.World) {
	p.frame++
	if p.frame%30 != 0 {
		return
	}
	q := p.filter.Query(w)
	for q.Next() {
		id, r := q.Get()
		if r.Flags&components.Visible != 0 {
			fmt.Fprintf(p.out, "frame %3d: entity %d at (%6.2f, %6.2f)\n", p.frame, *id, r.Pos[0], r.Pos[1])
		}
	}
}

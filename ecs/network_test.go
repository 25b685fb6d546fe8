package ecs_test

import (
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/systems"
)

// truth is the ground-truth path of entity id at server time t seconds: a
// circle of radius 10 at 1 rad/s (10 units/s), phase by id.
func truth(id int, t float64) mgl32.Vec3 {
	a := t + float64(id)
	return mgl32.Vec3{float32(10 * math.Cos(a)), float32(10 * math.Sin(a)), 0}
}

// runLink drives entities over a netsim link for seconds of virtual time at
// fps and calls check after every frame.
func runLink(t *testing.T, cfg nsecs.Config, link netsim.Config, entities int, seconds, fps float64, check func(r *rig, frame int)) (*rig, int, netsim.Stats) {
	t.Helper()
	r := newRig(t, cfg)
	l, err := netsim.NewLink[systems.Message](link, 7)
	if err != nil {
		t.Fatal(err)
	}
	rate := cfg.TickRate
	var out []systems.Message
	pushed, sent := 0, 0
	for f := 0; float64(f) < seconds*fps; f++ {
		now := time.Duration(float64(f) / fps * float64(time.Second))
		for time.Duration(float64(sent)/rate*float64(time.Second)) <= now {
			st := float64(sent) / rate
			for id := 1; id <= entities; id++ {
				l.Send(now, systems.Message{NetID: components.NetID(id), Tick: uint32(sent), Pos: truth(id, st)})
			}
			sent++
		}
		out = l.Deliver(now, out[:0])
		pushed += r.Pipe.Inbox().PushBatch(out)
		r.Frame(1 / fps)
		check(r, f)
	}
	return r, pushed, l.Stats()
}

func TestBadNetworkInvariants(t *testing.T) {
	link := netsim.Config{
		Latency: 80 * time.Millisecond, Jitter: 30 * time.Millisecond,
		Loss: 0.05, Reorder: 0.1, Duplicate: 0.05,
	}
	renders := generic.NewFilter1[components.Render]()
	prevRT := math.Inf(-1)
	var sumSq float64
	var n int
	r, pushed, stats := runLink(t, nsecs.DefaultConfig(), link, 50, 30, 60, func(r *rig, f int) {
		if !r.Pipe.Clock().Synced() {
			return
		}
		rt := r.RenderTick()
		if rt < prevRT {
			t.Fatalf("frame %d: render time went back from %v to %v", f, prevRT, rt)
		}
		prevRT = rt
		q := renders.Query(&r.World)
		for q.Next() {
			p := q.Get().Pos
			for _, v := range p {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					q.Close()
					t.Fatalf("frame %d: non-finite render position %v", f, p)
				}
			}
		}
		if f > 120 {
			for id := 1; id <= 50; id++ {
				d := r.Render(components.NetID(id)).Pos.Sub(truth(id, rt/20)).Len()
				sumSq += float64(d * d)
				n++
			}
		}
	})
	r.CheckCounted(pushed)
	m := r.Pipe.Metrics()
	if stats.Duplicated == 0 || m.Rejected[systems.RejectDuplicate] == 0 {
		t.Fatalf("duplicates sent %d, rejected %d: scenario did not exercise duplicates", stats.Duplicated, m.Rejected[systems.RejectDuplicate])
	}
	if stats.Reordered == 0 || stats.Lost == 0 {
		t.Fatalf("reordered %d, lost %d: scenario did not exercise them", stats.Reordered, stats.Lost)
	}
	rms := math.Sqrt(sumSq / float64(n))
	// 10 units/s on a circle of radius 10: a 50 ms sample spacing leaves a
	// chord error of 0.003; loss and late samples add extrapolation error.
	if rms > 0.1 {
		t.Fatalf("RMS error against the true path at the presented time = %.3f units, want < 0.1", rms)
	}
	t.Logf("rms error %.4f units over %d entity-frames; link %+v; underrun frames %d; rejected %v", rms, n, stats, m.UnderrunFrames, m.Rejected)
}

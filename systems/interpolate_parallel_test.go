package systems_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/internal/pipetest"
	"github.com/netsmooth/netsmooth/systems"
)

// variedStream is a server's messages at tick t for n entities, with
// everything that takes Interpolate off its fast path: turning entities,
// some sent at a third of the rate (a lag), teleports (far, near ones that
// only the Teleport kind marks, and far jumps that only their length
// marks), rotations sent with either sign, new epochs, changing state words,
// an outage for a fifth of them (extrapolation, then corrections when data
// returns), and late samples.
func variedStream(n int, t uint32) []systems.Message {
	var msgs []systems.Message
	for id := 1; id <= n; id++ {
		tick := t
		switch {
		case id%7 == 0 && t%3 != 0:
			continue // a lower send rate
		case id%5 == 0 && t >= 60 && t < 68:
			continue // an outage
		case id%13 == 0 && t > 1:
			tick = t - 1 // one tick late
		}
		a := float64(tick)*0.1 + float64(id)
		m := systems.Message{
			NetID: components.NetID(id),
			Tick:  tick,
			Pos:   mgl32.Vec3{float32(id) + float32(5*math.Cos(a)), float32(5 * math.Sin(a)), 0},
			Rot:   mgl32.QuatRotate(float32(a), mgl32.Vec3{0, 0, 1}),
		}
		if id%4 == 1 {
			m.Rot = mgl32.QuatRotate(float32(a), mgl32.Vec3{1, 2, 3}.Normalize()) // tumbling
		}
		if id%11 == 0 && tick%40 == 0 {
			m.Kind = systems.Teleport
			m.Pos[1] += 1000
		}
		if id%23 == 0 && tick%30 == 0 {
			m.Kind = systems.Teleport // a near one: only the kind tells
			m.Pos[0] += 3
		}
		if id%29 == 0 && tick%45 == 0 {
			m.Pos[2] += 1000 // a jump only its length tells
		}
		if id%31 == 0 && tick%2 == 1 {
			m.Rot = mgl32.Quat{W: -m.Rot.W, V: m.Rot.V.Mul(-1)} // the same rotation, the other sign
		}
		if id%3 == 0 {
			m.State = uint16(tick / 10 % 3)
		}
		if id%19 == 0 {
			m.Epoch = uint8(tick / 50) // a new life every 50 ticks
		}
		if id%17 == 0 {
			m.Rot = mgl32.QuatIdent() // never turns
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// Interpolate split over worker goroutines draws exactly what it draws on
// one: every entity's Render and Correction, every frame, and the same
// counts in Metrics, on 2, 3 and 7 workers (2 and 7 with -short). Run
// with -race: the workers share nothing they write.
func TestInterpolateWorkersDrawTheSame(t *testing.T) {
	workers := []int{2, 3, 7}
	if testing.Short() {
		workers = []int{2, 7}
	}
	for _, workers := range workers {
		cfg := nsecs.DefaultConfig()
		one := pipetest.NewRig(t, cfg)
		cfg.Interpolate.Workers, cfg.Interpolate.ParallelMin = workers, 100
		many := pipetest.NewRig(t, cfg)
		drawTheSame(t, fmt.Sprintf("Workers=%d", workers), one, many)
	}
}

// drawTheSame runs the same varied stream of 3000 entities through the
// pipelines of rigs a and b, moving entities to other archetypes on the
// way, and fails t unless both draw every entity the same every frame and
// end with the same metrics. It finalizes both.
func drawTheSame(t *testing.T, name string, one, other *pipetest.Rig) {
	t.Helper()
	const n = 3000
	frames := 0
	corrOne, corrOther := corrections(one), corrections(other)
	for tick := uint32(1); tick <= 150; tick++ {
		if tick == 5 {
			// Entities in several archetypes: runs and chunks end at
			// their boundaries.
			splitArchetypes(t, one, n)
			splitArchetypes(t, other, n)
		}
		msgs := variedStream(n, tick)
		one.Push(msgs...)
		other.Push(msgs...)
		for range 3 {
			one.Frame(1.0 / 60)
			other.Frame(1.0 / 60)
			frames++
			for id := components.NetID(1); id <= n; id++ {
				ea, okA := one.Pipe.Lookup(id)
				eb, okB := other.Pipe.Lookup(id)
				if okA != okB {
					t.Fatalf("%s: frame %d entity %d: exists %v and %v", name, frames, id, okA, okB)
				}
				if !okA {
					continue
				}
				if a, b := one.RenderOf(ea), other.RenderOf(eb); a != b {
					t.Fatalf("%s: frame %d entity %d: drew %+v and %+v", name, frames, id, a, b)
				}
				if a, b := *corrOne.Get(ea), *corrOther.Get(eb); a != b {
					t.Fatalf("%s: frame %d entity %d: corrections %+v and %+v", name, frames, id, a, b)
				}
			}
		}
	}
	a, b := one.Pipe.Metrics(), other.Pipe.Metrics()
	if a.Extrapolated != b.Extrapolated || a.Held != b.Held || a.Corrections != b.Corrections ||
		a.Teleports != b.Teleports || a.UnderrunFrames != b.UnderrunFrames || a.Occupancy != b.Occupancy ||
		a.AheadMin != b.AheadMin || a.AheadMax != b.AheadMax || a.Snaps != b.Snaps {
		t.Fatalf("%s: metrics differ:\n%+v\n%+v", name, a, b)
	}
	if math.Abs(a.CorrectionDistance-b.CorrectionDistance) > 1e-9*a.CorrectionDistance {
		t.Fatalf("%s: correction distance %v and %v", name, a.CorrectionDistance, b.CorrectionDistance)
	}
	// The stream exercised what it is meant to.
	if a.Extrapolated == 0 || a.Corrections == 0 || a.Teleports == 0 {
		t.Fatalf("the stream did not exercise the slow paths: %+v", a)
	}
	one.Pipe.Finalize()
	other.Pipe.Finalize()
}

// Tags that move entities to other archetypes.
type (
	tagA struct{}
	tagB struct{}
)

// splitArchetypes moves every third of r's first n entities to one more
// archetype, and every fifth to another.
func splitArchetypes(t *testing.T, r *pipetest.Rig, n int) {
	a, b := ecs.ComponentID[tagA](&r.World), ecs.ComponentID[tagB](&r.World)
	for id := components.NetID(1); id <= components.NetID(n); id++ {
		e, ok := r.Pipe.Lookup(id)
		if !ok {
			continue
		}
		if id%3 == 0 {
			r.World.Add(e, a)
		}
		if id%5 == 0 {
			r.World.Add(e, b)
		}
	}
}

// corrections is the Correction map of r's world.
func corrections(r *pipetest.Rig) generic.Map1[components.Correction] {
	return generic.NewMap1[components.Correction](&r.World)
}

// An invalid Workers or ParallelMin is refused.
func TestInterpolateWorkersConfig(t *testing.T) {
	refusesBadWorkers(t, func(workers, parallelMin int) error {
		cfg := systems.DefaultInterpolateConfig()
		cfg.Workers, cfg.ParallelMin = workers, parallelMin
		_, err := systems.NewInterpolate(cfg)
		return err
	})
}

// refusesBadWorkers fails t unless build, which builds a system with
// Workers and ParallelMin, refuses Workers below 0 or above MaxWorkers and
// a negative ParallelMin.
func refusesBadWorkers(t *testing.T, build func(workers, parallelMin int) error) {
	t.Helper()
	for _, bad := range []int{-1, systems.MaxWorkers + 1} {
		if build(bad, 0) == nil {
			t.Errorf("Workers = %d accepted", bad)
		}
	}
	if build(2, -1) == nil {
		t.Error("ParallelMin = -1 accepted")
	}
}

// A pipeline with Interpolate workers, dropped without Finalize, does not
// keep its goroutines (nor its world) alive.
func TestInterpolateWorkersDroppedPipeline(t *testing.T) {
	before := settledPoolWorkers()
	func() {
		r := workersRig(t)
		if got := poolWorkers(); got != before+2 {
			t.Fatalf("%d pool goroutines with workers, want %d", got, before+2)
		}
		_ = r
	}()
	waitForPoolWorkers(t, "after the pipeline was dropped", before)
}

// Finalize stops the workers at once.
func TestInterpolateWorkersFinalize(t *testing.T) {
	before := settledPoolWorkers()
	r := workersRig(t)
	if got := poolWorkers(); got != before+2 {
		t.Fatalf("%d pool goroutines with workers, want %d", got, before+2)
	}
	r.Pipe.Finalize()
	// No garbage collection needed: Finalize stops them itself.
	for range 200 {
		if poolWorkers() <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%d pool goroutines after Finalize, %d before the pipeline", poolWorkers(), before)
}

// workersRig is a pipeline whose Interpolate has run on 3 goroutines.
func workersRig(t *testing.T) *pipetest.Rig {
	cfg := nsecs.DefaultConfig()
	cfg.Interpolate.Workers, cfg.Interpolate.ParallelMin = 3, 10
	r := pipetest.NewRig(t, cfg)
	for tick := uint32(1); tick <= 10; tick++ {
		r.Push(variedStream(200, tick)...)
		r.Frame(0.05)
	}
	return r
}

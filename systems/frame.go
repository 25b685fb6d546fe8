package systems

import (
	"fmt"
	"time"

	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
)

// Frame is the world resource that carries the current render frame's
// duration to the systems, which have no dt argument (so they fit arche-model
// unchanged). The pipeline sets it in its Update; under arche-model, a
// [FrameTimer] system added first sets it.
type Frame struct {
	// Dt is the duration of this render frame in seconds.
	Dt float64
}

// FrameTimer is a system that sets [Frame].Dt each update: to Step when Step
// is positive (deterministic runs, tests), otherwise to the wall-clock time
// since its previous update. Add it before the netsmooth systems when running
// them in an arche-model Model.
type FrameTimer struct {
	// Step is a fixed dt in seconds; zero or less measures wall-clock time.
	Step float64

	frame *Frame
	last  time.Time
}

// Initialize implements the arche-model System interface.
func (t *FrameTimer) Initialize(w *ecs.World) {
	t.frame = mustResource[Frame](w)
	t.last = time.Time{}
}

// Update implements the arche-model System interface.
func (t *FrameTimer) Update(w *ecs.World) {
	if t.Step > 0 {
		t.frame.Dt = t.Step
		return
	}
	now := time.Now()
	if t.last.IsZero() {
		t.frame.Dt = 0
	} else {
		t.frame.Dt = now.Sub(t.last).Seconds()
	}
	t.last = now
}

// Finalize implements the arche-model System interface.
func (t *FrameTimer) Finalize(w *ecs.World) {}

// mustResource returns the world's resource of type T, or panics with a
// message naming what is missing: a programming error in how the systems
// were set up, not a runtime condition.
func mustResource[T any](w *ecs.World) *T {
	r := generic.NewResource[T](w)
	if !r.Has() {
		var zero T
		panic(fmt.Sprintf("netsmooth: the world has no %T resource; create the pipeline with netsmooth's ecs.New (which adds the resources) before initializing its systems", zero))
	}
	return r.Get()
}

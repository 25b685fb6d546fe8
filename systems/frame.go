package systems

import (
	"fmt"
	"time"

	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/internal/limits"
)

// MaxFrameDt is the longest frame the systems accept, in seconds: a longer
// dt (a debugger pause, a machine asleep for days) counts as this long. The
// clock re-anchors after such a gap anyway; the bound keeps every sum of
// frame times finite. It is the clock's own bound: 3600 s, an hour.
const MaxFrameDt = limits.MaxFrameDt

// Frame is the world resource that carries the current render frame's
// duration to the systems, which have no dt argument (so they fit arche-model
// unchanged). The pipeline sets it in its Update; under arche-model, a
// [FrameTimer] system added first sets it. Set it with [Frame.Set], which
// sanitises it once for every system.
type Frame struct {
	// Dt is the duration of this render frame in seconds, in
	// [0, MaxFrameDt].
	Dt float64
}

// Set stores dt as this frame's duration: NaN, infinite or negative
// durations count as zero, and durations beyond [MaxFrameDt] as MaxFrameDt.
func (f *Frame) Set(dt float64) { f.Dt = limits.SanitizeDt(dt) }

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
		t.frame.Set(t.Step)
		return
	}
	now := time.Now()
	if t.last.IsZero() {
		t.frame.Set(0)
	} else {
		t.frame.Set(now.Sub(t.last).Seconds())
	}
	t.last = now
}

// Finalize implements the arche-model System interface.
func (t *FrameTimer) Finalize(w *ecs.World) {}

// sharedResource returns the world's resource of type T, adding an empty
// one first if the world has none: the resources the systems share only
// among themselves (an arrivalLog, a despawnSchedule, frameSignals) come
// into the world with the first system that needs them, so that neither
// the game nor the pipeline has to know them.
func sharedResource[T any](w *ecs.World) *T {
	r := generic.NewResource[T](w)
	if !r.Has() {
		r.Add(new(T))
	}
	return r.Get()
}

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

// Package clockfeed hands netsmooth's own packages the side of a
// timeline.Clock that a game does not reach: making one for a pipeline and
// feeding it every frame (the frame's dt, the ticks that arrived, the
// waits the entities saw, the measured latency). The game only reads the
// clock and chooses its delay policy.
//
// Package timeline fills in New and Of when it is initialised. They pass a
// *timeline.Clock and a timeline.Config as any, since timeline imports
// this package; netsmooth's packages, which import timeline, assert the
// type back.
package clockfeed

// Feeder feeds one clock, on the world's goroutine. Each frame:
// BeginFrame with the frame's dt, ObserveN for the runs of accepted
// messages (RefusedN and RefusedFutureN for refused ones), NoteComplete,
// AddWait for the entities' sampled waits, then Advance.
type Feeder interface {
	// BeginFrame advances the clock's local time by dt seconds.
	BeginFrame(dt float64)
	// ObserveN records n accepted messages for tick this frame.
	ObserveN(tick uint32, n int)
	// RefusedN records n messages for tick the pipeline could not use.
	RefusedN(tick uint32, n int)
	// RefusedFutureN records n messages refused as too far ahead, the
	// newest of them at tick.
	RefusedFutureN(tick uint32, n int)
	// NoteComplete records that the server's snapshot for tick named
	// every entity that changed.
	NoteComplete(tick uint32)
	// AddWait records how long, in ticks, one entity's newest sample had
	// to last before its next one arrived.
	AddWait(ticks float64)
	// Advance finishes the frame and moves the render time.
	Advance()
	// SetLatency sets the one-way latency, in seconds, that the
	// presentation delay adds.
	SetLatency(seconds float64)
}

var (
	// New returns a *timeline.Clock for cfg, a timeline.Config, at
	// tickRate ticks per second, for entities that keep bufferSamples
	// samples each, whose render time may run maxAhead seconds past the
	// newest tick (0 or less: not at all); or the configuration error.
	New func(tickRate float64, bufferSamples int, maxAhead float64, cfg any) (clock any, err error)
	// Of returns the Feeder of clock, a *timeline.Clock.
	Of func(clock any) Feeder
)

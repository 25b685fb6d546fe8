package systems

import (
	"github.com/mlange-42/arche/ecs"
	"github.com/netsmooth/netsmooth/internal/clockfeed"
	"github.com/netsmooth/netsmooth/timeline"
)

// arrivalLog is the evidence a frame's messages give about server time:
// the ticks of the messages Receive read (whether or not their samples
// could be used: a stream the pipeline refuses as stale may be a
// restarted server), and of those it refused as too far in the future.
// Receive writes it; [Timeline] hands it to the clock and empties it. It is
// a world resource of its own so that neither system needs the other.
//
// Its memory is bounded by the inbox: at most one run per message.
type arrivalLog struct {
	runs      []arrivalRun // consecutive messages with the same tick
	futureMax uint32
	futureN   int
	complete  uint32 // newest tick the server said was complete this frame
	waits     []float64
}

type arrivalRun struct {
	tick     uint32
	n        uint32
	accepted bool
}

// extend counts one more stored message at tick in the run, or, when tick
// is another, starts a new run with it and returns the run that ended
// (n == 0 if there was none): how a loop over stored messages builds the
// runs that observedRun takes.
func (run *arrivalRun) extend(tick uint32) (ended arrivalRun) {
	if run.n > 0 && run.tick == tick {
		run.n++
		return arrivalRun{}
	}
	ended, *run = *run, arrivalRun{tick: tick, n: 1, accepted: true}
	return ended
}

// observed records a message for tick; accepted says its sample was
// stored (it then also feeds the clock's arrival statistics). Consecutive
// calls with the same tick and verdict (one server packet's worth) make
// one run.
func (a *arrivalLog) observed(tick uint32, accepted bool) {
	a.observedRun(arrivalRun{tick: tick, n: 1, accepted: accepted})
}

// observedRun records run.n messages for run.tick at once, as that many
// calls of Observed would; nothing if run.n is 0.
func (a *arrivalLog) observedRun(run arrivalRun) {
	if run.n == 0 {
		return
	}
	if n := len(a.runs); n > 0 && a.runs[n-1].tick == run.tick && a.runs[n-1].accepted == run.accepted {
		a.runs[n-1].n += run.n
		return
	}
	a.runs = append(a.runs, run)
}

// refusedFuture records a message refused because its tick lay too far
// ahead of the estimated server time.
func (a *arrivalLog) refusedFuture(tick uint32) {
	if a.futureN == 0 || tick > a.futureMax {
		a.futureMax = tick
	}
	a.futureN++
}

// noteComplete records that the server's snapshot for tick named every
// entity that changed (a [Complete] message).
func (a *arrivalLog) noteComplete(tick uint32) { a.complete = max(a.complete, tick) }

func (a *arrivalLog) reset() {
	a.runs = a.runs[:0]
	a.futureN = 0
	a.complete = 0
	a.waits = a.waits[:0]
}

// Timeline is the system that moves the render time, right after Receive:
// it advances the [timeline.Clock] by the frame's dt, feeds it the frame's
// arrivals, lets it slew (or re-anchor) toward estimated server time minus
// the interpolation delay, and publishes the clock's figures in [Metrics].
// It also counts the frame and clears the per-frame metrics and the
// frame's signals.
type Timeline struct {
	clock    *timeline.Clock
	feed     clockfeed.Feeder
	frame    *Frame
	metrics  *Metrics
	arrivals *arrivalLog
	signals  *frameSignals
	ready    bool
}

// NewTimeline returns the Timeline system.
func NewTimeline() *Timeline { return &Timeline{} }

// Initialize implements the arche-model System interface.
func (t *Timeline) Initialize(w *ecs.World) {
	if t.ready {
		return
	}
	t.clock = mustResource[timeline.Clock](w)
	t.feed = clockfeed.Of(t.clock)
	t.frame = mustResource[Frame](w)
	t.metrics = mustResource[Metrics](w)
	t.arrivals = sharedResource[arrivalLog](w)
	t.signals = sharedResource[frameSignals](w)
	t.ready = true
}

// Update implements the arche-model System interface.
func (t *Timeline) Update(w *ecs.World) {
	c, f, a := t.clock, t.feed, t.arrivals
	t.signals.reset()
	f.BeginFrame(t.frame.Dt)
	for _, r := range a.runs {
		if r.accepted {
			f.ObserveN(r.tick, int(r.n))
		} else {
			f.RefusedN(r.tick, int(r.n))
		}
	}
	f.RefusedFutureN(a.futureMax, a.futureN)
	f.NoteComplete(a.complete)
	for _, w := range a.waits {
		f.AddWait(w)
	}
	a.reset()
	f.Advance()

	m := t.metrics
	m.Frames++
	m.FrameCorrections, m.FrameTeleports = 0, 0
	m.RenderTick = c.RenderTick()
	m.Delay = c.DelaySeconds()
	m.ActualDelay = c.ActualDelay()
	m.PresentationDelay = c.PresentationDelay()
	m.NewestAge = c.NewestAge()
	m.ClockResets = c.Resets()
	m.ClockHolds = c.Holds()
	m.ClockClamps = c.Clamps()
	m.TickRate, m.ServerTickRate, m.TickRateMismatch = c.TickRate(), c.MeasuredTickRate(), c.RateMismatch()
}

// Finalize implements the arche-model System interface.
func (t *Timeline) Finalize(w *ecs.World) {}

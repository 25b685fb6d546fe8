package perf

import (
	"fmt"
	c "github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/internal/clockfeed"

	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/timeline"
)

// Implementations by name, as used in benchmark names and the report. Each
// is a [scenario.Client], the interface the scorecard measures too.
const (
	NetSmooth = "netsmooth"
	// Parallel is netsmooth with Receive and Interpolate split over two
	// goroutines (Config.WithWorkers(2)).
	Parallel    = "netsmooth-2workers"
	MinimumName = "minimum"
	// MinimumOnArcheName is the lower bound with its rings in arche
	// components ([MinimumOnArche]).
	MinimumOnArcheName = "minimum-arche"
	// MinimumCheckedName is the lower bound that checks every snapshot
	// as a client of an untrusted server must ([MinimumChecked]).
	MinimumCheckedName = "minimum-checked"
	// MinimumOnArcheCheckedName is the checked lower bound on arche's
	// public API ([MinimumOnArcheChecked]).
	MinimumOnArcheCheckedName = "minimum-arche-checked"
	FlatName                  = "flat"
	NaiveName                 = "naive"
)

// NewPipeline returns netsmooth's pipeline with the default config, sized
// for n entities and initialized.
func NewPipeline(n int) *scenario.NetSmooth { return newPipeline(n, 1) }

// newPipeline returns the pipeline for n entities with Receive and
// Interpolate on `workers` goroutines.
func newPipeline(n, workers int) *scenario.NetSmooth {
	cfg := nsecs.DefaultConfig().WithWorkers(workers)
	cfg.Receive.MaxEntities = max(cfg.Receive.MaxEntities, n)
	cfg.InboxCapacity = max(cfg.InboxCapacity, 2*n)
	p, err := scenario.NewNetSmooth(cfg)
	if err != nil {
		panic(err)
	}
	p.Pipeline().Initialize()
	return p
}

// NewNaive returns the object-per-entity baseline, [scenario.DampedBuffer],
// on a clock of its own configured like netsmooth's default one, so that it
// draws what the pipeline draws.
func NewNaive() *scenario.DampedBuffer {
	return scenario.NewDampedBufferOn(newClock().Clock)
}

// fedClock is a clock with its feeding side, for the baselines that keep
// their own and feed it as the pipeline feeds its clock.
type fedClock struct {
	*timeline.Clock
	clockfeed.Feeder
}

// newClock returns a clock configured exactly like the default pipeline's
// (which runs the render time past the newest tick as far as
// extrapolation covers), for the baselines that keep their own.
func newClock() *fedClock {
	cfg := nsecs.DefaultConfig().WithTickRate(TickRate)
	clock, err := clockfeed.New(cfg.TickRate, c.RingCapacity, cfg.Interpolate.ExtrapolationLimit, cfg.Clock)
	if err != nil {
		panic(err)
	}
	return &fedClock{Clock: clock.(*timeline.Clock), Feeder: clockfeed.Of(clock)}
}

// New returns the implementation called name, for n entities.
func New(name string, n int) scenario.Client {
	switch name {
	case NetSmooth:
		return NewPipeline(n)
	case Parallel:
		return newPipeline(n, 2)
	case MinimumName:
		return NewMinimum(n)
	case MinimumOnArcheName:
		return NewMinimumOnArche(n)
	case MinimumCheckedName:
		return NewMinimumChecked(n)
	case MinimumOnArcheCheckedName:
		return NewMinimumOnArcheChecked(n)
	case FlatName:
		return NewFlat(n)
	case NaiveName:
		return NewNaive()
	}
	panic(fmt.Sprintf("bench: unknown implementation %q", name))
}

// waitOf is the wait the pipeline's Receive samples for an entity whose
// newest sample was at tick newest when one of tick arrives, the server
// time of the frame before being before: the time its data had to last,
// less half a send interval (one tick in the steady scenario) for every
// tick between that the stream delivered and this entity lacked (a sample
// refused, for the garbled stream), as Receive counts them.
func waitOf(clock *timeline.Clock, before float64, newest, tick uint32) float64 {
	wait := before - float64(newest)
	if gap := tick - newest; gap > 1 && gap <= 8 {
		for t := newest + 1; t < tick; t++ {
			if clock.Seen(t) {
				wait -= 0.5
			}
		}
	}
	return wait
}

package timeline

import (
	"fmt"

	"github.com/netsmooth/netsmooth/internal/clockfeed"
)

// The pipeline makes its clock and feeds it through internal/clockfeed,
// which this file fills in: the feeding methods stay off Clock's API.
func init() {
	clockfeed.New = func(tickRate float64, bufferSamples int, maxAhead float64, cfg any) (any, error) {
		c, ok := cfg.(Config)
		if !ok {
			return nil, fmt.Errorf("timeline: clockfeed.New takes a timeline.Config, not %T", cfg)
		}
		return newClock(tickRate, bufferSamples, maxAhead, c)
	}
	clockfeed.Of = func(clock any) clockfeed.Feeder { return (*feeder)(clock.(*Clock)) }
}

// feeder is a Clock seen from the pipeline that feeds it.
type feeder Clock

func (f *feeder) BeginFrame(dt float64)             { (*Clock)(f).beginFrame(dt) }
func (f *feeder) ObserveN(tick uint32, n int)       { (*Clock)(f).observeN(tick, n) }
func (f *feeder) RefusedN(tick uint32, n int)       { (*Clock)(f).refusedN(tick, n) }
func (f *feeder) RefusedFutureN(tick uint32, n int) { (*Clock)(f).refusedFutureN(tick, n) }
func (f *feeder) NoteComplete(tick uint32)          { (*Clock)(f).noteComplete(tick) }
func (f *feeder) AddWait(ticks float64)             { (*Clock)(f).addWait(ticks) }
func (f *feeder) Advance()                          { (*Clock)(f).advance() }
func (f *feeder) SetLatency(seconds float64)        { (*Clock)(f).setLatency(seconds) }

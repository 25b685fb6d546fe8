package ecs

import (
	"errors"
	"fmt"
	"math"

	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/timeline"
)

// FollowExtrapolation, as Config.Clock.MaxAhead, lets the render time run
// past the newest sample exactly as far as extrapolation covers
// (Interpolate.ExtrapolationLimit): beyond that entities would only hold,
// so the timeline holds instead and catches up when data returns. It is
// the default.
const FollowExtrapolation = -1

// Config gathers every setting of a [Pipeline]. Start from [DefaultConfig]
// and change what your game needs; distances are in your world units.
//
// TickRate is the one tick rate: the clock, the prediction systems and
// every per-tick default (smoothing) follow it. Leave Clock.TickRate and
// Predict.TickRate zero.
type Config struct {
	// TickRate is the server's simulation rate in ticks per second; message
	// ticks are counted in it, predicted entities step at it, and
	// Smooth.PerTick is applied per tick of it.
	TickRate float64
	// InboxCapacity bounds the messages waiting between two frames (zero
	// means systems.DefaultInboxCapacity).
	InboxCapacity int
	// Clock slews and resets the render time; its TickRate comes from
	// TickRate above. Clock.Delay picks the interpolation delay.
	Clock timeline.Config
	// Receive, Interpolate, Smooth and Snap configure the systems.
	Receive     systems.ReceiveConfig
	Interpolate systems.InterpolateConfig
	Smooth      systems.SmoothConfig
	Snap        systems.SnapConfig
	// Predict configures the prediction systems added by AddPredictor; its
	// TickRate comes from TickRate above.
	Predict systems.PredictConfig
}

// DefaultConfig returns settings for a 20 Hz server sending a snapshot
// every tick: an adaptive interpolation delay (the 99th percentile of the
// measured wait for newer data plus 5 ms, 20 to 400 ms: about 70 ms on a
// clean 20 Hz link, 35 ms at 60 Hz; timeline.FixedDelay is the
// alternative), entities sent less often drawn later by the difference,
// a render time that never runs past the newest
// sample by more than extrapolation covers, the Coast extrapolation policy
// for up to 250 ms, corrections that close half the remaining gap every
// tick, snapping beyond 20 units, teleports assumed beyond 400 units
// between samples, and for predicted entities a dead zone of 0.5 units and
// a hard cut beyond 20. For another tick rate, use [Config.WithTickRate]
// or set TickRate: everything per tick follows it. Every system runs on
// the world's goroutine; [Config.WithWorkers] splits Receive and
// Interpolate on large worlds over several cores.
func DefaultConfig() Config {
	const rate = 20
	clock := timeline.DefaultConfig(rate)
	clock.TickRate = 0 // follows Config.TickRate
	clock.Delay = timeline.DefaultAdaptiveDelay()
	clock.MaxAhead = FollowExtrapolation
	predict := systems.DefaultPredictConfig(rate)
	predict.TickRate = 0 // follows Config.TickRate
	return Config{
		TickRate:      rate,
		InboxCapacity: systems.DefaultInboxCapacity,
		Clock:         clock,
		Receive:       systems.DefaultReceiveConfig(),
		Interpolate:   systems.DefaultInterpolateConfig(),
		Smooth:        systems.DefaultSmoothConfig(),
		Snap:          systems.DefaultSnapConfig(),
		Predict:       predict,
	}
}

// WithTickRate returns a copy of c for a server at rate ticks per second.
// It is the same as setting TickRate.
func (c Config) WithTickRate(rate float64) Config {
	c.TickRate = rate
	return c
}

// WithWorkers returns a copy of c that stores snapshots (Receive) and
// draws entities (Interpolate) on n goroutines at once in frames large
// enough for it to pay (Receive.ParallelMin messages, Interpolate.ParallelMin
// entities; 30,000 each by default), for a machine with cores to spare.
// What the pipeline stores and draws is identical to one goroutine's, as
// long as Receive.OnSpawn leaves other remote entities alone (see
// systems.ReceiveConfig.OnSpawn). n <= 1 keeps both on the world's
// goroutine; at most systems.MaxWorkers.
func (c Config) WithWorkers(n int) Config {
	c.Receive.Workers, c.Interpolate.Workers = n, n
	return c
}

// ClockConfig is the clock's configuration as the pipeline uses it: the
// pipeline's tick rate, the ring's capacity as the buffer bound, and
// MaxAhead resolved. A baseline or tool that keeps its own
// [timeline.Clock] next to a pipeline builds it from this to agree with it.
func (c *Config) ClockConfig() timeline.Config {
	clock := c.Clock
	clock.TickRate = c.TickRate
	clock.BufferSamples = components.RingCapacity
	if clock.MaxAhead == FollowExtrapolation {
		clock.MaxAhead = c.Interpolate.ExtrapolationLimit
	}
	return clock
}

// predictConfig is the prediction configuration at the pipeline's tick rate.
func (c *Config) predictConfig() systems.PredictConfig {
	predict := c.Predict
	predict.TickRate = c.TickRate
	return predict
}

// Validate reports every setting that is out of range.
func (c *Config) Validate() error {
	var errs []error
	if !(c.TickRate > 0) || math.IsInf(c.TickRate, 0) {
		errs = append(errs, fmt.Errorf("ecs: TickRate must be a positive number of ticks per second, got %v", c.TickRate))
	}
	if c.Clock.TickRate != 0 && c.Clock.TickRate != c.TickRate {
		errs = append(errs, fmt.Errorf("ecs: Clock.TickRate (%v) differs from TickRate (%v): set only Config.TickRate (or use WithTickRate) and leave Clock.TickRate zero", c.Clock.TickRate, c.TickRate))
	}
	if c.Predict.TickRate != 0 && c.Predict.TickRate != c.TickRate {
		errs = append(errs, fmt.Errorf("ecs: Predict.TickRate (%v) differs from TickRate (%v): set only Config.TickRate (or use WithTickRate) and leave Predict.TickRate zero", c.Predict.TickRate, c.TickRate))
	}
	if c.InboxCapacity < 0 {
		errs = append(errs, fmt.Errorf("ecs: InboxCapacity must not be negative, got %d", c.InboxCapacity))
	}
	clock := c.ClockConfig()
	if !(c.Receive.MaxFuture < clock.ResetThreshold) {
		errs = append(errs, fmt.Errorf("ecs: Receive.MaxFuture (%v s) must be below Clock.ResetThreshold (%v s), or one future-dated tick could re-anchor the clock", c.Receive.MaxFuture, clock.ResetThreshold))
	}
	predict := c.predictConfig()
	errs = append(errs, clock.Validate(), c.Receive.Validate(), c.Interpolate.Validate(),
		c.Smooth.Validate(), c.Snap.Validate(), predict.Validate())
	return errors.Join(errs...)
}

package ecs

import (
	"errors"
	"fmt"

	"github.com/netsmooth/netsmooth/internal/limits"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/timeline"
)

// DefaultTickRate is the tick rate a zero Config.TickRate stands for.
const DefaultTickRate = 20

// Config gathers every setting of a [Pipeline]. A zero field, in it and in
// every config it holds, means its default: Config{TickRate: 60} is a
// complete configuration for a 60 Hz server. [DefaultConfig] shows the
// defaults; distances are in your world units.
type Config struct {
	// TickRate is the server's simulation rate in ticks per second
	// (DefaultTickRate, 20, if zero), and the pipeline's only one: message
	// ticks are counted in it, the clock converts with it, predicted
	// entities step at it, and Smooth.PerTick is applied per tick of it.
	// It must be your server's; Metrics.TickRateMismatch says when it is
	// not. New refuses a rate outside 1 to 1e6 ticks per second (a tick's
	// length, 1.0/60 for 60 Hz, is a common slip).
	TickRate float64
	// InboxCapacity bounds the messages waiting between two frames
	// (systems.DefaultInboxCapacity if zero).
	InboxCapacity int
	// Clock slews and resets the render time; Clock.Delay picks the
	// interpolation delay.
	Clock timeline.Config
	// Receive, Interpolate, Smooth and Snap configure the systems.
	Receive     systems.ReceiveConfig
	Interpolate systems.InterpolateConfig
	Smooth      systems.SmoothConfig
	Snap        systems.SnapConfig
	// Predict configures the prediction systems added by AddPredictor.
	Predict systems.PredictConfig
}

// DefaultConfig returns the settings a zero Config stands for, filled in:
// a 20 Hz server sending a snapshot every tick, an adaptive interpolation
// delay (the 99th percentile of the measured wait for newer data plus
// 5 ms, 20 to 400 ms: about 70 ms on a clean 20 Hz link, 35 ms at 60 Hz;
// timeline.FixedDelay is the alternative), entities sent less often drawn
// later by the difference, a render time that never runs past the newest
// sample by more than extrapolation covers, the Coast extrapolation policy
// for up to 250 ms, corrections that close half the remaining gap every
// tick, snapping beyond 20 units, teleports assumed beyond 400 units
// between samples, and for predicted entities a dead zone of 0.5 units
// (smaller errors while the server moves the entity are absorbed into its
// motion, changing its drawn speed by at most a quarter) and a hard cut
// beyond 20. For another tick rate, use [Config.WithTickRate] or set
// TickRate: everything per tick follows it. Every system runs on
// the world's goroutine; [Config.WithWorkers] splits Receive and
// Interpolate on large worlds over several cores.
func DefaultConfig() Config {
	return Config{
		TickRate:      DefaultTickRate,
		InboxCapacity: systems.DefaultInboxCapacity,
		Clock:         timeline.DefaultConfig(),
		Receive:       systems.DefaultReceiveConfig(),
		Interpolate:   systems.DefaultInterpolateConfig(),
		Smooth:        systems.DefaultSmoothConfig(),
		Snap:          systems.DefaultSnapConfig(),
		Predict:       systems.DefaultPredictConfig(),
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
// Drawing gains from a second core; storing, bound by the memory it
// streams, gains only where memory bandwidth is to spare (DESIGN.md,
// "Receive on several cores"): set Receive.Workers back to 1 if it does
// not on yours.
// What the pipeline stores and draws is identical to one goroutine's, as
// long as Receive.OnSpawn leaves other remote entities alone (see
// systems.ReceiveConfig.OnSpawn). n <= 1 keeps both on the world's
// goroutine; at most systems.MaxWorkers.
func (c Config) WithWorkers(n int) Config {
	c.Receive.Workers, c.Interpolate.Workers = n, n
	return c
}

// WithDefaults returns c with every zero field, its configs' included, set
// to its default.
func (c Config) WithDefaults() Config {
	if c.TickRate == 0 {
		c.TickRate = DefaultTickRate
	}
	if c.InboxCapacity == 0 {
		c.InboxCapacity = systems.DefaultInboxCapacity
	}
	c.Clock = c.Clock.WithDefaults()
	c.Receive = c.Receive.WithDefaults()
	c.Interpolate = c.Interpolate.WithDefaults()
	c.Smooth = c.Smooth.WithDefaults()
	c.Snap = c.Snap.WithDefaults()
	c.Predict = c.Predict.WithDefaults()
	return c
}

// maxAhead is how far, in seconds, the pipeline's render time may run
// past the newest tick: Clock.MaxAhead, or by default as far as
// extrapolation covers; 0 for timeline.NeverAhead.
func (c *Config) maxAhead() float64 {
	d := c.WithDefaults()
	switch {
	case d.Clock.MaxAhead == 0:
		return d.Interpolate.ExtrapolationLimit
	case d.Clock.MaxAhead < 0:
		return 0
	}
	return d.Clock.MaxAhead
}

// Validate reports every setting that is out of range, each in a sentence
// that names the field and what to do.
func (c *Config) Validate() error {
	var errs []error
	d := c.WithDefaults()
	if err := limits.CheckTickRate(d.TickRate); err != nil {
		errs = append(errs, fmt.Errorf("ecs: TickRate must be your server's ticks per second: %w", err))
	}
	if c.InboxCapacity < 0 {
		errs = append(errs, fmt.Errorf("ecs: InboxCapacity must not be negative, got %d: leave it zero for %d", c.InboxCapacity, systems.DefaultInboxCapacity))
	}
	if !(d.Receive.MaxFuture < d.Clock.ResetThreshold) {
		errs = append(errs, fmt.Errorf("ecs: Receive.MaxFuture (%v s) must be below Clock.ResetThreshold (%v s), or one future-dated tick could re-anchor the clock: lower the one or raise the other", d.Receive.MaxFuture, d.Clock.ResetThreshold))
	}
	errs = append(errs, c.Clock.Validate(), c.Receive.Validate(), c.Interpolate.Validate(),
		c.Smooth.Validate(), c.Snap.Validate(), c.Predict.Validate())
	return errors.Join(errs...)
}

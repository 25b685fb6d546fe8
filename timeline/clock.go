package timeline

import (
	"fmt"
	"math"
)

// Config sets up a [Clock].
type Config struct {
	// TickRate is the server's simulation rate in ticks per second.
	TickRate float64
	// Delay chooses the interpolation delay. Nil means FixedDelay(0.1).
	Delay DelayPolicy
	// MaxCatchUp bounds how much faster than real time the render time may
	// run to catch up with its target (0.05 = 5% faster).
	MaxCatchUp float64
	// MaxSlowDown bounds how much slower than real time the render time may
	// run to let its target catch up (0.05 = 5% slower). Must be below 1 so
	// the render time never stops or reverses.
	MaxSlowDown float64
	// SlewTime is the time constant, in seconds, over which an error between
	// render time and target is worked off (before the bounds above apply).
	SlewTime float64
	// ResetThreshold is the discontinuity bound in seconds: when the target
	// is further than this from the render time, or a new arrival disagrees
	// with the offset estimate by more than this, the clock re-anchors
	// instead of slewing.
	ResetThreshold float64
	// OffsetSmoothing is the weight of a new arrival in the exponential
	// average of the server clock offset (0 < w <= 1).
	OffsetSmoothing float64
	// BufferSamples, if above 2, is how many samples each entity keeps
	// (netsmooth's ring capacity): the delay is capped at that many snapshot
	// intervals minus two, so the render time never aims before the oldest
	// sample still held.
	BufferSamples int
	// MaxAhead is how far, in seconds, the render time may run past the
	// newest tick received. Zero (the default) never runs ahead: when
	// snapshots stop arriving for everybody, the timeline holds at the
	// newest sample instead of inventing the future, and catches up once
	// data returns. A positive value lets per-entity extrapolation cover
	// short global gaps instead.
	MaxAhead float64
}

// DefaultConfig returns the defaults for a server ticking at tickRate:
// 100 ms fixed delay, at most 10% catch-up and 5% slow-down with a
// half-second slew time constant, a one second reset threshold, and a
// timeline that never runs ahead of the newest sample.
//
// For comparison: Mirror catches up 2% and slows down 4% once the drift
// exceeds one send interval; this clock slews proportionally to the error
// (error / SlewTime), capped at those bounds, so small errors cause small
// speed changes and large ones (after an outage) are worked off faster.
func DefaultConfig(tickRate float64) Config {
	return Config{
		TickRate:        tickRate,
		Delay:           FixedDelay(0.1),
		MaxCatchUp:      0.10,
		MaxSlowDown:     0.05,
		SlewTime:        0.5,
		ResetThreshold:  1,
		OffsetSmoothing: 0.1,
	}
}

// Validate reports the first setting that is out of range.
func (c *Config) Validate() error {
	switch {
	case !(c.TickRate > 0) || math.IsInf(c.TickRate, 0):
		return fmt.Errorf("timeline: TickRate must be a positive number of ticks per second, got %v", c.TickRate)
	case !(c.MaxCatchUp >= 0 && c.MaxCatchUp <= 1):
		return fmt.Errorf("timeline: MaxCatchUp must be in [0, 1], got %v", c.MaxCatchUp)
	case !(c.MaxSlowDown >= 0 && c.MaxSlowDown < 1):
		return fmt.Errorf("timeline: MaxSlowDown must be in [0, 1), got %v", c.MaxSlowDown)
	case !(c.SlewTime > 0) || math.IsInf(c.SlewTime, 0):
		return fmt.Errorf("timeline: SlewTime must be positive seconds, got %v", c.SlewTime)
	case !(c.ResetThreshold > 0) || math.IsInf(c.ResetThreshold, 0):
		return fmt.Errorf("timeline: ResetThreshold must be positive seconds, got %v", c.ResetThreshold)
	case !(c.OffsetSmoothing > 0 && c.OffsetSmoothing <= 1):
		return fmt.Errorf("timeline: OffsetSmoothing must be in (0, 1], got %v", c.OffsetSmoothing)
	case !(c.MaxAhead >= 0) || math.IsInf(c.MaxAhead, 0):
		return fmt.Errorf("timeline: MaxAhead must be non-negative seconds, got %v", c.MaxAhead)
	}
	return nil
}

// Stats are the arrival statistics a [Clock] gathers; delay policies read
// them.
type Stats struct {
	// TickRate is the server tick rate, copied from the config.
	TickRate float64
	// Arrivals counts distinct server ticks observed.
	Arrivals uint64
	// Interval is the smoothed number of ticks between consecutive new
	// ticks: the snapshot send interval as the client sees it.
	Interval float64
	// Jitter is the smoothed standard deviation, in ticks, of arrival times
	// around the offset estimate.
	Jitter float64
}

// Clock estimates server time from snapshot arrivals and advances the render
// time. Use it from one goroutine (the one that runs the world).
//
// Each frame: [Clock.BeginFrame] with the frame's dt, [Clock.Observe] for
// every accepted snapshot tick, then [Clock.Advance].
type Clock struct {
	cfg   Config
	stats Stats

	local  float64 // seconds since start
	dt     float64 // this frame's dt, seconds
	offset float64 // server tick - local*rate, smoothed
	synced bool

	render  float64 // render tick
	started bool
	scale   float64
	delay   float64 // ticks
	resets  uint64
	holds   uint64
	clamps  uint64
	anchors uint64
	latency float64 // one-way latency in seconds, if the game knows it

	// Distinct-tick detection: newest tick seen, and a bitmask of which of
	// the 64 ticks before it were seen.
	newest   uint32
	seenMask uint64
	anySeen  bool

	frameNewest uint32 // newest tick first seen this frame
	frameNew    bool
	futureMax   uint32 // newest tick refused as too far ahead this frame
	futureAny   bool

	// This frame's evidence, in messages: arrivals consistent with the
	// estimate, far behind it, and refused as too far ahead of it.
	consistent, behindN, aheadN uint64
	behindMax                   uint32 // newest tick among this frame's arrivals far behind
	behind, ahead               streak
	generation                  uint64

	runTick uint32 // tick of the current run of Observe calls
	inRun   bool

	frameDevSq float64 // sum of squared arrival deviations this frame
	frameRuns  int
}

// NewClock returns a clock for cfg, or the configuration error.
func NewClock(cfg Config) (*Clock, error) {
	if cfg.Delay == nil {
		cfg.Delay = FixedDelay(0.1)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Clock{cfg: cfg, stats: Stats{TickRate: cfg.TickRate}, scale: 1}, nil
}

// Config returns the clock's configuration.
func (c *Clock) Config() Config { return c.cfg }

// SetDelayPolicy replaces the delay policy; nil restores the default.
func (c *Clock) SetDelayPolicy(p DelayPolicy) {
	if p == nil {
		p = FixedDelay(0.1)
	}
	c.cfg.Delay = p
}

// MaxFrameDt is the longest frame the clock accepts, in seconds; a longer
// dt counts as this long (the clock re-anchors after such a gap anyway),
// so local time stays finite whatever the game passes.
const MaxFrameDt = 3600

// BeginFrame advances local time by dt seconds. Negative or NaN dt counts
// as zero, and dt beyond [MaxFrameDt] (infinity included) as MaxFrameDt.
func (c *Clock) BeginFrame(dt float64) {
	switch {
	case !(dt >= 0):
		dt = 0
	case dt > MaxFrameDt:
		dt = MaxFrameDt
	}
	c.dt = dt
	c.local += dt
	c.frameNew = false
	c.futureAny = false
	c.inRun = false
	c.frameDevSq, c.frameRuns = 0, 0
	c.consistent, c.behindN, c.aheadN = 0, 0, 0
}

// Observe records that a snapshot for tick arrived during this frame. Call
// it for every snapshot: consecutive calls with the same tick (one server
// packet's worth) count as one arrival and cost a comparison. Every run
// feeds the jitter statistics, so late packets of an already-seen tick
// count; the server clock offset follows the first arrival of each new tick.
func (c *Clock) Observe(tick uint32) { c.ObserveN(tick, 1) }

// ObserveN records that n messages for tick arrived during this frame (a
// run of one server packet). Every message counts as evidence of where the
// server's clock is, whether or not the pipeline could use its sample: a
// stream the estimate cannot explain (a restarted server, ticks that went
// back) re-anchors the clock once it is the majority for long enough.
func (c *Clock) ObserveN(tick uint32, n int) {
	if n <= 0 {
		return
	}
	c.weigh(tick, n)
	if c.inRun && tick == c.runTick {
		return
	}
	c.inRun, c.runTick = true, tick
	c.observe(tick)
}

// RefusedN records that n messages for tick arrived this frame that the
// pipeline could not use (stale, duplicate, of an earlier life...). They do
// not feed the arrival statistics, but they are evidence of where the
// server's clock is: a restarted server's stream is refused as stale until
// the clock re-anchors to it.
func (c *Clock) RefusedN(tick uint32, n int) {
	if n > 0 {
		c.weigh(tick, n)
	}
}

// weigh classifies n arrivals of tick as consistent with the estimate or
// far behind it.
func (c *Clock) weigh(tick uint32, n int) {
	rate := c.cfg.TickRate
	if c.synced && float64(tick)-c.local*rate-c.offset < -c.cfg.ResetThreshold*rate {
		if c.behindN == 0 || tick > c.behindMax {
			c.behindMax = tick
		}
		c.behindN += uint64(n)
	} else {
		c.consistent += uint64(n)
	}
}

func (c *Clock) observe(tick uint32) {
	rate := c.cfg.TickRate
	sample := float64(tick) - c.local*rate
	if !c.anySeen {
		c.anySeen = true
		c.newest = tick
		c.seenMask = 0
		c.stats.Arrivals = 1
		c.frameNewest, c.frameNew = tick, true
		return
	}
	if tick > c.newest {
		gap := tick - c.newest
		if gap >= 64 {
			c.seenMask = 0
		} else {
			c.seenMask = c.seenMask<<gap | 1<<(gap-1)
		}
		c.newest = tick
		g := float64(gap)
		if c.stats.Interval == 0 {
			c.stats.Interval = g
		} else {
			// A lost packet doubles one gap: clip long gaps so a loss moves
			// the estimate a little, while a real change of send rate still
			// brings it there over a few dozen arrivals.
			g = math.Min(g, 2*c.stats.Interval+1)
			c.stats.Interval += 0.05 * (g - c.stats.Interval)
		}
		if !c.frameNew || tick > c.frameNewest {
			c.frameNewest, c.frameNew = tick, true
		}
		c.stats.Arrivals++
	} else if tick < c.newest {
		back := c.newest - tick
		switch {
		case back > 64:
			return // too old to tell
		case c.seenMask&(1<<(back-1)) == 0:
			c.seenMask |= 1 << (back - 1)
			c.stats.Arrivals++
		}
	}
	if !c.synced {
		return
	}
	// Arrival deviation: how late this packet came relative to the
	// estimate; folded into the jitter statistic once per frame.
	if dev := sample - c.offset; math.Abs(dev) < c.cfg.ResetThreshold*rate {
		c.frameDevSq += dev * dev
		c.frameRuns++
	}
}

// Advance finishes the frame: it folds this frame's newest arrival into the
// offset estimate, asks the delay policy for the delay, and moves the render
// time toward server time minus delay by slewing, or resets it past a
// discontinuity.
func (c *Clock) Advance() {
	rate := c.cfg.TickRate
	bound := c.cfg.ResetThreshold * rate
	generation := c.generation
	if c.frameNew {
		sample := float64(c.frameNewest) - c.local*rate
		switch d := sample - c.offset; {
		case !c.synced:
			c.offset, c.synced = sample, true
			c.generation++
		case math.Abs(d) > bound:
			c.offset = sample
			c.anchors++
			c.generation++
		default:
			c.offset += c.cfg.OffsetSmoothing * d
		}
	}
	if !c.synced {
		return
	}
	c.checkStreams()
	if c.frameRuns > 0 && c.dt <= c.cfg.ResetThreshold {
		// Each frame with arrivals moves the jitter estimate by 2%: about a
		// two-second memory at 20 snapshots per second and 60 FPS. A frame
		// that follows a suspend (longer than the reset threshold) brings
		// everything queued meanwhile at once: that is not jitter.
		v := c.stats.Jitter * c.stats.Jitter
		v += 0.02 * (c.frameDevSq/float64(c.frameRuns) - v)
		c.stats.Jitter = math.Sqrt(math.Max(v, 0))
	}
	c.delay = c.cfg.Delay.Delay(&c.stats)
	if !(c.delay >= 0) || math.IsInf(c.delay, 0) {
		c.delay = 0
	}
	if c.cfg.BufferSamples > 2 {
		// Never aim further back than the entities' buffers reach.
		c.delay = math.Min(c.delay, float64(c.cfg.BufferSamples-2)*math.Max(c.stats.Interval, 1))
	}
	target := c.local*rate + c.offset - c.delay
	if !c.started {
		c.render, c.started, c.scale = target, true, 1
		return
	}
	if c.generation != generation && target < c.render {
		// Re-anchored to a server that is behind where the render time
		// ran (its ticks stood still while the local clock jumped, or it
		// restarted): follow it back rather than extrapolate for seconds.
		c.render, c.scale = target, 1
		c.resets++
		return
	}
	// The error left if this frame advanced at real-time speed.
	err := target - (c.render + c.dt*rate)
	switch {
	case err > bound:
		// Forward discontinuity (suspend, stall): jump to the target, but
		// not past the clamp window below.
		c.render = math.Max(c.render, math.Min(target, float64(c.newest)+c.cfg.MaxAhead*rate))
		c.scale = 1
		c.resets++
		return
	case err < -bound:
		// Backward discontinuity (arrivals suddenly far later): hold still
		// until the target catches up; the render time never reverses.
		c.scale = 0
		c.holds++
		return
	}
	s := err / (c.cfg.SlewTime * rate)
	s = math.Max(-c.cfg.MaxSlowDown, math.Min(c.cfg.MaxCatchUp, s))
	c.scale = 1 + s
	next := c.render + c.dt*rate*c.scale
	// The clamp window: never past the newest sample (plus MaxAhead), and
	// never backwards.
	if upper := float64(c.newest) + c.cfg.MaxAhead*rate; next > upper {
		next = math.Max(c.render, upper)
		if c.dt > 0 {
			c.scale = (next - c.render) / (c.dt * rate)
		}
		c.clamps++
	}
	c.render = next
}

// RefusedFuture records that a snapshot was refused because its tick lay
// too far ahead of the estimate. It is [Clock.RefusedFutureN] for one
// message.
func (c *Clock) RefusedFuture(tick uint32) { c.RefusedFutureN(tick, 1) }

// RefusedFutureN records that n messages were refused because their ticks
// (the newest of them tick) lay too far ahead of the estimate. A few such
// ticks are noise (or hostile) and change nothing; if they are the
// majority of what arrives for long enough, the server really is further
// ahead than estimated (a suspend the frame time did not show) and the
// clock re-anchors to them instead of refusing the whole session.
func (c *Clock) RefusedFutureN(tick uint32, n int) {
	if n <= 0 {
		return
	}
	c.aheadN += uint64(n)
	if !c.futureAny || tick > c.futureMax {
		c.futureMax, c.futureAny = tick, true
	}
}

// Re-anchoring needs evidence: the stream the estimate cannot explain must
// be the majority of what arrives in at least minEvidenceFrames frames with
// arrivals in a row, spread over at least minEvidenceTime seconds, with its
// ticks moving on (a live stream, not stale copies).
const (
	minEvidenceFrames = 3
	minEvidenceTime   = 0.2
)

// streak follows consecutive frames whose majority of arrivals disagree
// with the estimate in one direction.
type streak struct {
	frames int
	since  float64 // local time of the first frame
	last   uint32  // newest tick of the latest frame
}

// note adds a frame whose disagreeing arrivals reach up to tick, and
// reports whether the evidence is now enough to re-anchor.
func (s *streak) note(now float64, tick uint32) bool {
	if s.frames > 0 && tick <= s.last {
		s.frames = 0 // not moving on: start again from this frame
	}
	if s.frames == 0 {
		s.since = now
	}
	s.frames++
	s.last = tick
	return s.frames >= minEvidenceFrames && now-s.since >= minEvidenceTime
}

// checkStreams weighs this frame's evidence: when arrivals far behind the
// estimate, or refused as far ahead of it, are the majority long enough,
// the clock re-anchors to them; a frame whose majority agrees with the
// estimate ends both streaks. Frames without arrivals change nothing.
func (c *Clock) checkStreams() {
	switch {
	case c.behindN > c.consistent+c.aheadN:
		c.ahead = streak{}
		if c.behind.note(c.local, c.behindMax) {
			c.behind = streak{}
			c.reanchorBehind()
		}
	case c.aheadN > c.consistent+c.behindN:
		c.behind = streak{}
		if c.ahead.note(c.local, c.futureMax) {
			c.ahead = streak{}
			c.offset = float64(c.futureMax) - c.local*c.cfg.TickRate
			c.anchors++
			c.generation++
		}
	case c.consistent > 0:
		c.behind, c.ahead = streak{}, streak{}
	}
}

// reanchorBehind moves the clock back to this frame's newest arrival far
// behind the estimate: the newest tick seen before was an outlier (a
// corrupted or hostile tick), or the server restarted its count. The
// render time goes back with it, the one case where it moves backwards.
func (c *Clock) reanchorBehind() {
	c.offset = float64(c.behindMax) - c.local*c.cfg.TickRate
	c.newest, c.seenMask = c.behindMax, 0
	c.render = c.local*c.cfg.TickRate + c.offset - c.delay
	c.anchors++
	c.resets++
	c.generation++
}

// Generation counts the times the clock took up a new timeline: its first
// sync and every re-anchoring. Ticks held from before a change may belong
// to a timeline the server has left (a restart, a wrap, an absurd tick):
// the pipeline drops what lies beyond the new horizon when it changes.
func (c *Clock) Generation() uint64 { return c.generation }

// Synced reports whether at least one arrival has been observed, so the
// render time means something.
func (c *Clock) Synced() bool { return c.synced }

// RenderTick is the render time in server ticks: where remote entities are
// drawn this frame.
func (c *Clock) RenderTick() float64 { return c.render }

// ServerTick is the estimated server time in ticks as seen from arrivals
// (the newest tick plus the local time since it arrived, smoothed).
func (c *Clock) ServerTick() float64 { return c.local*c.cfg.TickRate + c.offset }

// NewestTick is the newest server tick observed.
func (c *Clock) NewestTick() uint32 { return c.newest }

// Delay is the current interpolation delay in ticks.
func (c *Clock) Delay() float64 { return c.delay }

// DelaySeconds is the current interpolation delay in seconds.
func (c *Clock) DelaySeconds() float64 { return c.delay / c.cfg.TickRate }

// Scale is the time scale applied this frame (1 = real time, 0 = held).
func (c *Clock) Scale() float64 { return c.scale }

// Local is the local time in seconds since the clock started.
func (c *Clock) Local() float64 { return c.local }

// Dt is the current frame's dt in seconds.
func (c *Clock) Dt() float64 { return c.dt }

// TickRate is the server tick rate in ticks per second.
func (c *Clock) TickRate() float64 { return c.cfg.TickRate }

// Resets counts forward jumps of the render time past a discontinuity.
func (c *Clock) Resets() uint64 { return c.resets }

// Holds counts frames in which the render time stood still because its
// target fell behind it by more than the reset threshold.
func (c *Clock) Holds() uint64 { return c.holds }

// Clamps counts frames in which the render time was held back at the newest
// sample (plus MaxAhead) by the clamp window.
func (c *Clock) Clamps() uint64 { return c.clamps }

// ActualDelay is how far, in seconds, the render time is behind the
// estimated server time right now: the delay target while the timeline is
// settled, more after an outage held it back, less while it catches up.
func (c *Clock) ActualDelay() float64 {
	if !c.synced {
		return 0
	}
	return (c.ServerTick() - c.render) / c.cfg.TickRate
}

// SetLatency tells the clock the one-way network latency in seconds, if the
// game measures it (from pings): arrivals alone cannot tell it. It only
// feeds [Clock.PresentationDelay].
func (c *Clock) SetLatency(seconds float64) {
	if seconds >= 0 && !math.IsInf(seconds, 0) {
		c.latency = seconds
	}
}

// PresentationDelay estimates how old, in seconds, what is drawn this
// frame is relative to the server's present: the one-way latency (as set
// with SetLatency, else zero) plus the actual interpolation delay.
func (c *Clock) PresentationDelay() float64 { return c.latency + c.ActualDelay() }

// NewestAge is how long ago, in seconds of estimated server time, the
// newest tick was sent: about the send interval normally, growing while
// nothing arrives.
func (c *Clock) NewestAge() float64 {
	if !c.synced {
		return 0
	}
	return (c.ServerTick() - float64(c.newest)) / c.cfg.TickRate
}

// Reanchors counts offset re-anchorings after an arrival that disagreed with
// the estimate by more than the reset threshold.
func (c *Clock) Reanchors() uint64 { return c.anchors }

// Stats returns the arrival statistics.
func (c *Clock) Stats() Stats { return c.stats }

package timeline

import (
	"fmt"
	"math"

	"github.com/netsmooth/netsmooth/internal/limits"
)

// Config sets up the pipeline's [Clock]: how the render time follows the
// server. A zero field means its default (see [DefaultConfig]), so a zero
// Config is the recommended one. The tick rate is not here: the pipeline
// has one (ecs.Config.TickRate), and the clock uses it.
type Config struct {
	// Delay chooses the interpolation delay. Nil means
	// DefaultAdaptiveDelay().
	Delay DelayPolicy
	// MaxCatchUp bounds how much faster than real time the render time may
	// run to catch up with its target (1.5, the default, is up to 2.5
	// times as fast).
	MaxCatchUp float64
	// MaxSlowDown bounds how much slower than real time the render time may
	// run to let its target catch up (0.9, the default, is down to a tenth
	// of real time). It is below 1 so slewing never stops or reverses the
	// render time (only a hold past a discontinuity, or the limit at the
	// newest sample, stops it).
	MaxSlowDown float64
	// SlewTime is the time constant, in seconds, over which an error between
	// render time and target is worked off: the time scale is
	// 1 + error/SlewTime, and beyond 50 ms of error the gain grows with the
	// error, within the bounds above. Small errors (a few milliseconds of
	// network noise) change the speed by a few percent, invisibly; a large
	// one (after an outage, or a first estimate that was off) is worked off
	// at up to MaxCatchUp or MaxSlowDown, fast but without a jump. 0.5 s
	// by default.
	SlewTime float64
	// ResetThreshold is the discontinuity bound in seconds (1 by default):
	// a target further than this ahead of the render time makes it jump
	// after a suspend or a stall (a frame longer than this), on a new
	// timeline, or when the gap is more than three times this; a shorter
	// gap is caught up at MaxCatchUp. Further behind, the render time
	// stands still until the target catches up. Arrivals further than this
	// from the estimate are evidence of a new timeline.
	ResetThreshold float64
	// EnvelopeWindow is how far back, in seconds, the server-time estimate
	// remembers the fastest arrivals (2 by default): long enough to see a
	// few fast packets on a jittery link, short enough to follow a link
	// that got slower.
	EnvelopeWindow float64
	// WaitWindow is about how far back, in seconds, arrivals count in the
	// statistics of how long the newest data had to last (Stats.Wait),
	// which adaptive delays read: their weight fades with a time constant
	// of half of it. 4 by default.
	WaitWindow float64
	// DelayFall is how fast, in seconds per second, the delay may shrink
	// when the delay policy asks for a little less (0.03 by default; it
	// grows at once when asked for more, and shrinks faster, with a
	// one-second time constant, when far above what is asked): a delay
	// that follows every wiggle of the statistics would make the render
	// time speed up and slow down all the time.
	DelayFall float64
	// MaxAhead is how far, in seconds, the render time may run past the
	// newest tick received. Zero (the default) is as far as extrapolation
	// covers (ecs.Config's Interpolate.ExtrapolationLimit): beyond that
	// entities would only hold, so when snapshots stop arriving for
	// everybody the timeline holds instead, and catches up when data
	// returns. [NeverAhead] holds at the newest tick itself.
	MaxAhead float64
}

// NeverAhead, as Config.MaxAhead, keeps the render time from ever running
// past the newest tick received.
const NeverAhead = -1

// DefaultConfig returns the defaults a zero Config stands for: the
// adaptive delay (DefaultAdaptiveDelay), a time scale of 1 + error/0.5 s
// (faster beyond 50 ms of error) between 0.1 and 2.5, a one second reset
// threshold, a two-second envelope, four seconds of wait statistics, a
// delay that shrinks by at most 30 ms per second (unless far above what
// is asked), and a render time that runs past the newest tick as far as
// extrapolation covers.
//
// For comparison: Mirror catches up 2% and slows down 4% once the drift
// exceeds one send interval, and resets beyond a fixed threshold; this
// clock slews in proportion to the error, so the usual few milliseconds of
// noise cost an invisible speed change while an outage's worth is worked
// off within a second, never by a jump.
func DefaultConfig() Config {
	return Config{
		Delay:          DefaultAdaptiveDelay(),
		MaxCatchUp:     1.5,
		MaxSlowDown:    0.9,
		SlewTime:       0.5,
		ResetThreshold: 1,
		EnvelopeWindow: 2,
		WaitWindow:     4,
		DelayFall:      0.03,
	}
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	d := DefaultConfig()
	if c.Delay == nil {
		c.Delay = d.Delay
	}
	for _, f := range []struct {
		v *float64
		d float64
	}{
		{&c.MaxCatchUp, d.MaxCatchUp}, {&c.MaxSlowDown, d.MaxSlowDown}, {&c.SlewTime, d.SlewTime},
		{&c.ResetThreshold, d.ResetThreshold}, {&c.EnvelopeWindow, d.EnvelopeWindow},
		{&c.WaitWindow, d.WaitWindow}, {&c.DelayFall, d.DelayFall},
	} {
		if *f.v == 0 {
			*f.v = f.d
		}
	}
	return c
}

// Validate reports the first setting that is out of range, its defaults
// filled in first.
func (c *Config) Validate() error {
	d := c.WithDefaults()
	switch {
	case !(d.MaxCatchUp > 0 && d.MaxCatchUp <= 10):
		return fmt.Errorf("timeline: MaxCatchUp must be in (0, 10], got %v: leave it zero for 1.5", c.MaxCatchUp)
	case !(d.MaxSlowDown > 0 && d.MaxSlowDown < 1):
		return fmt.Errorf("timeline: MaxSlowDown must be in (0, 1), got %v: leave it zero for 0.9", c.MaxSlowDown)
	case !(d.SlewTime > 0) || math.IsInf(d.SlewTime, 0):
		return fmt.Errorf("timeline: SlewTime must be positive seconds, got %v: leave it zero for 0.5", c.SlewTime)
	case !(d.ResetThreshold > 0) || math.IsInf(d.ResetThreshold, 0):
		return fmt.Errorf("timeline: ResetThreshold must be positive seconds, got %v: leave it zero for 1", c.ResetThreshold)
	case !(d.EnvelopeWindow > 0 && d.EnvelopeWindow <= 60):
		return fmt.Errorf("timeline: EnvelopeWindow must be in (0, 60] seconds, got %v: leave it zero for 2", c.EnvelopeWindow)
	case !(d.WaitWindow > 0 && d.WaitWindow <= 60):
		return fmt.Errorf("timeline: WaitWindow must be in (0, 60] seconds, got %v: leave it zero for 4", c.WaitWindow)
	case !(d.DelayFall > 0) || math.IsInf(d.DelayFall, 0):
		return fmt.Errorf("timeline: DelayFall must be positive seconds per second, got %v: leave it zero for 0.03", c.DelayFall)
	case math.IsNaN(d.MaxAhead) || math.IsInf(d.MaxAhead, 0):
		return fmt.Errorf("timeline: MaxAhead must be finite seconds, got %v: leave it zero to follow extrapolation", c.MaxAhead)
	}
	return checkDelay(d.Delay)
}

// settings are a Config as one clock runs it: defaults filled in, with the
// pipeline's tick rate, how many samples each entity keeps, and how far,
// in seconds and at least 0, the render time may run past the newest tick.
type settings struct {
	Config
	TickRate      float64
	BufferSamples int
	MaxAhead      float64
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
	// Jitter is the standard deviation, in ticks, of the recent waits
	// (see [Stats.Wait]).
	Jitter float64
	// waits is the clock's histogram of recent waits.
	waits *waits
}

// Wait returns the q-quantile (0 < q <= 1) of how old the newest data had
// become, in ticks of estimated server time, each time newer data arrived
// over the last few seconds: one send interval plus how late the new data
// came plus the frame it waited to be seen (plus an interval for each
// sample an entity lost, when the pipeline reports its entities' waits
// with addWait). A render time that stays that far behind the
// estimate runs out of data in only 1-q of the waits. Waits longer than
// three times the median (an outage, a burst of losses) are left out:
// extrapolation covers them, buffering for them would cost the delay for
// seconds afterwards. Zero before anything was measured.
func (s *Stats) Wait(q float64) float64 {
	if s.waits == nil {
		return 0
	}
	return s.waits.quantile(q)
}

// WaitSamples returns about how many recent waits the statistics hold
// (older ones count less and less).
func (s *Stats) WaitSamples() int {
	if s.waits == nil {
		return 0
	}
	return int(s.waits.kept)
}

// Clock estimates server time from snapshot arrivals and advances the render
// time. The pipeline makes one, feeds it every frame (the frame's dt, the
// ticks that arrived, the waits its entities saw) and registers it as a
// world resource; the game reads it (ecs.Pipeline.Clock) and may change
// its delay policy, on the world's goroutine.
type Clock struct {
	cfg   settings
	stats Stats

	local  float64 // seconds since start
	dt     float64 // this frame's dt, seconds
	offset float64 // server tick - local*rate: the envelope of arrivals
	synced bool
	env    envelope
	waits  waits

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

	stale     bool   // nothing arrived for a whole envelope window: the estimate is only a guess
	futureMax uint32 // newest tick refused as too far ahead this frame
	futureAny bool

	complete uint32 // newest tick the server said was complete

	// This frame's evidence, in messages: arrivals consistent with the
	// estimate, far behind it, and refused as too far ahead of it.
	consistent, behindN, aheadN uint64
	behindMax                   uint32 // newest tick among this frame's arrivals far behind
	behind, ahead               streak
	generation                  uint64

	runTick uint32 // tick of the current run of Observe calls
	inRun   bool

	rate rateMeter   // how fast the server's ticks really advance
	bulk bulkWeigher // which arrivals may move the estimate
}

// newClock returns a clock for cfg at tickRate ticks per second, for
// entities that keep bufferSamples samples each (the delay stays two
// short of them), whose render time may run maxAhead seconds past the
// newest tick; or the configuration error.
func newClock(tickRate float64, bufferSamples int, maxAhead float64, cfg Config) (*Clock, error) {
	if err := limits.CheckTickRate(tickRate); err != nil {
		return nil, fmt.Errorf("timeline: tick rate: %w", err)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	set := settings{Config: cfg.WithDefaults(), TickRate: tickRate, BufferSamples: bufferSamples, MaxAhead: max(maxAhead, 0)}
	return &Clock{cfg: set, stats: Stats{TickRate: tickRate}, scale: 1, env: newEnvelope(set.EnvelopeWindow),
		rate: rateMeter{ref: tickRate}, bulk: bulkWeigher{sizes: newEnvelope(sizeWindow)}}, nil
}

// Config returns the clock's configuration, its defaults filled in.
func (c *Clock) Config() Config { return c.cfg.Config }

// SetDelayPolicy replaces the delay policy from the next frame on; nil
// restores the default, DefaultAdaptiveDelay().
func (c *Clock) SetDelayPolicy(p DelayPolicy) {
	if p == nil {
		p = DefaultAdaptiveDelay()
	}
	c.cfg.Delay = p
}

// beginFrame advances local time by dt seconds, sanitised by
// limits.SanitizeDt.
func (c *Clock) beginFrame(dt float64) {
	dt = limits.SanitizeDt(dt)
	c.dt = dt
	c.local += dt
	c.env.advance(c.local)
	c.rate.advance(c.local)
	c.waits.fade(math.Exp(-2 * dt / c.cfg.WaitWindow))
	_, ok := c.env.value()
	c.stale = !ok
	c.futureAny = false
	c.inRun = false
	c.consistent, c.behindN, c.aheadN = 0, 0, 0
}

// observeN records that n accepted messages for tick arrived during this
// frame (a run of one server packet). Consecutive calls with the same tick
// count as one arrival and cost a comparison. Every run feeds the
// lateness statistics, so late packets of an already-seen tick count, and
// is weighed with the frame's other messages for the same tick before it
// may feed the server-time estimate (see bulk.go): n is what it weighs.
func (c *Clock) observeN(tick uint32, n int) {
	if n <= 0 {
		return
	}
	c.weigh(tick, n, true)
	if c.inRun && tick == c.runTick {
		c.bulk.more(tick, n)
		return
	}
	c.inRun, c.runTick = true, tick
	c.rate.add(c.local, tick)
	c.observe(tick, n)
}

// refusedN records that n messages for tick arrived this frame that the
// pipeline could not use (stale, duplicate, of an earlier life...). They do
// not feed the statistics, but they are evidence of where the server's
// clock is: a restarted server's stream is refused as stale until the
// clock re-anchors to it. Before the clock has synced they feed the
// estimate too, so that a stream refused from its first message (say, by
// tombstones a hostile server left at absurd ticks before anything could
// be judged) still syncs the clock, and the pipeline can then drop
// whatever lies beyond it.
func (c *Clock) refusedN(tick uint32, n int) {
	if n <= 0 {
		return
	}
	c.weigh(tick, n, false)
	if !c.synced {
		c.env.add(float64(tick) - c.local*c.cfg.TickRate)
	}
}

// weigh classifies n arrivals of tick as consistent with the estimate or
// far behind it. After a whole window of silence the estimate is only an
// extrapolation: accepted arrivals then re-seed it and count as
// consistent, but refused ones are still weighed against it, so that a
// stream the pipeline keeps refusing re-anchors the clock.
func (c *Clock) weigh(tick uint32, n int, accepted bool) {
	x := float64(tick) - c.local*c.cfg.TickRate
	far := c.synced && x-c.offset < -c.cfg.ResetThreshold*c.cfg.TickRate
	if far && (!c.stale || !accepted) {
		if c.behindN == 0 || tick > c.behindMax {
			c.behindMax = tick
		}
		c.behindN += uint64(n)
	} else {
		c.consistent += uint64(n)
	}
}

// isBehind reports whether an arrival with x = tick - local*rate lies
// further behind the estimate than the reset threshold. After a whole
// window of silence the estimate is only an extrapolation, and nothing
// accepted counts as behind it.
func (c *Clock) isBehind(x float64) bool {
	return c.synced && !c.stale && x-c.offset < -c.cfg.ResetThreshold*c.cfg.TickRate
}

// observe takes one arrival run of n messages: into the estimate (directly
// before sync or after a silence, else weighed with the frame's other
// arrivals at advance), the statistics and the distinct-tick bookkeeping.
func (c *Clock) observe(tick uint32, n int) {
	x := float64(tick) - c.local*c.cfg.TickRate
	behind := c.isBehind(x)
	switch {
	case behind:
		// Arrivals the estimate cannot explain are evidence for
		// re-anchoring, not samples of the current timeline.
	case !c.synced || c.stale:
		// Nothing to weigh against: whatever arrives seeds the estimate.
		c.env.add(x)
	default:
		// Weighed with the rest of the frame at advance.
		c.bulk.note(tick, x, n)
	}
	if c.anySeen && tick > c.newest && c.synced && !behind && !c.stale && c.dt <= c.cfg.ResetThreshold {
		// How long the newest data had to last: until the frame before
		// this one, the last without the new tick. A frame that follows a
		// suspend brings everything queued meanwhile at once: that is not
		// the link.
		c.waits.add(c.ServerTick() - c.dt*c.cfg.TickRate - float64(c.newest))
	}
	if !c.anySeen {
		c.anySeen = true
		c.newest = tick
		c.seenMask = 0
		c.stats.Arrivals = 1
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
		g := math.Min(float64(gap), limits.MaxIntervalTicks)
		if c.stats.Interval == 0 {
			c.stats.Interval = g
		} else {
			// A lost packet doubles one gap: clip long gaps so a loss moves
			// the estimate a little, while a real change of send rate still
			// brings it there over a few dozen arrivals.
			g = math.Min(g, 2*c.stats.Interval+1)
			c.stats.Interval += 0.05 * (g - c.stats.Interval)
		}
		c.stats.Arrivals++
	} else if tick < c.newest {
		back := c.newest - tick
		if back <= 64 && c.seenMask&(1<<(back-1)) == 0 {
			c.seenMask |= 1 << (back - 1)
			c.stats.Arrivals++
		}
	}
}

// addWait records how long, in ticks of estimated server time, one
// entity's newest sample had to last before its next one arrived: the
// pipeline reports a sample of its entities' waits, which see the samples
// an entity lost (the clock alone sees only the stream as a whole). A
// non-finite or negative wait is ignored.
func (c *Clock) addWait(ticks float64) {
	if ticks >= 0 && !math.IsInf(ticks, 0) && c.synced {
		c.waits.add(ticks)
	}
}

// refusedFutureN records that n messages were refused because their ticks
// (the newest of them tick) lay too far ahead of the estimate. A few such
// ticks are noise (or hostile) and change nothing; if they are the
// majority of what arrives for long enough, the server really is further
// ahead than estimated (a suspend the frame time did not show) and the
// clock re-anchors to them instead of refusing the whole session.
func (c *Clock) refusedFutureN(tick uint32, n int) {
	if n <= 0 {
		return
	}
	c.aheadN += uint64(n)
	if !c.futureAny || tick > c.futureMax {
		c.futureMax, c.futureAny = tick, true
	}
}

// advance finishes the frame: it weighs the frame's evidence (re-anchoring
// to a new timeline if the majority has disagreed long enough), updates the
// server-time estimate and the statistics, asks the delay policy for the
// delay, and moves the render time toward server time minus delay.
func (c *Clock) advance() {
	c.bulk.settle(&c.env, c.local, c.synced && !c.stale, c.offset, c.confirmWindow(), uint32(max(math.Round(c.stats.Interval), 1)))
	generation := c.generation
	if c.synced {
		c.checkStreams()
	}
	c.estimate()
	if !c.synced {
		return
	}
	c.stats.Jitter = c.waits.update()
	c.stats.waits = &c.waits
	want := c.cfg.Delay.Delay(&c.stats)
	if !(want >= 0) || math.IsInf(want, 0) {
		want = 0
	}
	if c.cfg.BufferSamples > 2 {
		// Never aim further back than the entities' buffers reach.
		want = math.Min(want, float64(c.cfg.BufferSamples-2)*math.Max(c.stats.Interval, 1))
	}
	// Shrink slowly, or in proportion to a large excess (statistics that
	// a disturbance inflated must not cost the delay for long); on a new
	// timeline, start afresh.
	fall := max(c.cfg.DelayFall*c.cfg.TickRate*c.dt, (c.delay-want)*c.dt/delayFallTime)
	if want < c.delay-fall && c.started && c.generation == generation {
		want = c.delay - fall
	}
	c.delay = want
	c.moveRender(c.generation != generation)
}

// estimate sets the offset from the envelope of arrivals. The first
// arrivals sync the clock; an estimate that moves by more than the reset
// threshold (the first arrivals after a long silence, when the envelope
// has expired) starts a new timeline.
func (c *Clock) estimate() {
	x, ok := c.env.value()
	if !ok {
		return // nothing arrived for a whole window: keep the estimate
	}
	switch {
	case !c.synced:
		c.synced = true
		c.generation++
	case math.Abs(x-c.offset) > c.cfg.ResetThreshold*c.cfg.TickRate:
		c.anchors++
		c.generation++
	}
	c.offset = x
}

// moveRender advances the render time by the frame's dt at a time scale
// that pulls it toward its target, within the slew bounds and the clamp
// window; past a discontinuity it jumps forward or holds. On a new
// timeline (anchored says the clock re-anchored this frame) a render time
// beyond the target starts over at it: the ticks it ran through belong to
// the old timeline.
func (c *Clock) moveRender(anchored bool) {
	rate := c.cfg.TickRate
	bound := c.cfg.ResetThreshold * rate
	target := c.local*rate + c.offset - c.delay
	if !c.started {
		c.render, c.started, c.scale = target, true, 1
		return
	}
	if anchored && target < c.render {
		c.render, c.scale = target, 1
		c.resets++
		return
	}
	// The error left if this frame advanced at real-time speed.
	err := target - (c.render + c.dt*rate)
	switch {
	case c.dt > c.cfg.ResetThreshold && err > -bound:
		// A frame that hid a suspend or stall: nothing was drawn
		// meanwhile, so the render time takes up its target at once (not
		// past the clamp window). Slewing through it would stretch the
		// frame's small error in time scale over the whole pause, and
		// leave a gap to fast-forward through once drawing resumes.
		next := math.Max(c.render, math.Min(target, float64(c.newest)+c.cfg.MaxAhead*rate))
		if next > c.render+c.dt*rate+bound {
			c.resets++
		}
		c.render, c.scale = next, 1
		return
	case err > bound && (anchored || err > catchUpLimit*bound):
		// Forward discontinuity: a new timeline, or a gap too long to
		// fast-forward through. Jump to the target, but not past
		// the clamp window below. A shorter gap (data stopped while the
		// client kept drawing) is caught up at the bounded speed below.
		next := math.Max(c.render, math.Min(target, float64(c.newest)+c.cfg.MaxAhead*rate))
		if next > c.render+c.dt*rate {
			c.resets++
		}
		c.render, c.scale = next, 1
		return
	case err < -bound:
		// Backward discontinuity (arrivals suddenly far later): hold still
		// until the target catches up; the render time never reverses.
		c.scale = 0
		c.holds++
		return
	}
	s := slew(err/rate, c.cfg.SlewTime)
	s = math.Max(-c.cfg.MaxSlowDown, math.Min(c.cfg.MaxCatchUp, s))
	// The speed itself changes smoothly: by at most scaleRamp per second,
	// so a catch-up eases in (and a timeline held at the newest sample
	// eases back into motion) instead of switching speed in one frame.
	ramp := scaleRamp * c.dt
	c.scale = math.Max(c.scale-ramp, math.Min(c.scale+ramp, 1+s))
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

// scaleRamp is how fast, per second, the time scale may change while
// slewing.
const scaleRamp = 8

// catchUpLimit: a render time behind its target by more than this many
// reset thresholds jumps rather than fast-forwarding through the gap.
const catchUpLimit = 3

// delayFallTime is the time constant, in seconds, of a delay shrinking
// from well above what the statistics ask for.
const delayFallTime = 1

// settledWaits is how many waits the statistics need before an adaptive
// delay trusts a high quantile of them.
const settledWaits = 16

// linearSlew is the error, in seconds, up to which the slew is proportional
// to it; beyond, the gain grows with the error.
const linearSlew = 0.05

// slew returns the change of time scale that works off an error of e
// seconds: e/slewTime while small, e/slewTime × |e|/linearSlew beyond.
func slew(e, slewTime float64) float64 {
	return e / slewTime * math.Max(1, math.Abs(e)/linearSlew)
}

// Re-anchoring needs evidence: the stream the estimate cannot explain must
// be the majority of what arrives in at least minEvidenceFrames frames with
// arrivals in a row, spread over at least minEvidenceTime seconds, with its
// ticks never going back and moving on at least once (a live stream, not
// stale copies; late parts of one tick may arrive a frame later).
const (
	minEvidenceFrames = 3
	minEvidenceTime   = 0.2
)

// streak follows consecutive frames whose majority of arrivals disagree
// with the estimate in one direction.
type streak struct {
	frames      int
	since       float64 // local time of the first frame
	first, last uint32  // newest tick of the first and the latest frame
}

// note adds a frame whose disagreeing arrivals reach up to tick, and
// reports whether the evidence is now enough to re-anchor.
func (s *streak) note(now float64, tick uint32) bool {
	if s.frames > 0 && tick < s.last {
		s.frames = 0 // going back: start again from this frame
	}
	if s.frames == 0 {
		s.since, s.first = now, tick
	}
	s.frames++
	s.last = tick
	return s.frames >= minEvidenceFrames && now-s.since >= minEvidenceTime && s.last > s.first
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
			c.reanchor(c.behindMax, true)
		}
	case c.aheadN > c.consistent+c.behindN:
		c.behind = streak{}
		if c.ahead.note(c.local, c.futureMax) {
			c.ahead = streak{}
			c.reanchor(c.futureMax, false)
		}
	case c.consistent > 0:
		c.behind, c.ahead = streak{}, streak{}
	}
}

// reanchor starts a new timeline at tick, seen this frame: the estimate
// and the statistics of the old one are dropped. Going back (back true:
// the newest tick seen before was an outlier, or the server restarted its
// count) the render time goes back with it, the one case where it moves
// backwards; going forward it catches up or jumps as usual.
func (c *Clock) reanchor(tick uint32, back bool) {
	x := float64(tick) - c.local*c.cfg.TickRate
	c.env.reset(c.local)
	c.env.add(x)
	c.waits.reset()
	c.complete = 0
	c.offset = x
	c.anchors++
	c.generation++
	// The new timeline's newest tick is this one, and its send interval is
	// measured again (the gap from the old timeline means nothing).
	c.newest, c.seenMask = tick, 0
	c.bulk.restart(tick)
	c.stats.Interval = 0
	if back {
		c.render = c.local*c.cfg.TickRate + c.offset - c.delay
		c.resets++
	}
}

// noteComplete records that the server's snapshot for tick named every
// entity that changed since the last one: an entity it did not name is
// unchanged at tick. Zero records nothing.
func (c *Clock) noteComplete(tick uint32) { c.complete = max(c.complete, tick) }

// Complete returns the newest tick the server said was complete (zero if
// none, or none since the clock took up a new timeline): entities whose
// newest sample is older are known to be still until then.
func (c *Clock) Complete() uint32 { return c.complete }

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

// ServerTick is the estimated server time in ticks as seen from arrivals:
// local time plus the offset of the fastest recent arrivals (so it lags the
// server by the fastest one-way trip).
func (c *Clock) ServerTick() float64 { return c.local*c.cfg.TickRate + c.offset }

// Seen reports whether a message of tick arrived, among the 64 ticks
// before the newest observed (and the newest itself): a tick the stream
// delivered that one entity lacks was lost for that entity alone.
func (c *Clock) Seen(tick uint32) bool {
	if !c.anySeen || tick > c.newest {
		return false
	}
	back := c.newest - tick
	return back == 0 || back <= 64 && c.seenMask&(1<<(back-1)) != 0
}

// NewestTick is the newest server tick observed.
func (c *Clock) NewestTick() uint32 { return c.newest }

// Delay is the current interpolation delay in ticks.
func (c *Clock) Delay() float64 { return c.delay }

// DelaySeconds is the current interpolation delay in seconds.
func (c *Clock) DelaySeconds() float64 { return c.delay / c.cfg.TickRate }

// Scale is the time scale applied this frame (1 = real time, 0 = held).
func (c *Clock) Scale() float64 { return c.scale }

// TickRate is the server tick rate in ticks per second.
func (c *Clock) TickRate() float64 { return c.cfg.TickRate }

// Resets counts jumps of the render time past a discontinuity: forward
// after a suspend or stall, backward when the clock re-anchored to a server
// behind it.
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

// setLatency tells the clock the one-way network latency in seconds, if the
// game measures it (from pings): arrivals alone cannot tell it. It only
// feeds [Clock.PresentationDelay].
func (c *Clock) setLatency(seconds float64) {
	if seconds >= 0 && !math.IsInf(seconds, 0) {
		c.latency = seconds
	}
}

// PresentationDelay estimates how old, in seconds, what is drawn this
// frame is relative to the server's present: the one-way latency (as set
// through ecs.Pipeline.SetLatency, else zero) plus the actual
// interpolation delay.
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

// Reanchors counts the times the clock took up a new timeline after its
// first sync: a restarted or wrapped tick count, an absurd tick believed
// until the stream showed otherwise, a server further ahead than a suspend
// the frame time hid, the first arrivals after a long silence.
func (c *Clock) Reanchors() uint64 { return c.anchors }

// Stats returns the arrival statistics.
func (c *Clock) Stats() Stats { return c.stats }

// confirmWindow is how long, in seconds, a small tick newer than the bulk
// waits for a bulk tick to confirm it: three send intervals, within 0.1
// to 0.2 s. It bounds how far early-stamped messages can move the
// estimate, so it does not grow with the measured interval, which they
// can stretch.
func (c *Clock) confirmWindow() float64 {
	return min(max(3*c.stats.Interval/c.cfg.TickRate, 0.1), 0.2)
}

package systems

import (
	"fmt"
	"math"
	"sync/atomic"
	"unsafe"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/netsmooth/netsmooth/blend"
	c "github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/timeline"
)

// InterpolateConfig sets up the [Interpolate] system. A zero field means
// its default (see [DefaultInterpolateConfig]).
type InterpolateConfig struct {
	// Extrapolation is the policy past the newest sample; see
	// [blend.Extrapolation] for which to choose. The zero value is
	// blend.Coast.
	Extrapolation blend.Extrapolation
	// ExtrapolationLimit is how far past the newest sample, in seconds, the
	// policy may project before holding still; 0.25 by default. (For no
	// extrapolation at all, choose blend.Hold.)
	ExtrapolationLimit float64
	// TeleportDistance: two consecutive samples further apart than this are
	// treated as a teleport even without a Teleport message or an epoch
	// change: no long slide between them. 400 world units by default;
	// negative: no distance is a teleport.
	TeleportDistance float32
	// MinCorrection is the smallest target jump, in world units, that is
	// handed to smoothing; smaller jumps are drawn as they are. 0.001 by
	// default.
	MinCorrection float32
	// MaxLag bounds, in seconds, how much later than the others an entity
	// sent less often is drawn (see components.Span.Lag); 0.5 by default,
	// negative: never later.
	MaxLag float64
	// Workers, when above 1, draws the remote entities on that many
	// goroutines at once: the world's goroutine and worker goroutines
	// Interpolate starts (and Finalize stops), taking chunks of the
	// entities in turn. What is drawn is identical to a single
	// goroutine's. It pays on large worlds only: below ParallelMin
	// entities a frame stays on one goroutine. Zero or 1: the world's
	// goroutine alone (the default).
	Workers int
	// ParallelMin is the entity count from which Workers apply
	// (DefaultParallelMin by default).
	ParallelMin int
}

// DefaultInterpolateConfig returns the defaults a zero InterpolateConfig
// stands for: the Coast policy with a 250 ms limit, teleport detection at
// 400 units, jumps under 0.001 units drawn as they are, lags of at most
// 0.5 s, one goroutine.
func DefaultInterpolateConfig() InterpolateConfig {
	return InterpolateConfig{
		Extrapolation:      blend.Coast,
		ExtrapolationLimit: 0.25,
		TeleportDistance:   400,
		MinCorrection:      1e-3,
		MaxLag:             0.5,
		ParallelMin:        DefaultParallelMin,
	}
}

// WithDefaults returns cfg with every zero field set to its default.
func (cfg InterpolateConfig) WithDefaults() InterpolateConfig {
	d := DefaultInterpolateConfig()
	cfg.ExtrapolationLimit = or(cfg.ExtrapolationLimit, d.ExtrapolationLimit)
	cfg.TeleportDistance = or(cfg.TeleportDistance, d.TeleportDistance)
	cfg.MinCorrection = or(cfg.MinCorrection, d.MinCorrection)
	cfg.MaxLag = or(cfg.MaxLag, d.MaxLag)
	cfg.ParallelMin = or(cfg.ParallelMin, d.ParallelMin)
	return cfg
}

// Validate reports the first setting that is out of range, its defaults
// filled in first.
func (cfg *InterpolateConfig) Validate() error {
	d := cfg.WithDefaults()
	switch {
	case d.Extrapolation > blend.DampedReturn:
		return fmt.Errorf("systems: InterpolateConfig.Extrapolation: unknown policy %d: use one of blend.Coast, Hold, Linear, DampedReturn", cfg.Extrapolation)
	case !(d.ExtrapolationLimit > 0) || math.IsInf(d.ExtrapolationLimit, 0):
		return fmt.Errorf("systems: InterpolateConfig.ExtrapolationLimit must be positive seconds, got %v: leave it zero for 0.25 (or choose blend.Hold)", cfg.ExtrapolationLimit)
	case math.IsNaN(float64(d.TeleportDistance)) || math.IsInf(float64(d.TeleportDistance), 0):
		return fmt.Errorf("systems: InterpolateConfig.TeleportDistance must be finite, got %v: leave it zero for 400, or make it negative for none", cfg.TeleportDistance)
	case !(d.MinCorrection > 0) || math.IsInf(float64(d.MinCorrection), 0):
		return fmt.Errorf("systems: InterpolateConfig.MinCorrection must be positive, got %v: leave it zero for 0.001", cfg.MinCorrection)
	case !(d.MaxLag <= 10) || math.IsInf(d.MaxLag, 0):
		return fmt.Errorf("systems: InterpolateConfig.MaxLag must be at most 10 seconds, got %v: leave it zero for 0.5, or make it negative for none", cfg.MaxLag)
	case d.Workers < 0 || d.Workers > MaxWorkers:
		return fmt.Errorf("systems: InterpolateConfig.Workers must be in [0, %d], got %d", MaxWorkers, cfg.Workers)
	case d.ParallelMin < 0:
		return fmt.Errorf("systems: InterpolateConfig.ParallelMin must not be negative, got %d: leave it zero for %d", cfg.ParallelMin, DefaultParallelMin)
	}
	return nil
}

// Interpolate draws every remote entity at the render time. It reads the
// entity's hot [c.Span]; only when the render time leaves the span, or
// Receive marked it dirty, does it go back to the ring to find the two
// samples that bracket the render time:
//
//   - before the oldest sample: the oldest sample, still;
//   - between two samples: position lerp, shortest-path rotation nlerp, and
//     the older sample's discrete state (it switches at the newer tick);
//   - across a discontinuity (teleport, epoch change, TeleportDistance):
//     the old sample, held until the new one's tick;
//   - past the newest sample: the extrapolation policy, then hold.
//
// When new data changes the target under an entity already on screen (a real
// sample replacing an extrapolated guess, a late sample refining the path),
// the jump is added to the entity's [c.Correction] for Smooth to glide away
// instead of popping.
type Interpolate struct {
	cfg InterpolateConfig

	clock   *timeline.Clock
	metrics *Metrics
	signals *frameSignals
	cols    columns
	cached  ecs.CachedFilter
	render  ecs.ID
	corr    ecs.ID

	// Per-frame constants.
	rate, limit  float64
	complete     uint32  // newest tick the server said was complete
	lastComplete uint32  // the same, the frame before
	lagFrom      float32 // an entity with a longer interval than this needs a lag
	lagGrow      float32 // how far a lag may grow this frame, in ticks
	lagShrink    float32 // how far a lag may shrink this frame, in ticks
	lagStep      float32 // the frame's render-time advance that lags shrink within
	maxLag       float32 // ticks
	sendInterval float64 // the stream's send interval, seconds
	newestBefore uint32  // the newest tick received before this frame
	newest       uint32  // the newest tick received by this frame
	base         float64 // the pipeline's render time
	resets       uint64  // the clock's reset count at the last frame
	holds        uint64  // the clock's hold count at the last frame
	heldAt       float64 // the render time when the clock last held, -Inf before
	generation   uint64  // the clock's timeline at the last frame
	jumped       bool    // the clock jumped this frame: no corrections
	teleport2    float32
	minCorr2     float32
	ready        bool

	// The passes over the entities: one, or with workers one per chunk.
	passes  []interpPass
	workers *workerPool
	plan    chunkPlan    // this frame's chunks, with workers
	next    atomic.Int32 // the next chunk to take
}

// interpPass is one pass over a share of the entities: the current
// entity's render time (the pipeline's, minus the entity's lag), the
// Complete tick in force, and the pass's tallies, merged after every pass
// is done. Passes share nothing else that they write, so they can run on
// several goroutines.
type interpPass struct {
	q        ecs.Query // the pass's query, padded away from the other passes'
	rt       float64
	complete uint32
	fc       frameCounts
	occ      [c.RingCapacity + 1]int32 // Metrics.Occupancy changes
	lerps    [64]lerpItem              // clean Lerp spans waiting to be drawn (see lerpAll)
	_        [64]byte                  // no false sharing between workers
}

// occupancyMove records an entity's ring going from `from` to `to` samples.
func (p *interpPass) occupancyMove(from, to int) {
	if from != to {
		p.occ[from]--
		p.occ[to]++
	}
}

// NewInterpolate returns the Interpolate system for cfg, or the
// configuration error.
func NewInterpolate(cfg InterpolateConfig) (*Interpolate, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	k := 1
	if cfg.Workers > 1 {
		k = min(cfg.Workers*chunksPerWorker, maxChunks)
	}
	return &Interpolate{cfg: cfg, passes: make([]interpPass, k), heldAt: math.Inf(-1)}, nil
}

// SetExtrapolation changes the policy past the newest sample from the
// next frame on, for a game that lets its players choose (or a demo that
// compares them). An unknown policy is refused and changes nothing.
func (s *Interpolate) SetExtrapolation(policy blend.Extrapolation) error {
	cfg := s.cfg
	cfg.Extrapolation = policy
	if err := cfg.Validate(); err != nil {
		return err
	}
	s.cfg = cfg
	return nil
}

// Extrapolation returns the policy in use.
func (s *Interpolate) Extrapolation() blend.Extrapolation { return s.cfg.Extrapolation }

// Initialize implements the arche-model System interface.
func (s *Interpolate) Initialize(w *ecs.World) {
	if s.ready {
		return
	}
	s.clock = mustResource[timeline.Clock](w)
	s.metrics = mustResource[Metrics](w)
	s.signals = sharedResource[frameSignals](w)
	s.cols = newColumns(w)
	s.render = ecs.ComponentID[c.Render](w)
	s.corr = ecs.ComponentID[c.Correction](w)
	// Every ring slot too: an entity the game took one from is not drawn
	// (rather than read from a column its archetype does not have).
	mask := ecs.All(append([]ecs.ID{s.cols.span, s.render, s.corr, ecs.ComponentID[c.Remote](w)}, s.cols.slots[:]...)...)
	filter := mask.Without(ecs.ComponentID[c.Predicted](w))
	s.cached = w.Cache().Register(&filter)
	s.teleport2 = s.cfg.TeleportDistance * s.cfg.TeleportDistance
	if s.cfg.TeleportDistance < 0 {
		s.teleport2 = float32(math.Inf(1)) // no distance is a teleport
	}
	s.minCorr2 = s.cfg.MinCorrection * s.cfg.MinCorrection
	s.ready = true
}

// frameCounts are tallied in locals during the loop and stored once.
type frameCounts struct {
	extrapolated, held, corrections, teleports int
	corrected                                  int     // entities with a correction to smooth
	maxCorrSq                                  float32 // bounds their squared lengths
	corrDist, corrMax                          float64
	aheads                                     aheadCounts
}

// Update implements the arche-model System interface.
func (s *Interpolate) Update(w *ecs.World) {
	prev := s.base
	s.base = s.clock.RenderTick()
	s.rate = s.clock.TickRate()
	s.limit = s.cfg.ExtrapolationLimit
	s.lastComplete, s.complete = s.complete, s.clock.Complete()
	s.newestBefore, s.newest = s.newest, s.clock.NewestTick()
	s.setLagBounds(s.base - prev)
	if h := s.clock.Holds(); h != s.holds {
		s.holds, s.heldAt = h, s.base
	}
	resets, gen := s.clock.Resets(), s.clock.Generation()
	s.jumped, s.resets = resets != s.resets || gen != s.generation, resets
	if gen != s.generation {
		// A new timeline: every span is rebuilt at the new render time.
		s.generation, s.heldAt = gen, math.Inf(-1)
		s.markAllDirty(w)
	}
	n := s.runPasses(w)
	fc := s.passes[0].fc
	for k := 1; k < n; k++ {
		fc.merge(&s.passes[k].fc)
	}
	for k := range n {
		for i, d := range s.passes[k].occ {
			s.metrics.Occupancy[i] += int(d)
		}
	}
	fc.publish(s.metrics)
	s.signals.corrections += fc.corrected
	s.signals.maxCorrectionSq = max(s.signals.maxCorrectionSq, fc.maxCorrSq)
	s.signals.teleports += fc.teleports
}

// pass draws the entities of query q: with count < 0, all of them (q not
// started); else count entities from q's current position, never moving
// q past the last of them (so a worker never ends, and closes, a query:
// the world's goroutine does). The common case, a clean Lerp span with no
// lag whose To the render time has not passed or whose next sample
// follows on, is queued for lerpAll; draw draws every other entity.
func (s *Interpolate) pass(q *ecs.Query, p *interpPass, count int) {
	p.fc = frameCounts{}
	p.occ = [c.RingCapacity + 1]int32{}
	p.complete = s.complete
	if count < 0 && !q.Next() {
		return
	}
	spanID, renderID, corrID := s.cols.span, s.render, s.corr
	base, lagFrom := s.base, s.lagFrom
	var fc frameCounts // the common case's tallies, kept in registers
	batch, n := &p.lerps, 0
	for drawn := 1; ; drawn++ {
		span, render, corr := (*c.Span)(q.Get(spanID)), (*c.Render)(q.Get(renderID)), (*c.Correction)(q.Get(corrID))
		if !correctionBitsZero(corr) && !corr.IsZero() {
			fc.corrected++ // Smooth and Snap must look at it
			fc.maxCorrSq = max(fc.maxCorrSq, blend.LenSq(&corr.Pos))
		}
		plain := span.Lag == 0 && span.Interval <= lagFrom && span.Flags&c.SpanDirty == 0 && span.Mode == c.SpanLerp
		if plain && base >= float64(span.To) {
			// The render time crossed To: on to the next sample if it
			// follows on with no discontinuity, as advance moves.
			np, ok := nextPhys(span)
			var next *c.Sample
			if ok {
				next = s.cols.slotOf(q, np)
			}
			if plain = ok && follows(span, next, base) && !s.cutBefore(span, next); plain {
				moveOn(span, next, np)
				span.Rot1 = blend.Align(&span.Rot0, &next.Rot)
			}
		}
		if plain {
			batch[n] = lerpItem{span, render, float32((base - float64(span.From)) * float64(span.Inv))}
			if n++; n == len(batch) {
				lerpAll(batch[:])
				n = 0
			}
			fc.aheads.add(span.Ring.Len() - span.Ring.Logical(int(span.ToPhys)))
		} else {
			s.draw(q, p, span, render, corr)
		}
		if drawn == count || !q.Next() {
			break
		}
	}
	lerpAll(batch[:n])
	p.fc.merge(&fc)
}

// draw draws the query's current entity. A clean Lerp or Step span whose
// To the render time has not reached, or whose next sample follows on
// (advance), is drawn from the span alone; anything else is rebuilt from
// the ring (slow).
func (s *Interpolate) draw(q *ecs.Query, p *interpPass, span *c.Span, render *c.Render, corr *c.Correction) {
	rt := s.base
	if span.Lag != 0 || span.Interval > s.lagFrom {
		s.slewLag(span)
		rt -= float64(span.Lag)
	}
	if span.Flags&c.SpanDirty == 0 && (span.Mode == c.SpanLerp || span.Mode == c.SpanStep) &&
		(rt < float64(span.To) || s.advance(q, span, rt)) {
		if span.Mode == c.SpanLerp {
			lerpAt(span, render, float32((rt-float64(span.From))*float64(span.Inv)))
		} else { // a Step span: hold sample 0
			p.rt = rt
			s.eval(p, span, render)
		}
		p.fc.aheads.add(span.Ring.Len() - span.Ring.Logical(int(span.ToPhys)))
		return
	}
	p.rt = rt
	s.slow(q, p, span, render, corr)
}

// lerpItem is a Lerp span to draw into render at blend factor t. The
// pass's loop over the entities queues the common case's, and lerpAll
// draws them in a loop of its own, which makes no call (so the blends of
// consecutive entities overlap in the processor). The pointers are those
// the pass's query handed out; they stay valid while the query iterates,
// since arche allows no structural change meanwhile, and the pass draws
// every queued item before its query moves past its last entity.
type lerpItem struct {
	span   *c.Span
	render *c.Render
	t      float32
}

// lerpAll draws every item: position lerp and normalised quaternion lerp
// (Rot1 is aligned with Rot0), or Rot0 as it is when the rotation does
// not change. Aligned unit quaternions blend to a length in [0.7, 1], so
// the normalisation needs no guard.
func lerpAll(items []lerpItem) {
	for i := range items {
		it := &items[i]
		span, render, t := it.span, it.render, it.t
		render.Pos = blend.Lerp(&span.Pos0, &span.Pos1, t)
		if r0, r1 := &span.Rot0, &span.Rot1; sameRotation(r0, r1) {
			render.Rot = *r0
		} else {
			w, x, y, z := blend.LerpQuat(r0, r1, t)
			blend.SetUnit(&render.Rot, w, x, y, z)
		}
		render.State = span.State
		render.Flags = c.Visible
	}
}

// lerpAt draws a Lerp span at blend factor t (see lerpAll).
func lerpAt(span *c.Span, render *c.Render, t float32) {
	lerpAll([]lerpItem{{span, render, t}})
}

// sameRotation reports whether a and b hold the same bits: the rotation
// does not change across the span, so there is nothing to blend. Two
// 8-byte compares instead of four float compares, since for the many
// entities whose rotation does not change (and every entity of a game
// that never sets one) all of them are made. Zeros of different signs
// count as different, and are blended: the same rotation, renormalised
// (within a few units in the last place of the stored one).
func sameRotation(a, b *mgl32.Quat) bool {
	x, y := (*[2]uint64)(unsafe.Pointer(a)), (*[2]uint64)(unsafe.Pointer(b))
	return x[0] == y[0] && x[1] == y[1]
}

// aheadCounts counts the entities drawn by how many samples they have
// ahead of the render time (0 to RingCapacity): one increment per entity
// instead of updating a sum, a count, a minimum and a maximum, which
// stats works out once a frame.
type aheadCounts [2 * c.RingCapacity]int32

// add counts one entity with n samples ahead. The mask only keeps the
// index in range; n never exceeds RingCapacity.
func (h *aheadCounts) add(n int) { h[n&(len(h)-1)]++ }

// merge adds o's counts to h.
func (h *aheadCounts) merge(o *aheadCounts) {
	for a, n := range o {
		h[a] += n
	}
}

// stats returns the fewest, mean and most samples ahead over the entities
// counted; all zero if none was.
func (h *aheadCounts) stats() (lo int, mean float64, hi int) {
	sum, n := 0, 0
	lo = -1
	for a, k := range h {
		if k == 0 {
			continue
		}
		if lo < 0 {
			lo = a
		}
		hi = a
		sum += a * int(k)
		n += int(k)
	}
	if n == 0 {
		return 0, 0, 0
	}
	return lo, float64(sum) / float64(n), hi
}

// correctionBitsZero reports whether every bit of corr is zero: one test
// of three words instead of six float comparisons, for the common case of
// no correction. A correction of negative zeros fails it and is left to
// IsZero.
func correctionBitsZero(corr *c.Correction) bool {
	w := (*[3]uint64)(unsafe.Pointer(corr))
	return w[0]|w[1]|w[2] == 0
}

// A Correction is exactly the three words correctionBitsZero reads: this
// fails to compile if it is not.
var _ = [1]struct{}{}[unsafe.Sizeof(c.Correction{})-24]
var _ = [1]struct{}{}[24-unsafe.Sizeof(c.Correction{})]

// setLagBounds sets this frame's per-entity lag constants: entities sent
// more than half a tick less often than the stream as a whole are drawn
// later by the difference. A lag grows by at most 90% of the frame's
// render-time advance (the entity slows down, never reverses) and shrinks
// in proportion to the excess (the entity speeds up by 5% to 40%).
func (s *Interpolate) setLagBounds(advance float64) {
	interval := float32(max(s.clock.Stats().Interval, 1))
	s.lagFrom = interval + 0.5
	s.sendInterval = float64(interval) / s.rate
	adv := float32(max(advance, 0))
	// s.jumped is still the previous frame's here (Update sets this
	// frame's after): the frame of a jump moves lags by its whole
	// advance, which takes them to their targets while the picture jumps
	// anyway, and the frame after it moves none.
	if s.jumped {
		adv = 0
	}
	s.lagGrow, s.lagShrink, s.lagStep = 0.9*adv, adv/lagSlew, adv
	s.maxLag = float32(max(s.cfg.MaxLag, 0) * s.rate)
}

// lagSlew is the time constant, in ticks of render time, over which a lag
// longer than needed is worked off, and lagShrinkMax the most of a frame's
// advance it shrinks by: the entity runs at most 1.4 times as fast
// meanwhile, so that with the clock's own catching up it stays within
// 1.5 times its true speed.
const (
	lagSlew      = 5
	lagShrinkMax = 0.4
)

// slewLag moves an entity's lag toward the difference between its own send
// interval and the stream's, within this frame's bounds. Where what is
// drawn does not depend on the time (not on screen yet, before its first
// sample, or holding still past its newest) it takes the target at once.
func (s *Interpolate) slewLag(span *c.Span) {
	var target float32
	if span.Interval > s.lagFrom {
		target = min(span.Interval-(s.lagFrom-0.5), s.maxLag)
	}
	switch {
	case span.Mode == c.SpanEmpty, span.Mode == c.SpanBefore, span.Flags&c.SpanHidden != 0,
		span.Mode == c.SpanPast && span.Pos1 == zero3:
		span.Lag = target
		return
	}
	if span.Lag > target {
		// Proportional to the excess, between 5% and 40% of the advance.
		adv := s.lagStep
		span.Lag = max(target, span.Lag-min(max((span.Lag-target)*s.lagShrink, 0.05*adv), lagShrinkMax*adv))
		return
	}
	span.Lag = min(target, span.Lag+s.lagGrow)
}

// markAllDirty makes every span rebuild from its ring this frame, with no
// lag until its send interval is measured again.
func (s *Interpolate) markAllDirty(w *ecs.World) {
	q := w.Query(&s.cached)
	for q.Next() {
		span := (*c.Span)(q.Get(s.cols.span))
		span.Flags |= c.SpanDirty
		span.Lag = 0
	}
}

// slow draws an entity whose span must be rebuilt or is not a plain lerp:
// a new sample landed in it, the render time left it, it crosses a
// teleport, or it extrapolates or holds.
func (s *Interpolate) slow(q *ecs.Query, p *interpPass, span *c.Span, render *c.Render, corr *c.Correction) {
	fc := &p.fc
	if s.needsRefresh(p, span) {
		s.refresh(q, p, span, corr)
	}
	s.eval(p, span, render)
	if span.Flags&c.SpanTeleported != 0 {
		s.cut(q, p, span, render)
	}
	switch {
	case render.Flags&c.Extrapolated != 0:
		fc.extrapolated++
	case render.Flags&c.Held != 0 && span.Mode == c.SpanPast:
		fc.held++
	}
	switch span.Mode {
	case c.SpanLerp, c.SpanStep:
		fc.aheads.add(span.Ring.Len() - span.Ring.Logical(int(span.ToPhys)))
	case c.SpanBefore:
		fc.aheads.add(span.Ring.Len())
	case c.SpanPast:
		fc.aheads.add(0)
	}
}

// cut finishes the frame in which the render time crossed a teleport: the
// drawing is flagged for Snap (which draws it at the target, with no
// correction) and the samples from before the teleport, which can never be
// drawn again, leave the ring.
func (s *Interpolate) cut(q *ecs.Query, p *interpPass, span *c.Span, render *c.Render) {
	span.Flags &^= c.SpanTeleported
	render.Flags |= c.Teleported
	ring := s.cols.viewOf(q, &span.Ring)
	before := ring.Len()
	ring.DropBefore(span.From)
	p.occupancyMove(before, ring.Len())
}

// publish stores the frame's tallies in m.
func (fc *frameCounts) publish(m *Metrics) {
	m.FrameExtrapolated, m.FrameHeld = fc.extrapolated, fc.held
	m.AheadMin, m.AheadMean, m.AheadMax = fc.aheads.stats()
	m.Extrapolated += uint64(fc.extrapolated)
	m.Held += uint64(fc.held)
	if fc.extrapolated+fc.held > 0 {
		m.UnderrunFrames++
	}
	m.FrameCorrections += fc.corrections
	m.Corrections += uint64(fc.corrections)
	m.CorrectionDistance += fc.corrDist
	m.MaxCorrection = math.Max(m.MaxCorrection, fc.corrMax)
	m.FrameTeleports += fc.teleports
	m.Teleports += uint64(fc.teleports)
}

// Finalize implements the arche-model System interface.
func (s *Interpolate) Finalize(w *ecs.World) {
	if s.ready {
		w.Cache().Unregister(&s.cached)
		s.ready = false
	}
	s.stopWorkers()
}

// advance moves a clean Lerp span past To when the render time has crossed
// it and the next sample is the one right after To in the ring: one slot
// read instead of a rebuild. It reports false when the span needs the
// general rebuild instead (a Step span's teleport is crossed there, where
// it is detected and flagged).
func (s *Interpolate) advance(q *ecs.Query, span *c.Span, rt float64) bool {
	if span.Mode != c.SpanLerp {
		return false
	}
	np, ok := nextPhys(span)
	if !ok {
		return false // To was the newest sample: extrapolation starts
	}
	next := s.cols.slotOf(q, np)
	if !follows(span, next, rt) {
		return false // skipped past more than one sample, or inconsistent
	}
	cut := s.cutBefore(span, next)
	moveOn(span, next, np)
	span.Rot1 = blend.Align(&span.Rot0, &next.Rot)
	if cut {
		span.Mode = c.SpanStep
	}
	return true
}

// nextPhys returns the physical slot of the sample after To in span's
// ring; ok is false if To is the newest sample.
func nextPhys(span *c.Span) (np int, ok bool) {
	return (int(span.ToPhys) + 1) & (c.RingCapacity - 1), span.Ring.Logical(int(span.ToPhys))+1 < span.Ring.Len()
}

// follows reports whether next, the sample after To, brackets render time
// rt with To: the render time crossed To but not next, and next is newer.
func follows(span *c.Span, next *c.Sample, rt float64) bool {
	return rt < float64(next.Tick) && next.Tick > span.To
}

// cutBefore reports whether a discontinuity lies between To and next, the
// sample after it.
func (s *Interpolate) cutBefore(span *c.Span, next *c.Sample) bool {
	return next.Flags&c.Cut != 0 || next.Epoch != span.Epoch1 || s.farApart(&span.Pos1, &next.Pos)
}

// moveOn moves span's bracket one sample on, to next in physical slot np:
// To becomes From. It leaves Mode alone, and Rot1, which the caller sets
// to next's rotation aligned with Rot0: with blend.Align in it, moveOn
// would no longer inline into the fast loop in pass.
func moveOn(span *c.Span, next *c.Sample, np int) {
	if d := next.Tick - span.To; d != span.To-span.From {
		// Samples usually come evenly spaced: the same gap keeps its
		// 1/(To-From), and the frame its division.
		span.Inv = 1 / float32(d)
	}
	span.From, span.Pos0, span.Rot0, span.State = span.To, span.Pos1, span.Rot1, span.State1
	span.To, span.ToPhys, span.Epoch1, span.State1 = next.Tick, uint8(np), next.Epoch, next.State
	span.Pos1 = next.Pos
}

func (s *Interpolate) needsRefresh(p *interpPass, span *c.Span) bool {
	if span.Flags&c.SpanDirty != 0 {
		return true
	}
	switch span.Mode {
	case c.SpanLerp, c.SpanStep:
		return p.rt >= float64(span.To)
	case c.SpanBefore:
		return p.rt >= float64(span.From)
	}
	return false
}

// eval writes the span's value at the render time into render.
func (s *Interpolate) eval(p *interpPass, span *c.Span, render *c.Render) {
	render.State = span.State
	switch span.Mode {
	case c.SpanLerp:
		// Clamped: a span not yet rebuilt must not be extended past To.
		lerpAt(span, render, min(float32((p.rt-float64(span.From))*float64(span.Inv)), 1))
	case c.SpanPast:
		if p.complete > span.From {
			// The server said the entity was unchanged until then: it is
			// still, not late.
			render.Pos, render.Rot = span.Pos0, span.Rot0
			render.Flags = c.Visible
			if p.rt > float64(p.complete) {
				render.Flags |= c.Held
			}
			break
		}
		ahead := float32((p.rt - float64(span.From)) / s.rate)
		limit := float32(s.limit)
		travel := s.cfg.Extrapolation.Travel(ahead, limit)
		render.Pos = blend.AddScaled(&span.Pos0, &span.Pos1, travel) // Pos1 holds the velocity
		render.Rot = span.Rot0
		if travel != 0 && s.cfg.Extrapolation.Moving(ahead, limit) {
			render.Flags = c.Visible | c.Extrapolated
		} else {
			render.Flags = c.Visible | c.Held
		}
	case c.SpanStep, c.SpanBefore:
		render.Pos = span.Pos0
		render.Rot = span.Rot0
		render.Flags = c.Visible
	default: // SpanEmpty
		render.Flags = 0
	}
	if span.Flags&c.SpanHidden != 0 {
		render.Flags &^= c.Visible
	}
}

// refresh rebuilds the span from the ring. If new data moved the target of
// an entity already on screen, the jump goes into corr; if the render time
// crossed a discontinuity, the span is marked teleported.
func (s *Interpolate) refresh(q *ecs.Query, p *interpPass, span *c.Span, corr *c.Correction) {
	fc := &p.fc
	shown := span.Mode != c.SpanEmpty && span.Flags&c.SpanHidden == 0
	dirty := span.Flags&c.SpanDirty != 0
	oldFrom, oldMode, oldVel := span.From, span.Mode, span.Pos1
	var before c.Render
	if dirty && shown {
		// What the old span would draw now, knowing only what it knew:
		// a Complete marker that came with this new sample does not mean
		// the entity stood still.
		p.complete = s.lastComplete
		s.eval(p, span, &before)
		p.complete = s.complete
	}

	ring := s.cols.viewOf(q, &span.Ring)
	first := s.rebuild(p, span, &ring)

	if !shown || span.Flags&c.SpanHidden != 0 || span.Mode == c.SpanEmpty {
		return
	}
	if s.crossedCut(&ring, oldFrom, first) {
		span.Flags |= c.SpanTeleported
		fc.teleports++
		return
	}
	if !dirty || s.jumped {
		// After a jump of the clock itself (a suspend) the old drawing is
		// no reference: draw the new target.
		return
	}
	if oldMode == c.SpanPast && before.Flags&(c.Extrapolated|c.Held) != 0 && (span.Mode == c.SpanLerp || span.Mode == c.SpanPast) {
		s.takeUpDeficit(p, span, &ring, oldFrom, &oldVel)
	}
	var after c.Render
	s.eval(p, span, &after)
	d := mgl32.Vec3{before.Pos[0] - after.Pos[0], before.Pos[1] - after.Pos[1], before.Pos[2] - after.Pos[2]}
	rot := blend.Offset(&before.Rot, &after.Rot)
	d2 := blend.LenSq(&d)
	if d2 <= s.minCorr2 && blend.LenSq(&rot) <= 1e-10 {
		return
	}
	if corr.IsZero() {
		fc.corrected++ // a new one
	}
	corr.Pos = mgl32.Vec3{corr.Pos[0] + d[0], corr.Pos[1] + d[1], corr.Pos[2] + d[2]}
	corr.Rot = blend.ComposeOffsets(&corr.Rot, &rot)
	fc.maxCorrSq = max(fc.maxCorrSq, blend.LenSq(&corr.Pos))
	dist := math.Sqrt(float64(d2))
	fc.corrections++
	fc.corrDist += dist
	fc.corrMax = math.Max(fc.corrMax, dist)
}

// takeUpDeficit continues an entity that was extrapolating (or holding at
// the limit for less than a send interval) while the stream brought newer
// ticks for others, and whose real samples now arrived (from: the sample
// it extrapolated from, vel: along what), from where it is drawn along its
// true path: the extrapolation policy travelled less than the time that
// passed (Coast eases to a stop), so the entity's render time falls
// behind by the difference, as a lag (within MaxLag) that slewLag then
// works off at no more than 1.4 times its speed. Only what the policy got
// wrong about the path is left to Correction. Without it, the whole
// distance the extrapolation fell behind became a correction, closed at
// Smooth's rate on top of the entity's full speed: a visible sprint after
// every lost sample. Not taken: when the whole stream stopped (an outage:
// catching up quickly matters more there, and the clock does its own);
// when its new samples are still more than a tick behind the stream (it
// has not caught up: it waited for the stream's delay, not for a loss of
// its own); when the clock held still since the entity's sample (arrivals
// came far later than the clock expected: every entity waited, not this
// one alone; a single sample far ahead of the stream, from a hostile
// server, does that); below minDeficit; or where the new samples turn
// away from the velocity extrapolated along (the entity would run through
// the turn again).
func (s *Interpolate) takeUpDeficit(p *interpPass, span *c.Span, ring *c.Ring, from uint32, vel *mgl32.Vec3) {
	ahead := float32((p.rt - float64(from)) / s.rate)
	newest, _ := ring.Head.NewestTick()
	if from >= s.newestBefore || newest+1 < s.newestBefore || s.heldAt > float64(from) || float64(ahead) > s.limit+s.sendInterval {
		return
	}
	deficit := float64(ahead-s.cfg.Extrapolation.Travel(ahead, float32(s.limit))) * s.rate
	lag := min(deficit, float64(s.maxLag-span.Lag))
	if !(lag >= minDeficit) {
		return // a correction closes it as gently as a lag would
	}
	rt := p.rt
	span.Lag += float32(lag)
	p.rt -= lag
	s.rebuild(p, span, ring)
	dir := span.Pos1 // a Past span's velocity
	if span.Mode == c.SpanLerp {
		dir = span.Pos1.Sub(span.Pos0)
	}
	if dot := vel.Dot(dir); dot <= 0 || dot*dot < turnCos2*blend.LenSq(vel)*blend.LenSq(&dir) || span.Mode != c.SpanLerp && span.Mode != c.SpanPast {
		span.Lag -= float32(lag)
		p.rt = rt
		s.rebuild(p, span, ring)
	}
}

// minDeficit is the smallest deficit, in ticks, that takeUpDeficit takes
// as a lag. Smooth closes a correction of d ticks' worth of motion at
// first about 0.7·d times as fast as the entity moves (at its default
// rate), and a lag shrinks at no less than 5% of the speed: below a tenth
// of a tick, the correction is the gentler.
const minDeficit = 0.1

// turnCos2 is the square of the cosine of the largest angle between the
// extrapolated and the real direction of motion that takeUpDeficit takes
// for no turn (about 18 degrees).
const turnCos2 = 0.9

// rebuild points the span at the samples that bracket the render time and
// returns the ring index of its first sample (-1 if none).
func (s *Interpolate) rebuild(p *interpPass, span *c.Span, ring *c.Ring) int {
	span.Flags &^= c.SpanDirty | c.SpanHidden
	head := ring.Head
	n := ring.Len()
	if n == 0 {
		span.Mode = c.SpanEmpty
		return -1
	}
	i := ring.Search(p.rt)
	switch {
	case i < 0:
		a := ring.At(0)
		span.Mode = c.SpanBefore
		span.From, span.To, span.ToPhys = a.Tick, a.Tick, uint8(head.Phys(0))
		span.Pos0, span.Rot0, span.State, span.Epoch1 = a.Pos, a.Rot, a.State, a.Epoch
		if a.Flags&c.Spawn != 0 {
			span.Flags |= c.SpanHidden
		}
		return 0
	case i == n-1:
		a := ring.At(i)
		span.Mode = c.SpanPast
		span.From, span.To, span.ToPhys = a.Tick, a.Tick, uint8(head.Phys(i))
		span.Pos0, span.Rot0, span.State, span.Epoch1 = a.Pos, a.Rot, a.State, a.Epoch
		span.Pos1 = s.velocity(ring, i)
		return i
	}
	a, b := ring.At(i), ring.At(i+1)
	span.From, span.To, span.ToPhys = a.Tick, b.Tick, uint8(head.Phys(i+1))
	span.Inv = 1 / float32(b.Tick-a.Tick)
	span.Pos0, span.Pos1 = a.Pos, b.Pos
	span.Rot0 = a.Rot
	span.Rot1 = blend.Align(&a.Rot, &b.Rot)
	span.State, span.State1, span.Epoch1 = a.State, b.State, b.Epoch
	if s.isCut(a, b) {
		span.Mode = c.SpanStep
	} else {
		span.Mode = c.SpanLerp
	}
	return i
}

// velocity returns the extrapolation velocity at ring index i: the sample's
// own, or the slope from the previous sample when it carries none and no
// discontinuity lies between them.
func (s *Interpolate) velocity(ring *c.Ring, i int) mgl32.Vec3 {
	a := ring.At(i)
	if a.Flags&c.HasVelocity != 0 {
		return a.Vel
	}
	if i == 0 {
		return mgl32.Vec3{}
	}
	p := ring.At(i - 1)
	if s.isCut(p, a) {
		return mgl32.Vec3{}
	}
	k := float32(s.rate / float64(a.Tick-p.Tick))
	return mgl32.Vec3{(a.Pos[0] - p.Pos[0]) * k, (a.Pos[1] - p.Pos[1]) * k, (a.Pos[2] - p.Pos[2]) * k}
}

// isCut reports whether a discontinuity separates consecutive samples a
// and b.
func (s *Interpolate) isCut(a, b *c.Sample) bool {
	return b.Flags&c.Cut != 0 || a.Epoch != b.Epoch || s.farApart(&a.Pos, &b.Pos)
}

// farApart reports whether two consecutive positions are further apart than
// the teleport distance.
func (s *Interpolate) farApart(a, b *mgl32.Vec3) bool {
	return blend.DistSq(a, b) > s.teleport2
}

// crossedCut reports whether a discontinuity lies between the sample the
// span started at before (tick oldFrom) and the one it starts at now (ring
// index first).
func (s *Interpolate) crossedCut(ring *c.Ring, oldFrom uint32, first int) bool {
	for k := first; k > 0; k-- {
		b := ring.At(k)
		if b.Tick <= oldFrom {
			return false
		}
		if s.isCut(ring.At(k-1), b) {
			return true
		}
	}
	return false
}

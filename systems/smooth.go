package systems

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/blend"
	c "github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/timeline"
)

// SmoothConfig sets up the [Smooth] system. A zero field means its
// default (see [DefaultSmoothConfig]).
type SmoothConfig struct {
	// PerTick is the fraction of the remaining correction closed every
	// server tick (0.5, the default, closes half the gap per tick; 1 draws
	// the target at once). Smooth converts it with the pipeline's tick
	// rate into a decay per second, so the result does not depend on the
	// frame rate: after t seconds a fraction (1-PerTick)^(t*TickRate)
	// remains.
	PerTick float64
	// Epsilon is the position offset, in world units, below which a
	// correction is considered finished and cleared; 0.001 by default.
	Epsilon float32
	// RotEpsilon is the rotation offset, in radians, below which a rotation
	// correction is cleared; 0.0001 by default.
	RotEpsilon float32
	// MotionShare is how much an absorbed offset ([c.Absorb]: a predicted
	// entity's small errors while it moves, the jump of a switch between
	// interpolated and predicted drawing) may change an entity's drawn
	// motion: each frame the offset shrinks by at most this fraction of
	// the distance the entity's target moved in that frame. 0.25, the
	// default, draws the entity between 0.75 and 1.25 times its own speed
	// until the offset is gone, which reads as motion, not as a correction.
	// Once the target stands still (two frames without motion), the rest
	// decays like a correction.
	MotionShare float64
}

// rateFromAlpha converts "close a fraction alpha of the remaining gap every
// tick", at tickRate ticks per second, into a decay rate per second. At
// frames of exactly one tick the two are identical; at any other frame rate
// the rate gives the same decay per second.
func rateFromAlpha(alpha, tickRate float64) float64 {
	if !(alpha > 0) {
		return 0
	}
	if alpha >= 1 {
		return math.Inf(1)
	}
	return -math.Log(1-alpha) * tickRate
}

// DefaultSmoothConfig returns the defaults a zero SmoothConfig stands
// for: half of the remaining correction closed per tick (a half-life of
// one tick, 50 ms at 20 Hz, as a typical reconciliation smoothing factor),
// cleared below 0.001 units and 0.0001 rad; absorbed offsets change the
// drawn speed by at most a quarter.
func DefaultSmoothConfig() SmoothConfig {
	return SmoothConfig{PerTick: 0.5, Epsilon: 1e-3, RotEpsilon: 1e-4, MotionShare: 0.25}
}

// WithDefaults returns cfg with every zero field set to its default.
func (cfg SmoothConfig) WithDefaults() SmoothConfig {
	d := DefaultSmoothConfig()
	cfg.PerTick = or(cfg.PerTick, d.PerTick)
	cfg.Epsilon = or(cfg.Epsilon, d.Epsilon)
	cfg.RotEpsilon = or(cfg.RotEpsilon, d.RotEpsilon)
	cfg.MotionShare = or(cfg.MotionShare, d.MotionShare)
	return cfg
}

// Validate reports the first setting that is out of range, its defaults
// filled in first.
func (cfg *SmoothConfig) Validate() error {
	d := cfg.WithDefaults()
	switch {
	case !(d.PerTick > 0 && d.PerTick <= 1):
		return fmt.Errorf("systems: SmoothConfig.PerTick must be a fraction in (0, 1], got %v: leave it zero for 0.5", cfg.PerTick)
	case !(d.Epsilon > 0) || !(d.RotEpsilon > 0):
		return fmt.Errorf("systems: SmoothConfig.Epsilon and RotEpsilon must be positive, got %v and %v: leave them zero for the defaults", cfg.Epsilon, cfg.RotEpsilon)
	case !(d.MotionShare > 0 && d.MotionShare <= 1):
		return fmt.Errorf("systems: SmoothConfig.MotionShare must be a fraction in (0, 1], got %v: leave it zero for 0.25", cfg.MotionShare)
	}
	return nil
}

// Smooth is the last system of a frame. It decays every entity's
// [c.Correction] geometrically and draws target + correction: Render holds
// the target when Smooth runs (written by Interpolate or the prediction
// systems, and left alone by Snap) and the drawn value after. An entity
// with an [c.Absorb] offset (every predicted entity, and one that switched
// between interpolated and predicted drawing) is drawn with that offset
// too, shrunk in step with the target's own motion
// (SmoothConfig.MotionShare); a teleport or snap drops it.
//
// A correction written by game code on a remote or predicted entity is
// smoothed like netsmooth's own; on frames where the frame's signals say no
// entity drawn has a correction, Smooth returns at once.
type Smooth struct {
	cfg SmoothConfig

	clock   *timeline.Clock
	frame   *Frame
	metrics *Metrics
	signals *frameSignals
	filter  *generic.Filter2[c.Correction, c.Render]
	absorbs *generic.Filter3[c.Absorb, c.Render, c.Correction]
	rate    float64 // decay per second
	ready   bool
}

// NewSmooth returns the Smooth system for cfg, or the configuration error.
func NewSmooth(cfg SmoothConfig) (*Smooth, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Smooth{cfg: cfg.WithDefaults()}, nil
}

// Initialize implements the arche-model System interface.
func (s *Smooth) Initialize(w *ecs.World) {
	if s.ready {
		return
	}
	s.clock = mustResource[timeline.Clock](w)
	s.frame = mustResource[Frame](w)
	s.metrics = mustResource[Metrics](w)
	s.signals = sharedResource[frameSignals](w)
	s.rate = rateFromAlpha(s.cfg.PerTick, s.clock.TickRate())
	s.filter = generic.NewFilter2[c.Correction, c.Render]()
	s.filter.Register(w)
	s.absorbs = generic.NewFilter3[c.Absorb, c.Render, c.Correction]()
	s.absorbs.Register(w)
	s.ready = true
}

// decay returns the fraction of a correction that remains after dt seconds.
// It is valid once the system is initialized.
func (s *Smooth) decay(dt float64) float32 {
	if math.IsInf(s.rate, 1) {
		return 0
	}
	return float32(math.Exp(-s.rate * dt))
}

// Update implements the arche-model System interface.
func (s *Smooth) Update(w *ecs.World) {
	s.absorb(w)
	if s.signals.corrections == 0 {
		s.metrics.ActiveCorrections = 0
		return // nothing drawn this frame has a correction
	}
	k := s.decay(s.frame.Dt)
	eps2 := s.cfg.Epsilon * s.cfg.Epsilon
	rotEps := s.cfg.RotEpsilon / 2 // offsets store sin(angle/2) ~ angle/2
	rotEps2 := rotEps * rotEps
	active := 0
	q := s.filter.Query(w)
	for q.Next() {
		corr, render := q.Get()
		if corr.IsZero() {
			continue
		}
		corr.Pos = blend.AddScaled(&zero3, &corr.Pos, k)
		corr.Rot = blend.ScaleOffset(&corr.Rot, k)
		if blend.LenSq(&corr.Pos) <= eps2 && blend.LenSq(&corr.Rot) <= rotEps2 {
			*corr = c.Correction{}
			continue
		}
		active++
		render.Pos = blend.AddScaled(&render.Pos, &corr.Pos, 1)
		render.Rot = blend.ApplyOffset(&corr.Rot, &render.Rot)
	}
	s.metrics.ActiveCorrections = active
}

// absorb draws every entity with an Absorb offset at target + offset,
// shrinking the offset by MotionShare of the target's motion this frame,
// or at the correction rate once the target stands still.
func (s *Smooth) absorb(w *ecs.World) {
	dt := s.frame.Dt
	if !(dt >= 0) || math.IsInf(dt, 0) {
		dt = 0
	}
	share := float32(s.cfg.MotionShare)
	eps2 := s.cfg.Epsilon * s.cfg.Epsilon
	tickDt := 1 / s.clock.TickRate()
	var k float32 = -1 // the correction decay, computed once if needed
	q := s.absorbs.Query(w)
	for q.Next() {
		ab, render, corr := q.Get()
		target := render.Pos
		switch {
		case render.Flags&c.Visible == 0:
			continue // nothing drawn: wait for the target
		case render.Flags&(c.Teleported|c.Snapped) != 0:
			ab.Pos, ab.Pending, ab.Still, ab.Rot = zero3, false, 0, mgl32.Quat{}
		case ab.Pending:
			s.glideRotationFrom(ab, render, corr)
			// The target changed source: keep drawing the entity moving
			// on as it moved until the new target moves (a predicted
			// one, at its first tick) or has had more than a tick to,
			// then the difference between the two becomes the offset.
			// A long frame (a suspended process) moves it on by no more
			// than the wait, so it cannot leave a large offset.
			at := blend.AddScaled(&ab.Drawn, &ab.Vel, float32(min(dt, pendingMotion*tickDt)))
			moved := ab.Wait > 0 && target != ab.Last || float64(ab.Wait) > pendingMotion*tickDt
			ab.Wait += float32(dt)
			if !moved {
				ab.Drawn, ab.Last, render.Pos = at, target, at
				continue
			}
			ab.Pos = mgl32.Vec3{at[0] - target[0], at[1] - target[1], at[2] - target[2]}
			ab.Pending, ab.Still = false, 0
		default:
			step := float32(math.Sqrt(float64(dist2(&target, &ab.Last))))
			if step == 0 {
				ab.Still = min(ab.Still+1, 2)
			} else {
				ab.Still = 0
			}
			if ab.Pos == zero3 {
				break
			}
			if ab.Still >= 2 {
				if k < 0 {
					k = s.decay(dt)
				}
				ab.Pos = blend.AddScaled(&zero3, &ab.Pos, k)
			} else if l := float32(math.Sqrt(float64(blend.LenSq(&ab.Pos)))); l <= share*step {
				ab.Pos = zero3
			} else {
				ab.Pos = blend.AddScaled(&zero3, &ab.Pos, (l-share*step)/l)
			}
			if blend.LenSq(&ab.Pos) <= eps2 {
				ab.Pos = zero3
			}
		}
		ab.Last = target
		render.Pos = blend.AddScaled(&render.Pos, &ab.Pos, 1)
	}
}

// glideRotationFrom makes the difference between the rotation drawn
// before a switch (ab.Rot, if set) and the new target's a correction of
// the entity, for the correction pass that follows to glide away, and
// clears ab.Rot: the new target is drawn from this frame on.
func (s *Smooth) glideRotationFrom(ab *c.Absorb, render *c.Render, corr *c.Correction) {
	if ab.Rot == (mgl32.Quat{}) {
		return
	}
	if rot := blend.Offset(&ab.Rot, &render.Rot); rot != zero3 {
		corr.Rot = blend.ComposeOffsets(&corr.Rot, &rot)
		s.signals.corrections++ // the correction pass must look at it
	}
	ab.Rot = mgl32.Quat{}
}

// pendingMotion is, in server ticks, how long a pending Absorb waits for
// the new target to move, and the most a single frame moves the entity on
// meanwhile.
const pendingMotion = 1.5

// dist2 is the squared distance between a and b.
func dist2(a, b *mgl32.Vec3) float32 {
	dx, dy, dz := a[0]-b[0], a[1]-b[1], a[2]-b[2]
	return dx*dx + dy*dy + dz*dz
}

// Finalize implements the arche-model System interface.
func (s *Smooth) Finalize(w *ecs.World) {
	if s.ready {
		s.absorbs.Unregister(w)
		s.filter.Unregister(w)
		s.ready = false
	}
}

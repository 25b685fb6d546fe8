package systems

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/blend"
	c "github.com/netsmooth/netsmooth/components"
)

var zero3 mgl32.Vec3

// SnapConfig sets up the [Snap] system. A zero field means its default.
type SnapConfig struct {
	// Distance: when what would be drawn is further than this from the
	// target (the correction is longer than Distance), draw the target and
	// drop the correction: gliding that far would look like a slide, not a
	// correction. 20 world units by default; negative: never snap for
	// distance (teleports still snap).
	Distance float32
}

// DefaultSnapConfig returns the default a zero SnapConfig stands for: a
// snap distance of 20 world units, since a correction that large would
// read as a slide, not a correction.
func DefaultSnapConfig() SnapConfig { return SnapConfig{Distance: 20} }

// WithDefaults returns cfg with every zero field set to its default.
func (cfg SnapConfig) WithDefaults() SnapConfig {
	cfg.Distance = or(cfg.Distance, DefaultSnapConfig().Distance)
	return cfg
}

// Validate reports the first setting that is out of range.
func (cfg *SnapConfig) Validate() error {
	if math.IsNaN(float64(cfg.Distance)) || math.IsInf(float64(cfg.Distance), 0) {
		return fmt.Errorf("systems: SnapConfig.Distance must be finite, got %v: leave it zero for 20, or make it negative for none", cfg.Distance)
	}
	return nil
}

// Snap runs after Interpolate and the prediction systems and before Smooth.
// Where the render time crossed a teleport this frame (Render flag
// [c.Teleported]), or a correction is longer than the snap distance, it
// drops the correction, so the entity is drawn at its target, and flags the
// drawing [c.Snapped]. A correction written by game code on a remote or
// predicted entity is snapped like netsmooth's own; on frames where the
// frame's signals say no entity drawn crossed a teleport or has a
// correction longer than Distance, Snap returns at once.
type Snap struct {
	cfg SnapConfig

	metrics *Metrics
	signals *frameSignals
	filter  *generic.Filter2[c.Correction, c.Render]
	ready   bool
}

// NewSnap returns the Snap system for cfg, or the configuration error.
func NewSnap(cfg SnapConfig) (*Snap, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Snap{cfg: cfg.WithDefaults()}, nil
}

// Initialize implements the arche-model System interface.
func (s *Snap) Initialize(w *ecs.World) {
	if s.ready {
		return
	}
	s.metrics = mustResource[Metrics](w)
	s.signals = sharedResource[frameSignals](w)
	s.filter = generic.NewFilter2[c.Correction, c.Render]()
	s.filter.Register(w)
	s.ready = true
}

// Update implements the arche-model System interface.
func (s *Snap) Update(w *ecs.World) {
	d2 := s.cfg.Distance * s.cfg.Distance
	if s.cfg.Distance < 0 {
		d2 = float32(math.Inf(1))
	}
	if s.signals.teleports == 0 && s.signals.maxCorrectionSq <= d2 {
		return // nothing drawn this frame crossed a teleport or corrects that far
	}
	snaps := 0
	q := s.filter.Query(w)
	for q.Next() {
		corr, render := q.Get()
		if render.Flags&c.Teleported == 0 && blend.LenSq(&corr.Pos) <= d2 {
			continue
		}
		*corr = c.Correction{}
		render.Flags |= c.Snapped
		snaps++
	}
	s.metrics.Snaps += uint64(snaps)
}

// Finalize implements the arche-model System interface.
func (s *Snap) Finalize(w *ecs.World) {
	if s.ready {
		s.filter.Unregister(w)
		s.ready = false
	}
}

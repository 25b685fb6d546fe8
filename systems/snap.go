package systems

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/netsmooth/netsmooth/blend"
	c "github.com/netsmooth/netsmooth/components"
)

var zero3 mgl32.Vec3

// SnapConfig sets up the [Snap] system.
type SnapConfig struct {
	// Distance: when what would be drawn is further than this from the
	// target (the correction is longer than Distance), draw the target and
	// drop the correction: gliding that far would look like a slide, not a
	// correction. Zero disables distance snapping.
	Distance float32
}

// DefaultSnapConfig returns seed 003's threshold of 20 world units.
func DefaultSnapConfig() SnapConfig { return SnapConfig{Distance: 20} }

// Validate reports the first setting that is out of range.
func (cfg *SnapConfig) Validate() error {
	if !(cfg.Distance >= 0) || math.IsInf(float64(cfg.Distance), 0) {
		return fmt.Errorf("systems: SnapConfig.Distance must be non-negative, got %v", cfg.Distance)
	}
	return nil
}

// Snap is the last system of a frame. It draws the target itself, with no
// correction, where a correction has grown beyond the snap distance, and
// where the render time crossed a teleport this frame; for teleports it also
// drops the samples from before the teleport. Corrections only grow when
// they are written, so Snap returns at once unless a correction written this
// frame ([Metrics].FrameMaxCorrection) exceeds the distance or a teleport
// happened.
type Snap struct {
	cfg SnapConfig

	metrics *Metrics
	cols    columns
	corr    ecs.ID
	render  ecs.ID
	cached  ecs.CachedFilter
	ready   bool
}

// NewSnap returns the Snap system for cfg, or the configuration error.
func NewSnap(cfg SnapConfig) (*Snap, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Snap{cfg: cfg}, nil
}

// Initialize implements the arche-model System interface.
func (s *Snap) Initialize(w *ecs.World) {
	if s.ready {
		return
	}
	s.metrics = mustResource[Metrics](w)
	s.cols = newColumns(w)
	s.corr = ecs.ComponentID[c.Correction](w)
	s.render = ecs.ComponentID[c.Render](w)
	filter := ecs.All(s.corr, s.render)
	s.cached = w.Cache().Register(&filter)
	s.ready = true
}

// Update implements the arche-model System interface.
func (s *Snap) Update(w *ecs.World) {
	m := s.metrics
	if m.FrameTeleports == 0 && (m.FrameMaxCorrection <= float64(s.cfg.Distance) || s.cfg.Distance == 0) {
		return
	}
	d2 := s.cfg.Distance * s.cfg.Distance
	q := w.Query(&s.cached)
	for q.Next() {
		corr := (*c.Correction)(q.Get(s.corr))
		var span *c.Span
		if q.Has(s.cols.span) {
			span = (*c.Span)(q.Get(s.cols.span))
		}
		teleported := span != nil && span.Flags&c.SpanTeleported != 0
		if teleported {
			span.Flags &^= c.SpanTeleported
			ring := s.cols.viewQ(&q, &span.Ring)
			before := ring.Len()
			ring.DropBefore(span.From)
			m.occupancyMove(before, ring.Len())
		} else if corr.IsZero() || d2 == 0 || blend.LenSq(&corr.Pos) <= d2 {
			continue
		}
		render := (*c.Render)(q.Get(s.render))
		if !corr.IsZero() {
			// Smooth drew target + correction; take the correction back out.
			render.Pos = blend.AddScaled(&render.Pos, &corr.Pos, -1)
			inv := mgl32.Vec3{-corr.Rot[0], -corr.Rot[1], -corr.Rot[2]}
			render.Rot = blend.ApplyOffset(&inv, &render.Rot)
			*corr = c.Correction{}
			m.ActiveCorrections--
		}
		render.Flags |= c.Snapped
		m.Snaps++
	}
}

// Finalize implements the arche-model System interface.
func (s *Snap) Finalize(w *ecs.World) {
	if s.ready {
		w.Cache().Unregister(&s.cached)
		s.ready = false
	}
}

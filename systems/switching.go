package systems

import (
	"errors"
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/netsmooth/netsmooth/blend"
	c "github.com/netsmooth/netsmooth/components"
)

// predictedIDs returns the components an entity predicted by p has beyond
// those of a remote entity (Absorb aside): the Predicted tag, the state,
// the input history and command, and the status.
func (p *Predictor[S, I]) predictedIDs(w *ecs.World) []ecs.ID {
	return []ecs.ID{
		ecs.ComponentID[c.Predicted](w),
		ecs.ComponentID[c.PredictedState[S]](w),
		ecs.ComponentID[c.InputHistory[I]](w),
		ecs.ComponentID[c.InputCommand[I]](w),
		ecs.ComponentID[c.PredictedStatus](w),
	}
}

// PredictEntity switches the remote (interpolated) entity e to prediction
// by p, from state, at the frame the game chooses: a ball the local player
// picks up, a vehicle it enters. From the next frame, e runs p's fixed
// ticks with its own InputCommand (set it like the player's), its inputs
// go to p's Outbox under e's NetID, and authoritative states pushed to
// p's Inbox for e's NetID reconcile it. seq is the sequence number of its
// first input (0 means 1): when one acknowledgement should cover both the
// player and e, pass the player's PredictedStatus.NextSeq; when e was
// predicted before, pass a number beyond its earlier inputs so that late
// acknowledgements of those are refused.
//
// The server's snapshots of e are still stored (so that e can go back to
// interpolation at any time, see [Predictor.InterpolateEntity]), but no
// longer drawn. The jump between the interpolated drawing, a little in
// the past, and the predicted one, a little ahead, is not drawn either: it
// becomes e's [c.Absorb] offset, which Smooth shrinks in step with e's
// motion, so e is drawn at most SmoothConfig.MotionShare faster or slower
// than it moves until the two agree. A rotation difference glides like a
// correction.
//
// Call it on the world's goroutine, outside queries. It refuses an entity
// that is not a live remote entity of the pipeline, one already predicted,
// and a state with a non-finite position or rotation or one beyond MaxAbs.
func (p *Predictor[S, I]) PredictEntity(w *ecs.World, e ecs.Entity, state S, seq uint32) error {
	if !w.Alive(e) {
		return errors.New("systems: PredictEntity: the entity is not alive")
	}
	remote, span := ecs.ComponentID[c.Remote](w), ecs.ComponentID[c.Span](w)
	render, corrID, absorb := ecs.ComponentID[c.Render](w), ecs.ComponentID[c.Correction](w), ecs.ComponentID[c.Absorb](w)
	if !w.Has(e, remote) || !w.Has(e, span) || !w.Has(e, render) || !w.Has(e, corrID) {
		return errors.New("systems: PredictEntity: not a remote entity of the pipeline (spawn a new predicted entity with Predictor.Spawn)")
	}
	ids := p.predictedIDs(w)
	if w.Has(e, ids[0]) {
		return errors.New("systems: PredictEntity: the entity is already predicted")
	}
	if p.check(&state) != accept {
		return errors.New("systems: PredictEntity: the state has a non-finite rotation or a position that is not finite or beyond MaxAbs")
	}
	// What was drawn last frame, and how it moved.
	drawn := *(*c.Render)(w.Get(e, render))
	vel := spanVelocity((*c.Span)(w.Get(e, span)), p.ticks.dt)
	if !w.Has(e, absorb) {
		ids = append(ids, absorb)
	}
	w.Add(e, ids...)
	*(*c.PredictedState[S])(w.Get(e, ids[1])) = c.PredictedState[S]{Current: state, Previous: state}
	// Inputs before the first count as acknowledged: a late state of an
	// earlier prediction of e, acknowledging one of those, is refused.
	*(*c.PredictedStatus)(w.Get(e, ids[4])) = c.PredictedStatus{NextSeq: max(seq, 1), LastAck: max(seq, 1) - 1}
	*(*c.Absorb)(w.Get(e, absorb)) = c.Absorb{Drawn: drawn.Pos, Vel: vel, Pending: true}
	rot := p.sim.rotation(&state)
	*(*c.Correction)(w.Get(e, corrID)) = c.Correction{Rot: blend.Offset(&drawn.Rot, &rot)}
	return nil
}

// InterpolateEntity switches e, predicted by p since [Predictor.PredictEntity],
// back to interpolation from the server's snapshots, at the frame the game
// chooses: the ball has left the player's hands and the snapshots have
// caught up with its flight. Its prediction state, inputs and status are
// removed. The jump between the predicted drawing, a little ahead, and the
// interpolated one, a little in the past, becomes e's [c.Absorb] offset,
// absorbed in step with e's motion as after PredictEntity; a rotation
// difference glides like a correction, from the first frame the
// snapshots are drawn.
//
// Call it on the world's goroutine, outside queries. It refuses an entity
// p does not predict, and one p spawned with [Predictor.Spawn], which has
// no snapshots to interpolate (remove that one with w.RemoveEntity).
func (p *Predictor[S, I]) InterpolateEntity(w *ecs.World, e ecs.Entity) error {
	if !w.Alive(e) {
		return errors.New("systems: InterpolateEntity: the entity is not alive")
	}
	ids := p.predictedIDs(w)
	if !w.Has(e, ids[0]) || !w.Has(e, ids[1]) {
		return fmt.Errorf("systems: InterpolateEntity: the entity is not predicted by this predictor")
	}
	span := ecs.ComponentID[c.Span](w)
	if !w.Has(e, ecs.ComponentID[c.Remote](w)) || !w.Has(e, span) {
		return errors.New("systems: InterpolateEntity: the entity has no snapshots to interpolate (spawned by Predictor.Spawn)")
	}
	drawn := *(*c.Render)(w.Get(e, ecs.ComponentID[c.Render](w)))
	st := (*c.PredictedState[S])(w.Get(e, ids[1]))
	var vel mgl32.Vec3
	if p.ticks.dt > 0 {
		p0, p1 := p.sim.Position(&st.Previous), p.sim.Position(&st.Current)
		vel = blend.AddScaled(&zero3, &mgl32.Vec3{p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]}, float32(1/p.ticks.dt))
	}
	w.Remove(e, ids...)
	*(*c.Absorb)(w.Get(e, ecs.ComponentID[c.Absorb](w))) = c.Absorb{Drawn: drawn.Pos, Vel: vel, Rot: drawn.Rot, Pending: true}
	*(*c.Correction)(w.Get(e, ecs.ComponentID[c.Correction](w))) = c.Correction{}
	// Rebuild the bracket at the render time of the next frame, as for an
	// entity with nothing drawn yet, so that Interpolate adds no
	// correction of its own: the jump is absorbed instead.
	sp := (*c.Span)(w.Get(e, span))
	sp.Mode = c.SpanEmpty
	sp.Flags |= c.SpanDirty
	return nil
}

// spanVelocity is the velocity, in units per second, at which a span draws
// its entity: between two samples, their difference over their ticks;
// extrapolating, the velocity it carries.
func spanVelocity(s *c.Span, tickDt float64) mgl32.Vec3 {
	switch {
	case s.Mode == c.SpanLerp && tickDt > 0:
		return blend.AddScaled(&zero3, &mgl32.Vec3{s.Pos1[0] - s.Pos0[0], s.Pos1[1] - s.Pos0[1], s.Pos1[2] - s.Pos0[2]}, float32(float64(s.Inv)/tickDt))
	case s.Mode == c.SpanPast:
		return s.Pos1
	}
	return mgl32.Vec3{}
}

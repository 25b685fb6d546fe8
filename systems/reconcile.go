package systems

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/blend"
	c "github.com/netsmooth/netsmooth/components"
)

// Reconcile is the system that applies the server's authoritative states to
// predicted entities, after Receive, Timeline and Retire. For each state it
//
//   - ignores it if its acknowledgement is older than one already processed
//     (reordered or stale; counted as RejectStale), or repeats it
//     (RejectDuplicate);
//   - drops the acknowledged inputs and replays the pending ones, with the
//     game's deterministic Step, from the authoritative state;
//   - takes the replayed state as the prediction at once (the simulation
//     must stay exact, so a mispredicted entity ends where the server has
//     it), and hides the visual difference: an error within the dead zone
//     while the server moves the entity (its position changed since the
//     previous state) is absorbed into its motion ([c.Absorb]); any other
//     goes into its Correction for Smooth to glide away; beyond the
//     hard-cut distance the drawing jumps too.
//
// The outcome is reported in the entity's [c.PredictedStatus].Last and counted in
// [Metrics].
type Reconcile[S, I any] struct {
	p       *Predictor[S, I]
	index   *Index
	metrics *Metrics
	comps   generic.Map5[c.PredictedState[S], c.InputHistory[I], c.PredictedStatus, c.Correction, c.Absorb]
	buf     []Authoritative[S]
	// Replay scratch: the game's Position takes a pointer, which escapes
	// through the function value, so these live here rather than on the
	// stack (no allocation per reconciliation).
	cur, prev   S
	stateID     ecs.ID
	predictedID ecs.ID
	ready       bool
}

// Initialize implements the arche-model System interface.
func (s *Reconcile[S, I]) Initialize(w *ecs.World) {
	if s.ready {
		return
	}
	s.index = mustResource[Index](w)
	s.metrics = mustResource[Metrics](w)
	s.comps = generic.NewMap5[c.PredictedState[S], c.InputHistory[I], c.PredictedStatus, c.Correction, c.Absorb](w)
	s.stateID = ecs.ComponentID[c.PredictedState[S]](w)
	s.predictedID = ecs.ComponentID[c.Predicted](w)
	s.ready = true
}

// Update implements the arche-model System interface.
func (s *Reconcile[S, I]) Update(w *ecs.World) {
	msgs, dropped := s.p.inbox.q.drain(s.buf)
	s.metrics.Rejected[RejectInboxFull] += dropped
	for i := range msgs {
		s.apply(w, &msgs[i])
	}
	clear(msgs) // do not keep the game's states alive through the buffer
	s.buf = msgs
}

// Finalize implements the arche-model System interface.
func (s *Reconcile[S, I]) Finalize(w *ecs.World) {}

// apply reconciles the predicted entity a is for with a, or refuses a and
// counts why.
func (s *Reconcile[S, I]) apply(w *ecs.World, a *Authoritative[S]) {
	m := s.metrics
	e, reason := s.predictedEntity(w, a)
	if reason != accept {
		m.reject(reason)
		return
	}
	st, hist, pred, corr, ab := s.comps.Get(e)
	if reason := ackOrder(pred, a.Ack, a.Tick); reason != accept {
		m.reject(reason)
		return
	}
	n := s.replay(hist, a)
	if n == 0 {
		// Nothing left to replay (a server that answers before the next
		// prediction tick): a's state is the newest prediction's, and the
		// state a tick before it is still the one predicted, so that the
		// drawing keeps moving between them rather than standing still
		// until the next tick.
		s.prev = st.Previous
	}
	if reason := s.p.steps(&s.cur); reason != accept {
		// The game's Step produced garbage from this state: keep the
		// prediction rather than draw it.
		m.reject(reason)
		return
	}
	report, errDist, serverMoves := s.record(a, st, pred, n)
	// The simulation always continues from the replayed state: it must be
	// exact, and an error left standing would never settle. What differs
	// is how the drawing hides the difference.
	s.takeReplayed(st, corr, ab, &report, errDist, serverMoves)
	pred.Last = report
}

// predictedEntity returns the entity a is for, or why a is refused: a
// predicted entity is one Spawn made, or a remote one switched to
// prediction (PredictEntity), whose index entry stays remote; it must
// belong to this predictor, and a's state must be valid.
func (s *Reconcile[S, I]) predictedEntity(w *ecs.World, a *Authoritative[S]) (ecs.Entity, RejectReason) {
	entry := s.index.get(a.NetID)
	if !entry.state.alive() || !w.Alive(entry.entity) || !w.Has(entry.entity, s.predictedID) {
		return ecs.Entity{}, RejectUnknown
	}
	if !w.Has(entry.entity, s.stateID) {
		return ecs.Entity{}, RejectOtherPredictor // the entity of a predictor with another state type
	}
	if reason := s.p.steps(&a.State); reason != accept {
		return ecs.Entity{}, reason
	}
	return entry.entity, accept
}

// ackOrder refuses a state of server tick tick acknowledging input ack
// that acknowledges an input never sent, is older than the last one
// processed (reordered or stale), or repeats it.
func ackOrder(pred *c.PredictedStatus, ack, tick uint32) RejectReason {
	switch {
	case ack >= pred.NextSeq:
		return RejectFuture // acknowledges an input never sent
	case ack < pred.LastAck || pred.Acked && ack == pred.LastAck && tick < pred.LastAuthTick:
		return RejectStale
	case pred.Acked && ack == pred.LastAck && tick == pred.LastAuthTick:
		return RejectDuplicate
	}
	return accept
}

// replay drops the inputs a acknowledges and replays the ones the server
// has not seen yet on top of a's state, into s.cur (and s.prev one tick
// before; a's state itself when there is none to replay). It returns how
// many it replayed.
func (s *Reconcile[S, I]) replay(hist *c.InputHistory[I], a *Authoritative[S]) int {
	hist.DropThrough(a.Ack)
	sim, dt := &s.p.sim, s.p.ticks.dt
	s.cur, s.prev = a.State, a.State
	n := hist.Len()
	for i := 0; i < n; i++ {
		s.prev = s.cur
		s.cur = sim.Step(s.cur, hist.At(i).Input, dt)
	}
	return n
}

// record notes the accepted state a in pred and in Metrics, and returns the
// reconciliation's report, the distance between the replayed and the
// predicted position, and whether the server moves the entity: whether its
// position changed since the last state processed (after the first state
// alone, it may).
func (s *Reconcile[S, I]) record(a *Authoritative[S], st *c.PredictedState[S], pred *c.PredictedStatus, n int) (c.ReconcileReport, float64, bool) {
	sim, m := &s.p.sim, s.metrics
	newPos, oldPos := sim.Position(&s.cur), sim.Position(&st.Current)
	m.Accepted++
	authPos := sim.Position(&a.State)
	serverMoves := !pred.Acked || authPos != pred.AuthPos
	pred.LastAck, pred.LastAuthTick, pred.Acked, pred.AuthPos = a.Ack, a.Tick, true, authPos
	errDist := dist64(&newPos, &oldPos)
	m.Reconciles++
	m.InputsReplayed += uint64(n)
	m.PredictionError = errDist
	m.MaxPredictionError = math.Max(m.MaxPredictionError, errDist)
	return c.ReconcileReport{Tick: a.Tick, Ack: a.Ack, Error: float32(errDist), Replayed: uint16(n)}, errDist, serverMoves
}

// takeReplayed makes the replayed states (s.cur, s.prev) the prediction st
// and hides the visual difference: none if the drawing is the same; beyond
// the hard-cut distance, none either (the drawing jumps); after a switch
// to prediction, Smooth measures it; otherwise the rotation's glides as a
// Correction and the position's is absorbed or glided
// (hidePositionDifference).
func (s *Reconcile[S, I]) takeReplayed(st *c.PredictedState[S], corr *c.Correction, ab *c.Absorb, report *c.ReconcileReport, errDist float64, serverMoves bool) {
	if errDist == 0 && s.sameDrawing(st) {
		// The common case: the prediction was right, nothing to hide.
		st.Current, st.Previous = s.cur, s.prev
		return
	}
	m, alpha := s.metrics, s.p.ticks.alpha
	beforePos, beforeRot := s.p.drawn(st, alpha)
	st.Current, st.Previous = s.cur, s.prev
	report.Corrected = errDist > 0
	if errDist > float64(s.p.cfg.HardCutDistance) {
		if report.Replayed == 0 {
			// The previous state kept from the prediction would draw a
			// slide to the server's: a hard cut jumps.
			st.Previous = st.Current
		}
		report.HardCut = true
		m.HardCuts++
		*corr = c.Correction{}
		ab.Pos, ab.Pending, ab.Last = zero3, false, s.p.sim.Position(&s.cur)
		return
	}
	afterPos, afterRot := s.p.drawn(st, alpha)
	if ab.Pending {
		// Just switched to prediction: the next Smooth measures the
		// whole jump from where the entity was drawn.
		return
	}
	d := mgl32.Vec3{beforePos[0] - afterPos[0], beforePos[1] - afterPos[1], beforePos[2] - afterPos[2]}
	// The target moved by -d without moving the entity: keep that out of
	// the motion Smooth measures.
	ab.Last = mgl32.Vec3{ab.Last[0] - d[0], ab.Last[1] - d[1], ab.Last[2] - d[2]}
	if rot := blend.Offset(&beforeRot, &afterRot); rot != zero3 {
		corr.Rot = blend.ComposeOffsets(&corr.Rot, &rot)
	}
	if d == zero3 {
		return
	}
	s.hidePositionDifference(d, corr, ab, report, errDist, serverMoves)
	dist := dist64(&beforePos, &afterPos)
	m.Corrections++
	m.FrameCorrections++
	m.CorrectionDistance += dist
	m.MaxCorrection = math.Max(m.MaxCorrection, dist)
}

// hidePositionDifference hides the drawn position's jump d (the previous
// target minus the new one): absorbed into the entity's motion for a small
// error while the server moves it, glided as a Correction otherwise.
func (s *Reconcile[S, I]) hidePositionDifference(d mgl32.Vec3, corr *c.Correction, ab *c.Absorb, report *c.ReconcileReport, errDist float64, serverMoves bool) {
	dz := max(s.p.cfg.DeadZone, 0) // negative: nothing is absorbed
	sum := mgl32.Vec3{ab.Pos[0] + d[0], ab.Pos[1] + d[1], ab.Pos[2] + d[2]}
	absorbed := blend.LenSq(&ab.Pos)
	switch {
	case errDist <= float64(dz) && serverMoves && blend.LenSq(&sum) <= max(dz*dz, absorbed):
		// A small error of a moving entity: absorbed into its motion,
		// never growing the offset beyond the dead zone (or beyond what
		// a switch left to absorb).
		ab.Pos = sum
		report.Absorbed = true
	default:
		corr.Pos = mgl32.Vec3{corr.Pos[0] + d[0], corr.Pos[1] + d[1], corr.Pos[2] + d[2]}
		if !serverMoves && absorbed <= dz*dz {
			// The server holds the entity still: what was absorbed
			// within the dead zone settles now too (a larger offset a
			// switch left keeps shrinking with the motion).
			corr.Pos = mgl32.Vec3{corr.Pos[0] + ab.Pos[0], corr.Pos[1] + ab.Pos[1], corr.Pos[2] + ab.Pos[2]}
			ab.Pos = zero3
		}
	}
}

// sameDrawing reports whether the replayed states (s.cur, s.prev) draw
// exactly as the prediction st does, given that their current positions
// are equal: their previous positions, and all rotations, are too.
func (s *Reconcile[S, I]) sameDrawing(st *c.PredictedState[S]) bool {
	sim := &s.p.sim
	if sim.Position(&s.prev) != sim.Position(&st.Previous) {
		return false
	}
	return sim.Rotation == nil ||
		sim.Rotation(&s.cur) == sim.Rotation(&st.Current) && sim.Rotation(&s.prev) == sim.Rotation(&st.Previous)
}

// dist64 is the distance between a and b computed in float64, so that no
// coordinates within MaxAbs can overflow it.
func dist64(a, b *mgl32.Vec3) float64 {
	dx, dy, dz := float64(a[0])-float64(b[0]), float64(a[1])-float64(b[1]), float64(a[2])-float64(b[2])
	return math.Sqrt(dx*dx + dy*dy + dz*dz)
}

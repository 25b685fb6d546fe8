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
//   - compares the replayed state with the prediction. Within the dead zone
//     nothing changes. Otherwise the simulation takes the replayed state at
//     once (it must stay exact), and the visual difference goes into the
//     entity's Correction for Smooth to glide away; beyond the hard-cut
//     distance the drawing jumps too.
//
// The outcome is reported in the entity's [c.PredictedStatus].Last and counted in
// [Metrics].
type Reconcile[S, I any] struct {
	p       *Predictor[S, I]
	index   *Index
	metrics *Metrics
	comps   generic.Map4[c.PredictedState[S], c.InputHistory[I], c.PredictedStatus, c.Correction]
	buf     []Authoritative[S]
	// Replay scratch: the game's Position takes a pointer, which escapes
	// through the function value, so these live here rather than on the
	// stack (no allocation per reconciliation).
	cur, prev S
	stateID   ecs.ID
	ready     bool
}

// Initialize implements the arche-model System interface.
func (s *Reconcile[S, I]) Initialize(w *ecs.World) {
	if s.ready {
		return
	}
	s.index = mustResource[Index](w)
	s.metrics = mustResource[Metrics](w)
	s.comps = generic.NewMap4[c.PredictedState[S], c.InputHistory[I], c.PredictedStatus, c.Correction](w)
	s.stateID = ecs.ComponentID[c.PredictedState[S]](w)
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

func (s *Reconcile[S, I]) apply(w *ecs.World, a *Authoritative[S]) {
	m := s.metrics
	entry := s.index.get(a.NetID)
	if entry.state != entryPredicted || !w.Alive(entry.entity) {
		m.reject(RejectUnknown)
		return
	}
	if !w.Has(entry.entity, s.stateID) {
		m.reject(RejectOtherPredictor) // the entity of a predictor with another state type
		return
	}
	sim := &s.p.sim
	if reason := s.p.steps(&a.State); reason != accept {
		m.reject(reason)
		return
	}
	st, hist, pred, corr := s.comps.Get(entry.entity)
	switch {
	case a.Ack >= pred.NextSeq:
		m.reject(RejectFuture) // acknowledges an input never sent
		return
	case pred.Acked && (a.Ack < pred.LastAck || a.Ack == pred.LastAck && a.Tick < pred.LastAuthTick):
		m.reject(RejectStale)
		return
	case pred.Acked && a.Ack == pred.LastAck && a.Tick == pred.LastAuthTick:
		m.reject(RejectDuplicate)
		return
	}
	// Replay the inputs the server has not seen yet.
	hist.DropThrough(a.Ack)
	dt := s.p.ticks.dt
	s.cur, s.prev = a.State, a.State
	n := hist.Len()
	for i := 0; i < n; i++ {
		s.prev = s.cur
		s.cur = sim.Step(s.cur, hist.At(i).Input, dt)
	}
	if reason := s.p.steps(&s.cur); reason != accept {
		// The game's Step produced garbage from this state: keep the
		// prediction rather than draw it.
		m.reject(reason)
		return
	}
	newPos, oldPos := sim.Position(&s.cur), sim.Position(&st.Current)
	m.Accepted++
	pred.LastAck, pred.LastAuthTick, pred.Acked = a.Ack, a.Tick, true
	errDist := dist64(&newPos, &oldPos)
	report := c.ReconcileReport{Tick: a.Tick, Ack: a.Ack, Error: float32(errDist), Replayed: uint16(n)}
	m.Reconciles++
	m.InputsReplayed += uint64(n)
	m.PredictionError = errDist
	m.MaxPredictionError = math.Max(m.MaxPredictionError, errDist)

	if errDist <= float64(s.p.cfg.DeadZone) {
		pred.Last = report
		return
	}
	alpha := s.p.ticks.alpha
	beforePos, beforeRot := s.p.drawn(st, alpha)
	st.Current, st.Previous = s.cur, s.prev
	if errDist > float64(s.p.cfg.HardCutDistance) {
		report.HardCut = true
		m.HardCuts++
		*corr = c.Correction{}
		pred.Last = report
		return
	}
	afterPos, afterRot := s.p.drawn(st, alpha)
	d := mgl32.Vec3{beforePos[0] - afterPos[0], beforePos[1] - afterPos[1], beforePos[2] - afterPos[2]}
	rot := blend.Offset(&beforeRot, &afterRot)
	corr.Pos = mgl32.Vec3{corr.Pos[0] + d[0], corr.Pos[1] + d[1], corr.Pos[2] + d[2]}
	corr.Rot = blend.ComposeOffsets(&corr.Rot, &rot)
	report.Corrected = true
	pred.Last = report
	dist := dist64(&beforePos, &afterPos)
	m.Corrections++
	m.FrameCorrections++
	m.CorrectionDistance += dist
	m.MaxCorrection = math.Max(m.MaxCorrection, dist)
}

// dist64 is the distance between a and b computed in float64, so that no
// coordinates within MaxAbs can overflow it.
func dist64(a, b *mgl32.Vec3) float64 {
	dx, dy, dz := float64(a[0])-float64(b[0]), float64(a[1])-float64(b[1]), float64(a[2])-float64(b[2])
	return math.Sqrt(dx*dx + dy*dy + dz*dz)
}

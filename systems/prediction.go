package systems

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/blend"
	c "github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/timeline"
)

// Simulation is the game's deterministic movement code for a predicted
// entity with state type S and input type I. The same Step is used to
// predict ahead and to replay unacknowledged inputs on top of an
// authoritative state, so it must give the same result for the same
// arguments every time (no wall clock, no global random state).
type Simulation[S, I any] struct {
	// Step returns the state one tick of dt seconds after s under input in.
	Step func(s S, in I, dt float64) S
	// Position returns where s is, in world units: what is drawn and what
	// reconciliation errors are measured on.
	Position func(s *S) mgl32.Vec3
	// Rotation returns the rotation of s. Nil means the identity; the
	// result is normalised, and a zero or non-finite quaternion counts as
	// the identity.
	Rotation func(s *S) mgl32.Quat
}

func (sim *Simulation[S, I]) validate() error {
	if sim.Step == nil || sim.Position == nil {
		return errors.New("systems: Simulation needs Step and Position functions")
	}
	return nil
}

func (sim *Simulation[S, I]) rotation(s *S) mgl32.Quat {
	if sim.Rotation == nil {
		return mgl32.Quat{W: 1}
	}
	q := sim.Rotation(s)
	if plainRotation(&q) && !zeroQuat(&q) {
		return q
	}
	if u, ok := blend.Normalize(q); ok {
		return u
	}
	return mgl32.Quat{W: 1}
}

// PredictConfig sets up prediction and reconciliation. A zero field means
// its default (see [DefaultPredictConfig]). The simulation steps at the
// pipeline's tick rate (ecs.Config.TickRate, which the clock resource
// holds): render frames run as many fixed ticks as their time covers, at
// any frame rate.
type PredictConfig struct {
	// MaxTicksPerFrame caps the ticks a single frame may run (the
	// spiral-of-death guard): time beyond it is dropped and counted in
	// Metrics.SkippedTicks. 8 by default.
	MaxTicksPerFrame int
	// InputCapacity is how many unacknowledged inputs may be pending (at
	// most components.MaxPendingInputs; 128 by default). When it is
	// reached, prediction pauses, counted in Metrics.InputOverflows, until
	// the server acknowledges: an input that could not be replayed must
	// not be applied.
	InputCapacity int
	// DeadZone, in world units (0.5 by default), decides how the visual
	// difference of a reconciliation is hidden; the simulation always takes
	// the replayed state, so a predicted entity ends exactly where the
	// server has it. An error up to this distance, while the server has
	// the entity moving (its position changed since the previous state),
	// is absorbed into its motion (components.Absorb: drawn a little
	// faster or slower, never jerked); any other error, and every error
	// of an entity the server holds still (against a wall the client does
	// not know, or at rest), goes into its Correction and glides away at
	// the Smooth rate. Negative: nothing is absorbed, every error is
	// glided.
	DeadZone float32
	// HardCutDistance, in world units: an error beyond this distance is
	// not smoothed; the entity is drawn at the replayed state at once (20
	// by default).
	HardCutDistance float32
	// InboxCapacity bounds the authoritative states waiting between frames
	// (1024 by default).
	InboxCapacity int
	// MaxAbs bounds every coordinate of a predicted position, authoritative
	// or stepped: states beyond it are refused (RejectInvalid for
	// authoritative states; a Step result is discarded and counted in
	// Metrics.BadSteps), so no distance computed from them can overflow.
	// 1e9 by default.
	MaxAbs float32
}

// DefaultPredictConfig returns the defaults a zero PredictConfig stands
// for: at most 8 ticks per frame, 128 pending inputs, a dead zone of 0.5
// and hard cut beyond 20 units.
func DefaultPredictConfig() PredictConfig {
	return PredictConfig{
		MaxTicksPerFrame: 8,
		InputCapacity:    128,
		DeadZone:         0.5,
		HardCutDistance:  20,
		InboxCapacity:    1024,
		MaxAbs:           1e9,
	}
}

// WithDefaults returns cfg with every zero field set to its default.
func (cfg PredictConfig) WithDefaults() PredictConfig {
	d := DefaultPredictConfig()
	cfg.MaxTicksPerFrame = or(cfg.MaxTicksPerFrame, d.MaxTicksPerFrame)
	cfg.InputCapacity = or(cfg.InputCapacity, d.InputCapacity)
	cfg.DeadZone = or(cfg.DeadZone, d.DeadZone)
	cfg.HardCutDistance = or(cfg.HardCutDistance, d.HardCutDistance)
	cfg.InboxCapacity = or(cfg.InboxCapacity, d.InboxCapacity)
	cfg.MaxAbs = or(cfg.MaxAbs, d.MaxAbs)
	return cfg
}

// Validate reports the first setting that is out of range, its defaults
// filled in first.
func (cfg *PredictConfig) Validate() error {
	d := cfg.WithDefaults()
	switch {
	case d.MaxTicksPerFrame < 0:
		return fmt.Errorf("systems: PredictConfig.MaxTicksPerFrame must be positive, got %d: leave it zero for 8", cfg.MaxTicksPerFrame)
	case d.InputCapacity < 0 || d.InputCapacity > c.MaxPendingInputs:
		return fmt.Errorf("systems: PredictConfig.InputCapacity must be in [1, %d], got %d: leave it zero for 128", c.MaxPendingInputs, cfg.InputCapacity)
	case !(d.HardCutDistance > max(d.DeadZone, 0)) || math.IsInf(float64(d.HardCutDistance), 0) || math.IsNaN(float64(d.DeadZone)):
		return fmt.Errorf("systems: PredictConfig.HardCutDistance (%v) must be finite and beyond DeadZone (%v): leave both zero for 20 and 0.5", cfg.HardCutDistance, cfg.DeadZone)
	case d.InboxCapacity < 0:
		return fmt.Errorf("systems: PredictConfig.InboxCapacity must be positive, got %d: leave it zero for 1024", cfg.InboxCapacity)
	case !(d.MaxAbs > 0 && d.MaxAbs <= 1e15):
		return fmt.Errorf("systems: PredictConfig.MaxAbs must be in (0, 1e15] so that no distance can overflow, got %v: leave it zero for 1e9", cfg.MaxAbs)
	}
	return nil
}

// Authoritative is the server's state of a predicted entity: what it
// computed at Tick after applying every input up to sequence Ack (0 when it
// has applied none yet).
type Authoritative[S any] struct {
	NetID c.NetID
	Tick  uint32
	Ack   uint32
	State S
}

// SentInput is an input the client applied and must send to the server,
// with the sequence number the server acknowledges it by.
type SentInput[I any] struct {
	NetID c.NetID
	Seq   uint32
	Input I
}

// queue is a bounded, mutex-protected queue with alternating buffers: the
// shared mechanism of the authoritative-state inbox and the input outbox.
type queue[T any] struct {
	mu       sync.Mutex
	items    []T
	capacity int
	dropped  uint64
}

func (q *queue[T]) push(v T) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) >= q.capacity {
		q.dropped++
		return false
	}
	q.items = append(q.items, v)
	return true
}

func (q *queue[T]) drain(spare []T) ([]T, uint64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = spare[:0]
	dropped := q.dropped
	q.dropped = 0
	return items, dropped
}

// AuthInbox is where the transport puts authoritative states of predicted
// entities, from any goroutine. Like [Inbox], it is bounded; states beyond
// its capacity are dropped and counted (RejectInboxFull).
type AuthInbox[S any] struct{ q queue[Authoritative[S]] }

// Push queues a for the next frame; false means the inbox was full.
func (in *AuthInbox[S]) Push(a Authoritative[S]) bool { return in.q.push(a) }

// InputOutbox collects the inputs the prediction applied, for the transport
// to send to the server. Drain it from any goroutine. If nobody drains it,
// it holds at most its capacity and drops the rest (counted in
// Metrics.OutboxDropped): prediction does not depend on it.
type InputOutbox[I any] struct{ q queue[SentInput[I]] }

// Drain returns the inputs queued since the last call; pass back the
// previous result as spare so that the two buffers alternate without
// allocating.
//
// The returned slice is only yours until you pass it back: the outbox
// fills it again after the next Drain. A transport that sends from another
// goroutine must encode (or copy) the inputs before it passes the slice
// back, and must not pass it back while still reading it.
func (out *InputOutbox[I]) Drain(spare []SentInput[I]) []SentInput[I] {
	items, _ := out.q.drain(spare)
	return items
}

// fixedTick is the accumulator shared by Reconcile and Predict.
type fixedTick struct {
	dt    float64 // seconds per tick, from the clock's tick rate at Initialize
	acc   float64 // time not yet simulated, [0, dt)
	alpha float32 // acc/dt: where between Previous and Current a frame is drawn
	tick  uint64
}

// Predictor is the pair of systems for predicted entities with state S and
// input I: [Predictor.Reconcile] (after Receive) and [Predictor.Predict]
// (before Interpolate), sharing one fixed-tick clock, with the inbox for
// authoritative states and the outbox of applied inputs. Create it with
// [NewPredictor]; spawn the local player with [Predictor.Spawn].
type Predictor[S, I any] struct {
	sim Simulation[S, I]
	cfg PredictConfig

	ticks  fixedTick
	inbox  *AuthInbox[S]
	outbox *InputOutbox[I]

	reconcile *Reconcile[S, I]
	predict   *Predict[S, I]
	world     *ecs.World // the world Predict was initialized in, nil before

	// Scratch states for checks: the game's functions take pointers, which
	// escape through the function values, so states checked live here
	// rather than on the stack (no allocation per tick).
	next, probe S
}

// NewPredictor checks sim and cfg and builds the two systems.
func NewPredictor[S, I any](sim Simulation[S, I], cfg PredictConfig) (*Predictor[S, I], error) {
	if err := errors.Join(sim.validate(), cfg.Validate()); err != nil {
		return nil, err
	}
	cfg = cfg.WithDefaults()
	p := &Predictor[S, I]{
		sim:    sim,
		cfg:    cfg,
		inbox:  &AuthInbox[S]{q: queue[Authoritative[S]]{capacity: cfg.InboxCapacity}},
		outbox: &InputOutbox[I]{q: queue[SentInput[I]]{capacity: cfg.InboxCapacity * 4}},
	}
	p.reconcile = &Reconcile[S, I]{p: p}
	p.predict = &Predict[S, I]{p: p}
	return p, nil
}

// Reconcile returns the system that applies authoritative states.
func (p *Predictor[S, I]) Reconcile() *Reconcile[S, I] { return p.reconcile }

// Predict returns the system that runs the fixed prediction ticks.
func (p *Predictor[S, I]) Predict() *Predict[S, I] { return p.predict }

// Inbox is where the transport pushes authoritative states, from any
// goroutine.
func (p *Predictor[S, I]) Inbox() *AuthInbox[S] { return p.inbox }

// Outbox holds the applied inputs for the transport to send.
func (p *Predictor[S, I]) Outbox() *InputOutbox[I] { return p.outbox }

// Alpha is where between its last two ticks the current frame draws a
// predicted entity (the leftover fraction of a tick): a game that draws
// more of the player's state than its position (an animation's phase,
// say) blends it between the same two ticks by Alpha.
func (p *Predictor[S, I]) Alpha() float32 { return p.ticks.alpha }

// Ticks counts the fixed prediction ticks run.
func (p *Predictor[S, I]) Ticks() uint64 { return p.ticks.tick }

// Spawn creates the predicted entity id, starting at state, and registers
// it in the world's NetID index. Call it on the world's goroutine, outside
// queries. It returns an error if id is 0 (no entity) or already in use,
// or if w has no netsmooth pipeline or is not the world the predictor's
// systems were initialized in (ecs.AddPredictor initializes them).
//
// To stop predicting it (the player left, or the server gave the client
// another entity), remove the entity with w.RemoveEntity: the index
// forgets id as soon as anything names it again, and id may be spawned
// again, predicted or as a remote entity.
func (p *Predictor[S, I]) Spawn(w *ecs.World, id c.NetID, state S) (ecs.Entity, error) {
	if id == 0 {
		return ecs.Entity{}, fmt.Errorf("systems: NetID 0 names no entity: spawn the player under the NetID the server gave it")
	}
	if p.world != nil && w != p.world {
		return ecs.Entity{}, fmt.Errorf("systems: Spawn of NetID %d was given another world than the one the predictor's systems run in: pass the world given to ecs.New", id)
	}
	res := generic.NewResource[Index](w)
	if !res.Has() {
		return ecs.Entity{}, fmt.Errorf("systems: Spawn of NetID %d was given a world without netsmooth's pipeline: pass the world given to ecs.New", id)
	}
	index := res.Get()
	if e, ok := index.Lookup(id); ok && w.Alive(e) {
		return ecs.Entity{}, fmt.Errorf("systems: NetID %d is already in use by a live entity", id)
	}
	if p.check(&state) != accept {
		return ecs.Entity{}, fmt.Errorf("systems: the initial state of NetID %d has a non-finite rotation or a position that is not finite or beyond MaxAbs", id)
	}
	m := generic.NewMap9[c.NetID, c.Predicted, c.PredictedState[S], c.InputHistory[I], c.InputCommand[I], c.PredictedStatus, c.Render, c.Correction, c.Absorb](w)
	nid := id
	render := c.Render{Pos: p.sim.Position(&state), Rot: p.sim.rotation(&state), Flags: c.Visible}
	e := m.NewWith(&nid, &c.Predicted{}, &c.PredictedState[S]{Current: state, Previous: state},
		&c.InputHistory[I]{}, &c.InputCommand[I]{}, &c.PredictedStatus{NextSeq: 1}, &render, &c.Correction{},
		&c.Absorb{Last: render.Pos})
	index.put(id, indexEntry{entity: e, state: entryPredicted})
	return e, nil
}

func finiteVec(v mgl32.Vec3) bool { return finite32(v[0]) && finite32(v[1]) && finite32(v[2]) }

// check reports what is wrong with a state's position and raw rotation,
// what would reach Render: RejectNonFinite for NaN or infinities,
// RejectInvalid for a coordinate beyond MaxAbs, accept when neither.
func (p *Predictor[S, I]) check(s *S) RejectReason {
	pos := p.sim.Position(s)
	if !finiteVec(pos) {
		return RejectNonFinite
	}
	if p.sim.Rotation != nil {
		if r := p.sim.Rotation(s); !finite32(r.W) || !finiteVec(r.V) {
			return RejectNonFinite
		}
	}
	if !within(&pos, p.cfg.MaxAbs) {
		return RejectInvalid
	}
	return accept
}

// steps reports whether a state can be simulated: it is sane, and so is the
// state one tick later (with the zero input). An authoritative state whose
// other fields (a velocity, say) are NaN or absurd shows it here instead of
// in what is drawn.
func (p *Predictor[S, I]) steps(s *S) RejectReason {
	if reason := p.check(s); reason != accept {
		return reason
	}
	var in I
	p.probe = p.sim.Step(*s, in, p.ticks.dt)
	return p.check(&p.probe)
}

// drawn returns the position and rotation a predicted entity is drawn at
// (before corrections), between its last two ticks at alpha.
func (p *Predictor[S, I]) drawn(st *c.PredictedState[S], alpha float32) (mgl32.Vec3, mgl32.Quat) {
	p0, p1 := p.sim.Position(&st.Previous), p.sim.Position(&st.Current)
	r0, r1 := p.sim.rotation(&st.Previous), p.sim.rotation(&st.Current)
	return blend.Lerp(&p0, &p1, alpha), blend.Nlerp(&r0, &r1, alpha)
}

// Predict is the system that runs the fixed prediction ticks of a render
// frame: the frame's dt is added to an accumulator and every whole tick in
// it applies each predicted entity's InputCommand, records the input for
// replay and for the server, and steps the simulation. Then it draws each
// predicted entity between its last two ticks at the leftover fraction, so a
// 144 Hz display of a 60 Hz simulation moves every frame.
type Predict[S, I any] struct {
	p       *Predictor[S, I]
	frame   *Frame
	metrics *Metrics
	signals *frameSignals
	filter  *generic.Filter7[c.PredictedState[S], c.InputHistory[I], c.InputCommand[I], c.PredictedStatus, c.Render, c.NetID, c.Correction]
	ready   bool
}

// Initialize implements the arche-model System interface.
func (s *Predict[S, I]) Initialize(w *ecs.World) {
	if s.ready {
		return
	}
	s.frame = mustResource[Frame](w)
	s.metrics = mustResource[Metrics](w)
	s.signals = sharedResource[frameSignals](w)
	s.p.ticks.dt = 1 / mustResource[timeline.Clock](w).TickRate()
	s.filter = generic.NewFilter7[c.PredictedState[S], c.InputHistory[I], c.InputCommand[I], c.PredictedStatus, c.Render, c.NetID, c.Correction]().
		With(generic.T[c.Predicted]())
	s.filter.Register(w)
	s.p.world = w
	s.ready = true
}

// Update implements the arche-model System interface.
func (s *Predict[S, I]) Update(w *ecs.World) {
	t := &s.p.ticks
	dt := s.frame.Dt
	if !(dt >= 0) || math.IsInf(dt, 0) {
		dt = 0
	}
	t.acc += dt
	n := 0
	for t.acc >= t.dt && n < s.p.cfg.MaxTicksPerFrame {
		s.tick(w)
		t.acc -= t.dt
		n++
	}
	if t.acc >= t.dt {
		// More time than the cap allows: drop the whole ticks (counted),
		// keep the fraction.
		skipped := math.Floor(t.acc/t.dt + 1e-9)
		s.metrics.SkippedTicks += uint64(skipped)
		t.acc = max(0, t.acc-skipped*t.dt)
	}
	t.alpha = float32(t.acc / t.dt)

	q := s.filter.Query(w)
	for q.Next() {
		st, _, _, _, render, _, corr := q.Get()
		if !corr.IsZero() {
			s.signals.corrections++ // Smooth and Snap must look at it
			s.signals.maxCorrectionSq = max(s.signals.maxCorrectionSq, blend.LenSq(&corr.Pos))
		}
		render.Pos, render.Rot = s.p.drawn(st, t.alpha)
		render.Flags = c.Visible
	}
}

// tick runs one fixed prediction tick for every predicted entity.
func (s *Predict[S, I]) tick(w *ecs.World) {
	t := &s.p.ticks
	t.tick++
	q := s.filter.Query(w)
	for q.Next() {
		st, hist, cmd, pred, _, id, _ := q.Get()
		seq := pred.NextSeq
		if !hist.Push(c.PendingInput[I]{Seq: seq, Input: cmd.Input}, s.p.cfg.InputCapacity) {
			// No acknowledgement for too long: pause rather than apply an
			// input that could not be replayed.
			s.metrics.InputOverflows++
			st.Previous = st.Current
			continue
		}
		pred.NextSeq++
		pred.Ticks++
		st.Previous = st.Current
		s.p.next = s.p.sim.Step(st.Current, cmd.Input, t.dt)
		if s.p.check(&s.p.next) != accept {
			// The game's Step produced garbage: keep the last good state
			// (the input stays recorded: the server decides what it did).
			s.metrics.BadSteps++
		} else {
			st.Current = s.p.next
		}
		if !s.p.outbox.q.push(SentInput[I]{NetID: *id, Seq: seq, Input: cmd.Input}) {
			s.metrics.OutboxDropped++
		}
	}
	s.metrics.PredictionTicks++
}

// Finalize implements the arche-model System interface.
func (s *Predict[S, I]) Finalize(w *ecs.World) {
	if s.ready {
		s.filter.Unregister(w)
		s.ready = false
	}
}

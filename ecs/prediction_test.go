package ecs_test

import (
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/systems"
)

// player is the test game's predicted state (seed 003's PlayerState, on
// the ground): the input sets the horizontal speed outright.
type player struct{ X, Y, VX float32 }

// move is the test game's input: -1, 0 or 1 along x.
type move struct{ X int8 }

const playerSpeed = 120 // units per second

func stepPlayer(s player, in move, dt float64) player {
	s.VX = float32(in.X) * playerSpeed
	s.X += s.VX * float32(dt)
	return s
}

var playerSim = nsecs.Simulation[player, move]{
	Step:     stepPlayer,
	Position: func(s *player) mgl32.Vec3 { return mgl32.Vec3{s.X, s.Y, 0} },
}

// predRig is a pipeline with one predicted player.
type predRig struct {
	*rig
	pr     *nsecs.Predictor[player, move]
	e      ecs.Entity
	states generic.Map3[components.PredictedState[player], components.InputCommand[move], components.Prediction]
}

func newPredRig(t testing.TB, cfg nsecs.Config) *predRig {
	t.Helper()
	r := newRig(t, cfg)
	pr, err := nsecs.AddPrediction(r.pipe, playerSim)
	if err != nil {
		t.Fatal(err)
	}
	e, err := pr.Spawn(&r.world, 1, player{})
	if err != nil {
		t.Fatal(err)
	}
	return &predRig{rig: r, pr: pr, e: e, states: generic.NewMap3[components.PredictedState[player], components.InputCommand[move], components.Prediction](&r.world)}
}

func (p *predRig) setInput(in move) {
	_, cmd, _ := p.states.Get(p.e)
	cmd.Input = in
}

func (p *predRig) predicted() player {
	st, _, _ := p.states.Get(p.e)
	return st.Current
}

func (p *predRig) report() components.ReconcileReport {
	_, _, pred := p.states.Get(p.e)
	return pred.Last
}

func (p *predRig) drawnX() float32 { return p.render(1).Pos[0] }

// TestSeed003ConvergesUnderLoss: 60 ms latency, 10 ms jitter, 30% loss, 10%
// reorder (seed 42); the server corrects the player by +6 at frames 60 and
// 120; after the link drains the prediction is within 2 units of the server.
func TestSeed003ConvergesUnderLoss(t *testing.T) {
	const rate = 62.5 // one tick per 16 ms frame
	p := newPredRig(t, nsecs.DefaultConfig().WithTickRate(rate))
	link, err := netsim.NewLink[nsecs.Authoritative[player]](netsim.Config{
		Latency: 60 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.3, Reorder: 0.1,
	}, 42)
	if err != nil {
		t.Fatal(err)
	}
	var server player
	var now time.Duration
	var inputs []nsecs.SentInput[move]
	var arrived []nsecs.Authoritative[player]
	deliver := func() {
		arrived = link.Deliver(now, arrived[:0])
		for _, a := range arrived {
			p.pr.Inbox().Push(a)
		}
	}
	for frame := 0; frame < 180; frame++ {
		in := move{}
		if frame%20 < 10 {
			in.X = 1
		}
		p.setInput(in)
		p.frame(1 / rate) // reconcile what arrived, then one prediction tick
		inputs = p.pr.Outbox().Drain(inputs)
		for _, sent := range inputs {
			server = stepPlayer(server, sent.Input, 1/rate)
			if frame == 60 || frame == 120 {
				server.X += 6 // authoritative correction the client cannot predict
			}
			link.Send(now, nsecs.Authoritative[player]{NetID: 1, Tick: uint32(frame), Ack: sent.Seq, State: server})
		}
		now += 16 * time.Millisecond
		deliver()
	}
	now += 300 * time.Millisecond
	deliver()
	p.frame(0) // reconcile only

	got := p.predicted()
	if d := math.Abs(float64(got.X - server.X)); d > 2 {
		t.Fatalf("predicted x = %v, server x = %v: off by %v > 2", got.X, server.X, d)
	}
	m := p.pipe.Metrics()
	if m.Corrections < 2 || m.HardCuts != 0 {
		t.Fatalf("corrections %d, hard cuts %d: want the two +6 corrections smoothed, no hard cut", m.Corrections, m.HardCuts)
	}
	if st := link.Stats(); st.Lost == 0 || st.Reordered == 0 || m.Rejected[systems.RejectStale] == 0 {
		t.Fatalf("lost %d, reordered %d, stale acks %d: the scenario did not exercise loss and reordering", st.Lost, st.Reordered, m.Rejected[systems.RejectStale])
	}
	// The drawn position converges too once the correction has decayed.
	p.setInput(move{})
	for i := 0; i < 30; i++ {
		p.frame(1 / rate)
	}
	if d := math.Abs(float64(p.drawnX() - server.X)); d > 2 {
		t.Fatalf("drawn x = %v, server x = %v", p.drawnX(), server.X)
	}
	t.Logf("final error %.4f; %d reconciles, %d corrections (max %.2f), %d stale acks ignored",
		math.Abs(float64(got.X-server.X)), m.Reconciles, m.Corrections, m.MaxCorrection, m.Rejected[systems.RejectStale])
}

// TestSeed003HardCut: an error of 500 units over a threshold of 20 cuts
// hard and reports the 2 inputs replayed.
func TestSeed003HardCut(t *testing.T) {
	const rate = 60
	p := newPredRig(t, nsecs.DefaultConfig().WithTickRate(rate))
	p.setInput(move{X: 1})
	p.frame(2 / float64(rate)) // two prediction ticks
	if n := p.pr.Ticks(); n != 2 {
		t.Fatalf("ticks = %d, want 2", n)
	}
	p.pr.Inbox().Push(nsecs.Authoritative[player]{NetID: 1, Ack: 0, State: player{X: 500}})
	p.setInput(move{})
	p.frame(0)
	rep := p.report()
	if !rep.HardCut || rep.Replayed != 2 {
		t.Fatalf("report %+v: want a hard cut with 2 inputs replayed", rep)
	}
	if math.Abs(float64(rep.Error)-500) > 0.01 {
		t.Fatalf("error %v, want 500", rep.Error)
	}
	want := float32(500 + 2*playerSpeed/rate)
	if got := p.predicted().X; math.Abs(float64(got-want)) > 1e-3 {
		t.Fatalf("predicted x = %v, want %v", got, want)
	}
	// Drawn between the replayed last two ticks (alpha ~ 0: at the first),
	// with no correction left to smooth.
	if got, want := p.drawnX(), float32(500+playerSpeed/rate); math.Abs(float64(got-want)) > 1e-3 {
		t.Fatalf("drawn x = %v, want %v at once (no smoothing on a hard cut)", got, want)
	}
	if m := p.pipe.Metrics(); m.HardCuts != 1 || m.InputsReplayed != 2 {
		t.Fatalf("hard cuts %d, inputs replayed %d", m.HardCuts, m.InputsReplayed)
	}
}

func TestDeadZoneChangesNothing(t *testing.T) {
	p := newPredRig(t, nsecs.DefaultConfig().WithTickRate(60))
	p.setInput(move{X: 1})
	p.frame(3.0 / 60)
	before := p.predicted()
	// The server agrees within 0.3 units after input 2; one input pending.
	auth := stepPlayer(stepPlayer(player{}, move{1}, 1.0/60), move{1}, 1.0/60)
	auth.X += 0.3
	p.pr.Inbox().Push(nsecs.Authoritative[player]{NetID: 1, Tick: 2, Ack: 2, State: auth})
	p.frame(0)
	if got := p.predicted(); got != before {
		t.Fatalf("state changed from %+v to %+v inside the dead zone", before, got)
	}
	if rep := p.report(); rep.Corrected || rep.HardCut || rep.Replayed != 1 || math.Abs(float64(rep.Error)-0.3) > 1e-4 {
		t.Fatalf("report %+v", rep)
	}
}

func TestStaleAndDuplicateAcksIgnored(t *testing.T) {
	p := newPredRig(t, nsecs.DefaultConfig().WithTickRate(60))
	p.setInput(move{X: 1})
	p.frame(6.0 / 60)
	s := player{}
	var states []player
	for i := 0; i < 6; i++ {
		s = stepPlayer(s, move{1}, 1.0/60)
		states = append(states, s)
	}
	in := p.pr.Inbox()
	in.Push(nsecs.Authoritative[player]{NetID: 1, Tick: 5, Ack: 5, State: states[4]})
	in.Push(nsecs.Authoritative[player]{NetID: 1, Tick: 3, Ack: 3, State: player{X: 999}}) // reordered: older ack
	in.Push(nsecs.Authoritative[player]{NetID: 1, Tick: 5, Ack: 5, State: states[4]})      // duplicate
	in.Push(nsecs.Authoritative[player]{NetID: 1, Tick: 9, Ack: 50, State: states[4]})     // acks an input never sent
	in.Push(nsecs.Authoritative[player]{NetID: 2, Tick: 9, Ack: 1, State: states[0]})      // unknown entity
	p.frame(0)
	m := p.pipe.Metrics()
	if m.Rejected[systems.RejectStale] != 1 || m.Rejected[systems.RejectDuplicate] != 1 ||
		m.Rejected[systems.RejectFuture] != 1 || m.Rejected[systems.RejectUnknown] != 1 || m.Accepted != 1 {
		t.Fatalf("accepted %d, rejected %v", m.Accepted, m.Rejected)
	}
	if got := p.predicted(); got != states[5] {
		t.Fatalf("predicted %+v, want %+v: the stale state must not apply", got, states[5])
	}
	p.checkCounted(5)
}

func TestInputHistoryOverflowPausesPrediction(t *testing.T) {
	cfg := nsecs.DefaultConfig().WithTickRate(60)
	cfg.Predict.InputCapacity = 4
	p := newPredRig(t, cfg)
	p.setInput(move{X: 1})
	for i := 0; i < 10; i++ {
		p.frame(1.0 / 60)
	}
	m := p.pipe.Metrics()
	if m.InputOverflows != 6 {
		t.Fatalf("input overflows = %d, want 6", m.InputOverflows)
	}
	want := float32(4 * playerSpeed / 60.0)
	if got := p.predicted().X; math.Abs(float64(got-want)) > 1e-4 {
		t.Fatalf("x = %v, want %v: only recorded inputs may move the player", got, want)
	}
	// The server catches up: everything acknowledged, prediction resumes.
	p.pr.Inbox().Push(nsecs.Authoritative[player]{NetID: 1, Tick: 4, Ack: 4, State: p.predicted()})
	p.frame(1.0 / 60)
	if m.InputOverflows != 6 || p.predicted().X <= want {
		t.Fatalf("after the ack: overflows %d, x %v", m.InputOverflows, p.predicted().X)
	}
	// Every recorded input was sent, in order, once.
	sent := p.pr.Outbox().Drain(nil)
	for i, s := range sent {
		if s.Seq != uint32(i+1) {
			t.Fatalf("sent seq %d at %d", s.Seq, i)
		}
	}
	if len(sent) != 5 {
		t.Fatalf("sent %d inputs, want 5", len(sent))
	}
}

// scriptedRun runs a fixed script with a server that perturbs the player and
// returns every reconcile report and final state.
func scriptedRun(t *testing.T) ([]components.ReconcileReport, player) {
	p := newPredRig(t, nsecs.DefaultConfig().WithTickRate(60))
	var server player
	var reports []components.ReconcileReport
	var inputs []nsecs.SentInput[move]
	var queue []nsecs.Authoritative[player]
	for f := 0; f < 240; f++ {
		p.setInput(move{X: int8(f/30%3) - 1})
		p.frame(1.0 / 60)
		reports = append(reports, p.report())
		inputs = p.pr.Outbox().Drain(inputs)
		for _, in := range inputs {
			server = stepPlayer(server, in.Input, 1.0/60)
			if in.Seq%45 == 0 {
				server.X -= 4
			}
			queue = append(queue, nsecs.Authoritative[player]{NetID: 1, Tick: in.Seq, Ack: in.Seq, State: server})
		}
		if len(queue) > 6 { // a 100 ms round trip
			p.pr.Inbox().Push(queue[0])
			queue = queue[1:]
		}
	}
	return reports, p.predicted()
}

func TestReplayIsDeterministic(t *testing.T) {
	r1, s1 := scriptedRun(t)
	r2, s2 := scriptedRun(t)
	if s1 != s2 || len(r1) != len(r2) {
		t.Fatalf("final states %+v and %+v differ", s1, s2)
	}
	corrected := 0
	for i := range r1 {
		if r1[i] != r2[i] {
			t.Fatalf("frame %d: reports %+v and %+v differ", i, r1[i], r2[i])
		}
		if r1[i].Corrected {
			corrected++
		}
	}
	if corrected == 0 {
		t.Fatal("the script produced no correction")
	}
}

// TestDrawnMotionBoundedBelowSnap: with server corrections below the snap
// threshold, rendering at 144 Hz over 60 Hz ticks, the drawn position never
// moves in a frame by more than the true motion of that frame plus what the
// correction rate allows.
func TestDrawnMotionBoundedBelowSnap(t *testing.T) {
	cfg := nsecs.DefaultConfig().WithTickRate(60)
	p := newPredRig(t, cfg)
	const fps = 144.0
	var server player
	var inputs []nsecs.SentInput[move]
	var queue []nsecs.Authoritative[player]
	k := math.Exp(-cfg.Smooth.Rate / fps)
	bound := playerSpeed/fps + (1-k)*float64(cfg.Snap.Distance) + 1e-3
	prev := p.drawnX()
	for f := 0; f < int(6*fps); f++ {
		p.setInput(move{X: 1})
		p.frame(1 / fps)
		x := p.drawnX()
		if step := math.Abs(float64(x - prev)); step > bound {
			t.Fatalf("frame %d: drawn moved %.3f, bound %.3f (true motion %.3f)", f, step, bound, playerSpeed/fps)
		}
		prev = x
		inputs = p.pr.Outbox().Drain(inputs)
		for _, in := range inputs {
			server = stepPlayer(server, in.Input, 1.0/60)
			if in.Seq%40 == 0 {
				server.X += 5 // a shove the client did not predict
			}
			queue = append(queue, nsecs.Authoritative[player]{NetID: 1, Tick: in.Seq, Ack: in.Seq, State: server})
		}
		for len(queue) > 8 {
			p.pr.Inbox().Push(queue[0])
			queue = queue[1:]
		}
	}
	if m := p.pipe.Metrics(); m.Corrections < 5 || m.HardCuts != 0 || m.Snaps != 0 {
		t.Fatalf("corrections %d, hard cuts %d, snaps %d", m.Corrections, m.HardCuts, m.Snaps)
	}
}

// TestFrameInterpolationMonotonic: a 144 Hz display of a 60 Hz simulation
// at constant velocity draws strictly increasing positions, each frame's
// step equal to the true motion of that frame.
func TestFrameInterpolationMonotonic(t *testing.T) {
	cfg := nsecs.DefaultConfig().WithTickRate(60)
	cfg.Predict.InputCapacity = components.MaxPendingInputs // no server here to acknowledge
	p := newPredRig(t, cfg)
	p.setInput(move{X: 1})
	const fps = 144.0
	for p.pr.Ticks() == 0 { // drawing trails the simulation by up to a tick
		p.frame(1 / fps)
	}
	prev := p.drawnX()
	for f := 0; f < 3*fps; f++ {
		p.frame(1 / fps)
		x := p.drawnX()
		if !(x > prev) {
			t.Fatalf("frame %d: drawn x %v after %v: not strictly increasing", f, x, prev)
		}
		if f > 1 && math.Abs(float64(x-prev)-playerSpeed/fps) > 1e-3 {
			t.Fatalf("frame %d: moved %v, want %v every frame", f, x-prev, playerSpeed/fps)
		}
		prev = x
	}
	if ticks := p.pr.Ticks(); ticks < 180 || ticks > 182 {
		t.Fatalf("ran %d ticks in about 3 s at 60 Hz", ticks)
	}
}

func TestSpiralOfDeathGuard(t *testing.T) {
	p := newPredRig(t, nsecs.DefaultConfig().WithTickRate(60))
	p.setInput(move{X: 1})
	p.frame(1.0) // a one-second hitch: 60 ticks due, at most 8 run
	m := p.pipe.Metrics()
	if p.pr.Ticks() != 8 || m.SkippedTicks != 52 {
		t.Fatalf("ticks %d, skipped %d; want 8 and 52", p.pr.Ticks(), m.SkippedTicks)
	}
}

func TestRemoteMessagesForPredictedEntityRejected(t *testing.T) {
	p := newPredRig(t, nsecs.DefaultConfig())
	p.push(snap(1, 5, 3), nsecs.Message{Kind: nsecs.Despawn, NetID: 1, Tick: 6})
	p.frame(0)
	if m := p.pipe.Metrics(); m.Rejected[systems.RejectPredicted] != 2 || m.Entities != 0 {
		t.Fatalf("rejected %v, remote entities %d", m.Rejected, m.Entities)
	}
	if _, err := p.pr.Spawn(&p.world, 1, player{}); err == nil {
		t.Fatal("spawned a second entity with NetID 1")
	}
}

// TestPredictionConcurrentTransport: a transport goroutine pushes
// authoritative states and another drains inputs while frames run.
func TestPredictionConcurrentTransport(t *testing.T) {
	p := newPredRig(t, nsecs.DefaultConfig().WithTickRate(60))
	p.setInput(move{X: 1})
	done := make(chan struct{})
	acks := make(chan uint32, 1024)
	go func() { // "server": acknowledges whatever it receives
		var server player
		for seq := range acks {
			server = stepPlayer(server, move{X: 1}, 1.0/60)
			p.pr.Inbox().Push(nsecs.Authoritative[player]{NetID: 1, Tick: seq, Ack: seq, State: server})
		}
		close(done)
	}()
	sent := 0
	var inputs []nsecs.SentInput[move]
	drained := make(chan []nsecs.SentInput[move])
	go func() { // "transport": drains the outbox concurrently with frames
		for i := 0; i < 200; i++ {
			drained <- p.pr.Outbox().Drain(nil)
			time.Sleep(100 * time.Microsecond)
		}
		close(drained)
	}()
	for batch := range drained {
		inputs = append(inputs, batch...)
		for _, in := range batch {
			acks <- in.Seq // the server goroutine pushes states while frames run
			sent++
		}
		p.frame(1.0 / 60)
	}
	close(acks)
	<-done
	p.frame(0)
	if sent == 0 {
		t.Fatal("no inputs sent")
	}
	for i, in := range inputs {
		if in.Seq != uint32(i+1) {
			t.Fatalf("input %d has seq %d: lost or reordered", i, in.Seq)
		}
	}
	if m := p.pipe.Metrics(); m.Reconciles == 0 || m.HardCuts != 0 {
		t.Fatalf("reconciles %d, hard cuts %d", m.Reconciles, m.HardCuts)
	}
}

func TestPredictedNetIDReusableAfterRemoval(t *testing.T) {
	p := newPredRig(t, nsecs.DefaultConfig())
	p.world.RemoveEntity(p.e)
	if _, ok := p.pipe.Lookup(1); ok {
		t.Fatal("Lookup found the removed player")
	}
	if _, err := p.pr.Spawn(&p.world, 1, player{X: 3}); err != nil {
		t.Fatalf("respawning the local player: %v", err)
	}
}

func TestNonFiniteAuthoritativeStateRejected(t *testing.T) {
	type st struct{ X, A float32 }
	sim := nsecs.Simulation[st, move]{
		Step:     func(s st, in move, dt float64) st { s.X += float32(in.X); return s },
		Position: func(s *st) mgl32.Vec3 { return mgl32.Vec3{s.X, 0, 0} },
		Rotation: func(s *st) mgl32.Quat { return mgl32.Quat{W: s.A, V: mgl32.Vec3{0, 0, 0}} },
	}
	r := newRig(t, nsecs.DefaultConfig())
	pr, err := nsecs.AddPrediction(r.pipe, sim)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pr.Spawn(&r.world, 1, st{A: 1}); err != nil {
		t.Fatal(err)
	}
	pr.Inbox().Push(nsecs.Authoritative[st]{NetID: 1, State: st{A: float32(math.NaN())}})
	r.frame(1.0 / 60)
	if m := r.pipe.Metrics(); m.Rejected[systems.RejectNonFinite] != 1 {
		t.Fatalf("rejected %v", m.Rejected)
	}
	if rot := r.render(1).Rot; math.IsNaN(float64(rot.W)) {
		t.Fatal("NaN rotation drawn")
	}
	if _, err := pr.Spawn(&r.world, 2, st{A: float32(math.Inf(1))}); err == nil {
		t.Fatal("spawned with an infinite rotation")
	}
}

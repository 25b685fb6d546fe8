package systems_test

import (
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/systems"
)

// TestReconcileConvergesUnderLossAndReordering: over a link with 60 ms
// latency, 10 ms jitter, 30% loss and 10% reordering (a fixed random
// stream), the server shoves the player by +6 at frames 60 and 120; once
// the link has drained, the prediction is within 2 units of the server and
// the shoves were smoothed, never hard-cut.
func TestReconcileConvergesUnderLossAndReordering(t *testing.T) {
	const rate = 62.5 // one tick per 16 ms frame
	p := newPredRig(t, nsecs.DefaultConfig().WithTickRate(rate))
	link, err := netsim.NewLink[systems.Authoritative[player]](netsim.Config{
		Latency: 60 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.3, Reorder: 0.1,
	}, 42)
	if err != nil {
		t.Fatal(err)
	}
	var server player
	var now time.Duration
	var inputs []systems.SentInput[move]
	var arrived []systems.Authoritative[player]
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
		p.Frame(1 / rate) // reconcile what arrived, then one prediction tick
		inputs = p.pr.Outbox().Drain(inputs)
		for _, sent := range inputs {
			server = stepPlayer(server, sent.Input, 1/rate)
			if frame == 60 || frame == 120 {
				server.X += 6 // authoritative correction the client cannot predict
			}
			link.Send(now, systems.Authoritative[player]{NetID: 1, Tick: uint32(frame), Ack: sent.Seq, State: server})
		}
		now += 16 * time.Millisecond
		deliver()
	}
	now += 300 * time.Millisecond
	deliver()
	p.Frame(0) // reconcile only

	got := p.predicted()
	if d := math.Abs(float64(got.X - server.X)); d > 2 {
		t.Fatalf("predicted x = %v, server x = %v: off by %v > 2", got.X, server.X, d)
	}
	m := p.Pipe.Metrics()
	if m.Corrections < 2 || m.HardCuts != 0 {
		t.Fatalf("corrections %d, hard cuts %d: want the two +6 corrections smoothed, no hard cut", m.Corrections, m.HardCuts)
	}
	if st := link.Stats(); st.Lost == 0 || st.Reordered == 0 || m.Rejected[systems.RejectStale] == 0 {
		t.Fatalf("lost %d, reordered %d, stale acks %d: the scenario did not exercise loss and reordering", st.Lost, st.Reordered, m.Rejected[systems.RejectStale])
	}
	// The drawn position converges too once the correction has decayed.
	p.setInput(move{})
	for i := 0; i < 30; i++ {
		p.Frame(1 / rate)
	}
	if d := math.Abs(float64(p.drawnX() - server.X)); d > 2 {
		t.Fatalf("drawn x = %v, server x = %v", p.drawnX(), server.X)
	}
	t.Logf("final error %.4f; %d reconciles, %d corrections (max %.2f), %d stale acks ignored",
		math.Abs(float64(got.X-server.X)), m.Reconciles, m.Corrections, m.MaxCorrection, m.Rejected[systems.RejectStale])
}

// TestHardCutBeyondThreshold: an error of 500 units, beyond the hard-cut
// distance of 20, is drawn at once (no smoothing) and reports the 2 inputs
// replayed.
func TestHardCutBeyondThreshold(t *testing.T) {
	const rate = 60
	p := newPredRig(t, nsecs.DefaultConfig().WithTickRate(rate))
	p.setInput(move{X: 1})
	p.Frame(2 / float64(rate)) // two prediction ticks
	if n := p.pr.Ticks(); n != 2 {
		t.Fatalf("ticks = %d, want 2", n)
	}
	p.pr.Inbox().Push(systems.Authoritative[player]{NetID: 1, Ack: 0, State: player{X: 500}})
	p.setInput(move{})
	p.Frame(0)
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
	if m := p.Pipe.Metrics(); m.HardCuts != 1 || m.InputsReplayed != 2 {
		t.Fatalf("hard cuts %d, inputs replayed %d", m.HardCuts, m.InputsReplayed)
	}
}

// TestDeadZoneAbsorbsWhileMoving: an error of 0.3 units, within the dead
// zone, while the server has the player moving: the simulation takes the
// replayed state (it must stay exact), and the drawing does not move at
// all in the frame: the difference is absorbed into the player's motion.
func TestDeadZoneAbsorbsWhileMoving(t *testing.T) {
	p := newPredRig(t, nsecs.DefaultConfig().WithTickRate(60))
	p.setInput(move{X: 1})
	p.Frame(3.0 / 60)
	one := stepPlayer(player{}, move{1}, 1.0/60)
	p.pr.Inbox().Push(systems.Authoritative[player]{NetID: 1, Tick: 1, Ack: 1, State: one})
	p.Frame(0)
	if rep := p.report(); rep.Corrected || rep.Error != 0 {
		t.Fatalf("report %+v for an exact state", rep)
	}
	drawn := p.drawnX()
	// The server agrees within 0.3 units after input 2; one input pending.
	auth := stepPlayer(one, move{1}, 1.0/60)
	auth.X += 0.3
	p.pr.Inbox().Push(systems.Authoritative[player]{NetID: 1, Tick: 2, Ack: 2, State: auth})
	p.Frame(0)
	if got, want := p.predicted(), stepPlayer(auth, move{1}, 1.0/60); got != want {
		t.Fatalf("predicted %+v, want the replayed %+v", got, want)
	}
	if rep := p.report(); !rep.Corrected || !rep.Absorbed || rep.HardCut || rep.Replayed != 1 || math.Abs(float64(rep.Error)-0.3) > 1e-4 {
		t.Fatalf("report %+v", rep)
	}
	if got := p.drawnX(); math.Abs(float64(got-drawn)) > 1e-4 {
		t.Fatalf("drawn x moved from %v to %v: an absorbed error must not show", drawn, got)
	}
	if c := p.Correction(1); !c.IsZero() {
		t.Fatalf("correction %+v: an absorbed error is no correction", c)
	}
}

// TestNegativeDeadZoneAbsorbsNothing: with DeadZone -0.5, a player the
// server holds at a wall the client does not know (error 2 units, the
// server's position unchanged) has its error glided as a Correction, and
// an Absorb offset of 0.3 left by a switch stays where it is: it is no
// error absorbed within a dead zone, so it does not settle with the
// Correction (with a dead zone of 0.5 it would).
func TestNegativeDeadZoneAbsorbsNothing(t *testing.T) {
	cfg := nsecs.DefaultConfig().WithTickRate(60)
	cfg.Predict.DeadZone = -0.5
	p := newPredRig(t, cfg)
	p.setInput(move{X: 1})
	p.Frame(3.0 / 60)
	// The server holds the player at 0 from its first input on.
	p.pr.Inbox().Push(systems.Authoritative[player]{NetID: 1, Tick: 1, Ack: 1, State: player{}})
	p.Frame(1.0 / 60)
	ab := (*components.Absorb)(p.World.Get(p.e, ecs.ComponentID[components.Absorb](&p.World)))
	ab.Pos = mgl32.Vec3{0.3, 0, 0}
	before := p.Correction(1).Pos[0]
	p.pr.Inbox().Push(systems.Authoritative[player]{NetID: 1, Tick: 2, Ack: 2, State: player{}})
	p.Frame(0) // reconcile only
	rep, got := p.report(), p.Correction(1).Pos[0]-before
	if rep.Absorbed || math.Abs(float64(rep.Error)-2) > 1e-4 {
		t.Fatalf("report %+v: want an error of 2, not absorbed", rep)
	}
	if ab.Pos[0] != 0.3 || math.Abs(float64(got-2)) > 1e-4 {
		t.Fatalf("absorb offset %v, correction grew by %v: want the offset 0.3 left alone and the error, 2, glided", ab.Pos[0], got)
	}
}

func TestStaleAndDuplicateAcksIgnored(t *testing.T) {
	p := newPredRig(t, nsecs.DefaultConfig().WithTickRate(60))
	p.setInput(move{X: 1})
	p.Frame(6.0 / 60)
	s := player{}
	var states []player
	for i := 0; i < 6; i++ {
		s = stepPlayer(s, move{1}, 1.0/60)
		states = append(states, s)
	}
	in := p.pr.Inbox()
	in.Push(systems.Authoritative[player]{NetID: 1, Tick: 5, Ack: 5, State: states[4]})
	in.Push(systems.Authoritative[player]{NetID: 1, Tick: 3, Ack: 3, State: player{X: 999}}) // reordered: older ack
	in.Push(systems.Authoritative[player]{NetID: 1, Tick: 5, Ack: 5, State: states[4]})      // duplicate
	in.Push(systems.Authoritative[player]{NetID: 1, Tick: 9, Ack: 50, State: states[4]})     // acks an input never sent
	in.Push(systems.Authoritative[player]{NetID: 2, Tick: 9, Ack: 1, State: states[0]})      // unknown entity
	p.Frame(0)
	m := p.Pipe.Metrics()
	if m.Rejected[systems.RejectStale] != 1 || m.Rejected[systems.RejectDuplicate] != 1 ||
		m.Rejected[systems.RejectFuture] != 1 || m.Rejected[systems.RejectUnknown] != 1 || m.Accepted != 1 {
		t.Fatalf("accepted %d, rejected %v", m.Accepted, m.Rejected)
	}
	if got := p.predicted(); got != states[5] {
		t.Fatalf("predicted %+v, want %+v: the stale state must not apply", got, states[5])
	}
	p.CheckCounted(5)
}

func TestNonFiniteAuthoritativeStateRejected(t *testing.T) {
	type st struct{ X, A float32 }
	sim := systems.Simulation[st, move]{
		Step:     func(s st, in move, dt float64) st { s.X += float32(in.X); return s },
		Position: func(s *st) mgl32.Vec3 { return mgl32.Vec3{s.X, 0, 0} },
		Rotation: func(s *st) mgl32.Quat { return mgl32.Quat{W: s.A, V: mgl32.Vec3{0, 0, 0}} },
	}
	r := newRig(t, nsecs.DefaultConfig())
	pr, err := nsecs.AddPredictor(r.Pipe, sim)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pr.Spawn(&r.World, 1, st{A: 1}); err != nil {
		t.Fatal(err)
	}
	pr.Inbox().Push(systems.Authoritative[st]{NetID: 1, State: st{A: float32(math.NaN())}})
	r.Frame(1.0 / 60)
	if m := r.Pipe.Metrics(); m.Rejected[systems.RejectNonFinite] != 1 {
		t.Fatalf("rejected %v", m.Rejected)
	}
	if rot := r.Render(1).Rot; math.IsNaN(float64(rot.W)) {
		t.Fatal("NaN rotation drawn")
	}
	if _, err := pr.Spawn(&r.World, 2, st{A: float32(math.Inf(1))}); err == nil {
		t.Fatal("spawned with an infinite rotation")
	}
}

// scriptedRun runs a fixed script with a server that perturbs the player and
// returns every reconcile report and final state.
func scriptedRun(t *testing.T) ([]components.ReconcileReport, player) {
	p := newPredRig(t, nsecs.DefaultConfig().WithTickRate(60))
	var server player
	var reports []components.ReconcileReport
	var inputs []systems.SentInput[move]
	var queue []systems.Authoritative[player]
	for f := 0; f < 240; f++ {
		p.setInput(move{X: int8(f/30%3) - 1})
		p.Frame(1.0 / 60)
		reports = append(reports, p.report())
		inputs = p.pr.Outbox().Drain(inputs)
		for _, in := range inputs {
			server = stepPlayer(server, in.Input, 1.0/60)
			if in.Seq%45 == 0 {
				server.X -= 4
			}
			queue = append(queue, systems.Authoritative[player]{NetID: 1, Tick: in.Seq, Ack: in.Seq, State: server})
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
	var inputs []systems.SentInput[move]
	var queue []systems.Authoritative[player]
	k := math.Exp(-systems.RateFromAlpha(cfg.Smooth.PerTick, cfg.TickRate) / fps)
	bound := playerSpeed/fps + (1-k)*float64(cfg.Snap.Distance) + 1e-3
	prev := p.drawnX()
	for f := 0; f < int(6*fps); f++ {
		p.setInput(move{X: 1})
		p.Frame(1 / fps)
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
			queue = append(queue, systems.Authoritative[player]{NetID: 1, Tick: in.Seq, Ack: in.Seq, State: server})
		}
		for len(queue) > 8 {
			p.pr.Inbox().Push(queue[0])
			queue = queue[1:]
		}
	}
	if m := p.Pipe.Metrics(); m.Corrections < 5 || m.HardCuts != 0 || m.Snaps != 0 {
		t.Fatalf("corrections %d, hard cuts %d, snaps %d", m.Corrections, m.HardCuts, m.Snaps)
	}
}

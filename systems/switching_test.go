package systems_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/internal/pipetest"
	"github.com/netsmooth/netsmooth/systems"
)

// The switching tests' game: a ball that rolls along x at its own speed;
// it has no input.
type ball struct{ X, VX float32 }

type noInput struct{}

// The ball rolls at ballSpeed units/s as entity ballID, sent every tick
// at ballRate and drawn at ballFPS.
const (
	ballRate, ballFPS = 20.0, 60.0
	ballSpeed         = 5.0
	ballID            = 7
)

// ballAt is where the rolling ball truly is at tick.
func ballAt(tick uint32) float32 { return ballSpeed * float32(tick) / ballRate }

// newBallRig returns a rig at the ball's tick rate with a predictor of
// sim.
func newBallRig[S any](t *testing.T, sim systems.Simulation[S, noInput]) (*pipetest.Rig, *systems.Predictor[S, noInput]) {
	t.Helper()
	r := newRig(t, nsecs.DefaultConfig().WithTickRate(ballRate))
	pr, err := nsecs.AddPredictor(r.Pipe, sim)
	if err != nil {
		t.Fatal(err)
	}
	return r, pr
}

var ballSim = systems.Simulation[ball, noInput]{
	Step: func(s ball, _ noInput, dt float64) ball {
		s.X += s.VX * float32(dt)
		return s
	},
	Position: func(s *ball) mgl32.Vec3 { return mgl32.Vec3{s.X, 0, 0} },
}

// TestSwitchPredictedAndBackWithoutAPop: a ball rolls at 5 units/s, sent
// every tick at 20 Hz and drawn at 60 FPS. At 1 s the game predicts it
// from its newest snapshot (so it is drawn ahead of the interpolated
// past), reconciles it with the server's states for 1 s, then hands it
// back to interpolation. At neither switch does the drawn ball move in a
// frame by more than 1.5 times (nor less than half) its true motion per
// frame, and after each it settles onto the new path.
func TestSwitchPredictedAndBackWithoutAPop(t *testing.T) {
	const rate, fps, speed, id = ballRate, ballFPS, ballSpeed, ballID
	r, pr := newBallRig(t, ballSim)
	truth := ballAt
	var (
		tick        uint32
		e           ecs.Entity
		drawn       []float32
		target      []float32 // where the ball's current path has it, without offsets
		switches    [2]int    // frames of the two switches
		sent        []systems.SentInput[noInput]
		predictedAt uint32 // the tick the prediction started from
		firstSeq    uint32
		states      []timedBall

		unknownBefore uint64
	)
	const frames = int(4 * fps)
	for f := 0; f < frames; f++ {
		now := float64(f) / fps
		for float64(tick)/rate <= now { // the server sends every tick, at once
			r.Push(snapVel(id, tick, truth(tick), speed))
			tick++
		}
		switch f {
		case int(1 * fps):
			e = r.Entity(id)
			// Predict from the newest snapshot the client has.
			predictedAt = tick - 1
			firstSeq = 1
			if err := pr.PredictEntity(&r.World, e, ball{X: truth(predictedAt), VX: speed}, firstSeq); err != nil {
				t.Fatal(err)
			}
			switches[0] = f
		case int(2 * fps):
			unknownBefore = r.Pipe.Metrics().Rejected[systems.RejectUnknown]
			if err := pr.InterpolateEntity(&r.World, e); err != nil {
				t.Fatal(err)
			}
			switches[1] = f
		}
		r.Frame(1 / fps)
		drawn = append(drawn, r.Render(id).Pos[0])
		target = append(target, r.Render(id).Pos[0]-absorbOf(r, id))
		// The server's state for every input the ball's prediction sent:
		// input s is the s-th tick after the snapshot it started from.
		// They come back 100 ms later.
		sent = pr.Outbox().Drain(sent)
		for _, in := range sent {
			at := predictedAt + in.Seq - firstSeq + 1
			states = append(states, timedBall{f + int(0.1*fps), systems.Authoritative[ball]{NetID: id, Tick: at, Ack: in.Seq, State: ball{X: truth(at), VX: speed}}})
		}
		for len(states) > 0 && states[0].frame <= f {
			pr.Inbox().Push(states[0].a)
			states = states[1:]
		}
	}
	motion := speed / fps
	for k, sw := range switches {
		lo, hi := math.Inf(1), 0.0
		for f := sw - 5; f < sw+int(fps/2); f++ {
			step := float64(drawn[f]-drawn[f-1]) / motion
			lo, hi = math.Min(lo, step), math.Max(hi, step)
		}
		settled := math.Abs(float64(drawn[sw+int(0.9*fps)] - target[sw+int(0.9*fps)]))
		t.Logf("switch %d at frame %d: jump %.2f (x the true motion per frame: %.3f to %.3f), %.4f units from the new path 0.9 s later",
			k+1, sw, drawn[sw]-drawn[sw-1], lo, hi, settled)
		if hi > 1.5 || lo < 0.5 {
			t.Errorf("switch %d: drawn steps %.3f to %.3f x the true motion, want within [0.5, 1.5]", k+1, lo, hi)
		}
		if settled > 0.01 {
			t.Errorf("switch %d: %.4f units from the new path 0.9 s later", k+1, settled)
		}
	}
	m := r.Pipe.Metrics()
	if m.Reconciles == 0 || unknownBefore != 0 || m.HardCuts != 0 {
		t.Fatalf("reconciles %d, unknown %d, hard cuts %d: the switched ball must be reconciled", m.Reconciles, unknownBefore, m.HardCuts)
	}
	// Interpolated again: a state for it is refused (as were those still
	// on their way at the switch), and switching it back again works.
	unknown := m.Rejected[systems.RejectUnknown]
	pr.Inbox().Push(systems.Authoritative[ball]{NetID: id, Tick: tick, Ack: 1000, State: ball{}})
	r.Frame(1 / fps)
	if m.Rejected[systems.RejectUnknown] != unknown+1 {
		t.Fatalf("a state for the interpolated ball: rejected %v", m.Rejected)
	}
	if err := pr.InterpolateEntity(&r.World, e); err == nil {
		t.Fatal("InterpolateEntity accepted an interpolated entity")
	}
	if err := pr.PredictEntity(&r.World, e, ball{X: float32(math.NaN())}, 0); err == nil {
		t.Fatal("PredictEntity accepted a NaN state")
	}
	if err := pr.PredictEntity(&r.World, e, ball{X: truth(tick - 1), VX: speed}, 1000); err != nil {
		t.Fatal(err)
	}
	if err := pr.PredictEntity(&r.World, e, ball{}, 0); err == nil {
		t.Fatal("PredictEntity accepted a predicted entity")
	}
	player, _ := pr.Spawn(&r.World, 99, ball{})
	if err := pr.InterpolateEntity(&r.World, player); err == nil {
		t.Fatal("InterpolateEntity accepted an entity with no snapshots")
	}
}

type timedBall struct {
	frame int
	a     systems.Authoritative[ball]
}

func absorbOf(r *rig, id components.NetID) float32 {
	e, ab := r.Entity(id), ecs.ComponentID[components.Absorb](&r.World)
	if !r.World.Has(e, ab) {
		return 0
	}
	return (*components.Absorb)(r.World.Get(e, ab)).Pos[0]
}

// TestSwitchPendingAcrossLongFrame: the ball of the switching test is
// switched to prediction, and the next frame lasts 3 s (the process was
// suspended). While the switch is pending the ball is moved on by at most
// 1.5 ticks of its motion per frame, so the offset left to absorb is at
// most what the prediction ran ahead in that frame (its 8 ticks at most)
// and those 1.5 ticks, plus a frame: moving it on for the whole 3 s would
// leave 13 units to absorb at a quarter of its speed.
func TestSwitchPendingAcrossLongFrame(t *testing.T) {
	const rate, fps, speed, id = ballRate, ballFPS, ballSpeed, ballID
	r, pr := newBallRig(t, ballSim)
	truth := ballAt
	var tick uint32
	now := 0.0
	frame := func(dt float64) {
		for float64(tick)/rate <= now {
			r.Push(snapVel(id, tick, truth(tick), speed))
			tick++
		}
		r.Frame(dt)
		now += dt
	}
	for f := 0; f < int(fps); f++ {
		frame(1 / fps)
	}
	e := r.Entity(id)
	if err := pr.PredictEntity(&r.World, e, ball{X: truth(tick - 1), VX: speed}, 1); err != nil {
		t.Fatal(err)
	}
	frame(3)
	frame(1 / fps)
	ab := (*components.Absorb)(r.World.Get(e, ecs.ComponentID[components.Absorb](&r.World)))
	maxTicks := float64(r.Pipe.Config().Predict.WithDefaults().MaxTicksPerFrame)
	limit := speed * ((maxTicks+1.5)/rate + 1/fps)
	got := math.Abs(float64(ab.Pos[0]))
	t.Logf("offset after a 3 s frame while the switch was pending: %.3f units (at most %.3f)", ab.Pos[0], limit)
	if ab.Pending || got > limit {
		t.Fatalf("offset %.3f (pending %v): want the switch settled with at most %.3f units to absorb", ab.Pos[0], ab.Pending, limit)
	}
}

// spinningBall is the switching tests' ball with a heading, which the
// prediction turns by a quarter turn: the snapshots never rotate it.
type spinningBall struct{ X, VX, Yaw float32 }

var spinningBallSim = systems.Simulation[spinningBall, noInput]{
	Step: func(s spinningBall, _ noInput, dt float64) spinningBall {
		s.X += s.VX * float32(dt)
		return s
	},
	Position: func(s *spinningBall) mgl32.Vec3 { return mgl32.Vec3{s.X, 0, 0} },
	Rotation: func(s *spinningBall) mgl32.Quat { return mgl32.QuatRotate(s.Yaw, mgl32.Vec3{0, 0, 1}) },
}

// TestSwitchGlidesRotationBothWays: the rolling ball is predicted with a
// heading a quarter turn from the snapshots' for a second, then handed
// back to interpolation. At both switches the drawn heading glides at the
// correction's rate: no frame turns it by more than a quarter of the
// difference (a jump would turn it by all of it), and within a second it
// is drawn at the new source's heading.
func TestSwitchGlidesRotationBothWays(t *testing.T) {
	const rate, fps, speed, id = ballRate, ballFPS, ballSpeed, ballID
	r, pr := newBallRig(t, spinningBallSim)
	truth := ballAt
	var (
		tick     uint32
		e        ecs.Entity
		drawn    []mgl32.Quat
		switches [2]int
	)
	for f := 0; f < int(3*fps); f++ {
		now := float64(f) / fps
		for float64(tick)/rate <= now {
			r.Push(snapVel(id, tick, truth(tick), speed))
			tick++
		}
		switch f {
		case int(1 * fps):
			e = r.Entity(id)
			if err := pr.PredictEntity(&r.World, e, spinningBall{X: truth(tick - 1), VX: speed, Yaw: math.Pi / 2}, 1); err != nil {
				t.Fatal(err)
			}
			switches[0] = f
		case int(2 * fps):
			if err := pr.InterpolateEntity(&r.World, e); err != nil {
				t.Fatal(err)
			}
			switches[1] = f
		}
		r.Frame(1 / fps)
		drawn = append(drawn, r.Render(id).Rot)
	}
	angle := func(a, b mgl32.Quat) float64 {
		d := math.Abs(float64(a.Dot(b)))
		return 2 * math.Acos(math.Min(1, d))
	}
	for k, sw := range switches {
		want := mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{0, 0, 1}) // predicted
		if k == 1 {
			want = mgl32.QuatIdent() // the snapshots'
		}
		turn := 0.0
		for f := sw; f < sw+int(fps); f++ {
			turn = math.Max(turn, angle(drawn[f], drawn[f-1]))
		}
		off := angle(drawn[sw+int(fps)-1], want)
		t.Logf("switch %d: largest turn in a frame %.1f degrees of 90; %.3f degrees from the new heading a second later", k+1, turn*180/math.Pi, off*180/math.Pi)
		if turn > math.Pi/2/4 {
			t.Errorf("switch %d: the drawn heading turned %.1f degrees in one frame, want a glide (at most 22.5)", k+1, turn*180/math.Pi)
		}
		if off > 0.5*math.Pi/180 {
			t.Errorf("switch %d: drawn %.2f degrees from the new source's heading a second later", k+1, off*180/math.Pi)
		}
	}
}

// TestPredictEntityRefusesEarlierAcks: an entity switched to prediction
// with inputs numbered from 10 refuses a state acknowledging input 5 (a
// late state of an earlier prediction of it), even before its first
// state, and accepts one acknowledging input 9 (none of its inputs yet).
func TestPredictEntityRefusesEarlierAcks(t *testing.T) {
	const id = 7
	r := newRig(t, nsecs.DefaultConfig().WithTickRate(20))
	pr, err := nsecs.AddPredictor(r.Pipe, ballSim)
	if err != nil {
		t.Fatal(err)
	}
	for tick := uint32(0); tick < 10; tick++ {
		r.Push(snapVel(id, tick, float32(tick)*0.25, 5))
		r.Frame(1.0 / 20)
	}
	if err := pr.PredictEntity(&r.World, r.Entity(id), ball{X: 2.5, VX: 5}, 10); err != nil {
		t.Fatal(err)
	}
	stale := r.Pipe.Metrics().Rejected[systems.RejectStale]
	pr.Inbox().Push(systems.Authoritative[ball]{NetID: id, Tick: 5, Ack: 5, State: ball{X: 1.25, VX: 5}})
	r.Frame(1.0 / 60)
	m := r.Pipe.Metrics()
	if m.Rejected[systems.RejectStale] != stale+1 || m.Reconciles != 0 {
		t.Fatalf("a state acknowledging input 5 of a prediction from input 10: stale %d (was %d), reconciles %d; want refused as stale",
			m.Rejected[systems.RejectStale], stale, m.Reconciles)
	}
	pr.Inbox().Push(systems.Authoritative[ball]{NetID: id, Tick: 10, Ack: 9, State: ball{X: 2.5, VX: 5}})
	r.Frame(1.0 / 60)
	if m := r.Pipe.Metrics(); m.Reconciles != 1 {
		t.Fatalf("a state acknowledging input 9: %d reconciles, want 1", m.Reconciles)
	}
}

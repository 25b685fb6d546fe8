package systems_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

// The settle tests' game: a walker whose input sets its speed along x, at
// walkSpeed units per second. The server may know a wall the client does
// not.

type walker struct{ X, VX float32 }

type walk struct{ X int8 }

const walkSpeed = 5

func stepWalker(s walker, in walk, dt float64) walker {
	s.VX = float32(in.X) * walkSpeed
	s.X += s.VX * float32(dt)
	return s
}

var walkerSim = systems.Simulation[walker, walk]{
	Step:     stepWalker,
	Position: func(s *walker) mgl32.Vec3 { return mgl32.Vec3{s.X, 0, 0} },
}

// walkRun is one walker over a link with a fixed one-way latency: the
// server applies each input as it arrives and sends its state back.
type walkRun struct {
	r      *rig
	pr     *systems.Predictor[walker, walk]
	input  func(t float64) walk
	server func(s walker, in walk, dt float64) walker
	// noise, when set, is added to the position the server sends for
	// input seq (a quantised or otherwise slightly wrong state).
	noise func(seq uint32) float32

	fps, oneWay float64
	state       walker
	down        []timed
	drawn       []float32 // the drawn x, frame by frame
	truth       []float32 // the server's x after the newest input applied, frame by frame
	reports     []components.ReconcileReport
}

type timed struct {
	at float64
	a  systems.Authoritative[walker]
}

func newWalkRun(t *testing.T, cfg nsecs.Config, fps, oneWay float64) *walkRun {
	r := newRig(t, cfg)
	pr, err := nsecs.AddPredictor(r.Pipe, walkerSim)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pr.Spawn(&r.World, 1, walker{}); err != nil {
		t.Fatal(err)
	}
	return &walkRun{r: r, pr: pr, server: stepWalker, fps: fps, oneWay: oneWay}
}

// run plays frames until t seconds.
func (w *walkRun) run(seconds float64) {
	dt := 1 / w.fps
	var sent []systems.SentInput[walk]
	m := generic.NewMap2[components.InputCommand[walk], components.PredictedStatus](&w.r.World)
	cmd, st := m.Get(w.r.Entity(1))
	for f := len(w.drawn); float64(f)*dt < seconds; f++ {
		now := float64(f) * dt
		n := 0
		for _, d := range w.down {
			if d.at <= now+1e-9 {
				w.pr.Inbox().Push(d.a)
				n++
			}
		}
		w.down = w.down[n:]
		cmd.Input = w.input(now)
		w.r.Frame(dt)
		w.drawn = append(w.drawn, w.r.Render(1).Pos[0])
		sent = w.pr.Outbox().Drain(sent)
		for _, in := range sent {
			w.state = w.server(w.state, in.Input, 1/w.r.Pipe.Clock().TickRate())
			a := systems.Authoritative[walker]{NetID: 1, Tick: in.Seq, Ack: in.Seq, State: w.state}
			if w.noise != nil {
				a.State.X += w.noise(in.Seq)
			}
			w.down = append(w.down, timed{at: now + 2*w.oneWay, a: a})
		}
		w.truth = append(w.truth, w.state.X)
		w.reports = append(w.reports, st.Last)
	}
}

// wallServer clamps the walker at x = wall.
func wallServer(wall float32) func(walker, walk, float64) walker {
	return func(s walker, in walk, dt float64) walker {
		s = stepWalker(s, in, dt)
		if s.X > wall {
			s.X, s.VX = wall, 0
		}
		return s
	}
}

// settleFigures measures a walk run against the server's final position:
// the largest distance drawn beyond it, and the time from stop (seconds)
// until the drawing stays within eps of it (NaN: never).
func settleFigures(w *walkRun, stop, eps float64) (overshoot, settle float64) {
	final := w.truth[len(w.truth)-1]
	settle = math.NaN()
	for f := len(w.drawn) - 1; f >= 0; f-- {
		if math.Abs(float64(w.drawn[f]-final)) > eps {
			if t := float64(f+1)/w.fps - stop; f+1 < len(w.drawn) {
				settle = math.Max(0, t)
			}
			break
		}
	}
	for _, x := range w.drawn {
		overshoot = math.Max(overshoot, float64(x-final))
	}
	return overshoot, settle
}

// TestPredictionSettlesAtUnknownWall: a walker pushes into a wall only the
// server knows, for a second, then stops. The server clamps it; the client
// keeps predicting through the wall until the server's states correct it.
// With the default dead zone (0.5 units) the drawn walker must end within
// 0.01 units of the server's within 0.5 s of stopping, and on the way it
// may overshoot the wall only by what the unacknowledged inputs carry it
// (the client cannot know the wall sooner) plus what the correction
// smoothing holds back, never by a dead zone's worth more.
func TestPredictionSettlesAtUnknownWall(t *testing.T) {
	for _, tc := range []struct {
		rate, fps, oneWay float64
	}{
		{20, 60, 0.05},  // the defaults a new user starts from
		{60, 144, 0.05}, // a 60 Hz game on a 144 Hz display
		{30, 60, 0.12},  // a long round trip
	} {
		cfg := nsecs.DefaultConfig().WithTickRate(tc.rate)
		w := newWalkRun(t, cfg, tc.fps, tc.oneWay)
		const wall, stop = 2, 1.5
		w.server = wallServer(wall)
		w.input = func(now float64) walk {
			if now < stop {
				return walk{X: 1}
			}
			return walk{}
		}
		w.run(stop + 1.5)
		over, settle := settleFigures(w, stop, 0.01)
		// What the client predicts past the wall before the server's
		// answer arrives: a round trip of inputs, plus the tick in
		// flight and the tick it is drawn between.
		lead := walkSpeed * (2*tc.oneWay + 2/tc.rate)
		// The correction smoothing holds back each reconciliation's step
		// (one tick's motion) for about one tick.
		smoothing := walkSpeed / tc.rate
		last := w.reports[len(w.reports)-1]
		t.Logf("%v Hz, %v FPS, %v ms each way: overshoot %.3f (lead %.3f + smoothing %.3f), within 0.01 after %.3f s; last report %+v",
			tc.rate, tc.fps, tc.oneWay*1000, over, lead, smoothing, settle, last)
		if !(settle <= 0.5) {
			t.Errorf("%v Hz: drawn within 0.01 of the server %.3f s after stopping, want <= 0.5 s", tc.rate, settle)
		}
		if over > lead+smoothing {
			t.Errorf("%v Hz: overshoot %.3f beyond the wall, want <= %.3f", tc.rate, over, lead+smoothing)
		}
		if d := math.Abs(float64(w.drawn[len(w.drawn)-1] - wall)); d > 0.01 {
			t.Errorf("%v Hz: drawn %.4f from the wall at the end", tc.rate, d)
		}
	}
}

// TestMovingPredictionAbsorbsSmallErrors: the server's states of a walker
// moving at constant speed are off by up to 0.05 units each (a coarse
// quantisation, say), within the default dead zone. The simulation takes
// every replayed state, but the drawing absorbs the differences into the
// motion: every frame the walker moves between 0.75 and 1.25 times its
// true motion (SmoothConfig.MotionShare), forward, and stays within the
// dead zone of the server's position.
func TestMovingPredictionAbsorbsSmallErrors(t *testing.T) {
	cfg := nsecs.DefaultConfig().WithTickRate(60)
	const fps = 144
	w := newWalkRun(t, cfg, fps, 0.05)
	w.input = func(float64) walk { return walk{X: 1} }
	w.noise = func(seq uint32) float32 {
		h := seq * 2654435761 // a fixed scramble: errors in [-0.05, 0.05]
		return float32(h>>16)/65535*0.1 - 0.05
	}
	w.run(3)
	motion := float64(walkSpeed) / fps
	lo, hi, absorbed, worst := math.Inf(1), 0.0, 0, 0.0
	for f := int(0.5 * fps); f < len(w.drawn); f++ {
		r := float64(w.drawn[f]-w.drawn[f-1]) / motion
		lo, hi = math.Min(lo, r), math.Max(hi, r)
		if w.reports[f].Absorbed {
			absorbed++
		}
	}
	// The server's position at the tick drawn: the truth lags the drawing
	// by the round trip, so compare with the walker's own clean path.
	for f := int(0.5 * fps); f < len(w.drawn); f++ {
		clean := statusTicks(w, f) // ticks run up to frame f
		worst = math.Max(worst, math.Abs(float64(w.drawn[f])-clean))
	}
	t.Logf("drawn step per frame %.3f to %.3f x the true motion; %d frames reported an absorbed error; largest distance from the clean path %.3f",
		lo, hi, absorbed, worst)
	if lo < 0.75-1e-3 || hi > 1.25+1e-3 {
		t.Errorf("drawn step %.3f to %.3f x the true motion, want within [0.75, 1.25]", lo, hi)
	}
	if absorbed == 0 {
		t.Error("no error was absorbed: the scenario did not exercise the dead zone")
	}
	if worst > 0.5+0.05 {
		t.Errorf("drawn up to %.3f from the clean path, want within the dead zone plus the error", worst)
	}
}

// statusTicks is where the clean walker is drawn at frame f: a tick
// behind the time simulated (drawn between its last two ticks).
func statusTicks(w *walkRun, f int) float64 {
	return (float64(f+1)/w.fps - 1/w.r.Pipe.Clock().TickRate()) * walkSpeed
}

// TestInstantAcknowledgementKeepsMoving: a server on the same machine
// (no latency) acknowledges every input before the next frame, so
// Reconcile has nothing to replay. The walker must keep moving smoothly:
// every frame it moves between 0.75 and 1.25 times its true motion, never
// standing still until the next prediction tick.
func TestInstantAcknowledgementKeepsMoving(t *testing.T) {
	for _, tc := range []struct{ rate, fps float64 }{{20, 60}, {60, 144}, {30, 60}} {
		cfg := nsecs.DefaultConfig().WithTickRate(tc.rate)
		w := newWalkRun(t, cfg, tc.fps, 0)
		w.input = func(float64) walk { return walk{X: 1} }
		w.run(2)
		motion := float64(walkSpeed) / tc.fps
		lo, hi, replayed := math.Inf(1), 0.0, 0
		for f := int(0.5 * tc.fps); f < len(w.drawn); f++ {
			r := float64(w.drawn[f]-w.drawn[f-1]) / motion
			lo, hi = math.Min(lo, r), math.Max(hi, r)
			replayed = max(replayed, int(w.reports[f].Replayed))
		}
		t.Logf("%v Hz, %v FPS: drawn step per frame %.3f to %.3f x the true motion; at most %d inputs replayed", tc.rate, tc.fps, lo, hi, replayed)
		if replayed != 0 {
			t.Errorf("%v Hz: %d inputs replayed: the scenario did not acknowledge every input at once", tc.rate, replayed)
		}
		if lo < 0.75-1e-3 || hi > 1.25+1e-3 {
			t.Errorf("%v Hz: drawn step %.3f to %.3f x the true motion, want within [0.75, 1.25]", tc.rate, lo, hi)
		}
	}
}

// TestInstantHardCutJumps: a server with no latency moves the walker 500
// units (a respawn) and acknowledges every input at once. Beyond the
// hard-cut distance the drawing jumps in the frame the state arrives,
// rather than sliding there over the rest of the tick.
func TestInstantHardCutJumps(t *testing.T) {
	cfg := nsecs.DefaultConfig().WithTickRate(20)
	w := newWalkRun(t, cfg, 60, 0)
	w.input = func(float64) walk { return walk{X: 1} }
	w.server = func(s walker, in walk, dt float64) walker {
		s = stepWalker(s, in, dt)
		if s.X > 2 && s.X < 100 {
			s.X += 500
		}
		return s
	}
	w.run(1)
	for f, r := range w.reports {
		if !r.HardCut {
			continue
		}
		t.Logf("hard cut at frame %d (%d replayed): drawn at %.2f, the server has %.2f", f, r.Replayed, w.drawn[f], w.truth[f])
		if r.Replayed != 0 {
			t.Fatalf("the hard cut replayed %d inputs: the scenario did not acknowledge every input at once", r.Replayed)
		}
		if w.drawn[f] < 500 {
			t.Errorf("drawn at %.2f in the frame of the hard cut: want the jump to beyond 500 at once", w.drawn[f])
		}
		return
	}
	t.Fatal("no hard cut reported")
}

package systems_test

import (
	"fmt"
	"math"
	"reflect"
	"runtime"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

// The hostile-stream suite: what a buggy, hostile or restarted server can
// send through the public API, and the guarantee that follows it: once the
// server sends a sane stream again, every entity it names is drawn right
// again within two seconds.

const (
	saneRate = 20 // ticks per second of the sane server
	saneFPS  = 60 // client frames per second
	// recoveryTime is the guarantee: a sane stream is drawn right again
	// within this many seconds of whatever came before.
	recoveryTime = 2.0
)

// saneServer sends a sane 20 Hz stream: entity id at tick t is at
// x = 10*id + 0.25*(t - base), sent every third 60 Hz client frame.
type saneServer struct {
	base, tick uint32
	ids        []components.NetID
	frames     int
	sent       int // messages pushed
}

func newSane(base uint32, ids ...components.NetID) *saneServer {
	return &saneServer{base: base, tick: base, ids: ids}
}

// firstIDs returns the NetIDs 1 to n.
func firstIDs(n int) []components.NetID {
	ids := make([]components.NetID, n)
	for i := range ids {
		ids[i] = components.NetID(i + 1)
	}
	return ids
}

func (s *saneServer) x(id components.NetID, tick float64) float64 {
	return 10*float64(id) + 0.25*(tick-float64(s.base))
}

// frame runs one client frame, sending the next tick first on every third.
func (s *saneServer) frame(r *rig) {
	if s.frames%(saneFPS/saneRate) == 0 {
		for _, id := range s.ids {
			r.Push(snap(id, s.tick, float32(s.x(id, float64(s.tick)))))
		}
		s.sent += len(s.ids)
		s.tick++
	}
	s.frames++
	r.Frame(1.0 / saneFPS)
}

// run runs the stream for the given seconds.
func (s *saneServer) run(r *rig, seconds float64) {
	for f := 0; f < int(seconds*saneFPS+0.5); f++ {
		s.frame(r)
	}
}

// drawnRight reports what is wrong with this frame's drawing of the sane
// stream, or nil: every entity visible, neither extrapolated nor held,
// within 0.05 units of where the stream puts it at the render time, and a
// delay back in its normal range.
func (s *saneServer) drawnRight(r *rig) error {
	m := r.Pipe.Metrics()
	rt := r.RenderTick()
	if rt < float64(s.base) || rt > float64(s.tick) {
		return fmt.Errorf("render tick %.2f outside the stream's ticks [%d, %d]", rt, s.base, s.tick)
	}
	if !(m.ActualDelay > 0 && m.ActualDelay <= 0.5) {
		return fmt.Errorf("actual delay %.3f s, want in (0, 0.5]", m.ActualDelay)
	}
	for _, id := range s.ids {
		e, ok := r.Pipe.Lookup(id)
		if !ok {
			return fmt.Errorf("entity %d does not exist", id)
		}
		d := r.RenderOf(e)
		switch {
		case d.Flags&components.Visible == 0:
			return fmt.Errorf("entity %d not visible", id)
		case d.Flags&(components.Held|components.Extrapolated) != 0:
			return fmt.Errorf("entity %d held or extrapolated (flags %b)", id, d.Flags)
		}
		if err := math.Abs(float64(d.Pos[0]) - s.x(id, rt)); !(err <= 0.05) {
			return fmt.Errorf("entity %d drawn at x=%.3f, the stream says %.3f at render tick %.2f", id, d.Pos[0], s.x(id, rt), rt)
		}
	}
	return nil
}

// recovers runs the sane stream for recoveryTime seconds, then requires it
// drawn right in every frame of the next half second.
func (s *saneServer) recovers(t *testing.T, r *rig) {
	t.Helper()
	s.run(r, recoveryTime)
	for f := 0; f < saneFPS/2; f++ {
		s.frame(r)
		checkFinite(t, r)
		if err := s.drawnRight(r); err != nil {
			t.Fatalf("%.2f s into the sane stream: %v\nmetrics:\n%s", recoveryTime+float64(f)/saneFPS, err, metricsText(r))
		}
	}
}

func metricsText(r *rig) string {
	var b = new(stringsBuilder)
	r.Pipe.Metrics().WriteTo(b)
	return b.String()
}

type stringsBuilder struct{ s []byte }

func (b *stringsBuilder) Write(p []byte) (int, error) { b.s = append(b.s, p...); return len(p), nil }
func (b *stringsBuilder) String() string              { return string(b.s) }

// checkFinite fails if any Render or Correction in the world, or any float
// field of the metrics, is NaN or infinite.
func checkFinite(t testing.TB, r *rig) {
	t.Helper()
	q := generic.NewFilter2[components.Render, components.Correction]().Query(&r.World)
	for q.Next() {
		d, c := q.Get()
		for _, x := range [...]float32{d.Pos[0], d.Pos[1], d.Pos[2], d.Rot.W, d.Rot.V[0], d.Rot.V[1], d.Rot.V[2],
			c.Pos[0], c.Pos[1], c.Pos[2], c.Rot[0], c.Rot[1], c.Rot[2]} {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				q.Close()
				t.Fatalf("entity %v: render %v, correction %v", q.Entity(), d, c)
			}
		}
	}
	v := reflect.ValueOf(r.Pipe.Metrics()).Elem()
	for i := 0; i < v.NumField(); i++ {
		if f := v.Field(i); f.Kind() == reflect.Float64 && (math.IsNaN(f.Float()) || math.IsInf(f.Float(), 0)) {
			t.Fatalf("metric %s = %v", v.Type().Field(i).Name, f.Float())
		}
	}
	if rt := r.RenderTick(); math.IsNaN(rt) || math.IsInf(rt, 0) {
		t.Fatalf("render tick %v", rt)
	}
}

// liveEntities counts the entities in the world.
func liveEntities(w *ecs.World) int {
	return w.Stats().Entities.Used
}

// TestEntityCapCountsEveryLife: a despawn at t and a snapshot at t+1, over
// and over for one NetID, start a new life each while the old one plays out
// its despawn; the cap counts them all.
func TestEntityCapCountsEveryLife(t *testing.T) {
	for _, limit := range []int{2, 10} {
		cfg := nsecs.DefaultConfig().WithTickRate(60)
		cfg.Receive.MaxEntities = limit
		r := newRig(t, cfg)
		pushed := 0
		tick := uint32(100)
		for f := 0; f < 120; f++ {
			for k := 0; k < 10; k++ {
				r.Push(systems.Message{Kind: systems.Despawn, NetID: 1, Tick: tick}, snap(1, tick+1, 0))
				pushed += 2
				tick += 2
			}
			r.Frame(1.0 / 60)
			if n := liveEntities(&r.World); n > limit {
				t.Fatalf("MaxEntities %d: %d entities alive after frame %d", limit, n, f)
			}
			if m := r.Pipe.Metrics(); m.Entities > limit {
				t.Fatalf("MaxEntities %d: Metrics.Entities %d", limit, m.Entities)
			}
		}
		if r.Pipe.Metrics().Rejected[systems.RejectEntityLimit] == 0 {
			t.Fatalf("MaxEntities %d: no spawn refused", limit)
		}
		r.CheckCounted(pushed)
	}
}

// TestAbsurdFirstTicksRecover: the very first message carries an absurd
// tick (near the end of the tick range, or 1000 ticks ahead of the real
// stream); the clock syncs on it, and the entity is stored there. The sane
// stream that follows re-anchors the clock and the entity is drawn right.
func TestAbsurdFirstTicksRecover(t *testing.T) {
	for _, first := range []uint32{math.MaxUint32 - 5, 6000, 5000 + 1000} {
		t.Run(fmt.Sprint(first), func(t *testing.T) {
			r := newRig(t, nsecs.DefaultConfig())
			r.Push(snap(1, first, 99), systems.Message{Kind: systems.Spawn, NetID: 2, Tick: first, Pos: mgl32.Vec3{99, 0, 0}})
			r.Frame(1.0 / saneFPS)
			newSane(5000, 1, 2).recovers(t, r)
			if r.Pipe.Clock().Reanchors() == 0 {
				t.Fatal("the clock never re-anchored")
			}
		})
	}
}

// TestAbsurdDespawnsBeforeSyncRecover: before anything was accepted, the
// server despawns every entity the sane stream will send, at ticks far
// ahead of it (or at the end of the tick range). Nothing can judge those
// ticks yet, so the tombstones stand and refuse the stream; the refused
// messages still sync the clock, the clock re-anchors to the stream, the
// tombstones beyond it are dropped, and the stream is drawn right.
func TestAbsurdDespawnsBeforeSyncRecover(t *testing.T) {
	for _, ahead := range []uint32{1 << 24, math.MaxUint32 - 5000} {
		t.Run(fmt.Sprint(ahead), func(t *testing.T) {
			r := newRig(t, nsecs.DefaultConfig())
			for id := components.NetID(1); id <= 3; id++ {
				r.Push(systems.Message{Kind: systems.Despawn, NetID: id, Tick: 5000 + ahead})
			}
			r.Frame(1.0 / saneFPS)
			newSane(5000, 1, 2, 3).recovers(t, r)
		})
	}
}

// TestFutureTicksWithinSaneStream: after sync, a dozen frames each carry
// one packet a million ticks ahead next to the sane stream: refused, and
// nothing moves the clock.
func TestFutureTicksWithinSaneStream(t *testing.T) {
	r := newRig(t, nsecs.DefaultConfig())
	s := newSane(5000, 1, 2, 3)
	s.run(r, 1)
	for f := 0; f < 12; f++ {
		r.Push(snap(1, s.tick+1_000_000+uint32(f), 0))
		s.frame(r)
		if err := s.drawnRight(r); err != nil {
			t.Fatalf("frame %d of the far-future packets: %v", f, err)
		}
	}
	if m := r.Pipe.Metrics(); m.Rejected[systems.RejectFuture] != 12 || r.Pipe.Clock().Reanchors() != 0 || m.ClockResets != 0 {
		t.Fatalf("future refused %d (want 12), reanchors %d, resets %d", m.Rejected[systems.RejectFuture], r.Pipe.Clock().Reanchors(), m.ClockResets)
	}
	s.recovers(t, r)
}

// TestOneSampleAheadDoesNotLagTheOthers: before the stream starts, one
// sample of entity 1 arrives 18 ticks (0.9 s) ahead of it, with one of
// NetID 0 at its first tick (a case the stream fuzzer found). The clock runs
// ahead and then holds until the stream catches up; entities 2 and 3,
// drawn past their newest samples meanwhile, must not take the time they
// waited as a lag of their own (worked off at 1.4 times their speed, it
// outlasted the two seconds): every entity waited, not they alone.
func TestOneSampleAheadDoesNotLagTheOthers(t *testing.T) {
	const base = 808464432
	r := newRig(t, nsecs.DefaultConfig())
	r.Push(snap(1, base+18, 0), snap(0, base, 0)) // and one of NetID 0, refused
	r.Frame(1.0 / saneFPS)
	newSane(base, 1, 2, 3).recovers(t, r)
}

// TestFewFarFutureTicksNeverMoveTheClock: at 60 Hz with one sane tick per
// frame, an unrelated NetID carrying a tick a million ahead in every frame
// for a second is outvoted: the clock stays, nothing is extrapolated.
func TestFewFarFutureTicksNeverMoveTheClock(t *testing.T) {
	r := newRig(t, nsecs.DefaultConfig().WithTickRate(60))
	tick := uint32(1000)
	frame := func(hostile bool) {
		r.Push(snap(1, tick, float32(tick-1000)*0.1))
		if hostile {
			r.Push(snap(2, tick+1_000_000, 0))
		}
		tick++
		r.Frame(1.0 / 60)
	}
	for f := 0; f < 60; f++ {
		frame(false)
	}
	delay := r.Pipe.Metrics().ActualDelay
	for f := 0; f < 60; f++ {
		frame(true)
		m := r.Pipe.Metrics()
		if r.Pipe.Clock().Reanchors() != 0 || math.Abs(m.ActualDelay-delay) > 0.05 || m.FrameExtrapolated+m.FrameHeld != 0 {
			t.Fatalf("frame %d: reanchors %d, actual delay %.3f s (was %.3f), extrapolated %d, held %d",
				f, r.Pipe.Clock().Reanchors(), m.ActualDelay, delay, m.FrameExtrapolated, m.FrameHeld)
		}
	}
}

// TestEarlyStampedTicksNeverDragTheClock: one NetID whose snapshots are
// stamped up to MaxFuture ahead of the server's clock, twice a second
// among a sane stream of 20 entities, is accepted every time (it is within
// the future limit) but does not drag the server-time estimate: it looks
// like the fastest packet yet, and each step ahead would raise the future
// limit for the next (by over a second at 20 Hz, before the clock weighed
// ticks in bulk). Every frame draws the sane stream right, and the clock
// neither re-anchors nor jumps.
func TestEarlyStampedTicksNeverDragTheClock(t *testing.T) {
	r := newRig(t, nsecs.DefaultConfig())
	s := newSane(5000, firstIDs(20)...)
	s.run(r, 3)
	c := r.Pipe.Clock()
	maxFuture := nsecs.DefaultConfig().Receive.MaxFuture
	for f := 0; f < 20*saneFPS; f++ {
		if f%(saneFPS/2) == 7 {
			lead := (0.2 + 0.75*float64(f/(saneFPS/2)%4)/4) * maxFuture * saneRate
			r.Push(snap(999, uint32(c.ServerTick()+lead), 0))
		}
		s.frame(r)
		if err := s.drawnRight(r); err != nil {
			t.Fatalf("%.2f s into the early-stamped ticks: %v\nmetrics:\n%s", float64(f)/saneFPS, err, metricsText(r))
		}
	}
	m := r.Pipe.Metrics()
	if c.Reanchors() != 0 || m.ClockResets != 0 || m.Rejected[systems.RejectFuture] != 0 {
		t.Fatalf("reanchors %d, resets %d, refused as future %d", c.Reanchors(), m.ClockResets, m.Rejected[systems.RejectFuture])
	}
}

// TestRestartWithFewerEntitiesRecovers: a server sending 200 entities
// is replaced by one sending 5, its ticks a little ahead (within the
// future limit) or behind: the new stream is drawn right within the
// recovery time.
func TestRestartWithFewerEntitiesRecovers(t *testing.T) {
	for _, shift := range []int{5, 9, -40, -5000} {
		r := newRig(t, nsecs.DefaultConfig())
		old := newSane(5000, firstIDs(200)...)
		old.run(r, 3)
		s := newSane(uint32(int(old.tick)+shift), 1, 2, 3, 4, 5)
		t.Run(fmt.Sprintf("ticks %+d", shift), func(t *testing.T) { s.recovers(t, r) })
	}
}

// TestServerRestartRecovers: the server's ticks start again at 0, jump far
// back, or wrap around the end of the tick range; the client follows
// without being rebuilt.
func TestServerRestartRecovers(t *testing.T) {
	cases := []struct {
		name       string
		before     uint32 // the first stream's base
		after      uint32 // the second stream's base
		despawnOld bool
	}{
		{"restart at 0", 50_000, 0, false},
		{"far back", 3_000_000, 1_000_000, true},
		{"wrap", math.MaxUint32 - 40, 3, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, nsecs.DefaultConfig())
			old := newSane(c.before, 1, 2, 3)
			old.run(r, 1.9)
			if err := old.drawnRight(r); err != nil {
				t.Fatalf("before the restart: %v", err)
			}
			if c.despawnOld {
				// A despawn scheduled in the old timeline must not hold
				// the id once the new one begins.
				r.Push(systems.Message{Kind: systems.Despawn, NetID: 2, Tick: old.tick + 2})
			}
			// The new server names the same ids, plus a new one.
			newSane(c.after, 1, 2, 3, 4).recovers(t, r)
			if m := r.Pipe.Metrics(); m.ClockHolds > 0 && r.Pipe.Clock().Reanchors() == 0 {
				t.Fatalf("held %d frames without re-anchoring", m.ClockHolds)
			}
		})
	}
}

// TestBadFrameTimes: dt of 0, negative, NaN, infinite or 1e307 never puts a
// NaN anywhere, and the sane stream is drawn right afterwards.
func TestBadFrameTimes(t *testing.T) {
	r := newRig(t, nsecs.DefaultConfig())
	s := newSane(5000, 1, 2)
	s.run(r, 1)
	for _, dt := range []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1), 1e307, 1e300, 8e306, math.MaxFloat64} {
		r.Frame(dt)
		checkFinite(t, r)
	}
	s.recovers(t, r)
}

// TestHugeDtOnPredictedEntities: one enormous frame skips at most
// MaxFrameDt worth of prediction ticks, counted.
func TestHugeDtOnPredictedEntities(t *testing.T) {
	p := newPredRig(t, nsecs.DefaultConfig().WithTickRate(60))
	for _, dt := range []float64{1e18, math.Inf(1), 1e307} {
		before := p.Pipe.Metrics().SkippedTicks
		p.Frame(dt)
		checkFinite(t, p.rig)
		if skipped := p.Pipe.Metrics().SkippedTicks - before; skipped > systems.MaxFrameDt*60 {
			t.Fatalf("dt %v skipped %d ticks, want at most %d", dt, skipped, systems.MaxFrameDt*60)
		}
	}
}

// drifter is a predicted game whose state keeps its velocity: a NaN
// velocity in an authoritative state would poison every later step.
type drifter struct{ X, VX float32 }

var drifterSim = systems.Simulation[drifter, move]{
	Step: func(s drifter, in move, dt float64) drifter {
		s.VX += float32(in.X)
		s.X += s.VX * float32(dt)
		return s
	},
	Position: func(s *drifter) mgl32.Vec3 { return mgl32.Vec3{s.X, 0, 0} },
}

// TestNonFiniteAuthoritativeStates: a NaN or infinite velocity (a field the
// pipeline cannot see), a position beyond MaxAbs or a NaN position never
// reach Render, Correction or Metrics: each is refused and counted.
func TestNonFiniteAuthoritativeStates(t *testing.T) {
	r := newRig(t, nsecs.DefaultConfig().WithTickRate(60))
	pr, err := nsecs.AddPredictor(r.Pipe, drifterSim)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := pr.Spawn(&r.World, 1, drifter{VX: 1})
	cmds := generic.NewMap1[components.InputCommand[move]](&r.World)
	cmds.Get(e).Input = move{X: 1}
	for f := 0; f < 10; f++ {
		r.Frame(1.0 / 60)
	}
	bad := []struct {
		state  drifter
		reason systems.RejectReason
	}{
		{drifter{X: 1, VX: float32(math.NaN())}, systems.RejectNonFinite},
		{drifter{X: 1, VX: float32(math.Inf(1))}, systems.RejectNonFinite},
		{drifter{X: 1, VX: 3e38}, systems.RejectInvalid}, // finite, beyond MaxAbs after one step
		{drifter{X: 2e19}, systems.RejectInvalid},
		{drifter{X: float32(math.NaN())}, systems.RejectNonFinite},
	}
	for k, b := range bad {
		before := r.Pipe.Metrics().Rejected[b.reason]
		pr.Inbox().Push(systems.Authoritative[drifter]{NetID: 1, Tick: uint32(5 + k), Ack: uint32(1 + k), State: b.state})
		for f := 0; f < 5; f++ {
			r.Frame(1.0 / 60)
			checkFinite(t, r)
		}
		if got := r.Pipe.Metrics().Rejected[b.reason] - before; got != 1 {
			t.Fatalf("state %+v: %d refused as %v, want 1", b.state, got, b.reason)
		}
	}
	if x := r.Render(1).Pos[0]; !(x > 0) {
		t.Fatalf("drawn at x=%v after the garbage, want it still moving right", x)
	}
}

// TestStepReturningNaNKeepsLastGoodState: a game whose Step returns NaN
// keeps its last good state; the bad steps are counted.
func TestStepReturningNaNKeepsLastGoodState(t *testing.T) {
	r := newRig(t, nsecs.DefaultConfig().WithTickRate(60))
	broken := playerSim
	broken.Step = func(s player, in move, dt float64) player {
		s = playerSim.Step(s, in, dt)
		if s.X > 5 {
			s.X = float32(math.NaN())
		}
		return s
	}
	pr, err := nsecs.AddPredictor(r.Pipe, broken)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := pr.Spawn(&r.World, 1, player{})
	cmds := generic.NewMap1[components.InputCommand[move]](&r.World)
	cmds.Get(e).Input = move{X: 1}
	for f := 0; f < 60; f++ {
		r.Frame(1.0 / 60)
		checkFinite(t, r)
	}
	if m := r.Pipe.Metrics(); m.BadSteps == 0 {
		t.Fatal("no bad step counted")
	}
	if x := r.Render(1).Pos[0]; !(x > 0 && x <= 5) {
		t.Fatalf("drawn at x=%v, want the last good state in (0, 5]", x)
	}
}

// TestAuthoritativeStateForAnotherPredictor: two predictors with different
// state types; a state pushed into the second for an entity of the first is
// refused and counted, not a panic.
func TestAuthoritativeStateForAnotherPredictor(t *testing.T) {
	type other struct{ P mgl32.Vec3 }
	r := newRig(t, nsecs.DefaultConfig().WithTickRate(60))
	first, err := nsecs.AddPredictor(r.Pipe, playerSim)
	if err != nil {
		t.Fatal(err)
	}
	second, err := nsecs.AddPredictor(r.Pipe, systems.Simulation[other, move]{
		Step:     func(s other, _ move, _ float64) other { return s },
		Position: func(s *other) mgl32.Vec3 { return s.P },
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Spawn(&r.World, 1, player{}); err != nil {
		t.Fatal(err)
	}
	r.Frame(1.0 / 60)
	second.Inbox().Push(systems.Authoritative[other]{NetID: 1, Tick: 1, Ack: 0})
	r.Frame(1.0 / 60)
	if got := r.Pipe.Metrics().Rejected[systems.RejectOtherPredictor]; got != 1 {
		t.Fatalf("refused as another predictor's: %d, want 1", got)
	}
}

// TestZeroRotationFromSimulation: a Rotation function returning the zero
// quaternion draws the identity, not a zero rotation.
func TestZeroRotationFromSimulation(t *testing.T) {
	r := newRig(t, nsecs.DefaultConfig().WithTickRate(60))
	sim := playerSim
	sim.Rotation = func(*player) mgl32.Quat { return mgl32.Quat{} }
	pr, err := nsecs.AddPredictor(r.Pipe, sim)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pr.Spawn(&r.World, 1, player{}); err != nil {
		t.Fatal(err)
	}
	r.Frame(1.0 / 60)
	r.Frame(1.0 / 60)
	if rot := r.Render(1).Rot; rot != mgl32.QuatIdent() {
		t.Fatalf("drawn rotation %v, want the identity", rot)
	}
}

// TestFloodMemoryIsGivenBack: a flood that fills the inbox frame after
// frame leaves no memory held once normal traffic resumes.
func TestFloodMemoryIsGivenBack(t *testing.T) {
	t.Run("one goroutine", func(t *testing.T) { floodMemoryIsGivenBack(t, nsecs.DefaultConfig()) })
	t.Run("Receive on 3", func(t *testing.T) {
		cfg := nsecs.DefaultConfig()
		cfg.Receive.Workers, cfg.Receive.ParallelMin = 3, 1000
		floodMemoryIsGivenBack(t, cfg)
	})
}

func floodMemoryIsGivenBack(t *testing.T, cfg nsecs.Config) {
	r := newRig(t, cfg)
	defer r.Pipe.Finalize()
	s := newSane(5000, 1, 2, 3)
	s.run(r, 0.5)
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	base := heap()
	flood := make([]systems.Message, systems.DefaultInboxCapacity+1000)
	for i := range flood {
		flood[i] = snap(1, s.tick-1, 0) // duplicates of a buffered tick
	}
	for f := 0; f < 6; f++ {
		r.Pipe.Inbox().PushBatch(flood)
		s.frame(r)
	}
	flood = nil
	peak := heap()
	s.run(r, 5)
	after := heap()
	t.Logf("heap: %d KB before, %d KB during the flood, %d KB after", base>>10, peak>>10, after>>10)
	if peak < base+8<<20 {
		t.Fatalf("the flood took only %d KB: the test does not measure what it should", (peak-base)>>10)
	}
	if after > base+512<<10 {
		t.Fatalf("%d KB still held 5 s after the flood (%d KB before it)", after>>10, base>>10)
	}
	if m := r.Pipe.Metrics(); m.Rejected[systems.RejectInboxFull] < 6*1000 {
		t.Fatalf("inbox-full rejections %d, want at least %d", m.Rejected[systems.RejectInboxFull], 6*1000)
	}
	s.recovers(t, r)
}

// TestNetIDFloodBounded: a burst of new NetIDs spawns at most MaxEntities.
func TestNetIDFloodBounded(t *testing.T) {
	cfg := nsecs.DefaultConfig()
	cfg.Receive.MaxEntities = 1000
	r := newRig(t, cfg)
	s := newSane(5000, 1, 2)
	s.run(r, 0.5)
	for id := components.NetID(100); id < 20_000; id++ {
		r.Push(snap(id, s.tick-1, 0))
	}
	s.frame(r)
	if n := liveEntities(&r.World); n > 1000 {
		t.Fatalf("%d entities alive, MaxEntities is 1000", n)
	}
	if got := r.Pipe.Metrics().Rejected[systems.RejectEntityLimit]; got != 20_000-100-998 {
		t.Fatalf("entity-limit rejections %d, want %d", got, 20_000-100-998)
	}
}

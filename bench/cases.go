package bench

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	c "github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

// warmup runs enough frames of the steady scenario to fill every ring and
// let buffers reach their steady size.
func warmup(impl Impl, s *Stream) {
	for f := 0; f < 30*FramesPerTick; f++ {
		if f%FramesPerTick == 0 {
			impl.Push(s.Tick())
		}
		impl.Frame(1.0 / FPS)
	}
}

func perEntity(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/entity")
}

// Frame measures a whole render frame of the steady scenario: every third
// frame receives one snapshot per entity (20 Hz snapshots at 60 FPS). The
// snapshot generation is not timed; receiving them is.
func Frame(b *testing.B, name string, n int) {
	impl, s := New(name, n), NewStream(n)
	warmup(impl, s)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%FramesPerTick == 0 {
			b.StopTimer()
			msgs := s.Tick()
			b.StartTimer()
			impl.Push(msgs)
		}
		impl.Frame(1.0 / FPS)
	}
	perEntity(b, n)
}

// Ingest measures receiving one snapshot per entity: handing it over and
// running netsmooth's Receive system (the baselines' ingest step), without
// interpolation.
func Ingest(b *testing.B, name string, n int) {
	impl, s := New(name, n), NewStream(n)
	warmup(impl, s)
	var recv func()
	switch p := impl.(type) {
	case *Pipeline:
		r := p.Pipe.Systems()[0]
		frame := ecs.GetResource[systems.Frame](&p.World)
		recv = func() { frame.Dt = 1.0 / TickRate; r.Update(&p.World) }
	case *Flat:
		recv = func() { p.clock.BeginFrame(1.0 / TickRate); p.ingest(); p.clock.Advance() }
	case *Naive:
		recv = func() { p.clock.BeginFrame(1.0 / TickRate); p.ingest(); p.clock.Advance() }
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		msgs := s.Tick()
		b.StartTimer()
		impl.Push(msgs)
		recv()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/snapshot")
}

// System measures one of netsmooth's systems alone (0 Receive,
// 1 Interpolate, 2 Smooth, 3 Snap) inside the steady scenario; the other
// systems run untimed.
func System(b *testing.B, index, n int) {
	p, s := NewPipeline(n), NewStream(n)
	warmup(p, s)
	systemsInOrder := p.Pipe.Systems()
	frame := ecs.GetResource[systems.Frame](&p.World)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if i%FramesPerTick == 0 {
			p.Push(s.Tick())
		}
		frame.Dt = 1.0 / FPS
		for k, sys := range systemsInOrder {
			if k == index {
				b.StartTimer()
				sys.Update(&p.World)
				b.StopTimer()
			} else {
				sys.Update(&p.World)
			}
		}
		b.StartTimer()
	}
	perEntity(b, n)
}

// FlatInterpolate measures the flat baseline's interpolation step alone in
// the steady scenario: the lower bound for netsmooth's Interpolate system.
func FlatInterpolate(b *testing.B, n int) {
	f, s := NewFlat(n), NewStream(n)
	warmup(f, s)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if i%FramesPerTick == 0 {
			f.Push(s.Tick())
		}
		f.clock.BeginFrame(1.0 / FPS)
		f.ingest()
		f.clock.Advance()
		b.StartTimer()
		f.interpolate()
	}
	perEntity(b, n)
}

// Churn measures the steady scenario while a fraction of the entities is
// replaced every snapshot: despawned (taking effect at the render time) and
// spawned under new NetIDs.
func Churn(b *testing.B, n int, fraction float64) {
	p := NewPipeline(n)
	s := NewStream(n)
	per := max(1, int(float64(n)*fraction))
	ids := make([]c.NetID, n) // the live ids, slot i sends as Stream entity i
	for i := range ids {
		ids[i] = c.NetID(i + 1)
	}
	next := c.NetID(n + 1)
	victim := 0
	extra := make([]systems.Message, 0, per)
	send := func() {
		msgs := s.Tick()
		tick := msgs[0].Tick
		extra = extra[:0]
		for k := 0; k < per; k++ {
			v := (victim + k) % n
			extra = append(extra, systems.Message{Kind: systems.Despawn, NetID: ids[v], Tick: tick})
			ids[v] = next
			next++
		}
		victim = (victim + per) % n
		for i := range msgs {
			msgs[i].NetID = ids[i]
		}
		p.Push(msgs)
		p.Push(extra)
	}
	for f := 0; f < 30*FramesPerTick; f++ {
		if f%FramesPerTick == 0 {
			send()
		}
		p.Frame(1.0 / FPS)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%FramesPerTick == 0 {
			b.StopTimer()
			send()
			b.StartTimer()
		}
		p.Frame(1.0 / FPS)
	}
	perEntity(b, n)
}

// Lifecycle measures spawning and despawning alone: each iteration spawns
// batch entities (a Spawn message each) and despawns the batch spawned
// before it, through the Receive system, cycling through 4×batch NetIDs (a
// server reusing ids). It reports ns per entity spawned and despawned.
func Lifecycle(b *testing.B, batch int) {
	p := NewPipeline(4 * batch)
	recv := p.Pipe.Systems()[0]
	frame := ecs.GetResource[systems.Frame](&p.World)
	msgs := make([]systems.Message, 0, 2*batch)
	ids := 4 * batch
	round := 0
	tick := uint32(1)
	step := func() {
		msgs = msgs[:0]
		for k := 0; k < batch; k++ {
			id := c.NetID(1 + (round*batch+k)%ids)
			msgs = append(msgs, systems.Message{Kind: systems.Spawn, NetID: id, Tick: tick})
			if round > 0 {
				old := c.NetID(1 + ((round-1)*batch+k)%ids)
				msgs = append(msgs, systems.Message{Kind: systems.Despawn, NetID: old, Tick: tick})
			}
		}
		round++
		tick++
		p.Push(msgs)
		frame.Dt = 1.0 / TickRate
		recv.Update(&p.World)
	}
	for i := 0; i < 4; i++ {
		step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		step()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(batch), "ns/lifecycle")
}

// predState and predInput are the predicted benchmark's game types.
type predState struct{ Pos, Vel mgl32.Vec3 }
type predInput struct{ X, Y int8 }

var predSim = nsecs.Simulation[predState, predInput]{
	Step: func(s predState, in predInput, dt float64) predState {
		s.Vel = mgl32.Vec3{float32(in.X) * 5, float32(in.Y) * 5, 0}
		s.Pos = mgl32.Vec3{s.Pos[0] + s.Vel[0]*float32(dt), s.Pos[1] + s.Vel[1]*float32(dt), s.Pos[2]}
		return s
	},
	Position: func(s *predState) mgl32.Vec3 { return s.Pos },
}

// Predicted measures n predicted entities at 60 Hz ticks and 60 FPS, each
// reconciled every third tick against a state acknowledging its inputs up
// to 6 ticks back (a 100 ms round trip), so 6 inputs are replayed.
func Predicted(b *testing.B, n int) {
	w := ecs.NewWorld()
	pipe, err := nsecs.New(&w, nsecs.DefaultConfig().WithTickRate(60))
	if err != nil {
		b.Fatal(err)
	}
	pred, err := nsecs.AddPrediction(pipe, predSim)
	if err != nil {
		b.Fatal(err)
	}
	comps := generic.NewMap2[c.PredictedState[predState], c.InputCommand[predInput]](&w)
	states := make([]*c.PredictedState[predState], n)
	for i := 0; i < n; i++ {
		e, err := pred.Spawn(&w, c.NetID(i+1), predState{})
		if err != nil {
			b.Fatal(err)
		}
		st, cmd := comps.Get(e)
		cmd.Input = predInput{X: 1}
		states[i] = st
	}
	// The predicted state after each recent input, per entity: what the
	// server (agreeing with the client) will acknowledge 6 ticks later.
	const rtt = 6
	var past [rtt + 2][]predState
	for k := range past {
		past[k] = make([]predState, n)
	}
	var sent []nsecs.SentInput[predInput]
	step := func() {
		pipe.Update(1.0 / 60)
		sent = pred.Outbox().Drain(sent)
		seq := pred.Ticks()
		for i, st := range states {
			past[seq%uint64(len(past))][i] = st.Current
		}
		if seq%3 == 0 && seq > rtt {
			ack := seq - rtt
			for i := 0; i < n; i++ {
				pred.Inbox().Push(nsecs.Authoritative[predState]{NetID: c.NetID(i + 1), Tick: uint32(ack), Ack: uint32(ack), State: past[ack%uint64(len(past))][i]})
			}
		}
	}
	for f := 0; f < 120; f++ {
		step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		step()
	}
	perEntity(b, n)
}

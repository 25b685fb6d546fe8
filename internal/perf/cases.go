package perf

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/mlange-42/arche/ecs"
	c "github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/systems"
)

// release finalizes a pipeline when the benchmark ends, so that its
// goroutines and memory do not outlive it into the next one.
func release(b *testing.B, impl scenario.Client) {
	if p, ok := impl.(*scenario.NetSmooth); ok {
		b.Cleanup(p.Pipeline().Finalize)
	}
}

func perEntity(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/entity")
}

// Frame measures a whole render frame of the steady scenario: every third
// frame receives one snapshot per entity (20 Hz snapshots at 60 FPS). The
// snapshot generation is not timed; receiving them is.
func Frame(b *testing.B, name string, n int) { frameOn(b, name, NewStream(n)) }

// FramePositionOnly is Frame on a stream that never sets a rotation (the
// zero quaternion, standing for the identity), as a top-down 2D game
// sends it: no rotation needs blending.
func FramePositionOnly(b *testing.B, name string, n int) {
	s := NewStream(n)
	s.PositionOnly = true
	frameOn(b, name, s)
}

// frameOn measures whole frames of implementation name on stream s.
func frameOn(b *testing.B, name string, s *Stream) {
	impl := New(name, s.n)
	release(b, impl)
	r := warmup(impl, s)
	r.b = b
	b.ReportAllocs()
	b.ResetTimer()
	r.frames(b.N)
	perEntity(b, s.n)
}

// FrameSplit measures whole frames like Frame, timed one by one, and
// reports the frames in which the render time crosses a sample (every
// bracket moves on: ns/entity-crossing) apart from the others
// (ns/entity-between). Generating the snapshots is not counted.
func FrameSplit(b *testing.B, name string, n int) {
	impl := New(name, n)
	release(b, impl)
	r := warmup(impl, NewStream(n))
	r.track = true
	var cross, between time.Duration
	var crossN, betweenN int
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		_, before, _, _ := impl.Draw(1)
		r.gen = 0
		start := time.Now()
		r.loop.Step()
		d := time.Since(start) - r.gen
		_, after, _, _ := impl.Draw(1)
		if math.Floor(after*TickRate) != math.Floor(before*TickRate) {
			cross += d
			crossN++
		} else {
			between += d
			betweenN++
		}
	}
	if crossN > 0 {
		b.ReportMetric(float64(cross.Nanoseconds())/float64(crossN)/float64(n), "ns/entity-crossing")
	}
	if betweenN > 0 {
		b.ReportMetric(float64(between.Nanoseconds())/float64(betweenN)/float64(n), "ns/entity-between")
	}
}

// Ingest measures receiving one snapshot per entity: handing it over and
// running the receiving part of a frame (netsmooth's Receive, Timeline and
// Retire systems, the baselines' Ingest), without interpolation.
func Ingest(b *testing.B, name string, n int) {
	impl, s := New(name, n), NewStream(n)
	release(b, impl)
	warmup(impl, s)
	r := newRun(receiving(impl), s, TickRate, 1)
	r.b = b
	b.ReportAllocs()
	b.ResetTimer()
	r.frames(b.N)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/snapshot")
}

// receivingClient is a client whose frames run only their receiving part.
type receivingClient struct {
	scenario.Client
	ingest func(dt float64)
}

func (c receivingClient) Frame(dt float64) { c.ingest(dt) }

// receiving returns impl with frames that only receive.
func receiving(impl scenario.Client) scenario.Client {
	if p, ok := impl.(*scenario.NetSmooth); ok {
		return receivingClient{Client: p, ingest: stages(p, Receive, Timeline, Retire).run}
	}
	return receivingClient{Client: impl, ingest: impl.(interface{ Ingest(dt float64) }).Ingest}
}

// Stage names one of netsmooth's systems.
type Stage string

// netsmooth's systems, as [System] measures them.
const (
	Receive     Stage = "receive"
	Timeline    Stage = "timeline"
	Retire      Stage = "retire"
	Interpolate Stage = "interpolate"
	Smooth      Stage = "smooth"
	Snap        Stage = "snap"
)

// Stages are the systems of a pipeline without prediction, in frame order.
var Stages = []Stage{Receive, Timeline, Retire, Interpolate, Snap, Smooth}

// stageOf returns the stage of one of the pipeline's systems.
func stageOf(s nsecs.System) Stage {
	switch s.(type) {
	case *systems.Receive:
		return Receive
	case *systems.Timeline:
		return Timeline
	case *systems.Retire:
		return Retire
	case *systems.Interpolate:
		return Interpolate
	case *systems.Smooth:
		return Smooth
	case *systems.Snap:
		return Snap
	}
	return Stage(fmt.Sprintf("%T", s))
}

// staged runs a pipeline's systems by hand, in order: those of the chosen
// stages only, or all of them with the chosen ones timed.
type staged struct {
	p      *scenario.NetSmooth
	frame  *systems.Frame
	all    []nsecs.System
	chosen []bool
	b      *testing.B // if set, time the chosen systems only and run all
}

// stages selects the pipeline's systems of the given stages; it panics if
// one is missing.
func stages(p *scenario.NetSmooth, want ...Stage) *staged {
	s := &staged{p: p, frame: ecs.GetResource[systems.Frame](p.World()), all: p.Pipeline().Systems()}
	s.chosen = make([]bool, len(s.all))
	for _, st := range want {
		found := false
		for i, sys := range s.all {
			if stageOf(sys) == st {
				s.chosen[i], found = true, true
			}
		}
		if !found {
			panic(fmt.Sprintf("bench: the pipeline has no %s system", st))
		}
	}
	return s
}

// run runs a frame of dt seconds: the chosen systems, or with b set every
// system with only the chosen ones timed.
func (s *staged) run(dt float64) {
	s.frame.Set(dt)
	w := s.p.World()
	for i, sys := range s.all {
		switch {
		case s.b == nil && s.chosen[i]:
			sys.Update(w)
		case s.b != nil && s.chosen[i]:
			s.b.StartTimer()
			sys.Update(w)
			s.b.StopTimer()
		case s.b != nil:
			sys.Update(w)
		}
	}
}

// stageTimer is the pipeline with frames run by a staged.
type stageTimer struct {
	*scenario.NetSmooth
	s *staged
}

func (t stageTimer) Frame(dt float64) { t.s.run(dt) }

// System measures one of netsmooth's systems alone inside the steady
// scenario; the other systems run untimed.
func System(b *testing.B, stage Stage, n int) {
	p := NewPipeline(n)
	release(b, p)
	r := warmup(p, NewStream(n))
	timed := stages(p, stage)
	timed.b = b
	r.loop.Client = stageTimer{NetSmooth: p, s: timed}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		r.loop.Step()
		b.StartTimer()
	}
	perEntity(b, n)
}

// interpolationTimed is a baseline whose frames time only their
// interpolation step.
type interpolationTimed struct {
	scenario.Client
	ingest      func(dt float64)
	interpolate func()
	b           *testing.B
}

func (t interpolationTimed) Frame(dt float64) {
	t.ingest(dt)
	t.b.StartTimer()
	t.interpolate()
}

// interpolationOnly measures a baseline's interpolation step alone in the
// steady scenario.
func interpolationOnly(b *testing.B, impl scenario.Client, ingest func(float64), interpolate func(), n int) {
	r := warmup(impl, NewStream(n))
	r.loop.Client = interpolationTimed{Client: impl, ingest: ingest, interpolate: interpolate, b: b}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		r.loop.Step()
	}
	perEntity(b, n)
}

// FlatInterpolate measures the flat baseline's interpolation step alone in
// the steady scenario: netsmooth's own layout and maths without the ECS.
func FlatInterpolate(b *testing.B, n int) {
	f := NewFlat(n)
	interpolationOnly(b, f, f.Ingest, f.interpolate, n)
}

// MinimumInterpolate measures the lower bound's interpolation step alone
// in the steady scenario: the reference for netsmooth's Interpolate
// system.
func MinimumInterpolate(b *testing.B, n int) {
	m := NewMinimum(n)
	interpolationOnly(b, m, m.Ingest, m.Interpolate, n)
}

// churn is the server of the churn benchmark: the steady stream, with a
// share of the entities replaced every tick (despawned, and sending under
// new NetIDs from then on).
type churn struct {
	s      *Stream
	ids    []c.NetID // the live ids: slot i sends as Stream entity i
	per    int
	next   c.NetID
	victim int
	extra  []systems.Message
}

func newChurn(s *Stream, n int, fraction float64) *churn {
	ch := &churn{s: s, ids: make([]c.NetID, n), per: max(1, int(float64(n)*fraction)), next: c.NetID(n + 1)}
	for i := range ch.ids {
		ch.ids[i] = c.NetID(i + 1)
	}
	ch.extra = make([]systems.Message, 0, ch.per)
	return ch
}

// send appends the tick's snapshots and its despawns.
func (ch *churn) send(dst [][]systems.Message) [][]systems.Message {
	msgs := ch.s.Tick()
	tick := msgs[0].Tick
	ch.extra = ch.extra[:0]
	n := len(ch.ids)
	for k := 0; k < ch.per; k++ {
		v := (ch.victim + k) % n
		ch.extra = append(ch.extra, systems.Message{Kind: systems.Despawn, NetID: ch.ids[v], Tick: tick})
		ch.ids[v] = ch.next
		ch.next++
	}
	ch.victim = (ch.victim + ch.per) % n
	for i := range msgs {
		msgs[i].NetID = ch.ids[i]
	}
	return append(dst, msgs, ch.extra)
}

// Churn measures the steady scenario while a fraction of the entities is
// replaced every snapshot: despawned (taking effect at the render time) and
// spawned under new NetIDs.
func Churn(b *testing.B, n int, fraction float64) {
	s := NewStream(n)
	r := newRun(NewPipeline(n), s, FPS, FramesPerTick)
	r.next = newChurn(s, n, fraction).send
	r.frames(30 * FramesPerTick)
	r.b = b
	b.ReportAllocs()
	b.ResetTimer()
	r.frames(b.N)
	perEntity(b, n)
}

// lifecycle is the server of the lifecycle benchmark: every tick it spawns
// a batch of entities and despawns the batch spawned before, cycling
// through 4×batch NetIDs (a server reusing ids).
type lifecycle struct {
	batch, round int
	tick         uint32
	msgs         []systems.Message
}

// Serve implements [scenario.Server].
func (l *lifecycle) Serve(_ scenario.Instant, dst [][]systems.Message) [][]systems.Message {
	l.msgs = l.msgs[:0]
	ids := 4 * l.batch
	for k := 0; k < l.batch; k++ {
		id := c.NetID(1 + (l.round*l.batch+k)%ids)
		l.msgs = append(l.msgs, systems.Message{Kind: systems.Spawn, NetID: id, Tick: l.tick})
		if l.round > 0 {
			old := c.NetID(1 + ((l.round-1)*l.batch+k)%ids)
			l.msgs = append(l.msgs, systems.Message{Kind: systems.Despawn, NetID: old, Tick: l.tick})
		}
	}
	l.round++
	l.tick++
	return append(dst, l.msgs)
}

// Lifecycle measures spawning and despawning alone: each iteration spawns
// batch entities (a Spawn message each) and despawns the batch spawned
// before it, through the Receive, Timeline and Retire systems. It reports ns per
// entity spawned and despawned.
func Lifecycle(b *testing.B, batch int) {
	p := NewPipeline(4 * batch)
	client := receiving(p)
	loop := scenario.Loop[[]systems.Message]{FPS: TickRate,
		Server:    &lifecycle{batch: batch, tick: 1, msgs: make([]systems.Message, 0, 2*batch)},
		Transport: scenario.Batches{Client: client}, Client: client}
	for i := 0; i < 4; i++ {
		loop.Step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		loop.Step()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(batch), "ns/lifecycle")
}

// MinimumOnArcheInterpolate measures the interpolation step alone of the
// lower bound on arche's public API in the steady scenario: the reference
// for netsmooth's Interpolate system.
func MinimumOnArcheInterpolate(b *testing.B, n int) {
	m := NewMinimumOnArche(n)
	interpolationOnly(b, m, m.Ingest, m.Interpolate, n)
}

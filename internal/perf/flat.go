package perf

import (
	"github.com/netsmooth/netsmooth/internal/sampling"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/blend"
	c "github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/systems"
)

// Flat is the layout baseline: the steady scenario's work done by hand
// over flat slices indexed by NetID-1, with the same data layout and maths
// as netsmooth (ring head and bracket in a span, the ring's slots as
// columns, one slot read when the render time crosses a sample), so that only
// the machinery differs: no ECS queries, no NetID index, no validation
// beyond a finite check, no generality (lifecycle, extrapolation, cuts,
// smoothing), which the steady scenario never needs.
type Flat struct {
	clock   *fedClock
	seen    int // messages received, for sampling waits
	pending []systems.Message
	slots   [c.RingCapacity][]c.Sample
	spans   []c.Span
	renders []c.Render
}

// NewFlat returns the baseline for n entities, on a clock configured like
// the default pipeline's.
func NewFlat(n int) *Flat {
	f := &Flat{clock: newClock(), spans: make([]c.Span, n), renders: make([]c.Render, n)}
	for k := range f.slots {
		f.slots[k] = make([]c.Sample, n)
	}
	return f
}

// Receive implements [scenario.Client]: it queues snapshots for the next
// frame (a copy, as into an inbox).
func (f *Flat) Receive(msgs []systems.Message) { f.pending = append(f.pending, msgs...) }

// ingest applies the queued snapshots: a finite check, the ring append and
// the dirty mark.
func (f *Flat) ingest(before float64) {
	msgs := f.pending
	f.pending = f.pending[:0]
	var runTick uint32
	runN := 0
	for i := range msgs {
		m := &msgs[i]
		if !finite(m) {
			continue
		}
		k := int(m.NetID) - 1
		s := &f.spans[k]
		if newest, ok := s.Ring.NewestTick(); ok && m.Tick <= newest {
			continue // the steady scenario has no out-of-order samples
		}
		if newest, ok := s.Ring.NewestTick(); ok {
			// Report the entity's wait as the pipeline does.
			if (f.seen+i)%sampling.Every == 0 {
				f.clock.AddWait(before - float64(newest))
			}
		}
		rot, _ := blend.Normalize(m.Rot)
		phys, _ := s.Ring.Append(m.Tick)
		f.slots[phys][k] = c.Sample{Tick: m.Tick, Pos: m.Pos, Rot: rot}
		if s.Mode != c.SpanLerp {
			s.Flags |= c.SpanDirty
		}
		if runN > 0 && m.Tick != runTick {
			f.clock.ObserveN(runTick, runN) // a run of equal ticks at once, as the pipeline
			runN = 0
		}
		runTick = m.Tick
		runN++
	}
	f.seen += len(msgs)
	f.clock.ObserveN(runTick, runN)
}

func finite(m *systems.Message) bool {
	const lim = 1e9
	p, q := &m.Pos, &m.Rot
	return math.Abs(float64(p[0])) <= lim && math.Abs(float64(p[1])) <= lim && math.Abs(float64(p[2])) <= lim &&
		math.Abs(float64(q.W)) <= 2 && math.Abs(float64(q.V[0])) <= 2 && math.Abs(float64(q.V[1])) <= 2 && math.Abs(float64(q.V[2])) <= 2
}

// Frame implements [scenario.Client]: it advances the clock by dt and
// draws every entity at the render time.
func (f *Flat) Frame(dt float64) {
	f.Ingest(dt)
	f.interpolate()
}

// Ingest runs the receiving part of a frame of dt seconds alone: the clock
// begins the frame, the queued snapshots are applied, the clock advances.
func (f *Flat) Ingest(dt float64) {
	before := f.clock.ServerTick()
	f.clock.BeginFrame(dt)
	f.ingest(before)
	f.clock.Advance()
}

// interpolate draws every entity at the clock's render time.
func (f *Flat) interpolate() {
	rt := f.clock.RenderTick()
	for i := range f.spans {
		s := &f.spans[i]
		if s.Flags&c.SpanDirty != 0 || rt >= float64(s.To) {
			if !f.bracket(i, s, rt) {
				continue // the steady scenario keeps the render time inside the ring
			}
		}
		t := float32((rt - float64(s.From)) * float64(s.Inv))
		out := &f.renders[i]
		out.Pos = blend.Lerp(&s.Pos0, &s.Pos1, t)
		if s.Rot0 == s.Rot1 {
			out.Rot = s.Rot0
		} else {
			out.Rot = blend.NlerpAligned(&s.Rot0, &s.Rot1, t)
		}
	}
}

// bracket points entity i's span at the samples around rt: the slot after
// To when that is enough, else a search from the newest sample.
func (f *Flat) bracket(i int, s *c.Span, rt float64) bool {
	h := &s.Ring
	if s.Flags&c.SpanDirty == 0 && s.Mode == c.SpanLerp {
		if l := h.Logical(int(s.ToPhys)); l+1 < h.Len() {
			np := (int(s.ToPhys) + 1) & (c.RingCapacity - 1)
			if next := &f.slots[np][i]; rt < float64(next.Tick) {
				s.From, s.Pos0, s.Rot0 = s.To, s.Pos1, s.Rot1
				s.To, s.ToPhys, s.Pos1 = next.Tick, uint8(np), next.Pos
				s.Rot1 = blend.Align(&s.Rot0, &next.Rot)
				s.Inv = 1 / float32(s.To-s.From)
				return true
			}
		}
	}
	s.Flags &^= c.SpanDirty
	for k := h.Len() - 2; k >= 0; k-- {
		a, b := &f.slots[h.Phys(k)][i], &f.slots[h.Phys(k+1)][i]
		if float64(a.Tick) <= rt && rt < float64(b.Tick) {
			s.From, s.To, s.ToPhys = a.Tick, b.Tick, uint8(h.Phys(k+1))
			s.Inv = 1 / float32(b.Tick-a.Tick)
			s.Pos0, s.Pos1, s.Rot0 = a.Pos, b.Pos, a.Rot
			s.Rot1 = blend.Align(&a.Rot, &b.Rot)
			s.Mode = c.SpanLerp
			return true
		}
	}
	return false
}

// Draw implements [scenario.Client]. Every entity is drawn, never past
// the newest sample: the steady scenario keeps the render time inside the
// ring.
func (f *Flat) Draw(id c.NetID) (mgl32.Vec3, float64, bool, bool) {
	if id < 1 || int(id) > len(f.renders) {
		return mgl32.Vec3{}, 0, false, false
	}
	return f.renders[id-1].Pos, f.clock.RenderTick() / TickRate, false, true
}

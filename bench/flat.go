package bench

import (
	"math"

	"github.com/netsmooth/netsmooth/blend"
	c "github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/timeline"
)

// Flat is the lower-bound baseline: the steady scenario's work done by hand
// over flat slices indexed by NetID-1, reusing netsmooth's component types
// and maths so that only the machinery differs: no ECS queries, no NetID
// index, no generality (no lifecycle, extrapolation, cuts or smoothing,
// which the steady scenario never needs).
type Flat struct {
	clock   *timeline.Clock
	rings   []c.SnapshotRing
	spans   []c.Span
	renders []c.Render
}

// NewFlat returns the baseline for n entities with the default clock.
func NewFlat(n int) *Flat {
	clock, _ := timeline.NewClock(timeline.DefaultConfig(TickRate))
	return &Flat{clock: clock, rings: make([]c.SnapshotRing, n), spans: make([]c.Span, n), renders: make([]c.Render, n)}
}

// Push ingests snapshots: a finite check, the ring insert and the dirty mark.
func (f *Flat) Push(msgs []systems.Message) {
	for i := range msgs {
		m := &msgs[i]
		if !finite(m) {
			continue
		}
		k := int(m.NetID) - 1
		rot, _ := blend.Normalize(m.Rot)
		if f.rings[k].Insert(c.Sample{Tick: m.Tick, Pos: m.Pos, Rot: rot}) >= c.Duplicate {
			continue
		}
		s := &f.spans[k]
		if s.Mode != c.SpanLerp || m.Tick < s.To {
			s.Flags |= c.SpanDirty
		}
		f.clock.Observe(m.Tick)
	}
}

func finite(m *systems.Message) bool {
	const lim = 1e9
	p, q := &m.Pos, &m.Rot
	return math.Abs(float64(p[0])) <= lim && math.Abs(float64(p[1])) <= lim && math.Abs(float64(p[2])) <= lim &&
		math.Abs(float64(q.W)) <= 2 && math.Abs(float64(q.V[0])) <= 2 && math.Abs(float64(q.V[1])) <= 2 && math.Abs(float64(q.V[2])) <= 2
}

// Frame advances the clock by dt and draws every entity at the render time.
func (f *Flat) Frame(dt float64) {
	f.clock.BeginFrame(dt)
	f.clock.Advance()
	rt := f.clock.RenderTick()
	for i := range f.spans {
		s := &f.spans[i]
		if s.Flags&c.SpanDirty != 0 || rt >= float64(s.To) {
			s.Flags &^= c.SpanDirty
			r := &f.rings[i]
			k := r.Search(rt)
			if k < 0 || k >= r.Len()-1 {
				continue // the steady scenario keeps the render time inside the ring
			}
			a, b := r.At(k), r.At(k+1)
			s.From, s.To = a.Tick, b.Tick
			s.Inv = 1 / float32(b.Tick-a.Tick)
			s.Pos0, s.Pos1, s.Rot0 = a.Pos, b.Pos, a.Rot
			s.Rot1 = blend.Align(&a.Rot, &b.Rot)
			s.Mode = c.SpanLerp
		}
		t := float32((rt - float64(s.From)) * float64(s.Inv))
		out := &f.renders[i]
		out.Pos = blend.Lerp(&s.Pos0, &s.Pos1, t)
		out.Rot = blend.NlerpAligned(&s.Rot0, &s.Rot1, t)
	}
}

// Render returns entity id's drawn state (for tests).
func (f *Flat) Render(id int) c.Render { return f.renders[id-1] }

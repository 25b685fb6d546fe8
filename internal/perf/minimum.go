package perf

import (
	"github.com/netsmooth/netsmooth/internal/sampling"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/blend"
	c "github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/systems"
)

// Minimum is the true lower bound of the steady scenario: the least work
// per entity that produces the same output as the pipeline (position and
// rotation drawn from the samples around the render time; the steady
// scenario carries no state word, so the lower bound keeps none),
// written by hand with no ECS, no index, no validation and no generality,
// in the layout that work needs and no more:
//
//   - a hot bracket per entity (minBracket, 68 bytes: the two samples
//     around the render time, their ticks and 1/(To-From)), the only data
//     read every frame; a rebuild is asked for by zeroing To, so no flag
//     is read apart from the tick the frame compares anyway;
//   - a ring head per entity (minHead, 8 bytes), touched only on arrival
//     and when the render time crosses a sample;
//   - a cold ring of 32-byte samples (minSample) per entity, written on
//     arrival, read only when the bracket is rebuilt. The rings are stored
//     slot-major (slot k of every entity in one array), as netsmooth's
//     ring slot columns are: entities sent together write, and cross, the
//     same slot, so arrivals and crossings stream through memory instead
//     of striding 512 bytes from entity to entity (DESIGN.md has what
//     the entity-major layout cost).
//
// Arrival never touches the bracket in steady state: a sample lands in
// the cold ring, and the bracket moves to it when the render time gets
// there. The clock is netsmooth's, configured like the default pipeline's
// and fed the same arrivals and waits, so the render time, and with it
// every drawn position, agrees with the pipeline's (TestMinimumAgrees).
type Minimum struct {
	clock   *fedClock
	seen    int // messages received, for sampling waits
	pending []systems.Message
	hot     []minBracket
	heads   []minHead
	slots   [c.RingCapacity][]minSample // slot k of every entity's ring
	out     []c.Render
}

// minBracket is the hot part of an entity: the samples around the render
// time. To == 0 asks for a rebuild (ticks start at 1).
type minBracket struct {
	From, To   uint32
	Inv        float32
	Pos0, Pos1 [3]float32
	Rot0, Rot1 mgl32.Quat // Rot1 aligned with Rot0
}

// minHead is an entity's ring bookkeeping: the physical slot of the
// oldest sample, the count, and the slot of the bracket's To.
type minHead struct {
	Newest              uint32
	Start, Count, ToPos uint8
	_                   uint8
}

// append reserves the slot for a sample at tick, newer than every one the
// ring holds, dropping the oldest when the ring is full, and returns its
// physical index.
func (h *minHead) append(tick uint32) uint8 {
	var phys uint8
	if h.Count < c.RingCapacity {
		phys = (h.Start + h.Count) & (c.RingCapacity - 1)
		h.Count++
	} else {
		phys = h.Start
		h.Start = (h.Start + 1) & (c.RingCapacity - 1)
	}
	h.Newest = tick
	return phys
}

// sampleOf is the sample msg stores: a zero rotation (none sent) is the
// identity.
func sampleOf(msg *systems.Message) minSample {
	rot := msg.Rot
	if rot == (mgl32.Quat{}) {
		rot = mgl32.QuatIdent()
	}
	return minSample{Tick: msg.Tick, Pos: msg.Pos, Rot: rot}
}

// minSample is one buffered sample: 32 bytes.
type minSample struct {
	Tick uint32
	Pos  [3]float32
	Rot  mgl32.Quat
}

// MinimumBytesPerEntity is the Minimum's data per entity: bracket, ring
// head, ring and the output.
const MinimumBytesPerEntity = 68 + 8 + c.RingCapacity*32 + 32

// NewMinimum returns the lower bound for n entities (NetIDs 1..n), on a
// clock configured like the default pipeline's.
func NewMinimum(n int) *Minimum {
	m := newMinimumWithoutRings(n)
	m.heads = make([]minHead, n)
	for k := range m.slots {
		m.slots[k] = make([]minSample, n)
	}
	return m
}

// newMinimumWithoutRings returns the lower bound for n entities with its
// ring heads and slots left for the caller to provide.
func newMinimumWithoutRings(n int) *Minimum {
	return &Minimum{clock: newClock(), hot: make([]minBracket, n), out: make([]c.Render, n)}
}

// Receive implements [scenario.Client]: it queues snapshots for the next
// frame (a copy, as into an inbox).
func (m *Minimum) Receive(msgs []systems.Message) { m.pending = append(m.pending, msgs...) }

// Frame implements [scenario.Client]: the received snapshots in, the
// clock advanced by dt, every entity drawn at the render time.
func (m *Minimum) Frame(dt float64) {
	m.Ingest(dt)
	m.Interpolate()
}

// Ingest runs the receiving part of a frame of dt seconds alone: the clock
// begins the frame, the queued snapshots go into the rings, the clock
// advances.
func (m *Minimum) Ingest(dt float64) {
	before := m.clock.ServerTick()
	m.clock.BeginFrame(dt)
	msgs := m.pending
	m.pending = m.pending[:0]
	// The clock is told each run of equal ticks at once, as the pipeline
	// tells it.
	var runTick uint32
	runN := 0
	for i := range msgs {
		msg := &msgs[i]
		k := int(msg.NetID) - 1
		h := &m.heads[k]
		if h.Count > 0 {
			if msg.Tick <= h.Newest {
				continue // the steady scenario has no out-of-order samples
			}
			if (m.seen+i)%sampling.Every == 0 {
				m.clock.AddWait(before - float64(h.Newest)) // the wait, sampled as the pipeline does
			}
		}
		m.slots[h.append(msg.Tick)][k] = sampleOf(msg)
		if runN > 0 && msg.Tick != runTick {
			m.clock.ObserveN(runTick, runN)
			runN = 0
		}
		runTick = msg.Tick
		runN++
	}
	m.seen += len(msgs)
	m.clock.ObserveN(runTick, runN)
	m.clock.Advance()
}

// Interpolate draws every entity at the clock's render time. The blend
// is written out in the loop, as in the lower bound on arche, rather than
// called per entity, which would make the lower bound slower.
func (m *Minimum) Interpolate() {
	rt := m.clock.RenderTick()
	for i := range m.hot {
		b := &m.hot[i]
		if rt >= float64(b.To) && !m.rebuild(i, b, rt) {
			continue // not two samples yet
		}
		t := float32((rt - float64(b.From)) * float64(b.Inv))
		out := &m.out[i]
		out.Pos = mgl32.Vec3{b.Pos0[0] + (b.Pos1[0]-b.Pos0[0])*t, b.Pos0[1] + (b.Pos1[1]-b.Pos0[1])*t, b.Pos0[2] + (b.Pos1[2]-b.Pos0[2])*t}
		if r0, r1 := &b.Rot0, &b.Rot1; *r0 == *r1 {
			out.Rot = *r0
		} else {
			qw := r0.W + (r1.W-r0.W)*t
			qx := r0.V[0] + (r1.V[0]-r0.V[0])*t
			qy := r0.V[1] + (r1.V[1]-r0.V[1])*t
			qz := r0.V[2] + (r1.V[2]-r0.V[2])*t
			inv := 1 / float32(math.Sqrt(float64(qw*qw+qx*qx+qy*qy+qz*qz)))
			out.Rot = mgl32.Quat{W: qw * inv, V: mgl32.Vec3{qx * inv, qy * inv, qz * inv}}
		}
		out.Flags = c.Visible
	}
}

// rebuild moves entity i's bracket to the samples around rt: the slot
// after To when the render time crossed only it, else a search from the
// newest sample. It reports false when no two samples bracket rt.
func (m *Minimum) rebuild(i int, b *minBracket, rt float64) bool {
	h := &m.heads[i]
	r := &m.slots
	if b.To != 0 {
		next := (h.ToPos + 1) & (c.RingCapacity - 1)
		if n := &r[next][i]; n.Tick > b.To && rt < float64(n.Tick) {
			setBracket(b, &r[h.ToPos][i], n)
			h.ToPos = next
			return true
		}
	}
	for k := int(h.Count) - 2; k >= 0; k-- {
		pa := (int(h.Start) + k) & (c.RingCapacity - 1)
		pb := (pa + 1) & (c.RingCapacity - 1)
		if a, nb := &r[pa][i], &r[pb][i]; float64(a.Tick) <= rt && rt < float64(nb.Tick) {
			setBracket(b, a, nb)
			h.ToPos = uint8(pb)
			return true
		}
	}
	return false
}

// setBracket points the bracket br at samples a and b.
func setBracket(br *minBracket, a, b *minSample) {
	br.From, br.To = a.Tick, b.Tick
	br.Inv = 1 / float32(b.Tick-a.Tick)
	br.Pos0, br.Pos1 = a.Pos, b.Pos
	br.Rot0, br.Rot1 = a.Rot, blend.Align(&a.Rot, &b.Rot)
}

// Draw implements [scenario.Client].
func (m *Minimum) Draw(id c.NetID) (mgl32.Vec3, float64, bool, bool) {
	if id < 1 || int(id) > len(m.out) || m.out[id-1].Flags&c.Visible == 0 {
		return mgl32.Vec3{}, 0, false, false
	}
	return m.out[id-1].Pos, m.clock.RenderTick() / TickRate, false, true
}

// Render returns what entity id (1..n) was drawn as last frame.
func (m *Minimum) Render(id c.NetID) c.Render { return m.out[id-1] }

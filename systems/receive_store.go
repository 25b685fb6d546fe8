package systems

import (
	"unsafe"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	c "github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/internal/limits"
	"github.com/netsmooth/netsmooth/internal/sampling"
)

// Storing a sample newer than every sample its entity holds, the common
// case, is written once, in appendNewest, and every path that stores one
// calls it: the general path (handle), the loop that takes the common
// messages in a row (shortcut), and the goroutines that store shares of a
// frame's messages (storeShare). Which messages may take that way without
// the general path's checks is written once too: plainNumbers (whose two
// parts, withinBoth and plainRotation, the loops call themselves, so that
// both inline) and appendable.

// storing is what one goroutine needs to store samples as the newest of
// their entities, and what it counts meanwhile: Receive keeps one for the
// world's goroutine, and one per share of the messages when it stores on
// several goroutines. Its counts are added to the metrics, and its waits
// handed to the arrival log, once the goroutines are done.
type storing struct {
	complete  completeTicks // the Complete markers as of the message being stored
	sampled   uint32        // the residue, modulo waitSampling, of the indices of messages that report a wait
	accepted  uint64
	evicted   uint64
	occupancy [c.RingCapacity + 1]int32 // Metrics.Occupancy changes
	waits     []float64
	_         [64]byte // no false sharing between goroutines
}

// reset starts a frame: nothing counted, the markers as given.
func (st *storing) reset(complete completeTicks, sampled uint32) {
	st.complete, st.sampled = complete, sampled
	st.accepted, st.evicted = 0, 0
	st.occupancy = [c.RingCapacity + 1]int32{}
	st.waits = st.waits[:0]
}

// moved counts an entity's ring going from `from` to `to` samples.
func (st *storing) moved(from, to int) {
	if from != to {
		st.occupancy[from]--
		st.occupancy[to]++
	}
}

// publish adds st's counts to m and hands its waits to a.
func (st *storing) publish(m *Metrics, a *arrivalLog) {
	m.Accepted += st.accepted
	m.Evicted += st.evicted
	for k, d := range st.occupancy {
		m.Occupancy[k] += int(d)
	}
	a.waits = append(a.waits, st.waits...)
}

// appendable reports whether msg, whose numbers plainNumbers passed, is
// stored by appendNewest with nothing else to decide for the live entity
// of this life whose Span is span: it is a Snapshot, its tick is not
// beyond futureLimit, the entity has samples (so the tick, newer than its
// newest, is of this life), the tick is newer than all of them, and the
// render time has not passed it.
func appendable(span *c.Span, msg *Message, futureLimit float64) bool {
	newest, ok := span.Ring.NewestTick()
	return msg.Kind == Snapshot && float64(msg.Tick) <= futureLimit && ok && msg.Tick > newest && !span.Stale(msg.Tick)
}

// appendNewest stores msg, a checked sample newer than every sample in
// the ring of entity e (whose Span is span), as its newest: rot is its
// checked rotation and flags its Cut and Spawn flags; i is its index in
// the frame's messages. If a Complete marker says the entity stood still
// since its newest sample, a still copy of that sample goes in first
// (appendStill). The span is marked for a rebuild if the sample may
// change what is drawn (noteNewest), the entity's send interval measured,
// and st counts it.
func (r *Receive) appendNewest(st *storing, w *ecs.World, e ecs.Entity, span *c.Span, msg *Message, rot *mgl32.Quat, flags c.SampleFlags, i int) {
	head := &span.Ring
	noteNewest(span)
	newest, ok := head.NewestTick()
	known := msg.Tick // a first sample: no gap to measure
	if ok {
		if known = st.complete.unchangedUntil(newest, msg.Tick); known > newest {
			r.appendStill(st, w, e, head, known)
		}
	}
	before := head.Len()
	phys, evicted := head.Append(msg.Tick)
	fill(r.cols.slot(w, e, phys), msg, rot, flags)
	st.accepted++
	if evicted {
		st.evicted++
	} else {
		st.moved(before, before+1)
	}
	if known != msg.Tick {
		if uint32(i)%sampling.Every == st.sampled {
			st.waits = append(st.waits, r.wait(span, known, msg.Tick))
		}
		if float32(msg.Tick-known) != span.Interval {
			// The steady state (the same gap again) changes nothing.
			r.measureInterval(w, e, span, known, msg.Tick)
		}
	}
}

// noteNewest marks span for a rebuild if a sample newer than every one in
// its ring, about to be appended, may change what is drawn: Span's
// LosesBracket and NoteArrival in one test. Such a sample lies beyond the
// span, which the render time meets when it gets there, unless the span
// has nothing to draw from or extrapolates, or the append evicts a sample
// the span is built from. (NoteArrival also asks whether the sample lands
// before From or To: never, for a sample newer than the ring's newest,
// since both are ticks of ring samples, except after DropAfter took the
// newer samples away, which marked the span already.)
func noteNewest(span *c.Span) {
	// The modes built from ring samples (Before, Lerp, Step) are
	// consecutive: anything else has nothing to draw from or
	// extrapolates, and is redrawn.
	if m := span.Mode - c.SpanBefore; m > c.SpanStep-c.SpanBefore ||
		span.Ring.Len() == c.RingCapacity && span.Ring.Logical(int(span.ToPhys)) <= 1 {
		span.Flags |= c.SpanDirty
	}
}

// noteNewest's test of the mode needs Before, Lerp and Step consecutive,
// and Empty and Past outside them.
var _ = [1]struct{}{}[(c.SpanLerp-c.SpanBefore-1)|(c.SpanStep-c.SpanLerp-1)|(c.SpanEmpty+1-c.SpanBefore)|(c.SpanPast-c.SpanStep-1)]

// appendStill stores a copy of the entity's newest sample at tick, where
// a Complete marker said it was still unchanged: the motion that follows
// starts there, rather than being spread over the time it stood still.
func (r *Receive) appendStill(st *storing, w *ecs.World, e ecs.Entity, head *c.RingHead, tick uint32) {
	last := *r.cols.slot(w, e, head.Phys(head.Len()-1))
	before := head.Len()
	phys, evicted := head.Append(tick)
	still := r.cols.slot(w, e, phys)
	*still = last
	still.Tick, still.Vel = tick, mgl32.Vec3{}
	still.Flags = c.HasVelocity // it stood still
	if evicted {
		st.evicted++
	}
	st.moved(before, head.Len())
}

// wait returns how long the entity's data had to last (from its last known
// tick to the estimated server time of the frame before this one, when its
// sample at tick arrived), less the lag the entity gets for being sent
// less often: what the delay must cover for this entity. Unlike the
// stream as a whole, it sees the samples an entity lost.
//
// Of the ticks in between that the stream delivered to other entities
// (lost for this one alone: a lost packet of a snapshot split into
// several), only half a send interval each counts, for an entity sent at
// the stream's rate: buffering for the whole of every such loss costs
// every entity a send interval of delay as soon as a few percent of
// packets are lost, while a lost sample is well extrapolated, and
// Interpolate continues the entity from its extrapolation without a
// sprint. A tick the whole stream lost still counts in full, as do the
// gaps of an entity sent less often.
func (r *Receive) wait(span *c.Span, known, tick uint32) float64 {
	wait := r.serverBefore - float64(known)
	if iv := float64(span.Interval); iv > r.interval+0.5 {
		return wait - (iv - r.interval)
	}
	if gap := tick - known; gap <= maxPartialGap {
		// Counted by offset from known, so that a gap across the tick
		// count's wrap-around is looked up too.
		lost := 0
		for d := uint32(1); d < gap; d++ {
			if r.clock.Seen(known + d) {
				lost++
			}
		}
		wait -= partialLossCover * float64(lost) * r.interval
	}
	return wait
}

// partialLossCover is the share of a send interval left out of an entity's
// wait for every tick it lost alone (see Receive.wait), and maxPartialGap
// the longest gap, in ticks, whose ticks are looked up.
const (
	partialLossCover = 0.5
	maxPartialGap    = 8
)

// measureInterval folds the gap between the tick the entity was last known
// at (its newest sample, or a Complete marker after it) and a newer sample
// at tick, just appended to the ring of entity e, into its measured send
// interval, so an entity sent only when it changes is not mistaken for a
// slow one, nor one that lost a sample.
func (r *Receive) measureInterval(w *ecs.World, e ecs.Entity, span *c.Span, known, tick uint32) {
	d := tick - known
	if float32(d) == span.Interval {
		// The steady state: nothing to change (and nothing to write). An
		// Interval is never above MaxIntervalTicks, so neither is d here.
		return
	}
	gap := float32(min(d, limits.MaxIntervalTicks))
	switch {
	case gap == span.Interval:
	case span.Interval == 0:
		// A first gap may be anything (an old sample, a loss): no more
		// than a few of the stream's intervals to start with; a slower
		// entity gets there within a few samples.
		span.Interval = min(gap, 4*float32(r.interval)+1)
	case gap < span.Interval:
		// Losses only ever lengthen gaps: a shorter one is the send
		// interval showing through, followed quickly.
		span.Interval += 0.5 * (gap - span.Interval)
	case gap > span.Interval+0.5 && float64(gap) <= 2*r.interval+1 && r.afterRegularGap(w, e, span, known):
		// A gap of two or three of the stream's intervals right after
		// one at the stream's interval: a lost sample or two, most
		// likely, and no change of rate (which shows as two
		// long gaps in a row, and is followed from the second one). Lost
		// samples must not make the entity look sent less often: it would
		// be drawn later for a while, slowed down and then sped up. (An
		// entity a bandwidth budget starts sending less often shows a
		// longer gap at once, and is followed from the first one.)
	default:
		// A lost sample doubles one gap: clip long gaps so a loss moves
		// the estimate a little, while a real change of rate gets there
		// within a dozen samples.
		gap = min(gap, 2*span.Interval+1)
		span.Interval += 0.2 * (gap - span.Interval)
	}
}

// afterRegularGap reports whether the sample of entity e at known (second
// newest in its ring) followed the one before it at no more than the
// stream's send interval (plus half a tick).
func (r *Receive) afterRegularGap(w *ecs.World, e ecs.Entity, span *c.Span, known uint32) bool {
	head := &span.Ring
	n := head.Len()
	if n < 3 {
		return false
	}
	prev := r.cols.slot(w, e, head.Phys(n-3)).Tick
	return prev < known && float64(known-prev) <= r.interval+0.5
}

// sampleFlags returns the flags of the sample msg stores: Cut for a
// Teleport, Spawn for the first sample of a life.
func sampleFlags(msg *Message, spawned bool) c.SampleFlags {
	var flags c.SampleFlags
	if msg.Kind == Teleport {
		flags |= c.Cut
	}
	if spawned {
		flags |= c.Spawn
	}
	return flags
}

// fill writes msg as a ring sample into dst: rot is its checked rotation
// (zero, none sent, is stored as the identity), flags its Cut and Spawn
// flags. The position and velocity lie in the same order in a Message as
// in a Sample: they go over as one block. (A whole Sample built aside and
// copied would read back, in wide loads, what narrow stores just wrote,
// which stalls the processor.)
func fill(dst *c.Sample, msg *Message, rot *mgl32.Quat, flags c.SampleFlags) {
	*(*motion)(unsafe.Pointer(&dst.Pos)) = *(*motion)(unsafe.Pointer(&msg.Pos))
	// State and Epoch, and the byte after (Flags, written next), as one
	// word: they follow each other in both.
	dst.Tick, *(*uint32)(unsafe.Pointer(&dst.State)) = msg.Tick, *(*uint32)(unsafe.Pointer(&msg.State))
	// A bool's byte is 1 or 0: HasVelocity, or no flag (masked, so that no
	// byte can set another).
	hasVel := *(*c.SampleFlags)(unsafe.Pointer(&msg.HasVelocity)) & c.HasVelocity
	if dst.Flags = flags | hasVel; hasVel == 0 {
		dst.Vel = mgl32.Vec3{}
	}
	dst.Rot = *rot
	if zeroQuat(rot) {
		dst.Rot = mgl32.Quat{W: 1}
	}
}

// motion is the block of a Message and of a Sample that fill copies
// whole: the position and the velocity, adjacent in both.
type motion struct{ Pos, Vel mgl32.Vec3 }

// fill copies Message.Pos and Vel onto Sample.Pos and Vel, both holding
// them in that order without gaps, and State and
// Epoch with the byte after them, Flags in a Sample (the padding before
// NetID in a Message); it takes a bool's byte for the HasVelocity flag.
var (
	_ = [1]struct{}{}[unsafe.Offsetof(Message{}.Epoch)-unsafe.Offsetof(Message{}.State)-2]
	_ = [1]struct{}{}[unsafe.Offsetof(Message{}.NetID)-unsafe.Offsetof(Message{}.State)-6]
	_ = [1]struct{}{}[unsafe.Offsetof(c.Sample{}.Epoch)-unsafe.Offsetof(c.Sample{}.State)-2]
	_ = [1]struct{}{}[unsafe.Offsetof(c.Sample{}.Flags)-unsafe.Offsetof(c.Sample{}.State)-3]
	_ = [1]struct{}{}[c.HasVelocity-1]
	_ = [1]struct{}{}[unsafe.Offsetof(Message{}.Vel)-unsafe.Offsetof(Message{}.Pos)-12]
	_ = [1]struct{}{}[unsafe.Offsetof(c.Sample{}.Vel)-unsafe.Offsetof(c.Sample{}.Pos)-12]
)

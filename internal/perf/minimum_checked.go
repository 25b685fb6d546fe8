package perf

import (
	"github.com/netsmooth/netsmooth/internal/sampling"
	"math"
	"unsafe"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/blend"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

// MinimumChecked is the lower bound ([Minimum]) for a server that is not
// trusted: before it stores a snapshot it makes the checks every client of
// such a server must make, and no others, the way netsmooth's Receive
// makes them on its common path (same limits, same tests):
//
//   - the message is a snapshot (the lower bound stores nothing else);
//   - every coordinate of its position and velocity is finite and within
//     the default MaxAbs, so that no later arithmetic can overflow (the
//     six are read as three 64-bit words and tested two at a time);
//   - its rotation is a unit quaternion, or zero for none;
//   - its tick lies no further ahead of the estimated server time than
//     the default MaxFuture, so that one absurd tick cannot freeze the
//     entity behind it.
//
// A snapshot that fails them is refused and counted, unless only its
// rotation is off the unit sphere: that one is normalised, as netsmooth
// normalises it, and stored. Everything else is the lower bound's: the
// same layout, the same bracket, no ECS, no index, no metrics.
//
// The checks are part of producing the same output as the pipeline: on a
// stream with garbage in it, the lower bound without them draws NaN or
// freezes entities where the pipeline, and this one, draw the sane
// samples (TestMinimumCheckedAgrees). What they cost the lower bound is
// the least any implementation that checks every snapshot can pay, which
// is why ingest is judged against this one.
type MinimumChecked struct {
	*Minimum
	bound     uint64  // MaxAbs as withinLimit takes it
	maxFuture float64 // MaxFuture, in ticks
	refused   int
}

// NewMinimumChecked returns the checked lower bound for n entities
// (NetIDs 1..n), with netsmooth's default limits, on a clock configured
// like the default pipeline's.
func NewMinimumChecked(n int) *MinimumChecked {
	cfg := nsecs.DefaultConfig().Receive
	return &MinimumChecked{
		Minimum:   NewMinimum(n),
		bound:     limitBound(cfg.MaxAbs),
		maxFuture: cfg.MaxFuture * TickRate,
	}
}

// Frame implements [scenario.Client]: the received snapshots checked and
// in, the clock advanced by dt, every entity drawn at the render time.
func (m *MinimumChecked) Frame(dt float64) {
	m.Ingest(dt)
	m.Interpolate()
}

// Ingest is [Minimum.Ingest] with every snapshot checked first: the same
// loop, written again with the checks ahead (a test in the lower bound's
// own loop of whether to check would cost the lower bound itself).
func (m *MinimumChecked) Ingest(dt float64) {
	before := m.clock.ServerTick()
	future := futureTick(m.clock, dt, m.maxFuture)
	m.clock.BeginFrame(dt)
	msgs := m.pending
	m.pending = m.pending[:0]
	bound := m.bound
	var runTick uint32
	runN := 0
	for i := range msgs {
		msg := &msgs[i]
		if msg.Kind != systems.Snapshot || !withinLimit(msg, bound) || !unitOrZero(&msg.Rot) || float64(msg.Tick) > future {
			if !repair(msg, bound, future) {
				m.refused++
				continue
			}
		}
		k := int(msg.NetID) - 1
		h := &m.heads[k]
		if h.Count > 0 {
			if msg.Tick <= h.Newest {
				continue
			}
			if (m.seen+i)%sampling.Every == 0 {
				m.clock.AddWait(waitOf(m.clock.Clock, before, h.Newest, msg.Tick))
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

// repair normalises the rotation of a snapshot whose only fault is a
// rotation off the unit sphere, as netsmooth does, and reports whether
// msg may be stored: bound is withinLimit's, future the newest tick
// accepted.
func repair(msg *systems.Message, bound uint64, future float64) bool {
	if msg.Kind != systems.Snapshot || !withinLimit(msg, bound) || float64(msg.Tick) > future {
		return false
	}
	rot, ok := blend.Normalize(msg.Rot)
	msg.Rot = rot
	return ok
}

// futureTick returns the newest tick a snapshot may have in the frame
// about to begin, dt long: the estimated server time of the frame plus
// the margin maxFuture (in ticks), or +Inf before the clock syncs.
func futureTick(clock *fedClock, dt, maxFuture float64) float64 {
	if !clock.Synced() {
		return math.Inf(1)
	}
	return clock.ServerTick() + dt*TickRate + maxFuture
}

// Refused returns how many snapshots the checks refused.
func (m *MinimumChecked) Refused() int { return m.refused }

// withinLimit reports whether the six coordinates of msg's position and
// velocity (adjacent in a Message) have absolute values within the limit
// that bound holds (see limitBound), NaN and the infinities failing. With
// its sign bit cleared, a coordinate's bits order as its absolute value
// does, and put NaN and the infinities above every finite number; a
// lane's (lim + 1<<31) - |x| keeps its top bit exactly when |x| <= lim.
func withinLimit(msg *systems.Message, bound uint64) bool {
	const abs, top = 0x7fffffff_7fffffff, 0x80000000_80000000
	b := (*[3]uint64)(unsafe.Pointer(&msg.Pos))
	return (bound-b[0]&abs)&(bound-b[1]&abs)&(bound-b[2]&abs)&top == top
}

// limitBound returns withinLimit's form of the limit lim: its bits in both
// halves of a word, each with its top bit set.
func limitBound(lim float32) uint64 {
	l := uint64(math.Float32bits(lim) & 0x7fffffff)
	return l<<32 | l | 0x80000000_80000000
}

// withinLimit reads Vel as the three words after Pos.
var _ = [1]struct{}{}[unsafe.Offsetof(systems.Message{}.Vel)-unsafe.Offsetof(systems.Message{}.Pos)-12]

// unitOrZero reports whether q is a unit quaternion (within 1e-5 in its
// squared norm) or zero, every component of either sign (no rotation).
func unitOrZero(q *mgl32.Quat) bool {
	n := q.W*q.W + q.V[0]*q.V[0] + q.V[1]*q.V[1] + q.V[2]*q.V[2]
	if n > 0.99999 && n < 1.00001 {
		return true
	}
	b := (*[4]uint32)(unsafe.Pointer(q))
	return (b[0]|b[1]|b[2]|b[3])&0x7fffffff == 0
}

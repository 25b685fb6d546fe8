package perf

import (
	"github.com/netsmooth/netsmooth/internal/sampling"

	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

// MinimumOnArcheChecked is the checked lower bound ([MinimumChecked]) on
// arche's public API ([MinimumOnArche]): every snapshot checked as
// MinimumChecked checks it, then stored as MinimumOnArche stores it. It
// is the least a client of an untrusted server can spend on ingest with
// its rings in arche components reached through arche's public API, and
// so tells what of netsmooth's ingest is that API's cost and what is its
// own.
type MinimumOnArcheChecked struct {
	*MinimumOnArche
	bound     uint64  // MaxAbs as withinLimit takes it
	maxFuture float64 // MaxFuture, in ticks
	refused   int
}

// NewMinimumOnArcheChecked returns the checked lower bound on arche for
// n entities (NetIDs 1..n), with netsmooth's default limits, on a clock
// configured like the default pipeline's.
func NewMinimumOnArcheChecked(n int) *MinimumOnArcheChecked {
	cfg := nsecs.DefaultConfig().Receive
	return &MinimumOnArcheChecked{
		MinimumOnArche: NewMinimumOnArche(n),
		bound:          limitBound(cfg.MaxAbs),
		maxFuture:      cfg.MaxFuture * TickRate,
	}
}

// Frame implements [scenario.Client]: the received snapshots checked and
// in, the clock advanced by dt, every entity drawn at the render time.
func (m *MinimumOnArcheChecked) Frame(dt float64) {
	m.Ingest(dt)
	m.Interpolate()
}

// Ingest is [MinimumOnArche.Ingest] with every snapshot checked first, as
// [MinimumChecked.Ingest] checks it.
func (m *MinimumOnArcheChecked) Ingest(dt float64) {
	before := m.clock.ServerTick()
	future := futureTick(m.clock, dt, m.maxFuture)
	m.clock.BeginFrame(dt)
	msgs := m.pending
	m.pending = m.pending[:0]
	w, bound := m.world, m.bound
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
		e := m.ents[int(msg.NetID)-1]
		h := (*minHead)(w.Get(e, m.head))
		if h.Count > 0 {
			if msg.Tick <= h.Newest {
				continue
			}
			if (m.seen+i)%sampling.Every == 0 {
				m.clock.AddWait(waitOf(m.clock.Clock, before, h.Newest, msg.Tick))
			}
		}
		*(*minSample)(w.GetUnchecked(e, m.ring[h.append(msg.Tick)])) = sampleOf(msg)
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

// Refused returns how many snapshots the checks refused.
func (m *MinimumOnArcheChecked) Refused() int { return m.refused }

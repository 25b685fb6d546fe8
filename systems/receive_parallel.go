package systems

import (
	"slices"
	"sync/atomic"

	"github.com/mlange-42/arche/ecs"
	c "github.com/netsmooth/netsmooth/components"
)

// DefaultReceiveParallelMin is the default ReceiveConfig.ParallelMin: a
// frame that brings fewer messages than this stores them on the world's
// goroutine alone even with Workers > 1, since waking another core, and
// every goroutine reading every message, cost about what the split saves
// (DESIGN.md, "Receive on several cores", has the measurements).
const DefaultReceiveParallelMin = 30_000

// Receive on several goroutines (ReceiveConfig.Workers > 1).
//
// The frame's messages are cut into shares by NetID, a share per goroutine
// (see shareSplit), so that entities sent together are stored by one
// goroutine (their spans and ring slots lie side by side). Each goroutine
// reads every message, in order, and stores the ones of its share that the
// shortcut would store, exactly as it would (plainNumbers, appendable,
// appendNewest). A message it cannot store so (any other kind, a number
// out of range, an unknown or new entity, an entity the game took a
// component from, an older tick) it holds for the world's goroutine, and
// so every later
// message of that entity (the entity's span is marked SpanHeld), so that
// each entity's messages are still applied in order. Messages of different
// entities touch nothing in common but sums, which each share keeps for
// itself: counts, occupancy changes and the sampled waits (chosen by
// position in the stream, not by who stores them). Complete markers, which
// change what later snapshots mean, are followed by every goroutine as they
// read past them. Meanwhile no entity is created, removed or moved, and
// each goroutine writes only the spans and ring slots of its own share's
// entities; the NetID index and the world's entity tables (World.Alive,
// World.GetUnchecked) are only read.
// Afterwards the world's goroutine applies the held messages in order
// through the general path (creating and removing entities, calling
// OnSpawn) and tells Arrivals every message's tick in order. The result is
// what one goroutine stores (tested frame by frame, under -race), as long
// as OnSpawn leaves other remote entities alone: it runs after the shares
// stored the frame's snapshots of known entities, not at its place in the
// stream.

// shareSplit says which share stores the messages of a NetID: the k
// shares are ranges of NetIDs, cut where the frame's messages fall into k
// parts of about equal size (judged from up to samplesPerShare of them per
// share, evenly spaced). Entities sent together (servers hand NetIDs out
// from a counter, so their rows in arche lie in about that order) stay
// with one goroutine in long runs, so that each goroutine reads and writes
// memory in long sequential streams (blocks of 64 ids spread by a hash
// made each goroutine's half of the messages cost as much as all of them
// on one), no share writes next to another's data but at a range's ends,
// and a few NetIDs far from the others do not put the rest in one share.
type shareSplit struct {
	bounds  []c.NetID // share j takes ids from bounds[j-1] up to below bounds[j]
	samples []c.NetID
}

// samplesPerShare is how many messages per share shareSplit looks at.
const samplesPerShare = 16

// cut sets the split for k shares of msgs.
func (s *shareSplit) cut(msgs []Message, k int) {
	n := min(len(msgs), samplesPerShare*k)
	s.samples = s.samples[:0]
	for i := range n {
		s.samples = append(s.samples, msgs[i*len(msgs)/n].NetID)
	}
	slices.Sort(s.samples)
	s.bounds = s.bounds[:0]
	for j := 1; j < k; j++ {
		s.bounds = append(s.bounds, s.samples[j*n/k])
	}
}

// of returns the share that stores the messages of id: the number of
// bounds at or below it.
func (s *shareSplit) of(id c.NetID) int {
	b := s.bounds
	if len(b) <= 4 {
		j := 0
		for j < len(b) && id >= b[j] {
			j++
		}
		return j
	}
	lo, hi := 0, len(b)
	for lo < hi {
		if mid := int(uint(lo+hi) >> 1); id >= b[mid] {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// receiveShare is what one share of a frame's messages leaves behind: the
// messages held for the world's goroutine (ascending indices), what it
// stored and counted, and for share 0 the frame's runs of equal ticks as
// if every message was stored (which they are when nothing is held).
type receiveShare struct {
	held []int32
	runs []arrivalRun
	st   storing
}

// parallelReceive is Receive's state for frames stored on several
// goroutines; the messages are set only while a frame runs.
type parallelReceive struct {
	workers *workerPool
	shares  []receiveShare
	next    atomic.Int32 // the next share to take
	held    []int32      // every share's held messages, merged
	split   shareSplit
	msgs    []Message
	world   *ecs.World
}

func (r *Receive) stopWorkers() {
	r.par.workers.stop()
	r.par.workers = nil
}

// storeShared stores msgs on the world's goroutine and the workers, then
// applies what they held, in order, on the world's goroutine.
func (r *Receive) storeShared(w *ecs.World, msgs []Message) {
	p := &r.par
	k := r.cfg.Workers
	if p.workers == nil {
		p.workers = newWorkerPool(r, k-1)
		p.shares = make([]receiveShare, k)
	}
	p.msgs, p.world = msgs, w
	p.split.cut(msgs, k)
	p.next.Store(0)
	p.workers.run(r)
	p.msgs, p.world = nil, nil

	p.held = p.held[:0]
	for j := range p.shares {
		sh := &p.shares[j]
		sh.st.publish(r.metrics, r.arrivals)
		p.held = append(p.held, sh.held...)
	}
	if len(p.held) == 0 {
		for _, run := range p.shares[0].runs {
			r.arrivals.observedRun(run)
		}
		return
	}
	slices.Sort(p.held)
	r.applyHeld(w, msgs, p.held)
}

// applyHeld applies the held messages (ascending indices into msgs) in
// order, as one goroutine would have, and tells Arrivals the tick of
// every message in order: stored by a share, or as handle decides.
func (r *Receive) applyHeld(w *ecs.World, msgs []Message, held []int32) {
	var run arrivalRun
	for i := range msgs {
		msg := &msgs[i]
		if len(held) == 0 || int(held[0]) != i {
			if ended := run.extend(msg.Tick); ended.n > 0 {
				r.arrivals.observedRun(ended)
			}
			continue
		}
		held = held[1:]
		r.arrivals.observedRun(run)
		run = arrivalRun{}
		r.release(w, msg.NetID)
		r.handleAt(w, msgs, i)
	}
	r.arrivals.observedRun(run)
}

// release clears the SpanHeld mark of id's entity, if it has one. The
// first held message of an entity releases it: nothing before it changed
// which entity id stands for.
func (r *Receive) release(w *ecs.World, id c.NetID) {
	if entry := r.index.get(id); entry.state == entryLive && w.Alive(entry.entity) {
		span := (*c.Span)(w.GetUnchecked(entry.entity, r.cols.span))
		span.Flags &^= c.SpanHeld
	}
}

// hasRemoteComponents reports whether live entity e has every component Receive
// creates remote entities with.
func (r *Receive) hasRemoteComponents(w *ecs.World, e ecs.Entity) bool {
	mask := w.Mask(e)
	return mask.Contains(&r.remoteMask)
}

// trim drops the goroutines' buffers that a flood made far larger than
// bound.
func (p *parallelReceive) trim(bound int) {
	if cap(p.held) > bound {
		p.held = nil
	}
	for j := range p.shares {
		sh := &p.shares[j]
		if cap(sh.held) > bound {
			sh.held = nil
		}
		if cap(sh.runs) > bound {
			sh.runs = nil
		}
		if cap(sh.st.waits) > bound {
			sh.st.waits = nil
		}
	}
}

// runShares implements [sharedWork]: it stores shares of the frame's
// messages until none is left.
func (r *Receive) runShares() {
	p := &r.par
	for {
		j := int(p.next.Add(1)) - 1
		if j >= len(p.shares) {
			return
		}
		r.storeShare(j)
	}
}

// storeShare stores the messages of share j that the shortcut would
// store, as it would (plainNumbers, appendable, appendNewest), and holds
// the others (see "Receive on several goroutines"). It follows every
// Complete marker as it reads past it, so that appendNewest sees the
// markers one goroutine would.
func (r *Receive) storeShare(j int) {
	p := &r.par
	msgs, sh, w := p.msgs, &p.shares[j], p.world
	split := &p.split
	st := &sh.st
	st.reset(r.alone.complete, r.alone.sampled)
	bound, futureLimit, spanID := r.bound, r.futureLimit, r.cols.span
	var run arrivalRun
	var spare indexEntry
	sh.held, sh.runs = sh.held[:0], sh.runs[:0]
	for i := range msgs {
		msg := &msgs[i]
		if j == 0 {
			if ended := run.extend(msg.Tick); ended.n > 0 {
				sh.runs = append(sh.runs, ended)
			}
		}
		if msg.Kind == Complete {
			// Share 0 holds the markers, for the world's goroutine to
			// note and count.
			if float64(msg.Tick) <= futureLimit {
				st.complete.note(msg.Tick)
			}
			if j == 0 {
				sh.held = append(sh.held, int32(i))
			}
			continue
		}
		if split.of(msg.NetID) != j {
			continue
		}
		entry := r.index.entry(msg.NetID, &spare)
		if entry.state != entryLive || !w.Alive(entry.entity) || !r.hasRemoteComponents(w, entry.entity) {
			// A new entity, one the game removed, or one the game took a
			// component from, which the world's goroutine finds or fails
			// to store into (a recoverable panic there, never here).
			sh.held = append(sh.held, int32(i))
			continue
		}
		span := (*c.Span)(w.GetUnchecked(entry.entity, spanID))
		if span.Flags&c.SpanHeld != 0 || !withinBoth(msg, bound) || !plainRotation(&msg.Rot) || !appendable(span, msg, futureLimit) {
			span.Flags |= c.SpanHeld
			sh.held = append(sh.held, int32(i))
			continue
		}
		r.appendNewest(st, w, entry.entity, span, msg, &msg.Rot, 0, i)
	}
	if run.n > 0 && j == 0 {
		sh.runs = append(sh.runs, run)
	}
}

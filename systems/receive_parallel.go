package systems

import (
	"slices"
	"sync/atomic"

	"github.com/mlange-42/arche/ecs"
	c "github.com/netsmooth/netsmooth/components"
)

// DefaultReceiveParallelMin is the default ReceiveConfig.ParallelMin: a
// frame that brings fewer messages than this stores them on the world's
// goroutine alone even with Workers > 1, since waking another core and
// the frame's two phases cost about what the split saves on small frames
// (DESIGN.md, "Receive on several cores").
const DefaultReceiveParallelMin = 30_000

// Receive on several goroutines (ReceiveConfig.Workers > 1).
//
// The frame's messages are cut into shares by NetID, a share per goroutine
// (see shareSplit), so that entities sent together are stored by one
// goroutine (their spans and ring slots lie side by side). A frame runs in
// two phases, each on every goroutine. First each goroutine scans a range
// of the messages, by position, and sorts their indices by share (scan):
// so every message is read once, not once per goroutine. Then each
// goroutine takes a share and, in order, stores its messages that the
// shortcut would store, exactly as it would (plainNumbers, appendable,
// appendNewest) (storeShare). A message it cannot store so (any other
// kind, a number out of range, an unknown or new entity, an entity the
// game took the Span from, an older tick) it holds for the world's
// goroutine, and so every later message of that entity (the entity's span
// is marked SpanHeld), so that each entity's messages are still applied in
// order. An entity the game took a ring slot from makes the share that
// stores into it panic, as one goroutine would (a nil dereference), and
// the worker pool raises that panic on the world's goroutine. Messages of
// different entities touch nothing in common but sums, which each share
// keeps for itself: counts, occupancy changes and the sampled waits
// (chosen by position in the stream, not by who stores them). Complete
// markers, which change what later snapshots mean, are sorted into every
// share, so that each goroutine follows them as it reads past them.
// Meanwhile no entity is created, removed or moved, and each goroutine
// writes only the spans and ring slots of its own share's entities; the
// NetID index and the world's entity tables (World.Alive,
// World.GetUnchecked) are only read. Afterwards the world's goroutine
// applies the held messages in order through the general path (creating
// and removing entities, calling OnSpawn) and tells the arrival log every
// message's tick in order, from the runs of equal ticks the scan found
// and what the held messages say. The result is what one goroutine stores
// (tested frame by frame, under -race), as long as OnSpawn leaves other
// remote entities alone: it runs after the shares stored the frame's
// snapshots of known entities, not at its place in the stream.

// shareSplit says which share stores the messages of a NetID: the k
// shares are ranges of NetIDs, cut where the frame's messages fall into k
// parts of about equal size (judged from up to samplesPerShare of them per
// share, evenly spaced). Entities sent together (servers hand NetIDs out
// from a counter, so their rows in arche lie in about that order) stay
// with one goroutine in long runs, so that each goroutine reads and writes
// memory in long sequential streams (ids spread over the shares, by a
// hash say, would make each goroutine jump across arche's rows and
// columns), no share writes next to another's data but at a range's ends,
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

// receiveShare is one goroutine's part of a frame: as a scanner, the
// runs of equal ticks in its range of the messages and their indices
// sorted by share (out[o] for share o, ascending); as the store of a
// share, the messages it held for the world's goroutine (ascending
// indices) and what it stored and counted.
type receiveShare struct {
	runs []arrivalRun
	out  [][]int32
	held []int32
	st   storing
}

// parallelReceive is Receive's state for frames stored on several
// goroutines; the messages are set only while a frame runs.
type parallelReceive struct {
	workers *workerPool
	shares  []receiveShare
	next    atomic.Int32 // the next range or share to take
	held    []int32      // every share's held messages, merged
	split   shareSplit
	msgs    []Message
	world   *ecs.World
	scan    scanPhase
	store   storePhase
}

// scanPhase and storePhase are a frame's two phases, as [sharedWork].
type (
	scanPhase  struct{ r *Receive }
	storePhase struct{ r *Receive }
)

// runShares scans ranges of the frame's messages until none is left.
func (ph *scanPhase) runShares() {
	p := &ph.r.par
	for j := int(p.next.Add(1)) - 1; j < len(p.shares); j = int(p.next.Add(1)) - 1 {
		p.scanRange(j)
	}
}

// runShares stores shares of the frame's messages until none is left.
func (ph *storePhase) runShares() {
	p := &ph.r.par
	for j := int(p.next.Add(1)) - 1; j < len(p.shares); j = int(p.next.Add(1)) - 1 {
		ph.r.storeShare(j)
	}
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
		for j := range p.shares {
			p.shares[j].out = make([][]int32, k)
		}
		p.scan.r, p.store.r = r, r
	}
	p.msgs, p.world = msgs, w
	p.split.cut(msgs, k)
	p.next.Store(0)
	p.workers.run(&p.scan)
	p.next.Store(0)
	p.workers.run(&p.store)
	p.msgs, p.world = nil, nil

	p.held = p.held[:0]
	for j := range p.shares {
		sh := &p.shares[j]
		sh.st.publish(r.metrics, r.arrivals)
		p.held = append(p.held, sh.held...)
	}
	slices.Sort(p.held)
	r.applyHeld(w, msgs, p.held)
}

// scanRange sorts the indices of the messages in range j (of as many
// equal ranges as there are shares) by the share that stores them, and
// notes the range's runs of equal ticks. A Complete marker goes to every
// share.
func (p *parallelReceive) scanRange(j int) {
	msgs, sh, split := p.msgs, &p.shares[j], &p.split
	lo, hi := j*len(msgs)/len(p.shares), (j+1)*len(msgs)/len(p.shares)
	// The lists are built in a local copy of their headers, which every
	// append writes: the shares' headers may share cache lines.
	var lists [MaxWorkers][]int32
	out := lists[:len(sh.out)]
	for o := range out {
		out[o] = sh.out[o][:0]
	}
	runs := sh.runs[:0]
	var run arrivalRun
	for i := lo; i < hi; i++ {
		msg := &msgs[i]
		if ended := run.extend(msg.Tick); ended.n > 0 {
			runs = append(runs, ended)
		}
		if msg.Kind == Complete {
			for o := range out {
				out[o] = append(out[o], int32(i))
			}
			continue
		}
		o := split.of(msg.NetID)
		out[o] = append(out[o], int32(i))
	}
	if run.n > 0 {
		runs = append(runs, run)
	}
	copy(sh.out, out)
	sh.runs = runs
}

// applyHeld applies the held messages (ascending indices into msgs) in
// order, as one goroutine would have, and tells the arrival log the tick of
// every message in order: the runs of stored messages between the held
// ones, and what handle decides for each held one.
func (r *Receive) applyHeld(w *ecs.World, msgs []Message, held []int32) {
	start := 0 // the index of the first message of the run at hand
	for j := range r.par.shares {
		for _, run := range r.par.shares[j].runs {
			end := start + int(run.n)
			for len(held) > 0 && int(held[0]) < end {
				i := int(held[0])
				held = held[1:]
				r.arrivals.observedRun(arrivalRun{tick: run.tick, n: uint32(i - start), accepted: true})
				r.release(w, msgs[i].NetID)
				r.handleAt(w, msgs, i)
				start = i + 1
			}
			r.arrivals.observedRun(arrivalRun{tick: run.tick, n: uint32(end - start), accepted: true})
			start = end
		}
	}
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
		for o := range sh.out {
			if cap(sh.out[o]) > bound {
				sh.out[o] = nil
			}
		}
		if cap(sh.st.waits) > bound {
			sh.st.waits = nil
		}
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
	sh.st.reset(r.alone.complete, r.alone.sampled)
	sh.held = sh.held[:0]
	for s := range p.shares {
		for _, i := range p.shares[s].out[j] {
			r.shareMessage(j, sh, w, &msgs[i], i)
		}
	}
}

// shareMessage stores msg, message i of the frame, in share j (sh) if
// the shortcut would, or holds it for the world's goroutine. A message of
// an entity it holds marks the entity's span SpanHeld, if it has one, so
// that the entity's later messages are held too.
func (r *Receive) shareMessage(j int, sh *receiveShare, w *ecs.World, msg *Message, i int32) {
	if msg.Kind == Complete {
		r.shareComplete(j, sh, msg.Tick, i)
		return
	}
	var spare indexEntry
	entry := r.index.entry(msg.NetID, &spare)
	if entry.state != entryLive || !w.Alive(entry.entity) {
		// A new entity, or one the game removed, which the world's
		// goroutine finds.
		sh.held = append(sh.held, i)
		return
	}
	span := (*c.Span)(w.GetUnchecked(entry.entity, r.cols.span))
	if span == nil {
		// The game took the Span away: the world's goroutine fails to
		// store into it, as it would alone. (Had the game taken a ring
		// slot, appendNewest's write to it panics here; the pool raises
		// that on the world's goroutine.)
		sh.held = append(sh.held, i)
		return
	}
	if span.Flags&c.SpanHeld != 0 || !withinBoth(msg, r.bound) || !plainRotation(&msg.Rot) || !appendable(span, msg, r.futureLimit) {
		span.Flags |= c.SpanHeld
		sh.held = append(sh.held, i)
		return
	}
	r.appendNewest(&sh.st, w, entry.entity, span, msg, &msg.Rot, 0, int(i))
}

// shareComplete follows a Complete marker for tick, message i of the
// frame, in share j (sh): every share follows it, so that appendNewest
// sees the markers one goroutine would, and share 0 holds it, for the
// world's goroutine to note and count.
func (r *Receive) shareComplete(j int, sh *receiveShare, tick uint32, i int32) {
	if float64(tick) <= r.futureLimit {
		sh.st.complete.note(tick)
	}
	if j == 0 {
		sh.held = append(sh.held, i)
	}
}

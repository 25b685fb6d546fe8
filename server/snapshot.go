package server

import (
	"fmt"
	"math"

	"github.com/netsmooth/netsmooth/wire"
)

// Snapshot encodes the current tick for client and appends its packets to
// dst: one or more, each at most SessionConfig.Wire.MaxPacket bytes, to
// send in any order over any transport. now is the server's clock in
// milliseconds (any origin; it wraps), for the header's timing fields.
//
// The snapshot is a delta against the newest tick the client has
// acknowledged, if the client's table of it is still among the last
// Wire.History ticks sent to it, and full otherwise (first contact, a
// client silent for that long, or one that asked for a resync). It names
// the entities relevant to the client (all of them, without interest
// management) that differ from what the client holds, those that became
// relevant (whole, as spawns), a despawn for every entity it holds that
// is gone or no longer relevant and for every entity that died after the
// tick it acknowledged (it may know one from a tick it received in part),
// and always the entity the client controls (the one [Session.Assign] gave
// it), so that every snapshot carries that entity's authoritative state
// next to the input ack. With a budget (SessionConfig.Budget), the changes
// that fit go by priority and the rest wait. Every packet carries the
// assigned NetID, if any, and the state hash of the table the client holds
// once it has them all. It is marked complete unless the budget, the
// Filter or the MaxParts limit left something out.
//
// A client without a baseline that was sent a full snapshot a moment ago,
// has acknowledged none since and does not say it receives its packets
// is sent nothing this tick (no packets; see SessionConfig.AllowNoDelta).
//
// The packets are the server's: they stay valid until the next Snapshot
// for the same client. Call Snapshot at most once per client per tick,
// after BeginTick ([ErrTick] otherwise). In steady state it does not
// allocate.
func (s *Session) Snapshot(id ClientID, now uint32, dst [][]byte) ([][]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.peer(id)
	if err != nil {
		return dst, err
	}
	if !s.started {
		return dst, fmt.Errorf("%w: Snapshot before the first BeginTick", ErrTick)
	}
	t := s.tick
	if c.hasSent && !tickBefore(c.last, t) {
		return dst, fmt.Errorf("%w: tick %d already sent to client %d (latest %d)", ErrTick, t, id, c.last)
	}
	if !c.hasSent {
		c.first = t
	}
	c.last, c.hasSent = t, true
	s.rate.observe(t, now)
	c.age(t)
	if s.holdFull(c) {
		return dst, nil
	}

	s.refresh(c)
	table, base, err := s.begin(c, now)
	if err != nil {
		return dst, err
	}
	s.collect(c, base)
	s.choose(c)
	complete := s.emit(c, table, base)
	if s.addErr != nil {
		err := s.addErr
		s.addErr = nil
		return dst, err
	}
	parts, err := s.enc.Finish(complete, table.hash)
	if err != nil {
		return dst, err
	}
	c.packets = parts
	for i := range parts {
		c.sentAt.Record(c.seq+uint16(i), now)
	}
	c.seq += uint16(len(parts))
	c.stamp(t, now, c.seq)
	n := c.count(parts, s.enc.Records(), base != nil, complete)
	s.spend(c, n)
	return append(dst, parts...), nil
}

// holdFull reports whether c, which holds no baseline the server still
// has (it acknowledged none, asked for a resync, was silent for
// Wire.History ticks, or its round trip is longer than that), was sent a
// full snapshot too recently for another. A full snapshot is the whole of
// what is relevant to the client, and one that acknowledges nothing must
// not be sent it every tick. Full snapshots go every tick for a round
// trip and two ticks (what a client takes to acknowledge its first, on a
// good link; a second at most, and while its round trip is not measured
// yet); while it still acknowledges none, the next waits two ticks, then
// four, doubling up to a second. The count starts over four seconds after
// the last full snapshot, so a client that acknowledges a tick and asks
// for a resync, again and again, is held back too.
//
// A client that says it receives them is sent one every tick: on a
// quarter of the last second's ticks (of the last 64 at most, or since
// it was first heard) it acknowledged a packet sent in the last
// SessionConfig.maxAckAge ticks, and it dropped no baseline by a resync in the last
// four seconds. Its full snapshots reach
// it, but none whole (a loss among a full snapshot's many parts), or too
// late for a delta against them (a round trip longer than Wire.History
// ticks); each still brings most entities up to date. It costs what any
// client without deltas costs, which a budget bounds.
// SessionConfig.AllowNoDelta turns the hold off.
func (s *Session) holdFull(c *peer) bool {
	if s.cfg.AllowNoDelta || c.baseline() != nil {
		return false
	}
	second := uint32(s.windowTicks())
	since := s.tick - c.fullTick
	if !c.hasFull || since >= 4*second {
		c.fullRun = 0
	}
	receiving := c.listening(s.tick, min(second, 64)) && !(c.hasResynced && s.tick-c.resynced < 4*second)
	free := second // a round trip not measured yet: a second's worth
	if c.stats.HasRTT {
		free = min(s.rttTicks(c)+2, second)
	}
	if c.fullRun >= free && !receiving {
		gap := min(uint32(1)<<min(c.fullRun-free+1, 31), second)
		if since < gap {
			c.stats.FullHeld++
			c.relStale = true // its turn to rebuild may fall on a held tick
			return true
		}
	}
	c.fullRun++
	c.fullTick, c.hasFull = s.tick, true
	return false
}

// begin starts encoding the current tick for c. It returns the emptied
// table of what c will hold after the tick and the table of the baseline,
// or nil for a full snapshot.
func (s *Session) begin(c *peer, now uint32) (table, base *sentTick, err error) {
	// The table for this tick first (it may evict the oldest), then the
	// baseline: a baseline among the History-1 ticks sent before this one
	// is one the client's decoder still holds.
	table = c.put(s.tick)
	if c.hasAcked {
		base = c.table(c.acked)
	}
	info := wire.SnapshotInfo{Tick: s.tick, InputAck: c.inputs.applied, HasInputAck: c.inputs.hasApplied}
	if c.netID != 0 {
		info.Controlled, info.HasControlled = c.netID, true
	}
	if base != nil {
		info.Delta, info.Baseline = true, base.tick
		table.hash = base.hash
	}
	h := wire.Header{Seq: c.seq, Sent: now}
	c.receipts.Stamp(&h, now)
	if err := s.enc.Begin(h, info, c.packets); err != nil {
		return nil, nil, err
	}
	return table, base, nil
}

// merger walks a client's relevant set, its baseline table, the recent
// despawns and the entities that left the client's set together in NetID
// order. It keeps the NetID at the head of each list (mergeEnd past its
// last entry), so that each step takes the smallest of four words and
// moves on only the lists that hold it.
type merger struct {
	rel        []relEntry
	base       []sentRec
	graves     []grave
	gone       []leftEntry
	i, j, k, l int
	// The NetIDs at rel[i], base[j], graves[k] and gone[l], or mergeEnd.
	ri, bi, gi, oi uint64
}

// mergeEnd is a merger's head of a list it has walked to the end: above
// every NetID.
const mergeEnd = 1 << 32

// next returns the next NetID and the indexes of its entries (-1 where it
// has none), and false at the end.
func (m *merger) next() (id uint32, rel, base, dead, gone int, ok bool) {
	head := min(m.ri, m.bi, m.gi, m.oi)
	if head == mergeEnd {
		return 0, -1, -1, -1, -1, false
	}
	rel, base, dead, gone = -1, -1, -1, -1
	if m.ri == head {
		rel = m.i
		m.i++
		m.ri = m.relHead()
	}
	if m.bi == head {
		base = m.j
		m.j++
		m.bi = m.baseHead()
	}
	if m.gi == head {
		dead = m.k
		m.k++
		m.gi = m.graveHead()
	}
	if m.oi == head {
		gone = m.l
		m.l++
		m.oi = m.goneHead()
	}
	return uint32(head), rel, base, dead, gone, true
}

// relHead, baseHead, graveHead and goneHead are the NetIDs at the heads
// of the lists, or mergeEnd.
func (m *merger) relHead() uint64 {
	if m.i < len(m.rel) {
		return uint64(m.rel[m.i].netID)
	}
	return mergeEnd
}

func (m *merger) baseHead() uint64 {
	if m.j < len(m.base) {
		return uint64(m.base[m.j].rec.NetID)
	}
	return mergeEnd
}

func (m *merger) graveHead() uint64 {
	if m.k < len(m.graves) {
		return uint64(m.graves[m.k].netID)
	}
	return mergeEnd
}

func (m *merger) goneHead() uint64 {
	if m.l < len(m.gone) {
		return uint64(m.gone[m.l].netID)
	}
	return mergeEnd
}

func (s *Session) merger(c *peer, base *sentTick) merger {
	m := merger{rel: c.rel, graves: s.graves, gone: c.gone}
	if base != nil {
		m.base = base.recs
	}
	m.ri, m.bi, m.gi, m.oi = m.relHead(), m.baseHead(), m.graveHead(), m.goneHead()
	return m
}

// collect lists in s.cands, in NetID order, every entity c's snapshot may
// carry, with its size and priority when a budget needs them.
func (s *Session) collect(c *peer, base *sentTick) {
	held := 0
	if base != nil {
		held = len(base.recs)
	}
	s.cands = room(s.cands, len(c.rel)+held+len(s.graves)+len(c.gone))
	s.added = 0
	weigh := s.bytesPerTick() > 0
	ents := s.world.ents
	alive := s.stillAlive(c, base)
	m := s.merger(c, base)
	// The entries of c.gone kept, compacted in place: the merger reads
	// c.gone ahead of every entry written back.
	gone := c.gone[:0]
	defer func() { c.gone = gone }()
	for {
		id, ri, bi, gi, oi, ok := m.next()
		if !ok {
			return
		}
		var we *worldEntry
		if ri >= 0 && alive[ri] {
			we = &ents[c.rel[ri].slot]
		}
		k := candidate{netID: id, rel: int32(ri), base: int32(bi), gone: -1}
		if oi >= 0 && we == nil {
			l := &c.gone[oi]
			if l.heard(c); !l.acked(c) && !l.expired(s) {
				// Left the client's set and not known to be despawned there.
				k.gone = int32(len(gone))
				gone = append(gone, *l)
			}
		}
		switch {
		case we == nil && bi >= 0:
			k.kind, k.rel, k.size = kDespawn, -1, wire.DespawnSize
		case we == nil:
			// Died, or left the client's set, after the client's
			// acknowledged tick, which does not hold it: the client may
			// still know it from a tick it received in part. Tell it too.
			if (gi < 0 || !c.mayKnow(s.graves[gi].tick)) && k.gone < 0 {
				continue
			}
			k.kind, k.rel, k.size = kDespawn, -1, wire.DespawnSize
		case bi >= 0:
			k.ev = s.world.eventsOf(c.rel[ri].slot, we, base.recs[bi].at)
			if k.ev == 0 && id != c.netID && base.same(bi, &we.rec) {
				continue
			}
			k.kind = kUpdate
			if weigh {
				k.size = int32(s.enc.RecordSize(&we.rec, base.record(bi), k.ev))
			}
		default:
			// Entering: a new life on the client, whatever it saw of the
			// entity before (a despawn when it left), so that nothing is
			// interpolated from before.
			k.kind, k.ev = kEnter, wire.Spawn
			if weigh {
				k.size = int32(s.enc.RecordSize(&we.rec, nil, k.ev))
			}
		}
		if id == c.netID && k.kind != kDespawn {
			k.kind = kOwn
		}
		if weigh {
			k.gap = s.gapAfter(id)
			k.size += int32(k.gap)
			if k.rel >= 0 {
				k.score = s.score(c, k.rel)
				k.since = c.rel[k.rel].since
			}
		}
		if k.base < 0 && k.kind != kDespawn {
			s.added++
		}
		s.cands = append(s.cands, k)
	}
}

// gapAfter is the bytes of the NetID gap before id's record if it follows
// the last candidate listed: no more than it takes after the record
// chosen before it, since the candidates chosen are among those listed.
func (s *Session) gapAfter(id uint32) uint8 {
	next := uint32(0)
	if n := len(s.cands); n > 0 {
		next = s.cands[n-1].netID + 1
	}
	return uint8(wire.UvarintLen(id - next))
}

// score returns the priority of sending c's relevant entity i to c under
// the budget: what it gathered while waiting and its importance now (by
// default, the one stillAlive worked out). It first learns whether the
// entity's last record arrived and starts it waiting if it was not.
func (s *Session) score(c *peer, i int32) float32 {
	r := &c.rel[i]
	if r.pending {
		s.settle(c, r)
	}
	switch {
	case r.fresh:
		r.fresh = false // waits from its (staggered) entering
	case r.acc == 0:
		r.since = s.tick // starts waiting now
	}
	if s.cfg.Budget.Importance == nil {
		return r.acc + s.weight[i]
	}
	return r.acc + s.importance(c, r.netID, s.distance(c, s.near2[i]))
}

// stillAlive reports which of c's relevant entities are still alive, and
// measures in s.near2 their squared distances (steps) from c's view, in
// one tight pass before collect's walk: their world entries' cache misses
// (the two lines of each, both read here) overlap, and the walk finds
// them at hand. It reads the baseline's records (if any) in a second
// tight pass, for the same reason: the table, written a few ticks ago,
// is rarely still in cache. Under a budget with the default importance,
// it works out each one's importance in a third (see nearness): a chain of a square
// root and a division per entity, which a tight loop overlaps.
func (s *Session) stillAlive(c *peer, base *sentTick) []bool {
	ents := s.world.ents
	alive := room(s.alive, len(c.rel))
	near2 := room(s.near2, len(c.rel))
	center, dims := c.center, s.dims()
	for i := range c.rel {
		r := &c.rel[i]
		we := &ents[r.slot]
		alive = append(alive, we.alive && we.rec.NetID == r.netID)
		near2 = append(near2, dist2(&we.rec.Pos, &center, dims))
	}
	s.alive, s.near2 = alive, near2
	if s.bytesPerTick() > 0 && s.cfg.Budget.Importance == nil {
		s.nearness(c)
	}
	if base != nil {
		var h uint32
		for i := range base.recs {
			h ^= base.recs[i].hash
		}
		s.warmed = h
	}
	return alive
}

// settle learns whether the packet that carried r's last record arrived:
// acknowledged, r is settled; not acknowledged a round trip and a tick
// after it was sent (or no longer remembered), it was lost, and r waits
// as if that record had never been sent: from when it started waiting
// before, with the priority it had then added to what it gathered since.
func (s *Session) settle(c *peer, r *relEntry) {
	acked, known := c.sentAt.Delivered(r.sentSeq)
	switch {
	case acked:
		r.pending = false
	case !known || s.tick-r.sentTick > s.rttTicks(c)+1:
		r.pending = false
		r.since = r.lostSince
		r.acc += r.lostAcc
		c.stats.Resent++
	}
}

// eventsOf returns the events of the entity in slot, whose entry is we,
// that a client that last received it at tick at has not received.
func (w *world) eventsOf(slot int32, we *worldEntry, at uint32) wire.Flags {
	var ev wire.Flags
	if we.hasSpawn && tickBefore(at, w.events[slot].spawn) {
		ev |= wire.Spawn
	}
	if we.hasTeleport && tickBefore(at, w.events[slot].teleport) {
		ev |= wire.Teleport
	}
	return ev
}

// nearness works out in s.weight the default importance to c of each of
// its relevant entities (see defaultImportance), from their squared
// distances in s.near2: one square root each instead of the two of a
// distance and its importance.
func (s *Session) nearness(c *peer) {
	weight := room(s.weight, len(s.near2))
	if !c.hasView {
		for range s.near2 {
			weight = append(weight, 1)
		}
		s.weight = weight
		return
	}
	step := float64(s.q.PosStep) / 16
	scale := step * step
	for _, d2 := range s.near2 {
		weight = append(weight, float32(1/math.Sqrt(1+d2*scale)))
	}
	s.weight = weight
}

// dims is the number of dimensions distances are measured over: the
// grid's, or 3 without interest management.
func (s *Session) dims() int {
	if s.grid != nil {
		return s.grid.dims
	}
	return 3
}

// distance is the distance in world units of an entity at squared
// distance d2 (steps) from c's view, -1 without a view.
func (s *Session) distance(c *peer, d2 float64) float32 {
	if !c.hasView {
		return -1
	}
	return float32(math.Sqrt(d2) * float64(s.q.PosStep))
}

// emit adds the chosen candidates to the snapshot being encoded and
// records in table what the client will hold; the priorities of those
// left out grow. It reports whether nothing was left out.
//
// It walks the candidates and the baseline together: a baseline record
// that is no candidate (held and unchanged) goes to the table as it is,
// in runs.
func (s *Session) emit(c *peer, table, base *sentTick) bool {
	complete := true
	held := 0
	if base != nil {
		held = len(base.recs)
	}
	// The table holds what the baseline holds and the records that are
	// new to it: sized by that, not by every candidate (most replace a
	// record held), a table made while a client's set fills up has the
	// room it needs once the client holds the whole set.
	table.recs = room(table.recs, held+s.added)
	j := 0 // the next baseline record
	for i := range s.cands {
		k := &s.cands[i]
		if base != nil {
			e := j
			for e < len(base.recs) && base.recs[e].rec.NetID < k.netID {
				e++
			}
			table.keepRun(base, j, e)
			j = e
			if k.base >= 0 {
				j++ // k's: k.base == e
			}
		}
		if k.send && k.kind == kEnter && held >= s.cfg.Wire.MaxEntities {
			k.send = false
		}
		if k.send && !s.record(c, k, table, base) {
			k.send = false
		}
		switch {
		case k.send && k.kind == kDespawn:
			if k.base >= 0 {
				held--
			}
		case k.send && k.kind == kEnter:
			held++
		case !k.send && k.base >= 0:
			table.keep(base, int(k.base))
		}
		if !k.send {
			complete = false
			c.stats.Deferred++
		}
		s.sent(c, k)
	}
	if base != nil {
		table.keepRun(base, j, len(base.recs))
	}
	return complete
}

// sent updates what c knows of candidate k once emit decided whether it
// went: the despawn of an entity that left, the priority of a relevant
// one.
func (s *Session) sent(c *peer, k *candidate) {
	if l := k.gone; l >= 0 {
		// The first of a run of ticks each carrying its despawn.
		g := &c.gone[l]
		switch {
		case !k.send:
			g.hasDespawned = false
		case !g.hasDespawned:
			g.despawned, g.hasDespawned = s.tick, true
		}
		if k.send {
			g.watch(c, s.tick, c.seq+uint16(s.enc.Part()))
		}
	}
	if k.rel >= 0 {
		r := &c.rel[k.rel]
		if k.send {
			r.sent = true
			r.pending, r.sentSeq, r.sentTick = true, c.seq+uint16(s.enc.Part()), s.tick
			r.lostSince, r.lostAcc = r.since, k.score
			r.acc = 0
		} else {
			r.acc = k.score
		}
	}
}

// record adds candidate k's record to the snapshot and to table, keeping
// the table's hash, and reports whether it went in: false once the
// snapshot is full. Any other error (a bug: candidates are in order) is
// kept in s.addErr.
func (s *Session) record(c *peer, k *candidate, table, base *sentTick) bool {
	if s.enc.Full() {
		return false
	}
	var err error
	if k.kind == kDespawn {
		err = s.enc.Despawn(k.netID)
	} else {
		we := &s.world.ents[c.rel[k.rel].slot]
		var br *wire.Record
		if k.base >= 0 {
			br = base.record(int(k.base))
		}
		err = s.enc.Add(&we.rec, br, k.ev)
		if err == nil {
			h := hashOf(we)
			table.add(&we.rec, s.tick, h)
			if br != nil {
				table.hash ^= base.recs[k.base].hash
			}
			table.hash ^= h
		}
	}
	if err != nil {
		if !s.enc.Full() && s.addErr == nil {
			s.addErr = err
		}
		return false
	}
	if k.kind == kDespawn && k.base >= 0 {
		table.hash ^= base.recs[k.base].hash
	}
	return true
}

// count adds a snapshot of parts and records to c's statistics and returns
// its bytes.
func (c *peer) count(parts [][]byte, records int, delta, complete bool) int {
	st := &c.stats
	st.Snapshots++
	if !delta {
		st.FullSnapshots++
	}
	if !complete {
		st.Incomplete++
	}
	st.RecordsSent += uint64(records)
	st.PacketsSent += uint64(len(parts))
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	st.BytesSent += uint64(n)
	return n
}

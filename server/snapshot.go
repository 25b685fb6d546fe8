package server

import (
	"fmt"

	"github.com/netsmooth/netsmooth/wire"
)

// Snapshot encodes the current tick for client and appends its packets to
// dst: one or more, each at most Config.Wire.MaxPacket bytes, to send in
// any order over any transport. now is the server's clock in milliseconds
// (any origin; it wraps), for the header's timing fields.
//
// The snapshot is a delta against the newest tick the client has
// acknowledged, if the client's table of it is still among the last
// Wire.History ticks sent to it, and full otherwise (first contact, or a
// client silent for that long). It names every entity that differs from
// what the client holds, a despawn for every entity it holds that is gone
// and for every entity that died after the tick it acknowledged (it may
// know one from a tick it received in part), and always the entity the
// client controls (the one [Session.Assign] gave it), so that every
// snapshot carries that entity's authoritative state next to the input
// ack. While an assignment holds, every packet also carries the assigned
// NetID (wire's SnapshotInfo.Controlled). Every packet carries the state
// hash of the table the client holds once it has them all. It is marked
// complete unless the Filter or the MaxParts limit left something out.
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

	table, base, err := s.begin(c, now)
	if err != nil {
		return dst, err
	}
	complete := s.merge(c, table, base)
	if s.addErr != nil {
		err := s.addErr
		s.addErr = nil
		return dst, err
	}
	parts, err := s.enc.Finish(complete, uint32(table.hash))
	if err != nil {
		return dst, err
	}
	c.packets = parts
	for i := range parts {
		c.sentAt.Record(c.seq+uint16(i), now)
	}
	c.seq += uint16(len(parts))
	c.count(parts, s.enc.Records(), base != nil, complete)
	return append(dst, parts...), nil
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

// merge walks the world, the baseline (nil for a full snapshot) and the
// graves together in NetID order, adds to the snapshot being encoded what
// the client needs, and records in table what the client will hold. It
// reports whether nothing changed was left out.
func (s *Session) merge(c *peer, table, base *sentTick) bool {
	var b []sentRec
	if base != nil {
		b = base.recs
	}
	complete := true
	held := len(b) // entities the client will hold, bounded by MaxEntities
	w, g := s.world, s.graves
	i, j, k := 0, 0, 0
	for i < len(w) || j < len(b) || k < len(g) {
		// The smallest NetID at the head of the world, the baseline and
		// the graves.
		id := uint32(0xffffffff)
		if i < len(w) {
			id = w[i].rec.NetID
		}
		if j < len(b) {
			id = min(id, b[j].rec.NetID)
		}
		if k < len(g) {
			id = min(id, g[k].netID)
		}
		var we *worldEntry
		var br *sentRec
		var gr *grave
		if i < len(w) && w[i].rec.NetID == id {
			we = &w[i]
			i++
		}
		if j < len(b) && b[j].rec.NetID == id {
			br = &b[j]
			j++
		}
		if k < len(g) && g[k].netID == id {
			gr = &g[k]
			k++
		}
		var ok bool
		switch {
		case we != nil && br != nil:
			ok = s.update(c, table, we, br)
		case we != nil:
			ok = s.introduce(c, table, we, &held)
		case br != nil:
			ok = s.remove(table, br, &held)
		default:
			// Died after the client's acknowledged tick, which does not
			// hold it: the client may still know it from a tick it
			// received in part. Tell it too.
			ok = !c.mayKnow(gr.tick) || s.despawn(id)
		}
		if !ok {
			complete = false
			c.stats.Deferred++
		}
	}
	return complete
}

// update sends an entity the client holds (br) if it changed, carries an
// event the client has not received, or is the client's own, and records
// what the client will hold. It reports false if a change was left out.
func (s *Session) update(c *peer, table *sentTick, we *worldEntry, br *sentRec) bool {
	var ev wire.Flags
	if we.hasSpawn && tickBefore(br.at, we.spawn) {
		ev |= wire.Spawn
	}
	if we.hasTeleport && tickBefore(br.at, we.teleport) {
		ev |= wire.Teleport
	}
	id := we.rec.NetID
	controlled := id == c.netID
	if we.rec == br.rec && ev == 0 && !controlled {
		table.recs = append(table.recs, *br)
		return true
	}
	if (!controlled && !s.send(c, id, s.tick)) || !s.add(&we.rec, &br.rec, ev) {
		table.recs = append(table.recs, *br)
		return false
	}
	table.recs = append(table.recs, sentRec{rec: we.rec, at: s.tick})
	if we.rec != br.rec {
		table.hash ^= br.rec.Hash() ^ we.rec.Hash()
	}
	return true
}

// introduce sends an entity new to the client, if there is room for it
// and the Filter agrees, and reports false if it was left out.
func (s *Session) introduce(c *peer, table *sentTick, we *worldEntry, held *int) bool {
	var ev wire.Flags
	if we.hasSpawn && !tickBefore(we.spawn, c.first) {
		ev = wire.Spawn
	}
	if *held >= s.cfg.Wire.MaxEntities || !s.send(c, we.rec.NetID, s.tick) || !s.add(&we.rec, nil, ev) {
		return false
	}
	*held++
	table.recs = append(table.recs, sentRec{rec: we.rec, at: s.tick})
	table.hash ^= we.rec.Hash()
	return true
}

// remove sends a despawn for an entity the client holds that is gone from
// the world, unless there is no room: then the client keeps it, and
// remove reports false.
func (s *Session) remove(table *sentTick, br *sentRec, held *int) bool {
	if s.despawn(br.rec.NetID) {
		*held--
		table.hash ^= br.rec.Hash()
		return true
	}
	table.recs = append(table.recs, *br)
	return false
}

// count adds a snapshot of parts and records to c's statistics.
func (c *peer) count(parts [][]byte, records int, delta, complete bool) {
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
	for _, p := range parts {
		st.BytesSent += uint64(len(p))
	}
}

// despawn adds a despawn record and reports whether it went in.
func (s *Session) despawn(netID uint32) bool {
	if s.enc.Full() {
		return false
	}
	if err := s.enc.Despawn(netID); err != nil {
		if !s.enc.Full() && s.addErr == nil {
			s.addErr = err
		}
		return false
	}
	return true
}

// send asks the Filter whether client c gets the changed entity netID.
func (s *Session) send(c *peer, netID, tick uint32) bool {
	return s.cfg.Filter == nil || netID == c.netID || s.cfg.Filter(c.id, netID, tick)
}

// add adds a record to the snapshot being encoded and reports whether it
// went in: false once the snapshot is full. Any other error (a bug: the
// world is sorted) is kept in s.addErr.
func (s *Session) add(cur, base *wire.Record, ev wire.Flags) bool {
	if s.enc.Full() {
		return false
	}
	if err := s.enc.Add(cur, base, ev); err != nil {
		if !s.enc.Full() && s.addErr == nil {
			s.addErr = err
		}
		return false
	}
	return true
}

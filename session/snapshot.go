package session

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
// client controls (the NetID of its input packets), so that every snapshot
// carries that entity's authoritative state next to the input ack. It is
// marked complete unless the Filter or the MaxParts limit left something
// out.
//
// The packets are the server's: they stay valid until the next Snapshot
// for the same client. Call Snapshot at most once per client per tick,
// after BeginTick ([ErrTick] otherwise). In steady state it does not
// allocate.
func (s *Server) Snapshot(id ClientID, now uint32, dst [][]byte) ([][]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.client(id)
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

	// The table for this tick first (it may evict the oldest), then the
	// baseline: a baseline among the History-1 ticks sent before this one
	// is one the client's decoder still holds.
	table := c.put(t)
	var base *sentTick
	if c.hasAcked {
		base = c.table(c.acked)
	}
	info := wire.SnapshotInfo{Tick: t, InputAck: c.inputs.applied, HasInputAck: c.inputs.hasApplied}
	var brecs []sentRec
	if base != nil {
		info.Delta, info.Baseline = true, base.tick
		brecs = base.recs
	}
	h := wire.Header{Seq: c.seq, Sent: now}
	c.receipts.Stamp(&h, now)
	enc := s.enc
	if err := enc.Begin(h, info, c.packets); err != nil {
		return dst, err
	}

	complete := true
	held := len(brecs) // entities the client will hold, bounded by MaxEntities
	w, b, g := s.world, brecs, s.graves
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
		inW := i < len(w) && w[i].rec.NetID == id
		inB := j < len(b) && b[j].rec.NetID == id
		inG := k < len(g) && g[k].netID == id
		var we *worldEntry
		var br *sentRec
		if inW {
			we = &w[i]
			i++
		}
		if inB {
			br = &b[j]
			j++
		}
		var gr grave
		if inG {
			gr = g[k]
			k++
		}
		switch {
		case inW && inB:
			var ev wire.Flags
			if we.hasSpawn && tickBefore(br.at, we.spawn) {
				ev |= wire.Spawn
			}
			if we.hasTeleport && tickBefore(br.at, we.teleport) {
				ev |= wire.Teleport
			}
			controlled := id == c.netID
			if we.rec == br.rec && ev == 0 && !controlled {
				table.recs = append(table.recs, *br)
				continue
			}
			if (!controlled && !s.send(c, id, t)) || !s.add(&we.rec, &br.rec, ev) {
				complete = false
				c.stats.Deferred++
				table.recs = append(table.recs, *br)
				continue
			}
			table.recs = append(table.recs, sentRec{rec: we.rec, at: t})
		case inW:
			// New to the client.
			var ev wire.Flags
			if we.hasSpawn && !tickBefore(we.spawn, c.first) {
				ev = wire.Spawn
			}
			if held >= s.cfg.Wire.MaxEntities || !s.send(c, id, t) || !s.add(&we.rec, nil, ev) {
				complete = false
				c.stats.Deferred++
				continue
			}
			held++
			table.recs = append(table.recs, sentRec{rec: we.rec, at: t})
		case inB:
			// Gone from the world: a despawn, unless there is no room.
			if s.despawn(id) {
				held--
				continue
			}
			complete = false
			c.stats.Deferred++
			table.recs = append(table.recs, *br)
		default:
			// Died after the client's acknowledged tick, which does not
			// hold it: the client may still know it from a tick it
			// received in part. Tell it too.
			if !c.mayKnow(gr.tick) {
				continue
			}
			if !s.despawn(id) {
				complete = false
				c.stats.Deferred++
			}
		}
	}
	if s.addErr != nil {
		err := s.addErr
		s.addErr = nil
		return dst, err
	}
	parts, err := enc.Finish(complete)
	if err != nil {
		return dst, err
	}
	c.packets = parts
	c.seq += uint16(len(parts))
	st := &c.stats
	st.Snapshots++
	if !info.Delta {
		st.FullSnapshots++
	}
	if !complete {
		st.Incomplete++
	}
	st.RecordsSent += uint64(enc.Records())
	st.PacketsSent += uint64(len(parts))
	for _, p := range parts {
		st.BytesSent += uint64(len(p))
	}
	return append(dst, parts...), nil
}

// despawn adds a despawn record and reports whether it went in.
func (s *Server) despawn(netID uint32) bool {
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
func (s *Server) send(c *client, netID, tick uint32) bool {
	return s.cfg.Filter == nil || netID == c.netID || s.cfg.Filter(c.id, netID, tick)
}

// add adds a record to the snapshot being encoded and reports whether it
// went in: false once the snapshot is full. Any other error (a bug: the
// world is sorted) is kept in s.addErr.
func (s *Server) add(cur, base *wire.Record, ev wire.Flags) bool {
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

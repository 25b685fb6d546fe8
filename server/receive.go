package server

import (
	"fmt"

	"github.com/netsmooth/netsmooth/wire"
)

// Receive processes an input packet from client, received at the server's
// clock now (ms, the clock Snapshot is given). It records the packet for
// the acknowledgements of the next snapshot header and the round trip,
// advances the client's baseline to the snapshot tick it acknowledges
// (when that is newer and is a tick sent to it that the server still
// holds), and buffers its inputs: reordered, with the redundant copies of
// inputs already received dropped and counted.
//
// A packet that does not decode is counted in ClientStats.BadPackets and
// reported as an error wrapping the codec's (package wire); nothing else
// changes. A duplicated packet, one too old to matter, and one whose
// sequence number jumps too far ahead (wire.MaxSeqJump) are counted and
// ignored. A packet asking for a resync ([wire.InputPacket.Resync]) makes
// the next snapshot full. A spectator's inputs are refused and counted.
// Receive never panics, whatever the bytes, and accepting a packet does
// not allocate.
func (s *Session) Receive(id ClientID, packet []byte, now uint32) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.peer(id)
	if err != nil {
		return err
	}
	c.stats.PacketsReceived++
	c.stats.BytesReceived += uint64(len(packet))
	in := &s.in
	h, err := wire.DecodeInput(packet, in, &s.cfg.Wire)
	if err != nil {
		c.stats.BadPackets++
		return fmt.Errorf("server: client %d: %w", id, err)
	}
	switch c.receipts.Receive(&h, now) {
	case wire.ReceiptOld:
		c.stats.DuplicatePackets++
		return nil
	case wire.ReceiptJump:
		return nil // counted by the receipts (ClientStats.SeqJumps)
	}
	c.sentAt.Ack(&h)
	if h.HasAck && c.isRecent(h.Ack) {
		c.hear(s.tick)
		if !c.hasAckedSeq || int16(h.Ack-c.ackedSeq) > 0 {
			c.ackedSeq, c.hasAckedSeq = h.Ack, true
		}
	}
	switch {
	case in.Resync:
		// The client's state drifted from what the server holds for it:
		// no delta can be trusted until a full snapshot arrives. Only a
		// resync that drops a baseline counts against the client: one
		// that holds none asks again until a full snapshot arrives whole.
		if c.hasAcked {
			c.resynced, c.hasResynced = s.tick, true
		}
		c.hasAcked = false
		c.stats.Resyncs++
	case in.HasAckedTick && (!c.hasAcked || tickBefore(c.acked, in.AckedTick)):
		s.acknowledge(c, in.AckedTick, now)
	}
	if rtt, ok := c.sentAt.RTT(&h, now); ok {
		s.measureRTT(c, rtt, now)
	}
	if c.spectator {
		c.stats.InputsRefused += uint64(len(in.Inputs))
		return nil
	}
	for i, p := range in.Inputs {
		var drawn *wire.Drawn
		if in.Drawn != nil {
			drawn = &in.Drawn[i]
		}
		c.inputs.add(in.FirstSeq+uint32(i), p, drawn, &c.stats)
	}
	return nil
}

// acknowledge takes tick, newer than c's baseline, as acknowledged by c:
// its new baseline when the server still holds the tick's table. A tick
// the server sent within SessionConfig.maxAckAge ticks whose table is
// gone (sent more than Wire.History ticks before), or is the next to go,
// is acknowledged late: the client's round trip is longer than History,
// and it gets no delta. Either way the round trip is no longer than the
// tick's age. Any other tick is ignored.
func (s *Session) acknowledge(c *peer, tick, now uint32) {
	at, sent := c.sentWhen(tick)
	recent := sent && s.tick-tick < uint32(len(c.stamps))
	if recent {
		// The client held tick before acknowledging it: its round trip is
		// no longer than the tick's age, with or without an echo, so that
		// a round trip once made long stays so only while the client keeps
		// acknowledging old ticks.
		if since := now - at; int32(since) >= 0 && (!c.stats.HasRTT || since < c.stats.RTT) {
			c.stats.RTT, c.stats.HasRTT = since, true
		}
	}
	if t := c.table(tick); t != nil {
		c.acked, c.hasAcked = tick, true
		if recent && t == c.victim() { // gone at the next snapshot: no baseline either
			c.stats.LateAcks++
		}
		return
	}
	if !recent || (c.hasLate && !tickBefore(c.late, tick)) {
		return
	}
	c.late, c.hasLate = tick, true
	c.stats.LateAcks++
}

// measureRTT takes rtt, which a packet of c's received at now measures,
// for c's round trip: only once c has acknowledged a tick sent to it
// less than SessionConfig.maxAckAge ticks before (its newest, as a
// baseline or late), and no longer than the time since that tick's
// snapshot was sent. A client received that snapshot before it
// acknowledged it, so its round trip is no longer; one that acknowledges
// packets late, to look further away than it is (and be let rewind
// further), has to hold its acknowledged tick back as long, for as long
// as it wants to look far (each newer tick it acknowledges bounds the
// round trip again), takes its deltas against that older tick or gets
// none, and cannot look further than maxAckAge. A session that allows
// clients to acknowledge no tick (AllowNoDelta) trusts them: it takes
// their measure as it is.
func (s *Session) measureRTT(c *peer, rtt, now uint32) {
	tick, ok := c.acked, c.hasAcked
	if c.hasLate && (!ok || tickBefore(tick, c.late)) {
		tick, ok = c.late, true
	}
	if !ok {
		if s.cfg.AllowNoDelta {
			c.stats.RTT, c.stats.HasRTT = rtt, true
		}
		return
	}
	at, sent := c.sentWhen(tick)
	if !sent || s.tick-tick >= uint32(len(c.stamps)) {
		return
	}
	if since := now - at; int32(since) >= 0 {
		c.stats.RTT, c.stats.HasRTT = min(rtt, since), true
	}
}

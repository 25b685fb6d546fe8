package session

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
// A packet that does not decode is counted in Stats.BadPackets and
// reported as an error wrapping the codec's (package wire); nothing else
// changes. A duplicated packet is counted and ignored. Receive never
// panics, whatever the bytes, and accepting a packet does not allocate.
//
// The NetID the packet names is the entity the client controls until the
// server assigns one with [Server.Assign]; from then on it changes
// nothing, and a packet naming another (nonzero) NetID is counted in
// Stats.WrongNetID.
func (s *Server) Receive(id ClientID, packet []byte, now uint32) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.client(id)
	if err != nil {
		return err
	}
	c.stats.PacketsReceived++
	c.stats.BytesReceived += uint64(len(packet))
	in := &s.in
	h, err := wire.DecodeInput(packet, in, &s.cfg.Wire)
	if err != nil {
		c.stats.BadPackets++
		return fmt.Errorf("session: client %d: %w", id, err)
	}
	if !c.receipts.Receive(&h, now) {
		c.stats.DuplicatePackets++
		return nil
	}
	if rtt, ok := h.RTT(now); ok {
		c.stats.RTT, c.stats.HasRTT = rtt, true
	}
	if in.HasAckedTick && (!c.hasAcked || tickBefore(c.acked, in.AckedTick)) && c.table(in.AckedTick) != nil {
		c.acked, c.hasAcked = in.AckedTick, true
	}
	switch {
	case !c.assigned:
		c.netID = in.NetID // the client's claim: trusted until the server assigns
		c.stats.NetID = in.NetID
	case in.NetID != 0 && in.NetID != c.netID:
		c.stats.WrongNetID++
	}
	for i, p := range in.Inputs {
		c.inputs.add(in.FirstSeq+uint32(i), p, &c.stats)
	}
	return nil
}

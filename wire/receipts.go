package wire

// Receipts records what one end has received from the other and fills in
// the acknowledgement and time-echo fields of the headers it sends back.
// Call [Receipts.Receive] with the header of every packet that arrives (its
// body decoded or not) and [Receipts.Stamp] on the header of every packet
// sent. The zero value is ready to use.
type Receipts struct {
	ack     uint16
	bits    uint32
	hasAck  bool
	echo    uint32
	at      uint32
	hasEcho bool
}

// Receive records the arrival of a packet with header h at local time now
// (ms). It returns false for a duplicate (already recorded) or a packet too
// old to acknowledge (more than 32 behind the newest); such packets need not
// be processed again.
func (r *Receipts) Receive(h *Header, now uint32) bool {
	switch {
	case !r.hasAck:
		r.ack, r.bits, r.hasAck = h.Seq, 0, true
	case seqNewer(h.Seq, r.ack):
		d := uint32(h.Seq - r.ack)
		if d > 32 {
			r.bits = 0
		} else {
			r.bits = r.bits<<d | 1<<(d-1)
		}
		r.ack = h.Seq
	default:
		if h.Seq == r.ack {
			return false
		}
		d := uint32(r.ack-h.Seq) - 1
		if d >= 32 || r.bits&(1<<d) != 0 {
			return false
		}
		r.bits |= 1 << d
		return true // older than the newest: its send time is not echoed
	}
	r.echo, r.at, r.hasEcho = h.Sent, now, true
	return true
}

// Stamp fills in h's acknowledgement and echo fields for a packet sent at
// local time now (ms). It does not touch Type, Seq or Sent.
func (r *Receipts) Stamp(h *Header, now uint32) {
	h.Ack, h.AckBits, h.HasAck = r.ack, r.bits, r.hasAck
	h.Echo, h.Hold, h.HasEcho = 0, 0, false
	if r.hasEcho {
		if held := now - r.at; held <= 0xffff {
			h.Echo, h.Hold, h.HasEcho = r.echo, uint16(held), true
		}
	}
}

// Newest returns the newest sequence number received.
func (r *Receipts) Newest() (uint16, bool) { return r.ack, r.hasAck }

// Reset forgets everything received.
func (r *Receipts) Reset() { *r = Receipts{} }

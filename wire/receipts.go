package wire

// Bounds on the sequence numbers and echoes a [Receipts] accepts.
const (
	// MaxSeqJump is how far ahead of the newest sequence number received a
	// packet may be. A packet further ahead is refused, not adopted: two
	// forged packets with far-ahead numbers would otherwise make every
	// genuine packet after them look old. A stream that really moved on
	// that far (a long outage) is taken up again after SeqResync such
	// packets in a row.
	MaxSeqJump = 1024
	// SeqResync is how many far-ahead packets in a row, each newer than the
	// one before and within MaxSeqJump of it, a [Receipts] takes as the
	// other end's stream having moved on. Any packet within the window in
	// between starts the count again.
	SeqResync = 8
	// MaxRTT is the longest round trip, in milliseconds, an echo may
	// measure; a longer one is refused as impossible.
	MaxRTT = 10_000
)

// Receipt says what [Receipts.Receive] made of a packet's header.
type Receipt uint8

const (
	// ReceiptNew: a packet not seen before, now recorded. Process it.
	ReceiptNew Receipt = iota
	// ReceiptOld: a duplicate, or a packet too old to acknowledge (more
	// than 32 behind the newest). Drop it.
	ReceiptOld
	// ReceiptJump: a packet more than MaxSeqJump ahead of the newest,
	// refused. Drop it.
	ReceiptJump
)

// Receipts records what one end has received from the other and fills in
// the acknowledgement and time-echo fields of the headers it sends back.
// Call [Receipts.Receive] with the header of every packet that arrives,
// before decoding its body, and [Receipts.Stamp] on the header of every
// packet sent. The zero value is ready to use.
type Receipts struct {
	ack     uint16
	bits    uint32
	hasAck  bool
	echo    uint32
	at      uint32
	hasEcho bool

	far   uint16 // the latest far-ahead sequence number refused
	farN  int    // far-ahead packets in a row, each after the one before
	jumps uint64
}

// Receive records the arrival of a packet with header h at local time now
// (ms) and says whether to process it (see [Receipt]).
func (r *Receipts) Receive(h *Header, now uint32) Receipt {
	switch {
	case !r.hasAck:
		r.ack, r.bits, r.hasAck = h.Seq, 0, true
	case seqNewer(h.Seq, r.ack):
		d := uint32(h.Seq - r.ack)
		if d > MaxSeqJump && !r.resync(h.Seq) {
			r.jumps++
			return ReceiptJump
		}
		if d > 32 {
			r.bits = 0
		} else {
			r.bits = r.bits<<d | 1<<(d-1)
		}
		r.ack = h.Seq
	default:
		r.farN = 0
		if h.Seq == r.ack {
			return ReceiptOld
		}
		d := uint32(r.ack-h.Seq) - 1
		if d >= 32 || r.bits&(1<<d) != 0 {
			return ReceiptOld
		}
		r.bits |= 1 << d
		return ReceiptNew // older than the newest: its send time is not echoed
	}
	r.farN = 0
	r.echo, r.at, r.hasEcho = h.Sent, now, true
	return ReceiptNew
}

// resync counts a far-ahead sequence number and reports whether it is the
// SeqResync-th in a row.
func (r *Receipts) resync(seq uint16) bool {
	if r.farN > 0 && seqNewer(seq, r.far) && uint16(seq-r.far) <= MaxSeqJump {
		r.farN++
	} else {
		r.farN = 1
	}
	r.far = seq
	if r.farN < SeqResync {
		return false
	}
	r.farN = 0
	r.bits = 0
	return true
}

// Jumps returns how many packets were refused for jumping too far ahead.
func (r *Receipts) Jumps() uint64 { return r.jumps }

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

// sentSlots is how many recent packets a [SentTimes] remembers: more than
// the 33 an acknowledgement covers.
const sentSlots = 64

// SentTimes remembers the sequence numbers and send times of one end's
// recent packets, so that the time echo in the other end's headers can be
// checked: an echo is the send time of the packet the header acknowledges
// as the newest, and anything else is refused. A forged or corrupted echo
// would otherwise move the round-trip and clock estimates by as much as it
// likes. The zero value is ready to use.
//
// It also keeps which of them the other end acknowledged ([SentTimes.Ack],
// [SentTimes.Delivered]), so that what a lost packet carried can be sent
// again.
type SentTimes struct {
	seq   [sentSlots]uint16
	sent  [sentSlots]uint32
	has   [sentSlots]bool
	acked [sentSlots]bool
}

// Record notes that packet seq was sent at local time sent (ms): the Seq
// and Sent of its header.
func (s *SentTimes) Record(seq uint16, sent uint32) {
	i := seq % sentSlots
	s.seq[i], s.sent[i], s.has[i], s.acked[i] = seq, sent, true, false
}

// Ack notes the packets h acknowledges (Ack and the 32 before it in
// AckBits) among those remembered.
func (s *SentTimes) Ack(h *Header) {
	if !h.HasAck {
		return
	}
	s.ack(h.Ack)
	for b, bits := uint16(1), h.AckBits; bits != 0; b, bits = b+1, bits>>1 {
		if bits&1 != 0 {
			s.ack(h.Ack - b)
		}
	}
}

func (s *SentTimes) ack(seq uint16) {
	if i := seq % sentSlots; s.has[i] && s.seq[i] == seq {
		s.acked[i] = true
	}
}

// Delivered reports whether packet seq was acknowledged; known is false
// when seq is no longer (or was never) remembered.
func (s *SentTimes) Delivered(seq uint16) (acked, known bool) {
	i := seq % sentSlots
	if !s.has[i] || s.seq[i] != seq {
		return false, false
	}
	return s.acked[i], true
}

// RTT returns the round trip in milliseconds that h measures at local time
// now, if h echoes the send time of the packet it acknowledges as the
// newest (one of the last 64 recorded) and the result is between 0 and
// MaxRTT. ok is false otherwise: no echo, an echo of a packet not
// remembered or of another send time, or an impossible round trip.
func (s *SentTimes) RTT(h *Header, now uint32) (rtt uint32, ok bool) {
	if !h.HasEcho || !h.HasAck {
		return 0, false
	}
	i := h.Ack % sentSlots
	if !s.has[i] || s.seq[i] != h.Ack || s.sent[i] != h.Echo {
		return 0, false
	}
	rtt, ok = h.RTT(now)
	if !ok || rtt > MaxRTT {
		return 0, false
	}
	return rtt, true
}

// Reset forgets every packet recorded.
func (s *SentTimes) Reset() { *s = SentTimes{} }

package client

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/wire"
)

// QueueInput queues the game's encoded input with sequence number seq (the
// predictor's systems.SentInput.Seq) for the next input packets, which
// repeat it until the server acknowledges it or Redundancy newer inputs
// have been queued. Sequence numbers must increase; inputs travel in runs
// of consecutive ones, so a gap drops the older ones not yet
// acknowledged. The payload is copied.
//
// It fails, queueing nothing, for a payload beyond Wire.MaxInputSize
// (wire.ErrLimit) or a sequence number not after the previous one
// ([ErrInputSeq]).
func (c *Session) QueueInput(seq uint32, payload []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.queue(seq, payload)
}

func (c *Session) queue(seq uint32, payload []byte) error {
	if len(payload) > c.cfg.Wire.MaxInputSize {
		return fmt.Errorf("%w: input %d is %d bytes > MaxInputSize %d", wire.ErrLimit, seq, len(payload), c.cfg.Wire.MaxInputSize)
	}
	if c.out.started && !tickBefore(c.out.last, seq) {
		return fmt.Errorf("%w: %d after %d", ErrInputSeq, seq, c.out.last)
	}
	c.stats.InputsExpired += c.out.push(seq, payload, &c.drawn)
	c.stats.InputsQueued++
	return nil
}

// QueueInputs queues inputs drained from a predictor's outbox, each
// encoded by encode (which appends the encoding of in to dst and returns
// it), as [Session.QueueInput] does. It stops at the first error. encode
// runs under the session's lock: it must not call the Session.
func QueueInputs[I any](c *Session, inputs []systems.SentInput[I], encode func(dst []byte, in I) []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range inputs {
		c.scratch = encode(c.scratch[:0], inputs[i].Input)
		if err := c.queue(inputs[i].Seq, c.scratch); err != nil {
			return err
		}
	}
	return nil
}

// InputPacket appends to dst an input packet, sent at the client's time
// now (ms): the newest tick completely received (unless NoDelta), a
// request for a full snapshot while the client's state has drifted from
// the server's, the queued inputs not yet acknowledged (at most
// Redundancy, the newest, consecutive), the acknowledgements of the
// server's packets and the time echo. Without inputs it is an
// acknowledgement only; send one at least every tick or so, so that the
// server's baseline keeps up. It does not allocate given room in dst.
func (c *Session) InputPacket(now uint32, dst []byte) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var p wire.InputPacket
	if !c.cfg.NoDelta {
		p.AckedTick, p.HasAckedTick = c.dec.Acked()
	}
	p.Resync = c.dec.Diverged() || c.wantFull
	p.FirstSeq, p.Inputs = c.out.pending(c.views[:0])
	c.views = p.Inputs[:0]
	if c.useDrawn && len(p.Inputs) > 0 {
		p.Drawn = c.out.pendingDrawn(c.drawnBuf[:0])
		c.drawnBuf = p.Drawn[:0]
	}
	h := wire.Header{Seq: c.seq, Sent: now}
	c.receipts.Stamp(&h, now)
	n := len(dst)
	dst, err := wire.AppendInput(dst, &h, &p, &c.cfg.Wire)
	clear(p.Inputs)
	if err != nil {
		return dst, err
	}
	c.acks.sent(c.seq, &c.stats)
	c.sentAt.Record(c.seq, now)
	c.seq++
	c.stats.PacketsSent++
	c.stats.BytesSent += uint64(len(dst) - n)
	return dst, nil
}

// outbox holds the newest unacknowledged inputs, a run of consecutive
// sequence numbers, in a ring of Redundancy slots with their own memory,
// each with what the client drew when it was made.
type outbox struct {
	slots   [][]byte
	drawn   []wire.Drawn // by slot; Late in memory of the slot's own
	first   uint32       // sequence number of the oldest held
	n       int
	last    uint32 // the newest queued
	started bool
}

func newOutbox(n, size, maxLate int) outbox {
	o := outbox{slots: make([][]byte, n), drawn: make([]wire.Drawn, n)}
	mem := make([]byte, n*size)
	late := make([]wire.Late, n*maxLate)
	for i := range o.slots {
		o.slots[i] = mem[i*size : i*size : (i+1)*size]
		o.drawn[i].Late = late[i*maxLate : i*maxLate : (i+1)*maxLate]
	}
	return o
}

func (o *outbox) slot(seq uint32) *[]byte { return &o.slots[seq%uint32(len(o.slots))] }

// push adds input seq (after o.last), made when the client drew drawn,
// and returns how many unacknowledged inputs it dropped, to make room or
// for a gap.
func (o *outbox) push(seq uint32, payload []byte, drawn *wire.Drawn) uint64 {
	var dropped uint64
	if o.n > 0 && seq != o.last+1 {
		dropped, o.n = uint64(o.n), 0 // a gap: the run starts again
	}
	if o.n == 0 {
		o.first = seq
	}
	if o.n == len(o.slots) {
		o.first++
		o.n--
		dropped++
	}
	s := o.slot(seq)
	*s = append((*s)[:0], payload...)
	d := &o.drawn[seq%uint32(len(o.slots))]
	d.Time = drawn.Time
	d.Late = append(d.Late[:0], drawn.Late[:min(len(drawn.Late), cap(d.Late))]...)
	o.n++
	o.last, o.started = seq, true
	return dropped
}

// acked drops the inputs up to ack.
func (o *outbox) acked(ack uint32) {
	for o.n > 0 && !tickBefore(ack, o.first) {
		o.first++
		o.n--
	}
}

// pending appends the held inputs, oldest first, to dst and returns the
// first one's sequence number (the next one's, when none is held).
func (o *outbox) pending(dst [][]byte) (uint32, [][]byte) {
	if o.n == 0 {
		return o.last + 1, dst
	}
	for k := range o.n {
		dst = append(dst, *o.slot(o.first + uint32(k)))
	}
	return o.first, dst
}

// pendingDrawn appends what the client drew for each held input, oldest
// first, to dst.
func (o *outbox) pendingDrawn(dst []wire.Drawn) []wire.Drawn {
	for k := range o.n {
		dst = append(dst, o.drawn[(o.first+uint32(k))%uint32(len(o.slots))])
	}
	return dst
}

// SetDrawn sets what the client draws now, for lag compensation: every
// input queued from now on carries it to the server ([wire.Drawn]: the
// render time, and the entities drawn later than it) until the next call.
// Call it once a frame, after the pipeline's Update, with [DrawnNow]. A
// client that never calls it sends no drawn records.
//
// It fails, changing nothing, for more than Wire.MaxLate late entities or
// NetIDs out of ascending order (DrawnNow sorts them).
func (c *Session) SetDrawn(d wire.Drawn) error {
	if len(d.Late) > c.cfg.Wire.MaxLate {
		return fmt.Errorf("%w: %d late entities > MaxLate %d", wire.ErrLimit, len(d.Late), c.cfg.Wire.MaxLate)
	}
	for i := 1; i < len(d.Late); i++ {
		if d.Late[i].NetID <= d.Late[i-1].NetID {
			return fmt.Errorf("%w: late NetIDs %d then %d (they must increase)", wire.ErrOrder, d.Late[i-1].NetID, d.Late[i].NetID)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drawn.Time = d.Time
	c.drawn.Late = append(c.drawn.Late[:0], d.Late...)
	c.useDrawn = true
	return nil
}

// DrawnNow returns what the pipeline draws at render tick renderTick (the
// pipeline clock's RenderTick), with late, the entities the game may
// judge shots against that are drawn otherwise than at that time between
// consecutive ticks (see [LateOf]). It sorts late by NetID in place and
// keeps the first MaxLate of a default config.
func DrawnNow(renderTick float64, late []wire.Late) wire.Drawn {
	slices.SortFunc(late, func(a, b wire.Late) int { return cmp.Compare(a.NetID, b.NetID) })
	late = slices.CompactFunc(late, func(a, b wire.Late) bool { return a.NetID == b.NetID })
	return wire.Drawn{Time: wire.DrawnTime(renderTick), Late: late[:min(len(late), wire.DefaultMaxLate)]}
}

// LateOf returns how the pipeline drew entity netID, whose span is span,
// at render tick renderTick, and whether the server needs to be told
// (DrawnNow's late): when it was drawn behind the render time (its
// components.Span.Lag: sent less often than others), or between samples
// more than a tick apart (snapshots lost, or sent less often), where its
// true path may have turned. A game passes the entities a shot may
// strike: the one aimed at, those near the crosshair.
func LateOf(netID components.NetID, span *components.Span, renderTick float64) (wire.Late, bool) {
	behind := math.Round(float64(span.Lag) / wire.DrawnUnit)
	if !(behind > 0) { // zero, negative or NaN
		behind = 0
	}
	l := wire.Late{NetID: uint32(netID), Behind: uint16(min(behind, math.MaxUint16))}
	if n := span.To - span.From; span.Mode == components.SpanLerp && n >= 2 && n <= math.MaxUint8 {
		// The entity's whole tick, as the server will compute it from
		// the quantised times, and the first sample's distance from it.
		base := (wire.DrawnTime(renderTick) - uint32(l.Behind)) >> 8
		if back := (base - span.From) & (1<<24 - 1); back <= n {
			l.Span, l.Back = uint8(n), uint8(back)
		}
	}
	return l, l.Behind > 0 || l.Span > 0
}

// ackWindow follows which of the client's packets the server
// acknowledged: a header acknowledges its Ack and the 32 before it, so a
// packet is judged once the acknowledgements have moved 33 past it.
type ackWindow struct {
	sentSeq [ackRing]uint16
	state   [ackRing]uint8 // 0 free, 1 sent, 2 acknowledged
	judged  uint16         // the oldest packet not judged yet
	started bool
}

const ackRing = 256

// sent records packet seq as sent, judging a packet still unjudged in its
// slot (the server has acknowledged nothing for ackRing packets) as
// unacknowledged.
func (a *ackWindow) sent(seq uint16, st *Stats) {
	if !a.started {
		a.judged, a.started = seq, true
	}
	i := seq % ackRing
	if a.state[i] != 0 {
		a.judge(i, st)
	}
	if seq-a.judged >= ackRing {
		a.judged = seq - ackRing + 1
	}
	a.sentSeq[i], a.state[i] = seq, 1
}

// heard marks the packets h acknowledges and judges those it no longer
// can, up to next, the next packet to send.
func (a *ackWindow) heard(h *wire.Header, next uint16, st *Stats) {
	if !h.HasAck || !a.started {
		return
	}
	for k := range uint16(33) {
		seq := h.Ack - k
		if k > 0 && h.AckBits&(1<<(k-1)) == 0 {
			continue
		}
		if i := seq % ackRing; a.state[i] == 1 && a.sentSeq[i] == seq {
			a.state[i] = 2
		}
	}
	horizon := h.Ack - 32 // the oldest packet h could still acknowledge
	for seqAfter(horizon, a.judged) && a.judged != next {
		if i := a.judged % ackRing; a.state[i] != 0 && a.sentSeq[i] == a.judged {
			a.judge(i, st)
		}
		a.judged++
	}
}

func (a *ackWindow) judge(i uint16, st *Stats) {
	if a.state[i] == 2 {
		st.PacketsAcked++
	} else {
		st.PacketsUnacked++
	}
	a.state[i] = 0
}

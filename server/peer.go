package server

import (
	"math/bits"

	"github.com/netsmooth/netsmooth/wire"
)

// peer is one client connection's state.
type peer struct {
	id ClientID

	// sent[i] is what the client holds if it received tick sent[i].tick:
	// a fixed ring of Wire.History tables, reused.
	sent []sentTick
	// acked is the newest tick the client acknowledged that is still in
	// sent (or was when acknowledged).
	acked    uint32
	hasAcked bool
	// first and last are the first and latest ticks sent.
	first, last uint32
	hasSent     bool
	// stamps are when the latest ticks were sent, by tick modulo their
	// number (SessionConfig.maxAckAge): what tells an acknowledgement of
	// a tick sent from one of a tick never sent, and what the round trip
	// is measured against.
	stamps []sendStamp
	// late is the newest tick the client acknowledged too late for a
	// delta (its table gone): a client with a round trip longer than
	// Wire.History.
	late    uint32
	hasLate bool
	// heard has bit i set if at server tick heardAt-i the client
	// acknowledged a packet sent recently, from sequence number recent
	// on: one of the last maxAckAge ticks' (the ticks up to aged have
	// left them). It receives what it is sent. heardFirst is when it was
	// first heard (with hasHeard); resynced is when it last asked for a
	// resync that dropped its baseline.
	heard                               uint64
	heardAt, heardFirst, aged, resynced uint32
	recent                              uint16
	hasHeard, hasAged, hasResynced      bool
	// ackedSeq is the newest packet the client acknowledged (with
	// hasAckedSeq).
	ackedSeq    uint16
	hasAckedSeq bool
	// fullTick is when the latest full snapshot was sent (with hasFull),
	// and fullRun how many were sent since the count started over (see
	// Session.holdFull).
	fullTick, fullRun uint32
	hasFull           bool
	// netID is the entity the client controls, 0 for none: the server's
	// choice (Session.Assign).
	netID     uint32
	spectator bool // receives snapshots, sends no inputs

	seq      uint16 // next packet sequence number
	receipts wire.Receipts
	sentAt   wire.SentTimes // of the snapshot packets, to check echoes
	packets  [][]byte       // the latest snapshot's packets, reused

	inputs   inputBuffer
	drawnOut []wire.Late // the drawn record NextInput returned last
	stats    ClientStats

	// What is relevant to the client (every entity, without interest
	// management), in NetID order, with the client's priority state.
	view       View
	hasView    bool
	center     [3]int32 // the drawn record's position in quantisation steps
	rel        []relEntry
	relNext    []relEntry // the next relevant set, being built
	relVersion uint64     // the world's version rel was built from
	relBuilt   bool
	relStale   bool        // rebuild at the next snapshot, whoever's turn it is
	everything bool        // interest management off for this client (SetInterest)
	builtView  View        // the view rel was built from
	gone       []leftEntry // entities that left rel, in NetID order, until their despawn is acknowledged
	bucket     float64     // bytes the budget allows now, before the window
	allow      float64     // what the budget allowed this tick's snapshot
	spent      []spentTick // the budget's window: bytes sent per tick, by tick modulo its length
}

// sendStamp is when a tick's snapshot was sent, by the clock given to
// Snapshot (ms), and the sequence number after its packets; ok tells a
// stamp from an unused one.
type sendStamp struct {
	tick, at uint32
	end      uint16
	ok       bool
}

// stamp records that tick was sent at now, its packets ending before
// sequence number end.
func (c *peer) stamp(tick, now uint32, end uint16) {
	c.stamps[tick%uint32(len(c.stamps))] = sendStamp{tick: tick, at: now, end: end, ok: true}
}

// age moves the packets of the ticks sent len(c.stamps) ticks or more
// before tick out of the recent ones. Call it before tick's own stamp,
// which takes the slot of the tick leaving.
func (c *peer) age(tick uint32) {
	n := uint32(len(c.stamps))
	leaving := tick - n
	if !c.hasAged {
		c.aged, c.recent, c.hasAged = leaving, c.seq, true
		return
	}
	for steps := uint32(0); tickBefore(c.aged, leaving) && steps < n; steps++ {
		c.aged++
		if st := c.stamps[c.aged%n]; st.ok && st.tick == c.aged {
			c.recent = st.end
		}
	}
	c.aged = leaving
}

// isRecent reports whether packet seq is one of the recent ticks'.
func (c *peer) isRecent(seq uint16) bool {
	return c.hasAged && seq-c.recent < c.seq-c.recent
}

// sentWhen returns when tick was sent to the client, if it was among the
// last len(c.stamps) ticks.
func (c *peer) sentWhen(tick uint32) (at uint32, ok bool) {
	st := c.stamps[tick%uint32(len(c.stamps))]
	return st.at, st.ok && st.tick == tick
}

// hear records that the client acknowledged, at tick, a packet sent
// recently.
func (c *peer) hear(tick uint32) {
	if !c.hasHeard {
		c.heardFirst, c.heardAt, c.hasHeard = tick, tick, true
	}
	if d := tick - c.heardAt; d < 64 {
		c.heard <<= d
	} else {
		c.heard = 0
	}
	c.heard |= 1
	c.heardAt = tick
}

// listening reports whether the client acknowledged a packet sent
// recently on a quarter of the last n ticks (at most 64) up to tick, or
// of those since it was first heard, if fewer.
func (c *peer) listening(tick, n uint32) bool {
	if !c.hasHeard {
		return false
	}
	need := max(min(n, tick-c.heardFirst+1)/4, 1)
	return c.heardIn(tick, n) >= int(need)
}

// heardIn returns on how many of the last n ticks (at most 64) up to tick
// the client acknowledged a packet sent recently.
func (c *peer) heardIn(tick, n uint32) int {
	d := tick - c.heardAt
	if !c.hasHeard || d >= 64 || n == 0 {
		return 0
	}
	recent := c.heard << d
	if n < 64 {
		recent &= 1<<n - 1
	}
	return bits.OnesCount64(recent)
}

// sentTick is the table of what a client holds after a tick, with its
// state hash (wire.Table.Hash).
type sentTick struct {
	tick uint32
	used bool
	recs []sentRec
	hash uint32
}

// sentRec is a record a client holds, with the tick it was last sent at
// (to know whether it predates an entity's latest spawn or teleport) and
// its hash: one cache line, the wire's record as it is, so that it serves
// as an encoder's baseline where it lies.
type sentRec struct {
	rec  wire.Record
	at   uint32
	hash uint32 // the record's wire.Record.Hash, cut to 32 bits as the table's
}

// add appends r, sent at tick at, with its hash.
func (t *sentTick) add(r *wire.Record, at, hash uint32) {
	t.recs = append(t.recs, sentRec{rec: *r, at: at, hash: hash})
}

// keep appends record i of table b, as it is.
func (t *sentTick) keep(b *sentTick, i int) {
	t.recs = append(t.recs, b.recs[i])
}

// keepRun appends records i to j (excluded) of table b, as they are.
func (t *sentTick) keepRun(b *sentTick, i, j int) {
	t.recs = append(t.recs, b.recs[i:j]...)
}

// record returns record i, in place: valid until the table is reused.
func (t *sentTick) record(i int) *wire.Record { return &t.recs[i].rec }

// same reports whether record i is r, field by field, the position
// first: the field that differs when any does, for a moving entity, and
// a test of a few words where comparing the records whole is a call.
func (t *sentTick) same(i int, r *wire.Record) bool {
	b := &t.recs[i].rec
	return b.Pos == r.Pos && b.Rot == r.Rot && b.Vel == r.Vel && b.NetID == r.NetID &&
		b.State == r.State && b.Epoch == r.Epoch && b.Flags == r.Flags && b.Fields == r.Fields
}

func newPeer(id ClientID, cfg *SessionConfig) *peer {
	return &peer{
		id:     id,
		sent:   make([]sentTick, cfg.Wire.History),
		stamps: make([]sendStamp, cfg.maxAckAge()),
		gone:   make([]leftEntry, 0, 64), // what a view leaves behind over a round trip
		inputs: newInputBuffer(cfg.InputWindow, cfg.Wire.MaxInputSize, cfg.Wire.MaxLate),
	}
}

// table returns the table of tick, or nil.
func (c *peer) table(tick uint32) *sentTick {
	for i := range c.sent {
		if t := &c.sent[i]; t.used && t.tick == tick {
			return t
		}
	}
	return nil
}

// put returns an emptied table for tick (newer than every tick held),
// reusing the slot of victim.
func (c *peer) put(tick uint32) *sentTick {
	victim := c.victim()
	victim.tick, victim.used = tick, true
	victim.recs, victim.hash = victim.recs[:0], 0
	return victim
}

// victim returns the table the next put reuses: a free slot, or the
// oldest tick's.
func (c *peer) victim() *sentTick {
	var victim *sentTick
	for i := range c.sent {
		t := &c.sent[i]
		if !t.used {
			return t
		}
		if victim == nil || tickBefore(t.tick, victim.tick) {
			victim = t
		}
	}
	return victim
}

// baseline returns the table of the tick the client acknowledged, if the
// next put keeps it, or nil: the next snapshot is then full.
func (c *peer) baseline() *sentTick {
	if !c.hasAcked {
		return nil
	}
	if t := c.table(c.acked); t != nil && t != c.victim() {
		return t
	}
	return nil
}

// mayKnow reports whether the client may have heard of an entity that died
// at tick without having acknowledged its death: the death is after the
// client's acknowledged tick (or, without one, at or after its first).
func (c *peer) mayKnow(tick uint32) bool {
	if c.hasAcked {
		return tickBefore(c.acked, tick)
	}
	return !tickBefore(tick, c.first)
}

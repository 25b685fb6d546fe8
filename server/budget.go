package server

import (
	"math"
	"time"

	"github.com/netsmooth/netsmooth/wire"
)

// DefaultMaxInterval is how long a changed entity may wait for a place in
// a client's budget, by default.
const DefaultMaxInterval = 500 * time.Millisecond

// BudgetConfig bounds what each client is sent: a number of bytes a
// second, filled every tick by priority. Every relevant entity that
// changed accumulates priority each tick it is not sent, weighted by its
// importance to the client (by default, the nearer the view the more);
// each snapshot takes the highest priorities that fit, and an entity left
// out longer than MaxInterval goes first, so none starves while the
// budget can carry every relevant entity once per MaxInterval (when it
// cannot, the budget wins and entities wait longer). The client
// measures each entity's send interval (Span.Lag) and draws the rarely
// sent far ones later and just as smoothly. The zero value sends every
// change every tick.
type BudgetConfig struct {
	// BytesPerSecond is each client's budget, headers included (0: none).
	// What a tick does not use carries over to the next, up to two ticks'
	// worth.
	BytesPerSecond int
	// MaxInterval is the longest a changed entity waits to be sent
	// (default 500 ms): then it goes before any other change, and may
	// take a tick's worth of the budget beyond the tick's allowance.
	MaxInterval time.Duration
	// Importance, if set, weighs an entity for a client: its priority
	// grows by this much each tick it waits (values are clamped to
	// [0.001, 1000]). distance is from the client's view in world units,
	// or -1 when the client has no view. The default is
	// 1/(1 + (distance/16)²)^½ (1 at the view, 0.5 at 28 units, 0.1 at
	// 159), and 1 without a view. It runs under the session's lock and
	// must not call the Session.
	Importance func(client ClientID, netID uint32, distance float32) float32
}

// normalize fills in b's defaults and checks it at tickRate ticks a
// second with fields custom fields: what two ticks leave in the bucket
// must carry a packet's header and one record of any size, or an entity
// may never be sent.
func (b BudgetConfig) normalize(tickRate float64, fields int) (BudgetConfig, error) {
	if b.MaxInterval == 0 {
		b.MaxInterval = DefaultMaxInterval
	}
	if b.BytesPerSecond < 0 || b.MaxInterval < 0 {
		return b, configErr("Budget.BytesPerSecond %d and MaxInterval %v must not be negative", b.BytesPerSecond, b.MaxInterval)
	}
	least := float64(partHeader + wire.MaxRecordSize - (wire.MaxFields-fields)*5) // bytes
	if perTick := float64(b.BytesPerSecond) / tickRate; b.BytesPerSecond > 0 && 2*perTick < least {
		return b, configErr("Budget.BytesPerSecond = %d is %.1f B a tick at TickRate %v: two ticks' worth must carry a packet's header and one record (%.0f B), so want at least %.0f (or 0 for no budget)",
			b.BytesPerSecond, perTick, tickRate, least, math.Ceil(least*tickRate/2))
	}
	return b, nil
}

// defaultImportance weighs an entity by its distance from the view.
func defaultImportance(distance float32) float32 {
	if distance < 0 {
		return 1
	}
	d := float64(distance) / 16
	return float32(1 / math.Sqrt(1+d*d))
}

// candidate is an entity whose record a client's snapshot may carry: one
// that changed, entered its relevant set, or left it (a despawn).
type candidate struct {
	netID uint32
	rel   int32   // index in the client's relevant set, -1 for a despawn
	gone  int32   // index in the client's entities that left, -1 for none
	base  int32   // index in the baseline table, -1 when it holds none
	size  int32   // bytes of its record, NetID gap included
	score float32 // its priority this tick
	since uint32  // the tick it has waited since (relevant entities, under a budget)
	ev    wire.Flags
	gap   uint8 // the bytes of size taken by the NetID gap from the candidate before it
	kind  uint8
	send  bool
}

// candidate kinds
const (
	kUpdate  uint8 = iota // relevant, held, changed
	kEnter                // relevant, not held: sent whole, as a spawn
	kDespawn              // held, no longer relevant or gone
	kOwn                  // the entity the client controls: always sent
)

// choose marks the candidates c's snapshot carries: all of them without a
// budget. With one, the client's own entity always goes; then the
// entities that waited MaxInterval (the longest waits first) and the
// despawns, up to a tick's worth of the budget beyond the tick's
// allowance; then the highest priorities while the allowance lasts. What
// is left waits for a later tick, so that no client, whatever it
// acknowledges, is sent more than its budget for longer than a burst. The
// Filter, if set, may leave out any change but the own entity's and
// despawns.
func (s *Session) choose(c *peer) {
	cand := s.cands
	filter := s.cfg.Filter
	for i := range cand {
		k := &cand[i]
		k.send = k.kind == kDespawn || k.kind == kOwn || filter == nil || filter(c.id, k.netID, s.tick)
	}
	if s.bytesPerTick() <= 0 {
		return
	}
	allow := s.allowance(c)
	records := 0.0                    // bytes of the records chosen
	order := room(s.order, len(cand)) // score (descending) and index, to sort as one word
	due := room(s.due, 0)             // the longest waits first, then despawns
	maxWait := s.maxWaitTicks()
	for i := range cand {
		k := &cand[i]
		// An entity that changed at tick since has been stale for
		// tick-since+1 ticks when this snapshot goes.
		switch {
		case !k.send:
		case k.kind == kOwn:
			records += float64(k.size)
		case k.kind == kDespawn:
			due = append(due, uint64(s.despawnRank(c, k))<<32|uint64(i))
		case k.rel >= 0 && s.tick-k.since+1 >= maxWait:
			// Below every despawn's rank, the longest first.
			due = append(due, uint64(math.MaxInt32-min(s.tick-k.since, math.MaxInt32))<<32|uint64(i))
		default:
			// Scores are positive: their bits order as they do, and
			// inverted they sort the highest first; ties go by NetID
			// (the index).
			order = append(order, uint64(^math.Float32bits(k.score))<<32|uint64(i))
		}
	}
	s.sortTmp = sortHigh(due, s.sortTmp)
	records = s.fill(cand, due, records, allow+s.bytesPerTick())
	s.sortTmp = sortHigh(order, s.sortTmp)
	s.fill(cand, order, records, allow)
	s.trim(cand, order, allow)
	s.order, s.due = order[:0], due[:0]
}

// despawnRank orders despawn k among the candidates choose takes before
// the priorities: after the entities that waited MaxInterval, the
// despawns of entities that left the client's set, unsent the longest
// first (one sent a moment ago and not yet acknowledged waits for the
// others, which a view that jumps leaves by the thousand), then the
// despawns of entities the baseline holds that left no such trace (the
// client most likely has them already: their despawns were acknowledged
// as packets, in ticks it did not acknowledge), each group by NetID.
func (s *Session) despawnRank(c *peer, k *candidate) uint32 {
	const most = 1 << 16
	unsent := uint32(0)
	if k.gone >= 0 {
		unsent = 1 + c.gone[k.gone].unsentFor(s.tick, most)
	}
	return math.MaxUint32 - unsent
}

// fill keeps marked, in the order given, the candidates whose records fit
// in a snapshot of at most limit bytes on top of the records bytes already
// chosen, and unmarks the others. It returns the bytes of the records
// chosen.
func (s *Session) fill(cand []candidate, order []uint64, records, limit float64) float64 {
	for _, o := range order {
		k := &cand[uint32(o)]
		if s.snapshotBytes(records+float64(k.size)) > limit {
			k.send = false
			continue
		}
		records += float64(k.size)
	}
	return records
}

// trim bounds the snapshot's bytes exactly and leaves out the lowest
// priorities of order until it fits in allow: the sizes fill weighs count
// each NetID gap from the candidate listed before, and the gaps between
// the entities chosen are often longer.
func (s *Session) trim(cand []candidate, order []uint64, allow float64) {
	last := len(order)
	for {
		over := s.bound(cand) - allow
		if over <= 0 {
			break
		}
		for over > 0 && last > 0 {
			last--
			if k := &cand[uint32(order[last])]; k.send {
				k.send = false
				over -= float64(k.size)
			}
		}
		if last == 0 {
			break // what is left is forced
		}
	}
}

// bound is at least the bytes of a snapshot carrying the candidates
// marked to send: their records with the NetID gaps between them, split
// into parts as the encoder splits them, each part with a bound of its
// header and of the longer gap its first record may take where the
// encoder splits elsewhere.
func (s *Session) bound(cand []candidate) float64 {
	const head = partHeader + 4
	maxPacket := s.cfg.Wire.MaxPacket
	total, part := 0, head
	next := uint32(0) // the NetID after the previous record of the part
	for i := range cand {
		k := &cand[i]
		if !k.send {
			continue
		}
		body := int(k.size) - int(k.gap)
		n := wire.UvarintLen(k.netID-next) + body
		if part+n > maxPacket && part > head {
			total += part
			part = head
			n = wire.UvarintLen(k.netID) + body
		}
		part += n
		next = k.netID + 1
	}
	return float64(total + part)
}

// allowance is what c's snapshot of this tick may take: a tick's worth of
// the budget and what the previous ticks left unused, up to two ticks'
// worth (the bucket), and no more than what the ticks of the last second
// (the window: TickRate ticks, at least one) left of the budget, so that
// no second carries more than BytesPerSecond.
func (s *Session) allowance(c *peer) float64 {
	perTick := s.bytesPerTick()
	c.bucket = min(c.bucket+perTick, 2*perTick)
	w := s.windowTicks()
	if len(c.spent) != w {
		c.spent = make([]spentTick, w)
	}
	used := 0
	for _, sp := range c.spent {
		if sp.used && s.tick-sp.tick < uint32(w) {
			used += sp.bytes
		}
	}
	c.allow = max(0, min(c.bucket, float64(w)*perTick-float64(used)))
	return c.allow
}

// spend takes what a snapshot of n bytes cost from c's budget: from its
// bucket and into its window. What choose let past the allowance
// (MaxInterval and despawns, up to a tick's worth) is owed and paid back
// within the second; what little goes beyond that (the client's own
// entity on a full tick) is not, so that it cannot starve the client for
// a second afterwards.
func (s *Session) spend(c *peer, n int) {
	perTick := s.bytesPerTick()
	if perTick <= 0 || len(c.spent) == 0 {
		return
	}
	c.bucket = max(c.bucket-float64(n), -perTick)
	owed := int(min(float64(n), c.allow+perTick))
	c.spent[s.tick%uint32(len(c.spent))] = spentTick{tick: s.tick, bytes: owed, used: true}
}

// windowTicks is the number of ticks in the budget's window: a second's
// worth, rounded down, at least one.
func (s *Session) windowTicks() int {
	return max(1, int(s.cfg.TickRate))
}

// spentTick is the bytes a client's snapshot of a tick took.
type spentTick struct {
	tick  uint32
	bytes int
	used  bool
}

// bytesPerTick is each client's budget for one tick, 0 for none.
func (s *Session) bytesPerTick() float64 {
	return float64(s.cfg.Budget.BytesPerSecond) / s.cfg.TickRate
}

// rttTicks is c's round trip in whole ticks, rounded up (2 before it is
// measured).
func (s *Session) rttTicks(c *peer) uint32 {
	if !c.stats.HasRTT {
		return 2
	}
	return uint32(math.Ceil(float64(c.stats.RTT) / 1000 * s.cfg.TickRate))
}

// maxWaitTicks is MaxInterval in ticks, at least 1.
func (s *Session) maxWaitTicks() uint32 {
	return uint32(max(1, math.Ceil(s.cfg.Budget.MaxInterval.Seconds()*s.cfg.TickRate)))
}

// partHeader bounds the bytes a snapshot part takes before its records:
// the packet header, the snapshot's fixed fields, the input ack, the
// baseline distance and the controlled NetID.
const partHeader = wire.HeaderSize + 15 + 4 + 5 + 5

// snapshotBytes is the size of a snapshot whose records take records
// bytes: the records and a header for every part they need.
func (s *Session) snapshotBytes(records float64) float64 {
	room := float64(s.cfg.Wire.MaxPacket - partHeader)
	parts := max(1, math.Ceil(records/room))
	return records + parts*partHeader
}

// importance weighs entity netID for client c, at distance (world units,
// -1 without a view).
func (s *Session) importance(c *peer, netID uint32, distance float32) float32 {
	if f := s.cfg.Budget.Importance; f != nil {
		v := f(c.id, netID, distance)
		if !(v >= 0.001) { // NaN too
			return 0.001
		}
		return min(v, 1000)
	}
	return defaultImportance(distance)
}

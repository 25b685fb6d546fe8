package netsim

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"time"
)

// Stream constants: the second PCG seed word for each impairment's generator.
// Giving each impairment its own stream keeps their decisions independent of
// one another (see the package documentation). New impairments get new
// constants, so adding them does not change existing seeded outcomes.
const (
	streamLoss      = 0x6e657473696d4c4f // "netsimLO"
	streamDuplicate = 0x6e657473696d4455 // "netsimDU"
	streamJitter    = 0x6e657473696d4a49 // "netsimJI"
	streamReorder   = 0x6e657473696d5245 // "netsimRE"
	streamBurst     = 0x6e657473696d4255 // "netsimBU": Good/Bad transitions
	streamBurstLoss = 0x6e657473696d424c // "netsimBL": loss while Bad
)

// Stats counts what a [Link] has done since it was created.
//
// The counters satisfy, at every moment,
//
//	Sent + Duplicated == Delivered + Lost + Overflow + InFlight()
//
// where the left side is every packet that entered the link (each Send call
// plus each duplicate copy it produced) and the right side is where each of
// them went. After draining the link (InFlight() == 0) this becomes
// Sent + Duplicated == Delivered + Lost + Overflow.
type Stats struct {
	// Sent is the number of Send calls, whatever happened to the packet.
	Sent uint64
	// Delivered is the number of messages returned by Deliver and
	// DeliverTimed, counting both copies of a duplicated packet.
	Delivered uint64
	// Lost is the total number of Send calls whose packet was lost, for
	// any reason: the random Loss decision (in the burst chain's Good
	// state), plus BurstLost, OutageLost and QueueDropped. A lost packet is
	// never duplicated. Overflow is counted separately.
	Lost uint64
	// BurstLost is the part of Lost dropped by [Config.Burst] while its
	// chain was in the Bad state.
	BurstLost uint64
	// OutageLost is the part of Lost sent during one of [Config.Outages].
	OutageLost uint64
	// QueueDropped is the part of Lost refused by the full bottleneck queue
	// ([Config.QueueBytes]) of a bandwidth-capped link.
	QueueDropped uint64
	// Duplicated is the number of extra copies created by the Duplicate
	// decision (one per duplicated packet), including copies later refused
	// by a full queue.
	Duplicated uint64
	// Reordered is the number of packets, duplicate copies included, that
	// were held back by ReorderDelay, including any later refused by a full
	// queue. A held packet is only actually overtaken if a later packet
	// arrives before it, so this is an upper bound on observed reordering.
	Reordered uint64
	// Overflow is the number of packets, duplicate copies included, dropped
	// because the queue already held MaxInFlight packets.
	Overflow uint64
}

// Timed is a delivered message together with its exact virtual arrival time.
//
// At is the time the network delivered the message, which is at or before
// the now passed to [Link.DeliverTimed]. For a message that arrived during
// one of [Config.Suspends], At is the end of that window, the moment the
// suspended receiver got it. Clients that stamp arrivals (for
// clock synchronisation or jitter buffers) should use At rather than now, so
// the result does not depend on how coarsely the caller polls.
type Timed[T any] struct {
	At  time.Duration
	Msg T
}

// Link is a one-way simulated network path carrying messages of type T.
// Create it with [NewLink] (the zero Link is not usable); use two Links for
// a bidirectional connection.
//
// A Link is driven entirely by the caller's virtual clock and is
// deterministic for a given seed. It is not safe for concurrent use.
type Link[T any] struct {
	cfg          Config
	reorderDelay time.Duration // resolved default

	q   queue[T]
	seq uint64 // next enqueue sequence number

	// now is the latest virtual time seen; earlier times are clamped to it.
	now time.Duration

	lossRNG      rand.PCG
	duplicateRNG rand.PCG
	jitterRNG    rand.PCG
	reorderRNG   rand.PCG

	// Gilbert–Elliott burst loss.
	burstRNG     rand.PCG
	burstLossRNG rand.PCG
	badLoss      float64 // resolved Burst.Loss
	bad          bool    // the chain's state after the latest Send

	// Sorted, disjoint copies of the configured windows.
	outages, suspends []Window

	// Bottleneck. The last accepted packet finishes transmitting at exactly
	// txEnd + txFrac/bandwidth nanoseconds, 0 <= txFrac < bandwidth; keeping
	// the fraction makes the long-run rate exact, with no rounding drift.
	bandwidth  uint64 // bytes per second; 0 means unlimited
	queueBytes uint64 // resolved QueueBytes
	packetSize int    // resolved PacketSize, charged by Send
	txEnd      time.Duration
	txFrac     uint64

	stats Stats
}

// NewLink returns a link applying cfg, with all random decisions derived
// from seed. It returns cfg.Validate's error if cfg is invalid.
//
// The link allocates its queue lazily, growing it up to the high-water mark
// of packets in flight and never beyond cfg.MaxInFlight. It keeps its own
// copies of cfg.Outages and cfg.Suspends.
func NewLink[T any](cfg Config, seed uint64) (*Link[T], error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	l := &Link[T]{now: math.MinInt64, txEnd: math.MinInt64}
	l.apply(cfg)
	l.lossRNG.Seed(seed, streamLoss)
	l.duplicateRNG.Seed(seed, streamDuplicate)
	l.jitterRNG.Seed(seed, streamJitter)
	l.reorderRNG.Seed(seed, streamReorder)
	l.burstRNG.Seed(seed, streamBurst)
	l.burstLossRNG.Seed(seed, streamBurstLoss)
	return l, nil
}

// SetConfig replaces the link's configuration with cfg, from the next Send
// on, so that a test or a demo can change the network while it runs (a
// scripted degradation, a key that raises the loss). It returns
// cfg.Validate's error, and changes nothing, if cfg is invalid.
//
// Packets already in flight keep the arrival times they were given when
// sent: a new Latency, Jitter, Loss, Duplicate, Reorder, Burst, Outages,
// Bandwidth or MaxInFlight applies to packets sent from now on. In detail:
//
//   - The random streams carry on where they are, so a link's decisions
//     remain a function of its seed and the sequence of calls, SetConfig
//     calls included. SetConfig with the link's current configuration
//     ([Link.Config]) changes nothing at all.
//   - The burst chain keeps its state (Good or Bad) while cfg.Burst.Enter
//     is above 0, whatever the new Exit and Loss; a Burst with Enter 0
//     switches burst loss off and resets the chain to Good, where a later
//     Burst starts again.
//   - The bottleneck keeps the packets it has accepted: they finish
//     transmitting when scheduled, and a packet sent later starts after
//     them, at the new Bandwidth, with the backlog measured against the new
//     QueueBytes. Switching the cap off (Bandwidth 0) lets new packets
//     through at once; switching it on later starts with an idle link.
//   - A smaller MaxInFlight drops no queued packet: new packets overflow
//     until deliveries bring the queue below the new limit. The queue's
//     memory is never shrunk, so it stays bounded by the largest
//     MaxInFlight the link has had.
//   - Outages and Suspends windows are on the link's own virtual time, the
//     same clock as every call's now, not relative to the SetConfig call.
//     An outage loses packets by their send time, so it never reaches
//     packets already sent; a suspend freezes the receiver at delivery,
//     so new Suspends hold back packets already in flight that arrive, or
//     are collected, inside them, and removing a window releases what it
//     held at the next Deliver, with each packet's own arrival time.
//   - [Link.Stats] keep counting.
func (l *Link[T]) SetConfig(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	l.apply(cfg)
	return nil
}

// Config returns the link's configuration, as set by [NewLink] or
// [Link.SetConfig], with the Outages and Suspends windows sorted and merged
// (empty windows removed), in slices the caller owns. Together with
// SetConfig it lets a caller change one impairment and keep the others:
//
//	cfg := l.Config()
//	cfg.Loss += 0.05
//	err := l.SetConfig(cfg)
func (l *Link[T]) Config() Config {
	c := l.cfg
	c.Outages = slices.Clone(l.outages)
	c.Suspends = slices.Clone(l.suspends)
	return c
}

// apply makes the valid cfg the link's configuration, as SetConfig
// documents. On a new link it leaves the bottleneck idle and the burst
// chain in Good.
func (l *Link[T]) apply(cfg Config) {
	l.cfg = cfg
	l.reorderDelay = cfg.reorderDelay()
	l.q.limit = cfg.maxInFlight()
	l.badLoss = cfg.Burst.badLoss()
	if cfg.Burst.Enter == 0 {
		l.bad = false
	}
	// The link's copies replace the caller's slices, so that later changes
	// to the caller's Config cannot reach the link.
	l.outages = mergeWindows(cfg.Outages)
	l.suspends = mergeWindows(cfg.Suspends)
	l.cfg.Outages, l.cfg.Suspends = l.outages, l.suspends
	if bw := uint64(cfg.Bandwidth); bw != l.bandwidth {
		switch {
		case bw == 0:
			// No bottleneck: new packets pass at once. A cap set later
			// starts with an idle link.
			l.txEnd, l.txFrac = math.MinInt64, 0
		case l.txFrac > 0:
			// txFrac is in units of the old rate: round the end of the
			// transmission under way up to the next whole nanosecond, the
			// time transmit reported it done.
			l.txEnd, l.txFrac = addSat(l.txEnd, 1), 0
		}
		l.bandwidth = bw
	}
	l.queueBytes = cfg.queueBytes()
	l.packetSize = cfg.packetSize()
}

// Send hands msg to the link at virtual time now. Depending on the packet's
// fate it is dropped, or queued for delivery after its delay (and possibly
// queued a second time as a duplicate).
//
// On a bandwidth-capped link, Send charges [Config.PacketSize] bytes
// (default [DefaultPacketSize]); use [Link.SendSized] to give each message
// its real size. Without a cap, Send and SendSized are the same.
//
// A now earlier than the latest time the link has seen is treated as that
// latest time, so a message is never scheduled into the link's past.
func (l *Link[T]) Send(now time.Duration, msg T) {
	l.SendSized(now, msg, l.packetSize)
}

// SendSized is [Link.Send] for a message of size bytes, the amount charged
// against [Config.Bandwidth]: the packet takes size/Bandwidth seconds to
// transmit and occupies size bytes of the bottleneck queue until then. Pass
// whatever the real datagram would weigh, headers included if they should
// count. A negative size counts as 0. The size has no effect on a link
// without a bandwidth cap.
//
// Size is a per-call argument rather than a property of the message type or
// a callback on the link because the caller already knows it at the call
// site (typically the length of the encoded snapshot), and an argument costs
// nothing, cannot be forgotten on one of two links, and keeps [Config]
// independent of the message type.
func (l *Link[T]) SendSized(now time.Duration, msg T, size int) {
	now = l.advance(now)
	l.stats.Sent++
	f := l.decide(now)
	done, ok := l.transmit(now, size)
	if !ok {
		l.stats.Lost++
		l.stats.QueueDropped++
		return
	}
	switch f.loss {
	case lostRandom:
		l.stats.Lost++
		return
	case lostBurst:
		l.stats.Lost++
		l.stats.BurstLost++
		return
	case lostOutage:
		l.stats.Lost++
		l.stats.OutageLost++
		return
	}
	if f.copies > 1 {
		l.stats.Duplicated++
	}
	for i := range f.copies {
		if f.held[i] {
			l.stats.Reordered++
		}
		if l.q.full() {
			l.stats.Overflow++
			continue
		}
		l.q.push(entry[T]{at: addSat(done, f.delay[i]), seq: l.seq, msg: msg})
		l.seq++
	}
}

// Deliver appends to dst every message due at or before virtual time now,
// removes them from the link and returns the extended slice. Messages come
// out in arrival-time order, and messages arriving at the same instant come
// out in the order they were queued. Deliver does not allocate when dst has
// enough capacity, so callers should reuse one buffer: dst = l.Deliver(now, dst[:0]).
//
// While now lies in one of [Config.Suspends], Deliver returns dst
// unchanged, even if messages arrived before the window began.
//
// A now earlier than the latest time the link has seen is treated as that
// latest time.
func (l *Link[T]) Deliver(now time.Duration, dst []T) []T {
	now = l.advance(now)
	if l.suspended(now) {
		return dst
	}
	for l.due(now) {
		dst = append(dst, l.pop().msg)
	}
	return dst
}

// DeliverTimed is [Link.Deliver], but also reports each message's exact
// virtual arrival time, which is at or before now. A message that arrived
// during a suspend window is reported as arriving at the window's end.
func (l *Link[T]) DeliverTimed(now time.Duration, dst []Timed[T]) []Timed[T] {
	now = l.advance(now)
	if l.suspended(now) {
		return dst
	}
	for l.due(now) {
		e := l.pop()
		dst = append(dst, Timed[T]{At: l.resumeAt(e.at), Msg: e.msg})
	}
	return dst
}

// NextDelivery returns the earliest time at which Deliver will return a
// message, and true, or 0 and false if nothing is in flight. Event-driven
// callers use it to advance their clock straight to the next arrival. This
// is the arrival time of the earliest queued message, moved to the end of
// the suspend window it arrives in, if any, or to the end of the current
// suspend window if the message is already due but the receiver is
// suspended. It never lies inside a suspend window.
//
// The returned time may be earlier than the latest time passed to the link,
// if the caller has not delivered for a while; Deliver at any later time
// returns it.
func (l *Link[T]) NextDelivery() (time.Duration, bool) {
	if l.q.len() == 0 {
		return 0, false
	}
	at := l.q.items[0].at
	if w, ok := windowAt(l.suspends, l.now); ok && at <= l.now {
		return w.To, true
	}
	return l.resumeAt(at), true
}

// InFlight returns the number of packets queued in the link, duplicate
// copies included. It never exceeds the effective MaxInFlight.
func (l *Link[T]) InFlight() int {
	return l.q.len()
}

// Stats returns the link's counters. See [Stats] for the invariant they obey.
func (l *Link[T]) Stats() Stats {
	return l.stats
}

// suspended reports whether the receiver is suspended at now.
func (l *Link[T]) suspended(now time.Duration) bool {
	if len(l.suspends) == 0 {
		return false
	}
	_, ok := windowAt(l.suspends, now)
	return ok
}

// resumeAt maps a network arrival time to the time the receiver gets the
// message: the end of the suspend window containing at, or at itself. It
// is non-decreasing in at, so the heap's arrival order is also delivery
// order.
func (l *Link[T]) resumeAt(at time.Duration) time.Duration {
	if len(l.suspends) == 0 {
		return at
	}
	if w, ok := windowAt(l.suspends, at); ok {
		return w.To
	}
	return at
}

// transmit passes a packet of size bytes, offered at now, through the
// bottleneck. It returns the time the packet finishes transmitting and
// true, or false if the bottleneck queue has no room for it. Without a
// bandwidth cap every packet finishes at now.
func (l *Link[T]) transmit(now time.Duration, size int) (time.Duration, bool) {
	if l.bandwidth == 0 {
		return now, true
	}
	n := uint64(max(size, 0))
	backlog := l.backlog(now)
	if backlog == 0 {
		// Idle: start transmitting now, whatever the packet's size.
		l.txEnd, l.txFrac = now, 0
	} else if backlog > l.queueBytes || n > l.queueBytes-backlog {
		return 0, false
	}
	// The packet takes n*1e9/bandwidth ns; add it to the exact finish time.
	hi, lo := bits.Mul64(n, uint64(time.Second))
	lo, carry := bits.Add64(lo, l.txFrac, 0)
	hi += carry
	if hi >= l.bandwidth { // more than 2^64 ns: never
		l.txEnd, l.txFrac = math.MaxInt64, 0
	} else {
		q, r := bits.Div64(hi, lo, l.bandwidth)
		l.txEnd = addSat(l.txEnd, time.Duration(min(q, math.MaxInt64)))
		l.txFrac = r
		if l.txEnd == math.MaxInt64 {
			l.txFrac = 0
		}
	}
	if l.txFrac > 0 {
		// A packet has finished when its last fraction of a nanosecond has.
		return addSat(l.txEnd, 1), true
	}
	return l.txEnd, true
}

// backlog returns the bytes accepted by the bottleneck but not yet
// transmitted at now (rounded up), or 0 if the link is idle.
func (l *Link[T]) backlog(now time.Duration) uint64 {
	if now > l.txEnd || (now == l.txEnd && l.txFrac == 0) {
		return 0
	}
	// ((txEnd-now)*bandwidth + txFrac) / 1e9, rounded up. txEnd >= now, so
	// the unsigned difference is exact even where the signed one overflows.
	hi, lo := bits.Mul64(uint64(l.txEnd)-uint64(now), l.bandwidth)
	var carry uint64
	lo, carry = bits.Add64(lo, l.txFrac+uint64(time.Second)-1, 0)
	hi += carry
	if hi >= uint64(time.Second) {
		return math.MaxUint64
	}
	q, _ := bits.Div64(hi, lo, uint64(time.Second))
	return q
}

// advance moves the link's clock to now, or keeps it where it is if now is
// in the past, and returns the effective time.
func (l *Link[T]) advance(now time.Duration) time.Duration {
	if now < l.now {
		return l.now
	}
	l.now = now
	return now
}

// due reports whether the earliest queued packet arrives at or before now.
func (l *Link[T]) due(now time.Duration) bool {
	return l.q.len() > 0 && l.q.items[0].at <= now
}

// pop removes the earliest packet and counts it as delivered.
func (l *Link[T]) pop() entry[T] {
	l.stats.Delivered++
	return l.q.pop()
}

// lossCause says why a packet was lost on the path, if it was.
type lossCause uint8

const (
	notLost    lossCause = iota
	lostRandom           // Config.Loss, in the Good state
	lostBurst            // Config.Burst, in the Bad state
	lostOutage           // Config.Outages
)

// fate is everything the link decides about one sent packet on the path
// (downstream of the bottleneck), before it is queued. Keeping the decision
// in one place, separate from queueing, keeps the random streams in step:
// the bottleneck (transmit) and the receiver (suspends, applied at delivery)
// are deterministic and draw nothing.
type fate struct {
	loss   lossCause
	copies int              // packets to queue: 1, or 2 if duplicated; 0 if lost
	delay  [2]time.Duration // one-way delay of each copy
	held   [2]bool          // whether each copy was held back for reordering
}

// decide draws the fate of the next packet, sent at now. It advances every
// stream on every call, drawing a delay for a possible duplicate even when
// there is none and for a lost packet too, and stepping the burst chain and
// drawing its loss whatever the state, so that each impairment's decisions
// depend only on the seed, the packet's index and that impairment's own
// settings. (The burst streams are skipped when burst loss is off: they
// feed nothing else.)
//
// Precedence: an outage loses the packet whatever was drawn; otherwise in
// the Bad state the Burst.Loss draw decides and the Loss draw is ignored,
// and in the Good state the Loss draw decides.
func (l *Link[T]) decide(now time.Duration) fate {
	var f fate
	lost := unit(l.lossRNG.Uint64()) < l.cfg.Loss
	dup := unit(l.duplicateRNG.Uint64()) < l.cfg.Duplicate
	for i := range f.delay {
		f.delay[i], f.held[i] = l.drawDelay()
	}
	// A chain with Enter == 0 never leaves Good, so its streams need not be
	// drawn; skipping them affects no other stream.
	var bad, badLost bool
	if l.cfg.Burst.Enter > 0 {
		bad = l.stepBurst()
		badLost = unit(l.burstLossRNG.Uint64()) < l.badLoss
	}
	outage := false
	if len(l.outages) > 0 {
		_, outage = windowAt(l.outages, now)
	}
	switch {
	case outage:
		f.loss = lostOutage
	case bad && badLost:
		f.loss = lostBurst
	case !bad && lost:
		f.loss = lostRandom
	case dup:
		f.copies = 2
	default:
		f.copies = 1
	}
	return f
}

// stepBurst moves the Gilbert–Elliott chain one packet on and returns
// whether the packet is sent in the Bad state. It draws exactly one value
// per call, in either state.
func (l *Link[T]) stepBurst() bool {
	u := unit(l.burstRNG.Uint64())
	if l.bad {
		l.bad = u >= l.cfg.Burst.Exit
	} else {
		l.bad = u < l.cfg.Burst.Enter
	}
	return l.bad
}

// drawDelay draws one copy's delay: Latency plus uniform jitter, clamped at
// 0, plus ReorderDelay if the copy is held back.
func (l *Link[T]) drawDelay() (time.Duration, bool) {
	j := uint64(l.cfg.Jitter)
	// r is uniform in [0, 2*Jitter]; 2*Jitter+1 cannot overflow a uint64
	// because Jitter <= MaxInt64.
	r := uint64n(&l.jitterRNG, 2*j+1)
	offset := time.Duration(int64(r - j)) // in [-Jitter, +Jitter], two's complement
	d := l.cfg.Latency
	if offset >= 0 {
		d = addSat(d, offset)
	} else if d += offset; d < 0 {
		d = 0
	}
	held := unit(l.reorderRNG.Uint64()) < l.cfg.Reorder
	if held {
		d = addSat(d, l.reorderDelay)
	}
	return d, held
}

// unit maps a random word to a float64 uniform in [0, 1). The conversion is
// exact, so it gives identical results on every platform. Comparing
// unit(x) < p is never true for p == 0 and always true for p == 1.
func unit(x uint64) float64 {
	return float64(x>>11) * 0x1p-53
}

// uint64n returns a uniform value in [0, n) for n > 0, using Lemire's
// multiply-and-reject method. It is written out here rather than taken from
// rand.Rand so the mapping from the PCG stream to values is fixed by this
// package, not by the standard library's choice of algorithm.
func uint64n(src *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		threshold := -n % n
		for lo < threshold {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}

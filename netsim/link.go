package netsim

import (
	"math"
	"math/bits"
	"math/rand/v2"
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
	// Lost is the number of Send calls whose packet was dropped by the
	// random Loss decision. A lost packet is never duplicated.
	Lost uint64
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
// the now passed to [Link.DeliverTimed]. Clients that stamp arrivals (for
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

	stats Stats
}

// NewLink returns a link applying cfg, with all random decisions derived
// from seed. It returns cfg.Validate's error if cfg is invalid.
//
// The link allocates its queue lazily, growing it up to the high-water mark
// of packets in flight and never beyond cfg.MaxInFlight.
func NewLink[T any](cfg Config, seed uint64) (*Link[T], error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	l := &Link[T]{
		cfg:          cfg,
		reorderDelay: cfg.reorderDelay(),
		q:            queue[T]{limit: cfg.maxInFlight()},
		now:          math.MinInt64,
	}
	l.lossRNG.Seed(seed, streamLoss)
	l.duplicateRNG.Seed(seed, streamDuplicate)
	l.jitterRNG.Seed(seed, streamJitter)
	l.reorderRNG.Seed(seed, streamReorder)
	return l, nil
}

// Send hands msg to the link at virtual time now. Depending on the packet's
// fate it is dropped, or queued for delivery after its delay (and possibly
// queued a second time as a duplicate).
//
// A now earlier than the latest time the link has seen is treated as that
// latest time, so a message is never scheduled into the link's past.
func (l *Link[T]) Send(now time.Duration, msg T) {
	now = l.advance(now)
	l.stats.Sent++
	f := l.decide()
	if f.lost {
		l.stats.Lost++
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
		l.q.push(entry[T]{at: addSat(now, f.delay[i]), seq: l.seq, msg: msg})
		l.seq++
	}
}

// Deliver appends to dst every message due at or before virtual time now,
// removes them from the link and returns the extended slice. Messages come
// out in arrival-time order, and messages arriving at the same instant come
// out in the order they were queued. Deliver does not allocate when dst has
// enough capacity, so callers should reuse one buffer: dst = l.Deliver(now, dst[:0]).
//
// A now earlier than the latest time the link has seen is treated as that
// latest time.
func (l *Link[T]) Deliver(now time.Duration, dst []T) []T {
	now = l.advance(now)
	for l.due(now) {
		dst = append(dst, l.pop().msg)
	}
	return dst
}

// DeliverTimed is [Link.Deliver], but also reports each message's exact
// virtual arrival time, which is at or before now.
func (l *Link[T]) DeliverTimed(now time.Duration, dst []Timed[T]) []Timed[T] {
	now = l.advance(now)
	for l.due(now) {
		e := l.pop()
		dst = append(dst, Timed[T]{At: e.at, Msg: e.msg})
	}
	return dst
}

// NextDelivery returns the arrival time of the earliest queued message and
// true, or 0 and false if nothing is in flight. Event-driven callers use it
// to advance their clock straight to the next arrival.
//
// The returned time may be earlier than the latest time passed to the link,
// if the caller has not delivered for a while; Deliver at any later time
// returns it.
func (l *Link[T]) NextDelivery() (time.Duration, bool) {
	if l.q.len() == 0 {
		return 0, false
	}
	return l.q.items[0].at, true
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

// fate is everything the link decides about one sent packet, before it is
// queued. Keeping the decision in one place, separate from queueing, is the
// extension point for further impairments: burst loss (a Gilbert-Elliott
// good/bad state consulted instead of the flat Loss draw), a bandwidth cap
// (extra queueing delay), clock drift and client suspend (a mapping of
// arrival times) each change how a fate is computed or applied, without
// touching the heap or the delivery path.
type fate struct {
	lost   bool
	copies int              // packets to queue: 1, or 2 if duplicated; 0 if lost
	delay  [2]time.Duration // one-way delay of each copy
	held   [2]bool          // whether each copy was held back for reordering
}

// decide draws the fate of the next packet. It advances every stream on
// every call, drawing a delay for a possible duplicate even when there is
// none and for a lost packet too, so that each impairment's decisions depend
// only on the seed, the packet's index and that impairment's own settings.
func (l *Link[T]) decide() fate {
	var f fate
	lost := unit(l.lossRNG.Uint64()) < l.cfg.Loss
	dup := unit(l.duplicateRNG.Uint64()) < l.cfg.Duplicate
	for i := range f.delay {
		f.delay[i], f.held[i] = l.drawDelay()
	}
	switch {
	case lost:
		f.lost = true
	case dup:
		f.copies = 2
	default:
		f.copies = 1
	}
	return f
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

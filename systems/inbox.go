package systems

import "sync"

// DefaultInboxCapacity is the default bound on messages waiting in an
// [Inbox] between two frames: 131072, room for a snapshot of 100k entities
// plus a burst. A Message is 56 bytes and the inbox alternates two
// buffers, so a flood holds at most 15 MB at this capacity, given back
// within a few seconds once the traffic is normal again.
const DefaultInboxCapacity = 1 << 17

// Inbox is where transports put messages for the client. Push, PushBatch
// and PushAfter may be called from any goroutine at any time, including
// while a frame runs: they never touch the world. The Receive system
// drains the inbox on the world's goroutine once per frame.
//
// The inbox is bounded: messages beyond its capacity are dropped and
// counted as rejected (RejectInboxFull) at the next frame, except the kept
// messages PushAfter hands back to its caller. In steady state it does not
// allocate: two buffers alternate between the transport side and the
// Receive system.
type Inbox struct {
	mu       sync.Mutex
	pending  []Message
	capacity int
	dropped  uint64
}

// NewInbox returns an inbox that holds at most capacity messages between
// frames; capacity <= 0 means [DefaultInboxCapacity].
func NewInbox(capacity int) *Inbox {
	if capacity <= 0 {
		capacity = DefaultInboxCapacity
	}
	return &Inbox{capacity: capacity}
}

// Push queues m for the next frame. It returns false when the inbox is full
// and m was dropped.
func (in *Inbox) Push(m Message) bool {
	in.mu.Lock()
	if len(in.pending) >= in.capacity {
		in.dropped++
		in.mu.Unlock()
		return false
	}
	in.pending = append(in.pending, m)
	in.mu.Unlock()
	return true
}

// PushBatch queues ms for the next frame under one lock and returns how many
// were queued; the rest were dropped because the inbox was full. Prefer it
// when a transport decodes a whole server frame at once.
func (in *Inbox) PushBatch(ms []Message) int {
	in.mu.Lock()
	n := min(len(ms), in.capacity-len(in.pending))
	if n < 0 {
		n = 0
	}
	in.pending = append(in.pending, ms[:n]...)
	in.dropped += uint64(len(ms) - n)
	in.mu.Unlock()
	return n
}

// PushAfter queues kept and then ms for the next frame under one lock, in
// that order, and returns how many of each were queued. kept are messages
// an earlier push could not queue and the caller holds on to: as many of
// them as fit are queued, and what does not fit stays the caller's,
// neither dropped nor counted. ms are queued only once every kept message
// is, so that nothing overtakes them; what of ms does not fit is dropped
// and counted, as by PushBatch. A transport that must not lose some
// messages (a despawn the server will not send again) keeps those of a
// push that did not fit and hands them back here with the next batch.
func (in *Inbox) PushAfter(kept, ms []Message) (keptQueued, queued int) {
	in.mu.Lock()
	keptQueued = max(min(len(kept), in.capacity-len(in.pending)), 0)
	in.pending = append(in.pending, kept[:keptQueued]...)
	if keptQueued == len(kept) {
		queued = max(min(len(ms), in.capacity-len(in.pending)), 0)
		in.pending = append(in.pending, ms[:queued]...)
	}
	in.dropped += uint64(len(ms) - queued)
	in.mu.Unlock()
	return keptQueued, queued
}

// Len returns the number of messages waiting.
func (in *Inbox) Len() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.pending)
}

// Capacity returns the bound on waiting messages.
func (in *Inbox) Capacity() int { return in.capacity }

// Drain hands every waiting message to the caller and the count of messages
// dropped since the last drain. spare is a buffer the inbox keeps for the
// next pushes (pass back what the previous Drain returned, so the two
// buffers alternate without allocating). The returned slice is the
// caller's only until it is passed back as spare.
//
// Drain is for an inbox of your own (a headless bot's, a test's): the
// pipeline's inbox (Pipeline.Inbox) is drained by its Receive system
// every frame, and whatever else drains it takes the messages away from
// Receive, unstored and uncounted.
func (in *Inbox) Drain(spare []Message) (msgs []Message, dropped uint64) {
	in.mu.Lock()
	msgs, in.pending = in.pending, spare[:0]
	dropped, in.dropped = in.dropped, 0
	in.mu.Unlock()
	return msgs, dropped
}

package token

import (
	"encoding/hex"
	"sync"
	"time"
)

// replayCache remembers the IDs of the tokens a verifier admitted until they
// expire, so that each token admits one connection.
//
// It is bounded: it holds at most capacity IDs. Expired IDs are pruned as
// time passes (an expired token is refused before its ID is looked up, so
// forgetting it is safe); when capacity unexpired IDs remain, a new token is
// refused rather than an unexpired ID forgotten, since forgetting one would
// let its token be used again.
//
// Memory: an entry is a map slot of its 16-byte ID and a 24-byte heap
// element of its ID and expiry; with the map's control bytes, load factor
// and the slack of both growing by doubling, 50 to 80 bytes per admitted
// token (TestReplayMemory checks that bound), so under 5 MB at the
// default capacity of 65536 once full. Memory grows with use, up to the
// capacity, and is kept when entries expire, for the next ones.
type replayCache struct {
	mu       sync.Mutex
	capacity int
	seen     map[[IDSize]byte]struct{}
	heap     []replayEntry // min-heap by expiry: the next to prune first
	// horizon is the latest expiry pruned: an ID expiring at or before it
	// may have been forgotten, so a token expiring then is refused even if
	// the time the caller passes went backwards.
	horizon int64
}

type replayEntry struct {
	expires int64 // Unix seconds
	id      [IDSize]byte
}

func newReplayCache(capacity int) *replayCache {
	return &replayCache{capacity: capacity, seen: make(map[[IDSize]byte]struct{})}
}

// admit records id, of a token expiring at expires (Unix seconds), at time
// now, or refuses it: ErrReplayed if it was recorded before, ErrBusy if the
// cache is full of unexpired IDs, ErrExpired if the token expired by the
// latest time the cache was pruned at.
func (c *replayCache) admit(id [IDSize]byte, expires int64, now time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.prune(now.Unix())
	if expires <= c.horizon {
		// Unreachable while the caller's clock goes forward: the caller
		// refused the token as expired before.
		return fail(ErrExpired, "expired at %s, before the latest time this verifier was called at (its clock went backwards)",
			time.Unix(expires, 0).UTC().Format(time.RFC3339))
	}
	if _, ok := c.seen[id]; ok {
		return fail(ErrReplayed, "already used: token %s was admitted before", hex.EncodeToString(id[:]))
	}
	if len(c.seen) >= c.capacity {
		return fail(ErrBusy, "too many recent tokens: %d admitted tokens have not expired yet (ReplayCapacity); the next expires in %s",
			len(c.seen), seconds(time.Unix(c.heap[0].expires, 0).Sub(now)))
	}
	c.seen[id] = struct{}{}
	c.push(replayEntry{expires: expires, id: id})
	return nil
}

// prune forgets the IDs that expired at or before now (Unix seconds).
func (c *replayCache) prune(now int64) {
	for len(c.heap) > 0 && c.heap[0].expires <= now {
		e := c.pop()
		delete(c.seen, e.id)
		c.horizon = max(c.horizon, e.expires)
	}
}

// len returns the number of IDs held.
func (c *replayCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seen)
}

// push and pop keep c.heap a binary min-heap by expiry (written out rather
// than through container/heap, whose interface boxes every element).
func (c *replayCache) push(e replayEntry) {
	h := append(c.heap, e)
	i := len(h) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if h[parent].expires <= h[i].expires {
			break
		}
		h[parent], h[i] = h[i], h[parent]
		i = parent
	}
	c.heap = h
}

func (c *replayCache) pop() replayEntry {
	h := c.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		small, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && h[l].expires < h[small].expires {
			small = l
		}
		if r < len(h) && h[r].expires < h[small].expires {
			small = r
		}
		if small == i {
			break
		}
		h[i], h[small] = h[small], h[i]
		i = small
	}
	c.heap = h
	return top
}

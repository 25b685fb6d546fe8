//go:build !js

package client

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/netsmooth/netsmooth/transport"
	"github.com/netsmooth/netsmooth/wire"
)

// Backoff is how long [Reconnect] waits between attempts: nothing before
// the first, then Min, doubling up to Max, each wait spread at random by
// up to Jitter of itself, so that clients a server dropped together do
// not all return in the same instant.
type Backoff struct {
	Min, Max time.Duration
	Jitter   float64 // 0 to 1
}

// DefaultBackoff waits 100 ms, doubling up to 5 s, spread by 25%.
var DefaultBackoff = Backoff{Min: 100 * time.Millisecond, Max: 5 * time.Second, Jitter: 0.25}

// wait returns the wait before attempt n (n from 0), drawing from rng.
func (b Backoff) wait(n int, rng *rand.Rand) time.Duration {
	if n == 0 {
		return 0
	}
	d := max(b.Min, time.Millisecond)
	for i := 1; i < n && d < b.Max; i++ {
		d *= 2
	}
	d = min(d, max(b.Max, b.Min))
	if j := min(max(b.Jitter, 0), 1); j > 0 {
		d += time.Duration((rng.Float64()*2 - 1) * j * float64(d))
	}
	return d
}

// Reconnect dials until a server welcomes the client, ctx ends, or a
// failure says that trying again cannot help ([Retryable]), waiting
// between attempts as b says. dial makes one attempt: a game fetches a
// new connect token for each (a token admits once) and calls Dial,
// DialWebTransport or Handshake with it; attempt counts from 0. It
// returns the client and the number of attempts made, or the last error.
//
// Each call starts afresh, its first attempt at once: a game that
// reconnects each time its connection ends keeps a [Reconnector]
// instead, which counts a connection that did not last as a failed
// attempt.
//
// The new connection's server may not hold the entities the old one
// sent: after a reconnection to another server, despawn what the new
// one does not send.
func Reconnect(ctx context.Context, b Backoff, dial func(ctx context.Context, attempt int) (*Client, error)) (*Client, int, error) {
	return reconnect(ctx, b, 0, dial)
}

// Reconnector reconnects a game to its server each time the connection
// ends, as [Reconnect] does, and remembers between times: when the
// connection it made ended (or its last call gave up) less than Stable
// ago, the next call goes on with the waits where they were, one step
// further. A server that admits clients and drops them at once (broken,
// overloaded, or hostile) then sees them back at Backoff's growing
// waits, not in a tight loop of new connect tokens. The zero value is
// ready to use; a Reconnector is not safe for concurrent use.
type Reconnector struct {
	// Backoff is the waits between attempts (zero: DefaultBackoff).
	Backoff Backoff
	// Stable is how long a connection must last for the next
	// reconnection to start afresh (zero: Backoff.Max).
	Stable time.Duration

	last  int       // the step of the waits of the last attempt made
	ended time.Time // when the last call returned; zero before the first
}

// Reconnect dials as the package's [Reconnect] does, its waits going on
// from the last call's when that call's connection did not last.
func (r *Reconnector) Reconnect(ctx context.Context, dial func(ctx context.Context, attempt int) (*Client, error)) (*Client, int, error) {
	b := r.Backoff
	if b == (Backoff{}) {
		b = DefaultBackoff
	}
	stable := r.Stable
	if stable <= 0 {
		stable = max(b.Max, b.Min)
	}
	first := 0
	if !r.ended.IsZero() && time.Since(r.ended) < stable {
		first = r.last + 1
	}
	c, n, err := reconnect(ctx, b, first, dial)
	r.last, r.ended = first+max(n-1, 0), time.Now()
	return c, n, err
}

// reconnect is Reconnect with the waits starting at step first.
func reconnect(ctx context.Context, b Backoff, first int, dial func(ctx context.Context, attempt int) (*Client, error)) (*Client, int, error) {
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x7ec0))
	var last error
	for n := 0; ; n++ {
		if d := b.wait(first+n, rng); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, n, errors.Join(ctx.Err(), last)
			case <-t.C:
			}
		}
		c, err := dial(ctx, n)
		if err == nil {
			return c, n + 1, nil
		}
		last = err
		if ctx.Err() != nil {
			return nil, n + 1, errors.Join(ctx.Err(), err)
		}
		if !Retryable(err) {
			return nil, n + 1, err
		}
	}
}

// Retryable reports whether a connection that ended, or a dial that
// failed, with err may succeed if tried again (with a new token): not
// after the server kicked the client or refused its protocol, nor after
// the game closed it or cancelled the attempt, but after a
// timeout, a shutdown (a new server may take its place), a full or busy
// server, a refused token (an expired one is replaced), or a network
// error.
func Retryable(err error) bool {
	var ce *transport.CloseError
	if errors.As(err, &ce) {
		switch ce.Reason {
		case wire.ReasonKicked, wire.ReasonProtocol, wire.ReasonLeft:
			return false // ReasonLeft: the game closed it
		}
	}
	return !errors.Is(err, context.Canceled)
}

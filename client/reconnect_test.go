//go:build !js

package client

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/netsmooth/netsmooth/transport"
	"github.com/netsmooth/netsmooth/wire"
)

// The waits double from Min to Max, spread by at most Jitter.
func TestBackoffWaits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	b := Backoff{Min: 100 * time.Millisecond, Max: time.Second}
	want := []time.Duration{0, 100, 200, 400, 800, 1000, 1000}
	for n, w := range want {
		if got := b.wait(n, rng); got != w*time.Millisecond {
			t.Errorf("wait %d: %v, want %v", n, got, w*time.Millisecond)
		}
	}
	b.Jitter = 0.25
	for n := 1; n < 200; n++ {
		base := b.Min << min(n-1, 4)
		base = min(base, b.Max)
		if got := b.wait(n, rng); got < base*3/4 || got > base*5/4 {
			t.Fatalf("wait %d: %v, base %v", n, got, base)
		}
	}
}

// Reconnect retries what may succeed, stops at what cannot, and at ctx.
func TestReconnect(t *testing.T) {
	fast := Backoff{Min: time.Millisecond, Max: 2 * time.Millisecond}
	ok := &Client{}
	busy := &transport.CloseError{Reason: wire.ReasonBusy, Remote: true}
	attempts := 0
	c, n, err := Reconnect(context.Background(), fast, func(_ context.Context, attempt int) (*Client, error) {
		if attempt != attempts {
			t.Fatalf("attempt %d, want %d", attempt, attempts)
		}
		attempts++
		if attempt < 3 {
			return nil, busy
		}
		return ok, nil
	})
	if c != ok || n != 4 || err != nil {
		t.Fatalf("after 3 refusals: %v %d %v", c, n, err)
	}

	kicked := &transport.CloseError{Reason: wire.ReasonKicked, Message: "cheating", Remote: true}
	_, n, err = Reconnect(context.Background(), fast, func(context.Context, int) (*Client, error) { return nil, kicked })
	if n != 1 || !errors.Is(err, kicked) {
		t.Fatalf("kicked: %d attempts, %v", n, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, n, err = Reconnect(ctx, fast, func(context.Context, int) (*Client, error) { return nil, transport.ErrTimeout })
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, transport.ErrTimeout) || n < 2 {
		t.Fatalf("until the deadline: %d attempts, %v", n, err)
	}
}

// A Reconnector goes on with the waits from where its last call left
// them while the connections it makes do not last, and starts afresh
// once one has lasted Stable.
func TestReconnectorCarriesTheWaits(t *testing.T) {
	// Stable is long beside the waits (a few ms), so that a stalled
	// machine cannot make the quick reconnects look stable.
	r := Reconnector{Backoff: Backoff{Min: time.Millisecond, Max: 4 * time.Millisecond}, Stable: 500 * time.Millisecond}
	ok := &Client{}
	dial := func(context.Context, int) (*Client, error) { return ok, nil }
	var steps []int
	for range 4 { // connections that end at once
		if _, n, err := r.Reconnect(context.Background(), dial); n != 1 || err != nil {
			t.Fatalf("%d attempts, %v", n, err)
		}
		steps = append(steps, r.last)
	}
	time.Sleep(600 * time.Millisecond) // the last connection lasted
	r.Reconnect(context.Background(), dial)
	steps = append(steps, r.last)
	if want := []int{0, 1, 2, 3, 0}; !slices.Equal(steps, want) {
		t.Fatalf("the steps of the waits: %v, want %v", steps, want)
	}
}

func TestRetryable(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&transport.CloseError{Reason: wire.ReasonTimeout, Remote: true}, true},
		{&transport.CloseError{Reason: wire.ReasonShutdown, Remote: true}, true},
		{&transport.CloseError{Reason: wire.ReasonFull, Remote: true}, true},
		{&transport.CloseError{Reason: wire.ReasonBadToken, Remote: true}, true},
		{&transport.CloseError{Reason: wire.ReasonKicked, Remote: true}, false},
		{&transport.CloseError{Reason: wire.ReasonProtocol, Remote: true}, false},
		{&transport.CloseError{Reason: wire.ReasonLeft}, false},
		{context.Canceled, false},
		{errors.New("dial udp: connection refused"), true},
	} {
		if got := Retryable(c.err); got != c.want {
			t.Errorf("Retryable(%v) = %v", c.err, got)
		}
	}
}

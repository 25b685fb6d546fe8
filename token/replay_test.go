package token

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// A token admits one connection: the same bytes, or the same token in text
// form, are refused afterwards; a refused token was not consumed.
func TestReplay(t *testing.T) {
	is := newIssuer(t, IssuerConfig{}, nil)
	v := newVerifier(t, VerifierConfig{})
	b := issue(t, is, Request{})

	// Refused while not yet valid: not recorded, so admitted later.
	_, err := v.Verify(b, t0.Add(-time.Minute))
	wantErr(t, err, ErrNotYetValid, "")
	tok, err := v.Verify(b, t0)
	if err != nil {
		t.Fatal(err)
	}
	id := fmt.Sprintf("%x", tok.ID)
	_, err = v.Verify(b, t0.Add(time.Second))
	wantErr(t, err, ErrReplayed, "token: already used: token "+id+" was admitted before")
	again, _ := ParseString(EncodeString(b))
	_, err = v.Verify(again, t0.Add(29*time.Second))
	wantErr(t, err, ErrReplayed, "")
	// After expiry it is refused as expired.
	_, err = v.Verify(b, t0.Add(30*time.Second))
	wantErr(t, err, ErrExpired, "")

	// Another verifier (another server) keeps its own record.
	if _, err := newVerifier(t, VerifierConfig{}).Verify(b, t0); err != nil {
		t.Fatal(err)
	}
}

// Pruning forgets only expired tokens: an unexpired one stays refused.
func TestReplayAfterPrune(t *testing.T) {
	is := newIssuer(t, IssuerConfig{}, nil)
	v := newVerifier(t, VerifierConfig{})
	short := issue(t, is, Request{Lifetime: 10 * time.Second})
	long := issue(t, is, Request{Lifetime: 100 * time.Second})
	for _, b := range [][]byte{long, short} {
		if _, err := v.Verify(b, t0); err != nil {
			t.Fatal(err)
		}
	}
	// At t0+50 s, verifying a new token prunes the short one.
	if _, err := v.Verify(issue(t, is, Request{Lifetime: time.Minute}), t0.Add(50*time.Second)); err != nil {
		t.Fatal(err)
	}
	if n := v.replay.len(); n != 2 {
		t.Fatalf("%d tokens held after pruning, want 2", n)
	}
	_, err := v.Verify(long, t0.Add(50*time.Second))
	wantErr(t, err, ErrReplayed, "")
	_, err = v.Verify(short, t0.Add(50*time.Second))
	wantErr(t, err, ErrExpired, "token: expired 40 s ago")
	// A refused replay prunes too, and records nothing.
	_, err = v.Verify(long, t0.Add(99*time.Second))
	wantErr(t, err, ErrReplayed, "")
	if n := v.replay.len(); n != 1 {
		t.Fatalf("%d tokens held, want 1", n)
	}
}

// If the caller's clock goes backwards after the cache forgot a token, the
// token is refused all the same.
func TestReplayClockBackwards(t *testing.T) {
	is := newIssuer(t, IssuerConfig{}, nil)
	v := newVerifier(t, VerifierConfig{})
	b := issue(t, is, Request{Lifetime: 10 * time.Second})
	if _, err := v.Verify(b, t0); err != nil {
		t.Fatal(err)
	}
	// Time passes: a later token prunes the first.
	if _, err := v.Verify(issue(t, is, Request{Lifetime: time.Minute}), t0.Add(20*time.Second)); err != nil {
		t.Fatal(err)
	}
	// The clock steps back to before the first token's expiry.
	_, err := v.Verify(b, t0.Add(5*time.Second))
	wantErr(t, err, ErrExpired,
		"token: expired at 2023-11-14T22:13:30Z, before the latest time this verifier was called at (its clock went backwards)")
}

// A full cache refuses new tokens rather than forget unexpired ones, and
// accepts them again once some have expired.
func TestReplayBusy(t *testing.T) {
	at := &clock{t0}
	is := newIssuer(t, IssuerConfig{}, at)
	v := newVerifier(t, VerifierConfig{ReplayCapacity: 3})
	var first [][]byte
	for i := range 3 {
		b := issue(t, is, Request{Lifetime: time.Duration(10+i) * time.Second})
		if _, err := v.Verify(b, t0); err != nil {
			t.Fatal(err)
		}
		first = append(first, b)
	}
	late := issue(t, is, Request{Lifetime: time.Minute})
	_, err := v.Verify(late, t0.Add(time.Second))
	wantErr(t, err, ErrBusy,
		"token: too many recent tokens: 3 admitted tokens have not expired yet (ReplayCapacity); the next expires in 9 s")
	// Every admitted token is still refused as a replay, not as busy.
	for _, b := range first {
		_, err := v.Verify(b, t0.Add(time.Second))
		wantErr(t, err, ErrReplayed, "")
	}
	// Once the first has expired there is room: the token refused as busy
	// was not consumed.
	if _, err := v.Verify(late, t0.Add(10*time.Second)); err != nil {
		t.Fatal(err)
	}
	_, err = v.Verify(issue(t, is, Request{}), t0.Add(10*time.Second))
	wantErr(t, err, ErrBusy, "")
	if _, err := v.Verify(issue(t, is, Request{}), t0.Add(12*time.Second)); err != nil {
		t.Fatal(err)
	}
	_, err = v.Verify(late, t0.Add(12*time.Second))
	wantErr(t, err, ErrReplayed, "")
}

// The cache's heap pops in expiry order whatever the insertion order.
func TestReplayHeap(t *testing.T) {
	c := newReplayCache(1000)
	exps := []int64{50, 10, 30, 10, 70, 20, 60, 40, 5, 90, 80, 15}
	for i, e := range exps {
		if err := c.admit([IDSize]byte{byte(i)}, e, time.Unix(0, 0)); err != nil {
			t.Fatal(err)
		}
	}
	prev := int64(-1)
	for len(c.heap) > 0 {
		e := c.pop()
		if e.expires < prev {
			t.Fatalf("popped %d after %d", e.expires, prev)
		}
		prev = e.expires
	}
}

// TestReplayMemory measures the cache's memory per entry, which the
// package documentation states: 50 to 80 bytes.
func TestReplayMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates megabytes")
	}
	for _, n := range []int{20_000, 45_000, DefaultReplayCapacity} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		c := newReplayCache(n)
		var id [IDSize]byte
		for i := range n {
			id[0], id[1], id[2] = byte(i), byte(i>>8), byte(i>>16)
			if err := c.admit(id, int64(1000+i%300), time.Unix(0, 0)); err != nil {
				t.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		per := float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
		t.Logf("%d entries: %.0f bytes each", n, per)
		if per < 50 || per > 80 {
			t.Errorf("%d entries: %.0f bytes each, not the 50 to 80 documented", n, per)
		}
		runtime.KeepAlive(c)
	}
}

package token

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"testing"
	"time"
)

// Fixed keys, so that fuzz seeds stay valid from run to run.
var (
	priv1   = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, ed25519.SeedSize))
	pub1    = priv1.Public().(ed25519.PublicKey)
	priv3   = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{3}, ed25519.SeedSize))
	pub3    = priv3.Public().(ed25519.PublicKey)
	dataKey = bytes.Repeat([]byte{7}, PrivateKeySize)
	// t0 is the tests' "now"; a whole second, as tokens' times are.
	t0 = time.Unix(1_700_000_000, 0).UTC()
)

const (
	game   = 0x6e73_0001
	server = "10.0.0.1:7777"
)

// sentinels lists every error the package returns; each error wraps exactly
// one of them.
var sentinels = []error{ErrMalformed, ErrUnknownKey, ErrSignature, ErrWrongProtocol, ErrExpired,
	ErrNotYetValid, ErrLifetime, ErrWrongServer, ErrPrivateData, ErrReplayed, ErrBusy, ErrInvalid}

// kindOf returns the one sentinel err wraps, failing t if it wraps none or
// several.
func kindOf(t testing.TB, err error) error {
	t.Helper()
	var found error
	for _, s := range sentinels {
		if errors.Is(err, s) {
			if found != nil {
				t.Fatalf("%v wraps both %v and %v", err, found, s)
			}
			found = s
		}
	}
	if found == nil {
		t.Fatalf("%v wraps no sentinel", err)
	}
	return found
}

// wantErr fails t unless err wraps kind and, if msg is not empty, reads
// exactly msg.
func wantErr(t testing.TB, err, kind error, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %v", kind)
	}
	if got := kindOf(t, err); got != kind {
		t.Fatalf("error %q wraps %v, want %v", err, got, kind)
	}
	if msg != "" && err.Error() != msg {
		t.Fatalf("error %q, want %q", err, msg)
	}
}

// clock is a settable time source for an Issuer.
type clock struct{ now time.Time }

func (c *clock) Time() time.Time { return c.now }

// newIssuer returns an issuer with key 1 for the game, issuing at c's time
// (t0 if c is nil), with c's other fields where set.
func newIssuer(t testing.TB, c IssuerConfig, at *clock) *Issuer {
	t.Helper()
	if c.SigningKey == nil {
		c.SigningKey, c.KeyID = priv1, 1
	}
	if c.ProtocolID == 0 {
		c.ProtocolID = game
	}
	if at == nil {
		at = &clock{t0}
	}
	c.Time = at.Time
	is, err := NewIssuer(c)
	if err != nil {
		t.Fatal(err)
	}
	return is
}

// newVerifier returns a verifier of keys 1 and 3 for the game on server,
// with c's fields where set.
func newVerifier(t testing.TB, c VerifierConfig) *Verifier {
	t.Helper()
	if c.Keys == nil {
		c.Keys = map[uint32]ed25519.PublicKey{1: pub1, 3: pub3}
	}
	if c.ProtocolID == 0 {
		c.ProtocolID = game
	}
	if c.Addrs == nil {
		c.Addrs = []string{server}
	}
	v, err := NewVerifier(c)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// issue returns a token for client 42 on server, failing t on error.
func issue(t testing.TB, is *Issuer, r Request) []byte {
	t.Helper()
	if r.ClientID == 0 {
		r.ClientID = 42
	}
	if r.Servers == nil {
		r.Servers = []string{server}
	}
	b, err := is.Issue(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// resign replaces b's signature with key's signature of its other bytes: a
// token as the backend would have signed it.
func resign(b []byte, key ed25519.PrivateKey) []byte {
	body := b[:len(b)-ed25519.SignatureSize]
	return append(append([]byte(nil), body...), ed25519.Sign(key, body)...)
}

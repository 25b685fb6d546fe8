package token

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Changing any byte of a token, in any way, gets it refused: as a bad
// signature, or, where the change breaks the layout or names a key the
// server does not hold, as malformed or of an unknown key. No change is
// accepted, and none is reported as anything the backend could have signed
// (expired, wrong server...).
func TestTamperEveryByte(t *testing.T) {
	is := newIssuer(t, IssuerConfig{PrivateKey: dataKey}, nil)
	b := issue(t, is, Request{Servers: []string{server, "b:2"}, UserData: []byte("user"), PrivateData: []byte("private")})
	v := newVerifier(t, VerifierConfig{PrivateKey: dataKey})
	sigAt := len(b) - ed25519.SignatureSize
	for i := range b {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			c := bytes.Clone(b)
			c[i] ^= x
			_, err := v.Verify(c, t0)
			if err == nil {
				t.Fatalf("byte %d ^ %#x accepted", i, x)
			}
			kind := kindOf(t, err)
			switch {
			case kind == ErrSignature:
			case kind == ErrMalformed && (i == offVersion || i >= offIssued && i < sigAt):
				// the version, a time, the flags, a count or a length
			case kind == ErrUnknownKey && i >= offKeyID && i < offKeyID+4:
			default:
				t.Fatalf("byte %d ^ %#x: %v", i, x, err)
			}
			// Flipping the protocol's, the client's, the ID's or the
			// signature's bytes is always a signature error; so is naming
			// another known key (KeyID 1 ^ 2 is 3, a key the verifier
			// holds: the wrong key for this signature).
			if (i >= offProtocol && i < offIssued || i >= sigAt || i == offKeyID && x == 0x02) && kind != ErrSignature {
				t.Fatalf("byte %d ^ %#x: %v, want a bad signature", i, x, err)
			}
		}
	}
	c := bytes.Clone(b)
	c[offKeyID] ^= 0x02
	_, err := v.Verify(c, t0)
	wantErr(t, err, ErrSignature, "token: bad signature (key 3): altered, forged, or signed with another key")
	// Truncated or extended anywhere: refused too.
	for n := range len(b) {
		if _, err := v.Verify(b[:n], t0); err == nil {
			t.Fatalf("truncated to %d bytes: accepted", n)
		}
	}
	if _, err := v.Verify(append(bytes.Clone(b), 0), t0); err == nil {
		t.Fatal("extended: accepted")
	}
	// The original, untouched, still passes: nothing above consumed it.
	if _, err := v.Verify(b, t0); err != nil {
		t.Fatal(err)
	}
}

// A token signed by another key than the one its KeyID names, or naming a
// key the server does not hold, is refused.
func TestWrongKey(t *testing.T) {
	v := newVerifier(t, VerifierConfig{})
	forged := issue(t, newIssuer(t, IssuerConfig{SigningKey: priv3, KeyID: 1}, nil), Request{})
	_, err := v.Verify(forged, t0)
	wantErr(t, err, ErrSignature, "token: bad signature (key 1): altered, forged, or signed with another key")

	_, other, _ := ed25519.GenerateKey(nil)
	forged = issue(t, newIssuer(t, IssuerConfig{SigningKey: other, KeyID: 1}, nil), Request{})
	_, err = v.Verify(forged, t0)
	wantErr(t, err, ErrSignature, "")

	unknown := issue(t, newIssuer(t, IssuerConfig{SigningKey: priv1, KeyID: 9}, nil), Request{})
	_, err = v.Verify(unknown, t0)
	wantErr(t, err, ErrUnknownKey, "token: signed with key 9, unknown to this server (it knows 1, 3)")
}

// Expiry, issue in the future and lifetime, at their bounds.
func TestTimes(t *testing.T) {
	is := newIssuer(t, IssuerConfig{}, nil)
	v := newVerifier(t, VerifierConfig{})
	expires := t0.Add(DefaultLifetime)

	_, err := v.Verify(issue(t, is, Request{}), expires)
	wantErr(t, err, ErrExpired, "token: expired 0 s ago")
	_, err = v.Verify(issue(t, is, Request{}), expires.Add(12*time.Second+300*time.Millisecond))
	wantErr(t, err, ErrExpired, "token: expired 12 s ago")
	_, err = v.Verify(issue(t, is, Request{}), expires.Add(1500*time.Millisecond))
	wantErr(t, err, ErrExpired, "token: expired 1.5 s ago")
	if _, err := v.Verify(issue(t, is, Request{}), expires.Add(-time.Nanosecond)); err != nil {
		t.Fatalf("a nanosecond before expiry: %v", err)
	}

	// Issued in the future: up to ClockSkew (10 s) is fine.
	if _, err := v.Verify(issue(t, is, Request{}), t0.Add(-DefaultClockSkew)); err != nil {
		t.Fatalf("issued 10 s in the future: %v", err)
	}
	_, err = v.Verify(issue(t, is, Request{}), t0.Add(-DefaultClockSkew-time.Second))
	wantErr(t, err, ErrNotYetValid,
		"token: issued 11 s in the future (allowed clock skew 10 s): check the clocks of the backend and this server")
	strict := newVerifier(t, VerifierConfig{ClockSkew: time.Second})
	_, err = strict.Verify(issue(t, is, Request{}), t0.Add(-1500*time.Millisecond))
	wantErr(t, err, ErrNotYetValid, "")

	// Lifetime: up to MaxLifetime (5 min) is fine.
	if _, err := v.Verify(issue(t, is, Request{Lifetime: DefaultMaxLifetime}), t0); err != nil {
		t.Fatalf("lifetime of 5 min: %v", err)
	}
	_, err = v.Verify(issue(t, is, Request{Lifetime: DefaultMaxLifetime + time.Second}), t0)
	wantErr(t, err, ErrLifetime, "token: lifetime 301 s, more than the 300 s allowed")
	short := newVerifier(t, VerifierConfig{MaxLifetime: 20 * time.Second})
	_, err = short.Verify(issue(t, is, Request{}), t0)
	wantErr(t, err, ErrLifetime, "token: lifetime 30 s, more than the 20 s allowed")
	// Lifetimes round up to whole seconds.
	tok, err := v.Verify(issue(t, is, Request{Lifetime: 1500 * time.Millisecond}), t0)
	if err != nil || !tok.Expires.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("1.5 s lifetime: expires %v, %v", tok.Expires, err)
	}

	// A token the backend signed with Expires before IssuedAt (a broken
	// backend): refused.
	b := issue(t, is, Request{})
	copy(b[offExpires:], b[offIssued:offIssued+8])
	_, err = v.Verify(resign(b, priv1), t0.Add(-time.Second))
	wantErr(t, err, ErrLifetime, "token: lifetime 0 s is not positive (expires before it was issued)")
	// Times beyond the year 9999 are refused, so that nothing overflows.
	for _, times := range [][2]uint64{{0, 1 << 63}, {1 << 63, 1<<63 - 1}, {1<<63 - 1, 1 << 63}, {1 << 63, 0}, {0, maxUnix + 1}} {
		b := issue(t, is, Request{})
		for i, x := range times {
			for j := range 8 {
				b[offIssued+8*i+j] = byte(x >> (8 * j))
			}
		}
		_, err := v.Verify(resign(b, priv1), t0)
		wantErr(t, err, ErrMalformed, "")
	}
}

// A token for other servers or another game is refused; addresses match
// after canonicalisation.
func TestServersAndProtocol(t *testing.T) {
	is := newIssuer(t, IssuerConfig{}, nil)
	b := issue(t, is, Request{})
	_, err := newVerifier(t, VerifierConfig{Addrs: []string{"10.0.0.2:7777"}}).Verify(b, t0)
	wantErr(t, err, ErrWrongServer, "token: valid for 10.0.0.1:7777, not for 10.0.0.2:7777")
	_, err = newVerifier(t, VerifierConfig{Addrs: []string{"10.0.0.1:7778", "play.example.com:7777"}}).Verify(b, t0)
	wantErr(t, err, ErrWrongServer, "token: valid for 10.0.0.1:7777, not for 10.0.0.1:7778, play.example.com:7777")

	_, err = newVerifier(t, VerifierConfig{ProtocolID: game + 1}).Verify(b, t0)
	wantErr(t, err, ErrWrongProtocol, "token: for protocol 0x6e730001, not for this server's 0x6e730002")

	// Any one of the token's servers, written any equivalent way.
	b = issue(t, is, Request{Servers: []string{"a.example.com:1", "[::ffff:10.0.0.9]:7777"}})
	for _, addr := range []string{"10.0.0.9:7777", "[::FFFF:a00:9]:07777", "A.Example.Com.:1"} {
		if _, err := newVerifier(t, VerifierConfig{Addrs: []string{"other:1", addr}}).Verify(b, t0); err != nil {
			t.Fatalf("server %s: %v", addr, err)
		}
	}

	// A token whose servers are not canonical (from another issuer) still
	// matches; a server that does not parse matches nothing.
	b = issue(t, is, Request{Servers: []string{"x:1", "y:2"}})
	copy(b[fixedSize+1:], "X")
	copy(b[fixedSize+1+3+1:], "y:0")
	if _, err := newVerifier(t, VerifierConfig{Addrs: []string{"x:1"}}).Verify(resign(b, priv1), t0); err != nil {
		t.Fatal(err)
	}
	_, err = newVerifier(t, VerifierConfig{Addrs: []string{"y:2"}}).Verify(resign(b, priv1), t0)
	wantErr(t, err, ErrWrongServer, "token: valid for X:1, y:0, not for y:2")
}

// Private data is encrypted in the token, decrypted by Verify with the
// shared key, and bound to its token.
func TestPrivateData(t *testing.T) {
	secret := []byte("the plaintext secret")
	is := newIssuer(t, IssuerConfig{PrivateKey: dataKey}, nil)
	b := issue(t, is, Request{PrivateData: secret})
	if bytes.Contains(b, secret) || bytes.Contains(b, secret[:8]) {
		t.Fatal("plaintext in the token")
	}
	if len(b) != len(issue(t, is, Request{}))+len(secret)+16 {
		t.Fatal("private data: not its length and a 16-byte tag")
	}
	tok, err := newVerifier(t, VerifierConfig{PrivateKey: dataKey}).Verify(b, t0)
	if err != nil || !bytes.Equal(tok.PrivateData, secret) {
		t.Fatalf("decrypted %q, %v", tok.PrivateData, err)
	}

	// No key, or the wrong one.
	_, err = newVerifier(t, VerifierConfig{}).Verify(b, t0)
	wantErr(t, err, ErrPrivateData, "token: carries private data, and this server has no PrivateKey for key 1")
	wrong := bytes.Repeat([]byte{8}, PrivateKeySize)
	_, err = newVerifier(t, VerifierConfig{PrivateKey: wrong}).Verify(b, t0)
	wantErr(t, err, ErrPrivateData, "token: private data does not decrypt: this server's PrivateKey for key 1 is not the backend's")
	// PrivateKeys overrides PrivateKey for its KeyID only.
	_, err = newVerifier(t, VerifierConfig{PrivateKey: dataKey, PrivateKeys: map[uint32][]byte{1: wrong}}).Verify(b, t0)
	wantErr(t, err, ErrPrivateData, "")
	if _, err := newVerifier(t, VerifierConfig{PrivateKey: wrong, PrivateKeys: map[uint32][]byte{1: dataKey}}).Verify(b, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := newVerifier(t, VerifierConfig{PrivateKey: dataKey, PrivateKeys: map[uint32][]byte{3: wrong}}).Verify(b, t0); err != nil {
		t.Fatal(err)
	}

	// Tampered ciphertext: the signature catches it.
	c := bytes.Clone(b)
	c[len(c)-64-5] ^= 1
	_, err = newVerifier(t, VerifierConfig{PrivateKey: dataKey}).Verify(c, t0)
	wantErr(t, err, ErrSignature, "")
	// Tampered and re-signed (as if the signing key had leaked, but not the
	// data key): the AEAD catches it.
	_, err = newVerifier(t, VerifierConfig{PrivateKey: dataKey}).Verify(resign(c, priv1), t0)
	wantErr(t, err, ErrPrivateData, "")
	// The ciphertext of one token moved into another and re-signed: the
	// nonce (the ID) and the additional data (every other field) differ, so
	// it does not decrypt.
	other := issue(t, is, Request{PrivateData: bytes.Repeat([]byte{'x'}, len(secret))})
	sealed := b[len(b)-64-len(secret)-16 : len(b)-64]
	moved := append(bytes.Clone(other[:len(other)-64-len(sealed)]), sealed...)
	moved = append(moved, make([]byte, 64)...)
	_, err = newVerifier(t, VerifierConfig{PrivateKey: dataKey}).Verify(resign(moved, priv1), t0)
	wantErr(t, err, ErrPrivateData, "")
	// Only the ClientID changed and re-signed: the additional data differs.
	c = bytes.Clone(b)
	c[offClient] ^= 1
	_, err = newVerifier(t, VerifierConfig{PrivateKey: dataKey}).Verify(resign(c, priv1), t0)
	wantErr(t, err, ErrPrivateData, "")
}

// Many goroutines verifying one token: exactly one is admitted, the others
// are told it was already used. Distinct tokens are all admitted.
func TestConcurrentVerify(t *testing.T) {
	is := newIssuer(t, IssuerConfig{}, nil)
	v := newVerifier(t, VerifierConfig{})
	b := issue(t, is, Request{})
	const n = 64
	var admitted, replayed atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range n {
		wg.Go(func() {
			<-start
			_, err := v.Verify(b, t0)
			switch {
			case err == nil:
				admitted.Add(1)
			case errors.Is(err, ErrReplayed):
				replayed.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	if admitted.Load() != 1 || replayed.Load() != n-1 {
		t.Fatalf("admitted %d, replayed %d", admitted.Load(), replayed.Load())
	}

	tokens := make([][]byte, n)
	for i := range tokens {
		tokens[i] = issue(t, is, Request{ClientID: uint64(i + 1)})
	}
	seen := make([]atomic.Bool, n)
	for _, b := range tokens {
		wg.Go(func() {
			tok, err := v.Verify(b, t0)
			if err != nil {
				t.Error(err)
				return
			}
			if seen[tok.ClientID-1].Swap(true) {
				t.Errorf("client %d admitted twice", tok.ClientID)
			}
		})
	}
	wg.Wait()
	if got := v.replay.len(); got != n+1 {
		t.Fatalf("replay cache holds %d, want %d", got, n+1)
	}
}

func TestNewVerifierInvalid(t *testing.T) {
	ok := VerifierConfig{Keys: map[uint32]ed25519.PublicKey{1: pub1}, Addrs: []string{server}}
	for _, c := range []struct {
		edit func(*VerifierConfig)
		msg  string
	}{
		{func(c *VerifierConfig) { c.Keys = nil }, "token: invalid: no Keys: the verifier needs the backend's public key"},
		{func(c *VerifierConfig) { c.Keys = map[uint32]ed25519.PublicKey{2: pub1[:31]} }, "token: invalid: Keys[2] is 31 bytes, not an Ed25519 public key (32)"},
		{func(c *VerifierConfig) { c.Addrs = nil }, "token: invalid: no Addrs: the verifier needs this server's public address"},
		{func(c *VerifierConfig) { c.Addrs = []string{server, ":7777"} }, `token: invalid: Addrs: ":7777": no host`},
		{func(c *VerifierConfig) { c.PrivateKey = make([]byte, 16) }, "token: invalid: PrivateKey is 16 bytes, not 32 (an AES-256 key)"},
		{func(c *VerifierConfig) { c.PrivateKeys = map[uint32][]byte{4: {1}} }, "token: invalid: PrivateKeys[4] is 1 bytes, not 32 (an AES-256 key)"},
		{func(c *VerifierConfig) { c.MaxLifetime = time.Millisecond }, "token: invalid: MaxLifetime 1ms is less than a second, the tokens' resolution"},
		{func(c *VerifierConfig) { c.ClockSkew = -time.Second }, "token: invalid: ClockSkew -1s is negative"},
		{func(c *VerifierConfig) { c.ReplayCapacity = -1 }, "token: invalid: ReplayCapacity -1 is negative"},
	} {
		cfg := ok
		c.edit(&cfg)
		_, err := NewVerifier(cfg)
		wantErr(t, err, ErrInvalid, c.msg)
	}
	if _, err := NewVerifier(ok); err != nil {
		t.Fatal(err)
	}
}

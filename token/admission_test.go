package token

import (
	"crypto/ed25519"
	"errors"
	"math/big"
	"testing"
	"time"
)

// A signature with S+L (Ed25519's malleable twin) is refused; a token of
// key 1 relabelled as key 3 (both known to the server) is refused; a
// token admitted is refused again after the clock steps an hour ahead
// (pruning the replay cache) and back.
func TestSignatureAndKeyConfusion(t *testing.T) {
	is, err := NewIssuer(IssuerConfig{SigningKey: priv1, KeyID: 1, ProtocolID: game, Time: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewVerifier(VerifierConfig{Keys: map[uint32]ed25519.PublicKey{1: pub1, 3: pub3}, ProtocolID: game, Addrs: []string{server}})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := is.Issue(Request{ClientID: 5, Servers: []string{server}})
	if err != nil {
		t.Fatal(err)
	}
	// S + L: little-endian S in the last 32 bytes.
	L, _ := new(big.Int).SetString("7237005577332262213973186563042994240857116359379907606001950938285454250989", 10)
	sig := tok[len(tok)-32:]
	le := make([]byte, 32)
	for i := range le {
		le[i] = sig[31-i]
	}
	S := new(big.Int).SetBytes(le)
	S.Add(S, L)
	be := S.FillBytes(make([]byte, 32))
	mal := append([]byte(nil), tok...)
	for i := 0; i < 32; i++ {
		mal[len(mal)-32+i] = be[31-i]
	}
	if _, err := v.Verify(mal, t0); err == nil {
		t.Errorf("S+L signature accepted")
	} else {
		t.Logf("S+L: %v", err)
	}
	relabel := append([]byte(nil), tok...)
	relabel[offKeyID] = 3
	if _, err := v.Verify(relabel, t0); err == nil {
		t.Errorf("key 1's token accepted as key 3")
	} else {
		t.Logf("relabelled key: %v", err)
	}
	if _, err := v.Verify(tok, t0); err != nil {
		t.Fatal(err)
	}
	// Clock jumps an hour ahead (a token issued then prunes everything),
	// then back: the first token must still be refused.
	later, _ := NewIssuer(IssuerConfig{SigningKey: priv1, KeyID: 1, ProtocolID: game, Time: func() time.Time { return t0.Add(time.Hour) }})
	tok2, _ := later.Issue(Request{ClientID: 6, Servers: []string{server}})
	if _, err := v.Verify(tok2, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(tok, t0.Add(time.Second)); err == nil {
		t.Errorf("token re-admitted after the clock stepped back")
	} else {
		t.Logf("after clock step forward and back: %v", err)
	}
}

// Check records nothing: a token it accepts is admitted by Verify after
// it, and by Record once; Record refuses it again, and refuses a token
// that expired since Check.
func TestCheckThenRecord(t *testing.T) {
	is := newIssuer(t, IssuerConfig{}, nil)
	v := newVerifier(t, VerifierConfig{})
	b := issue(t, is, Request{Servers: []string{server}})
	for range 2 {
		if _, err := v.Check(b, t0); err != nil {
			t.Fatalf("check: %v", err)
		}
	}
	tok, err := v.Check(b, t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Record(tok, t0); err != nil {
		t.Fatalf("record after checks: %v", err)
	}
	if err := v.Record(tok, t0); !errors.Is(err, ErrReplayed) {
		t.Fatalf("recorded twice: %v", err)
	}
	if _, err := v.Verify(b, t0); !errors.Is(err, ErrReplayed) {
		t.Fatalf("verified after being recorded: %v", err)
	}
	late := issue(t, is, Request{Servers: []string{server}})
	tok, err = v.Check(late, t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Record(tok, tok.Expires); !errors.Is(err, ErrExpired) {
		t.Fatalf("recorded at its expiry: %v", err)
	}
}

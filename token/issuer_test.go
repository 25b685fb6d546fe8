package token

import (
	"bytes"
	"crypto/ed25519"
	"strings"
	"sync"
	"testing"
	"time"
)

// Issue refuses requests out of the format's limits, saying what is wrong.
func TestIssueInvalid(t *testing.T) {
	is := newIssuer(t, IssuerConfig{}, nil)
	nine := make([]string, 9)
	for i := range nine {
		nine[i] = "s" + string(rune('0'+i)) + ":1"
	}
	for _, c := range []struct {
		r   Request
		msg string
	}{
		{Request{Servers: []string{server}}, "token: invalid: ClientID is 0: the backend must name the player"},
		{Request{ClientID: 1}, "token: invalid: 0 servers, not 1 to 8"},
		{Request{ClientID: 1, Servers: nine}, "token: invalid: 9 servers, not 1 to 8"},
		{Request{ClientID: 1, Servers: []string{"10.0.0.1"}}, `token: invalid: server "10.0.0.1": not host:port`},
		{Request{ClientID: 1, Servers: []string{"10.0.0.1:0"}}, `token: invalid: server "10.0.0.1:0": port "0" is not a number from 1 to 65535`},
		{Request{ClientID: 1, Servers: []string{"a:1", "A.:01"}}, `token: invalid: server "A.:01" named twice (as a:1)`},
		{Request{ClientID: 1, Servers: []string{server}, UserData: make([]byte, 513)}, "token: invalid: user data of 513 bytes, more than 512"},
		{Request{ClientID: 1, Servers: []string{server}, PrivateData: make([]byte, 513)}, "token: invalid: private data of 513 bytes, more than 512"},
		{Request{ClientID: 1, Servers: []string{server}, PrivateData: []byte{1}}, "token: invalid: private data but no IssuerConfig.PrivateKey to encrypt it"},
		{Request{ClientID: 1, Servers: []string{server}, Lifetime: -time.Second}, "token: invalid: Lifetime -1s is negative"},
	} {
		b, err := is.Issue(c.r)
		wantErr(t, err, ErrInvalid, c.msg)
		if b != nil {
			t.Fatalf("%q: bytes returned with the error", c.msg)
		}
	}
	_, err := newIssuer(t, IssuerConfig{}, &clock{time.Date(9999, 12, 31, 23, 59, 50, 0, time.UTC)}).Issue(Request{ClientID: 1, Servers: []string{server}})
	wantErr(t, err, ErrInvalid, "token: invalid: issued at 9999-12-31T23:59:50Z for 30s: the times are not both from 1970 to 9999")
}

func TestNewIssuerInvalid(t *testing.T) {
	corrupt := bytes.Clone(priv1)
	corrupt[40] ^= 1
	for _, c := range []struct {
		c   IssuerConfig
		msg string
	}{
		{IssuerConfig{}, "token: invalid: SigningKey is 0 bytes, not an Ed25519 private key (64)"},
		{IssuerConfig{SigningKey: ed25519.PrivateKey(pub1)}, "token: invalid: SigningKey is 32 bytes, not an Ed25519 private key (64)"},
		{IssuerConfig{SigningKey: corrupt}, "token: invalid: SigningKey is corrupt: its public half does not match its seed"},
		{IssuerConfig{SigningKey: priv1, PrivateKey: make([]byte, 24)}, "token: invalid: PrivateKey is 24 bytes, not 32 (an AES-256 key)"},
		{IssuerConfig{SigningKey: priv1, Lifetime: -1}, "token: invalid: Lifetime -1ns is negative"},
	} {
		_, err := NewIssuer(c.c)
		wantErr(t, err, ErrInvalid, c.msg)
	}
}

// The issuer copies its keys: changing the caller's slices afterwards
// changes nothing.
func TestIssuerCopiesKeys(t *testing.T) {
	key, data := bytes.Clone(priv1), bytes.Clone(dataKey)
	is := newIssuer(t, IssuerConfig{SigningKey: key, KeyID: 1, PrivateKey: data}, nil)
	clear(key)
	clear(data)
	b := issue(t, is, Request{PrivateData: []byte("p")})
	if _, err := newVerifier(t, VerifierConfig{PrivateKey: dataKey}).Verify(b, t0); err != nil {
		t.Fatal(err)
	}
}

// Concurrent Issue calls give distinct, valid tokens.
func TestConcurrentIssue(t *testing.T) {
	is := newIssuer(t, IssuerConfig{PrivateKey: dataKey}, nil)
	v := newVerifier(t, VerifierConfig{PrivateKey: dataKey})
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			b, err := is.Issue(Request{ClientID: uint64(i + 1), Servers: []string{server}, PrivateData: []byte(strings.Repeat("p", i+1))})
			if err != nil {
				t.Error(err)
				return
			}
			tok, err := v.Verify(b, t0)
			if err != nil {
				t.Error(err)
				return
			}
			if tok.ClientID != uint64(i+1) || len(tok.PrivateData) != i+1 {
				t.Errorf("token %d: %v", i, tok.String())
			}
		})
	}
	wg.Wait()
}

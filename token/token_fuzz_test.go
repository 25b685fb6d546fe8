package token

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"testing"
	"time"
)

// FuzzVerify: Verify never panics on any bytes, refuses them with an error
// wrapping exactly one sentinel, and accepts nothing whose Ed25519
// signature does not verify under the key it names; the bytes it accepts
// are refused as a replay the second time. Whatever parses re-encodes to the
// same bytes (the layout is canonical: one encoding per token). The seeds
// are valid tokens of both keys, with and without private data, and tokens
// each refused for one reason.
func FuzzVerify(f *testing.F) {
	is := newIssuer(f, IssuerConfig{PrivateKey: dataKey}, nil)
	is3 := newIssuer(f, IssuerConfig{SigningKey: priv3, KeyID: 3, PrivateKey: dataKey}, nil)
	plain := issue(f, is, Request{})
	f.Add(plain)
	f.Add(issue(f, is, Request{Servers: []string{"b.example:2", server}, Spectator: true,
		UserData: []byte("name=Ada"), PrivateData: []byte("secret")}))
	f.Add(issue(f, is3, Request{ClientID: 7, Servers: []string{"[2001:db8::1]:9", "b.example:2"}, UserData: []byte{0, 1, 2}}))
	f.Add(issue(f, is, Request{Servers: []string{"10.0.0.2:7777"}}))                         // wrong server
	f.Add(issue(f, is, Request{Lifetime: time.Hour}))                                        // lifetime
	f.Add(issue(f, newIssuer(f, IssuerConfig{}, &clock{t0.Add(-time.Hour)}), Request{}))     // expired
	f.Add(issue(f, newIssuer(f, IssuerConfig{ProtocolID: 9}, nil), Request{}))               // protocol
	f.Add(issue(f, newIssuer(f, IssuerConfig{SigningKey: priv1, KeyID: 2}, nil), Request{})) // unknown key
	f.Add(plain[:len(plain)-1])
	f.Add([]byte{Version})
	f.Add([]byte{})
	keys := map[uint32]ed25519.PublicKey{1: pub1, 3: pub3}
	f.Fuzz(func(t *testing.T, b []byte) {
		in := bytes.Clone(b)
		v := newVerifier(t, VerifierConfig{PrivateKey: dataKey, Addrs: []string{server, "b.example:2"}})
		tok, err := v.Verify(b, t0)
		if !bytes.Equal(b, in) {
			t.Fatal("Verify changed its input")
		}
		p, perr := parse(b)
		if perr == nil {
			again := appendPrefix(nil, &p.Token, len(p.sealed))
			if again = append(again, p.sealed...); !bytes.Equal(again, p.signed) {
				t.Fatalf("re-encoded\n% x\nparsed\n% x", again, p.signed)
			}
		}
		if err != nil {
			kindOf(t, err)
			if (perr != nil) != errors.Is(err, ErrMalformed) {
				t.Fatalf("parse: %v; Verify: %v", perr, err)
			}
			return
		}
		key, ok := keys[tok.KeyID]
		if perr != nil || !ok || !ed25519.Verify(key, b[:len(b)-ed25519.SignatureSize], b[len(b)-ed25519.SignatureSize:]) {
			t.Fatalf("accepted without a valid signature: % x", b)
		}
		if tok.ID != p.ID || tok.ClientID != p.ClientID || !t0.Before(tok.Expires) {
			t.Fatalf("accepted %v, parsed %v", tok.String(), p.Token.String())
		}
		if _, err := v.Verify(b, t0); !errors.Is(err, ErrReplayed) {
			t.Fatalf("second Verify: %v", err)
		}
	})
}

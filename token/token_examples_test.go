package token_test

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"time"

	"github.com/netsmooth/netsmooth/token"
)

// The whole path: the backend issues a token for the server the matchmaker
// picked; the game server verifies it on the client's first message and
// admits the client once.
func Example() {
	// Once, offline: the backend's key pair. The private key stays on the
	// backend; every game server gets the public key.
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		panic(err)
	}
	const game = 0x6e73_0001 // this game and network version

	// Backend: a player (account 42) asks to play; matchmaking picked the
	// server at 203.0.113.7:7777.
	issuer, err := token.NewIssuer(token.IssuerConfig{SigningKey: priv, KeyID: 1, ProtocolID: game})
	if err != nil {
		panic(err)
	}
	tok, err := issuer.Issue(token.Request{
		ClientID: 42,
		Servers:  []string{"203.0.113.7:7777"},
		UserData: []byte("Ada"),
	})
	if err != nil {
		panic(err)
	}
	text := token.EncodeString(tok) // returned to the client over HTTPS, with the address

	// Game server at 203.0.113.7:7777, at startup.
	verifier, err := token.NewVerifier(token.VerifierConfig{
		Keys:       map[uint32]ed25519.PublicKey{1: pub},
		ProtocolID: game,
		Addrs:      []string{"203.0.113.7:7777"},
	})
	if err != nil {
		panic(err)
	}
	// The client's first message, after the encrypted handshake, carries
	// the token.
	first, err := token.ParseString(text)
	if err != nil {
		panic(err)
	}
	t, err := verifier.Verify(first, time.Now())
	if err != nil {
		fmt.Println("refused:", err)
		return
	}
	fmt.Printf("admitted client %d (%s), spectator %v\n", t.ClientID, t.UserData, t.Spectator)

	// The same token again, from another connection.
	_, err = verifier.Verify(first, time.Now())
	fmt.Println("again:", errors.Is(err, token.ErrReplayed))

	// Another server of the fleet.
	other, _ := token.NewVerifier(token.VerifierConfig{
		Keys:       map[uint32]ed25519.PublicKey{1: pub},
		ProtocolID: game,
		Addrs:      []string{"203.0.113.8:7777"},
	})
	_, err = other.Verify(first, time.Now())
	fmt.Println(err)
	// Output:
	// admitted client 42 (Ada), spectator false
	// again: true
	// token: valid for 203.0.113.7:7777, not for 203.0.113.8:7777
}

// Private data travels encrypted: the client holding the token cannot read
// it; game servers holding the shared key can.
func ExampleIssuer_Issue_privateData() {
	pub, priv, _ := ed25519.GenerateKey(nil)
	dataKey := make([]byte, token.PrivateKeySize) // in practice: from crypto/rand, kept in the backend's and servers' secrets
	issuer, _ := token.NewIssuer(token.IssuerConfig{SigningKey: priv, KeyID: 1, PrivateKey: dataKey})
	tok, err := issuer.Issue(token.Request{
		ClientID:    42,
		Servers:     []string{"play.example.com:7777"},
		Spectator:   true,
		PrivateData: []byte("match=8812;elo=1530"),
		Lifetime:    10 * time.Second,
	})
	if err != nil {
		panic(err)
	}

	// What the client can read.
	public, _ := token.ParseUnverified(tok)
	fmt.Println("client sees:", public.Servers, public.Expires.Sub(public.IssuedAt), public.PrivateData == nil)

	// What the server reads.
	verifier, _ := token.NewVerifier(token.VerifierConfig{
		Keys:       map[uint32]ed25519.PublicKey{1: pub},
		Addrs:      []string{"PLAY.example.com:7777"},
		PrivateKey: dataKey,
	})
	t, err := verifier.Verify(tok, time.Now())
	if err != nil {
		panic(err)
	}
	fmt.Printf("server reads: %s, spectator %v\n", t.PrivateData, t.Spectator)
	// Output:
	// client sees: [play.example.com:7777] 10s true
	// server reads: match=8812;elo=1530, spectator true
}

// A server logs the full error and tells the client the short reason: the
// sentinel's text.
func ExampleVerifier_Verify_refusals() {
	pub, priv, _ := ed25519.GenerateKey(nil)
	issuer, _ := token.NewIssuer(token.IssuerConfig{SigningKey: priv, KeyID: 1})
	verifier, _ := token.NewVerifier(token.VerifierConfig{Keys: map[uint32]ed25519.PublicKey{1: pub}, Addrs: []string{"10.0.0.1:7777"}})
	tok, _ := issuer.Issue(token.Request{ClientID: 42, Servers: []string{"10.0.0.1:7777"}})

	reasons := []error{token.ErrMalformed, token.ErrUnknownKey, token.ErrSignature, token.ErrWrongProtocol,
		token.ErrExpired, token.ErrNotYetValid, token.ErrLifetime, token.ErrWrongServer, token.ErrPrivateData,
		token.ErrReplayed, token.ErrBusy}
	admit := func(b []byte, now time.Time) {
		_, err := verifier.Verify(b, now)
		if err == nil {
			fmt.Println("admitted")
			return
		}
		for _, r := range reasons {
			if errors.Is(err, r) {
				fmt.Printf("refused (%v)\n", r) // to the client; the server logs err
			}
		}
	}
	admit(tok, time.Now().Add(time.Minute))
	admit(tok[:50], time.Now())
	admit(tok, time.Now())
	admit(tok, time.Now())
	// Output:
	// refused (token: expired)
	// refused (token: malformed)
	// admitted
	// refused (token: already used)
}

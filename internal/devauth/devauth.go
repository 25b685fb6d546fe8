// Package devauth is a development stand-in for a game's backend, shared
// by the example scenes: it makes an Ed25519 signing key at start, issues
// connect tokens for the local server (package token), and hands clients
// a Ticket (where to connect, the server's certificate hash, a token)
// over plain HTTP on loopback. A real backend authenticates players and
// serves tickets over HTTPS; see package token.
package devauth

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/netsmooth/netsmooth/token"
)

// ProtocolID is the examples' game and protocol number in tokens.
const ProtocolID = 0x6e65_7473_6d6f_6f02 // "netsmoo" + protocol version 2

// Backend issues connect tokens with a key of its own.
type Backend struct {
	pub    ed25519.PublicKey
	issuer *token.Issuer
	player atomic.Uint64
}

// New returns a backend with a new signing key.
func New() (*Backend, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	is, err := token.NewIssuer(token.IssuerConfig{SigningKey: priv, KeyID: 1, ProtocolID: ProtocolID})
	if err != nil {
		return nil, err
	}
	return &Backend{pub: pub, issuer: is}, nil
}

// Tokens is what a game server needs to verify the backend's tokens
// (server.Config.Tokens); Addrs is left to the server.
func (b *Backend) Tokens() token.VerifierConfig {
	return token.VerifierConfig{Keys: map[uint32]ed25519.PublicKey{1: b.pub}, ProtocolID: ProtocolID}
}

// Issue returns a token admitting a new player (a number of its own) to
// the server at addr.
func (b *Backend) Issue(addr string, spectator bool) ([]byte, error) {
	return b.issuer.Issue(token.Request{ClientID: b.player.Add(1), Servers: []string{addr}, Spectator: spectator})
}

// Ticket is what a client needs to join: the server's address (and its
// WebTransport and WebSocket endpoints, for browsers), the hash of its
// self-signed certificate, and a connect token.
type Ticket struct {
	Addr         string `json:"addr"`
	WebTransport string `json:"webTransport,omitempty"`
	WebSocket    string `json:"webSocket,omitempty"`
	CertHash     string `json:"certHash"` // hex SHA-256 of the certificate's DER
	Token        string `json:"token"`    // token.EncodeString form
}

// Hash returns the ticket's certificate hash.
func (t Ticket) Hash() ([32]byte, error) {
	var h [32]byte
	b, err := hex.DecodeString(t.CertHash)
	if err != nil || len(b) != len(h) {
		return h, fmt.Errorf("devauth: certificate hash %q: want 64 hex digits", t.CertHash)
	}
	copy(h[:], b)
	return h, nil
}

// RawToken returns the ticket's token bytes.
func (t Ticket) RawToken() ([]byte, error) { return token.ParseString(t.Token) }

// Ticket issues a ticket for the server described by base (its Addr,
// endpoints and certificate hash; Token is filled in).
func (b *Backend) Ticket(base Ticket, spectator bool) (Ticket, error) {
	tok, err := b.Issue(base.Addr, spectator)
	if err != nil {
		return Ticket{}, err
	}
	base.Token = token.EncodeString(tok)
	return base, nil
}

// HashString formats a certificate hash for a Ticket.
func HashString(h [32]byte) string { return hex.EncodeToString(h[:]) }

// Handler serves a fresh Ticket for base as JSON on every GET (with
// ?spectator=1, a spectator's): the development backend's endpoint.
func (b *Backend) Handler(base func() Ticket) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t, err := b.Ticket(base(), r.URL.Query().Get("spectator") == "1")
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		json.NewEncoder(w).Encode(t)
	})
}

// fetchClient keeps no idle connections: a game fetches a ticket once per
// connection, and an idle keep-alive would outlive it.
var fetchClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// Fetch gets a Ticket from a development backend's URL.
func Fetch(ctx context.Context, url string) (Ticket, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Ticket{}, err
	}
	rsp, err := fetchClient.Do(req)
	if err != nil {
		return Ticket{}, fmt.Errorf("devauth: fetching a ticket: %w", err)
	}
	defer rsp.Body.Close()
	if rsp.StatusCode != http.StatusOK {
		return Ticket{}, fmt.Errorf("devauth: fetching a ticket: HTTP %d", rsp.StatusCode)
	}
	var t Ticket
	if err := json.NewDecoder(rsp.Body).Decode(&t); err != nil {
		return Ticket{}, fmt.Errorf("devauth: fetching a ticket: %w", err)
	}
	return t, nil
}

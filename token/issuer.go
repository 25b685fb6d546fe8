package token

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ed25519"
	"crypto/rand"
	"time"
)

// DefaultLifetime is the lifetime of the tokens an [Issuer] issues unless
// configured otherwise: long enough for a client to receive its token over
// HTTPS and connect, short enough that a leaked token is soon worthless.
const DefaultLifetime = 30 * time.Second

// IssuerConfig configures an [Issuer]: the backend's side.
type IssuerConfig struct {
	// SigningKey is the backend's Ed25519 private key. Only the backend
	// holds it; game servers hold its public half. Required.
	SigningKey ed25519.PrivateKey
	// KeyID names SigningKey (and PrivateKey) in every token, so that
	// verifiers pick the right public key and keys can be rotated.
	KeyID uint32
	// ProtocolID names the game and its network version. Verifiers refuse
	// tokens with another ProtocolID.
	ProtocolID uint64
	// PrivateKey, if set, is the PrivateKeySize-byte AES-256 key that
	// encrypts Request.PrivateData; the game servers that read private data
	// hold it too. Generate it with crypto/rand. Optional: without it,
	// requests with PrivateData are refused.
	PrivateKey []byte
	// Lifetime is how long tokens stay valid after issue, rounded up to
	// whole seconds; 0 means DefaultLifetime. It must not exceed the
	// verifiers' MaxLifetime (DefaultMaxLifetime unless configured).
	Lifetime time.Duration
	// Time returns the current time; nil means time.Now. A backend whose
	// tokens must follow another clock than the machine's (a simulation,
	// a test) sets it.
	Time func() time.Time
}

// Request is what the backend grants one client in one token.
type Request struct {
	// ClientID is the player's identity in the backend (an account
	// number); not 0.
	ClientID uint64
	// Servers lists the addresses, host:port as clients dial them, of the
	// servers the token admits to: 1 to MaxServers. They are written in
	// canonical form (see the package documentation); a token naming
	// several servers can be used once on each.
	Servers []string
	// Spectator grants watching only.
	Spectator bool
	// UserData is public data for the game server: at most MaxUserData
	// bytes, readable by the client.
	UserData []byte
	// PrivateData is data for the game server only, encrypted: at most
	// MaxPrivateData bytes. It needs IssuerConfig.PrivateKey.
	PrivateData []byte
	// Lifetime overrides IssuerConfig.Lifetime for this token if not 0.
	Lifetime time.Duration
}

// Issuer issues signed connect tokens. It runs on the game's backend, never
// on a game server: whoever holds its signing key can admit anyone
// anywhere. It is safe for concurrent use.
type Issuer struct {
	key      ed25519.PrivateKey
	keyID    uint32
	protocol uint64
	aead     cipher.AEAD // nil without a PrivateKey
	lifetime time.Duration
	now      func() time.Time
}

// NewIssuer returns an Issuer for c, or an error wrapping ErrInvalid that
// names the field at fault. It keeps copies of the keys.
func NewIssuer(c IssuerConfig) (*Issuer, error) {
	if len(c.SigningKey) != ed25519.PrivateKeySize {
		return nil, fail(ErrInvalid, "invalid: SigningKey is %d bytes, not an Ed25519 private key (%d)", len(c.SigningKey), ed25519.PrivateKeySize)
	}
	// An ed25519.PrivateKey is a seed and a copy of its public key; a key
	// whose halves disagree signs tokens that no verifier accepts.
	key := ed25519.NewKeyFromSeed(c.SigningKey.Seed())
	if !bytes.Equal(key, c.SigningKey) {
		return nil, fail(ErrInvalid, "invalid: SigningKey is corrupt: its public half does not match its seed")
	}
	is := &Issuer{key: key, keyID: c.KeyID, protocol: c.ProtocolID, lifetime: c.Lifetime, now: c.Time}
	if c.PrivateKey != nil {
		aead, err := newAEAD(c.PrivateKey, "PrivateKey")
		if err != nil {
			return nil, err
		}
		is.aead = aead
	}
	if is.lifetime == 0 {
		is.lifetime = DefaultLifetime
	}
	if is.lifetime < 0 {
		return nil, fail(ErrInvalid, "invalid: Lifetime %v is negative", c.Lifetime)
	}
	if is.now == nil {
		is.now = time.Now
	}
	return is, nil
}

// newAEAD returns AES-256-GCM under key, the AEAD that seals private data.
func newAEAD(key []byte, name string) (cipher.AEAD, error) {
	if len(key) != PrivateKeySize {
		return nil, fail(ErrInvalid, "invalid: %s is %d bytes, not %d (an AES-256 key)", name, len(key), PrivateKeySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fail(ErrInvalid, "invalid: %s: %v", name, err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fail(ErrInvalid, "invalid: %s: %v", name, err)
	}
	return aead, nil
}

// Issue returns a signed token granting r, valid from now for the issuer's
// lifetime (or r.Lifetime), with a fresh random ID. It refuses a request
// out of the format's limits with an error wrapping ErrInvalid that says
// what was wrong. The backend hands the token to the client together with
// the address of the server to connect to, over HTTPS: it is a bearer
// credential.
func (is *Issuer) Issue(r Request) ([]byte, error) {
	if r.ClientID == 0 {
		return nil, fail(ErrInvalid, "invalid: ClientID is 0: the backend must name the player")
	}
	if len(r.Servers) < 1 || len(r.Servers) > MaxServers {
		return nil, fail(ErrInvalid, "invalid: %d servers, not 1 to %d", len(r.Servers), MaxServers)
	}
	servers := make([]string, len(r.Servers))
	for i, s := range r.Servers {
		c, err := canonicalAddr(s)
		if err != nil {
			return nil, fail(ErrInvalid, "invalid: server %q: %v", s, err)
		}
		for _, prev := range servers[:i] {
			if prev == c {
				return nil, fail(ErrInvalid, "invalid: server %q named twice (as %s)", s, c)
			}
		}
		servers[i] = c
	}
	if len(r.UserData) > MaxUserData {
		return nil, fail(ErrInvalid, "invalid: user data of %d bytes, more than %d", len(r.UserData), MaxUserData)
	}
	if len(r.PrivateData) > MaxPrivateData {
		return nil, fail(ErrInvalid, "invalid: private data of %d bytes, more than %d", len(r.PrivateData), MaxPrivateData)
	}
	if len(r.PrivateData) > 0 && is.aead == nil {
		return nil, fail(ErrInvalid, "invalid: private data but no IssuerConfig.PrivateKey to encrypt it")
	}
	lifetime := r.Lifetime
	if lifetime == 0 {
		lifetime = is.lifetime
	}
	if lifetime < 0 {
		return nil, fail(ErrInvalid, "invalid: Lifetime %v is negative", lifetime)
	}

	// Second resolution: IssuedAt is the current second, Expires that plus
	// the lifetime rounded up to whole seconds.
	issued := is.now().Unix()
	secs := int64(lifetime / time.Second)
	if lifetime%time.Second != 0 {
		secs++
	}
	if issued < 0 || issued+secs > maxUnix {
		return nil, fail(ErrInvalid, "invalid: issued at %s for %v: the times are not both from 1970 to 9999", time.Unix(issued, 0).UTC().Format(time.RFC3339), lifetime)
	}
	t := Token{
		KeyID:      is.keyID,
		ProtocolID: is.protocol,
		ClientID:   r.ClientID,
		IssuedAt:   time.Unix(issued, 0),
		Expires:    time.Unix(issued+secs, 0),
		Servers:    servers,
		Spectator:  r.Spectator,
		UserData:   r.UserData,
	}
	rand.Read(t.ID[:]) // never fails (crypto/rand since Go 1.24)

	sealed := 0
	if len(r.PrivateData) > 0 {
		sealed = len(r.PrivateData) + is.aead.Overhead()
	}
	size := encodedSize(&t, sealed)
	if size > MaxSize {
		return nil, fail(ErrInvalid, "invalid: the token would be %d bytes, more than MaxSize (%d): name fewer or shorter servers or carry less data", size, MaxSize)
	}
	b := appendPrefix(make([]byte, 0, size), &t, sealed)
	if sealed > 0 {
		// The nonce is the token's random ID (its first 12 bytes), unique
		// per token; the additional data is every byte before the
		// ciphertext, so the ciphertext belongs to this token alone. The
		// signature covers both again.
		b = append(b, is.aead.Seal(nil, t.ID[:nonceLen], r.PrivateData, b)...)
	}
	return append(b, ed25519.Sign(is.key, b)...), nil
}

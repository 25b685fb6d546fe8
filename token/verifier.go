package token

import (
	"crypto/cipher"
	"crypto/ed25519"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Defaults of a [VerifierConfig].
const (
	// DefaultMaxLifetime is the longest lifetime (Expires - IssuedAt) a
	// verifier accepts unless configured otherwise. It bounds how long a
	// stolen token stays usable however its issuer was configured, and how
	// long the replay cache must remember each token.
	DefaultMaxLifetime = 5 * time.Minute
	// DefaultClockSkew is how far in the future a token's IssuedAt may be,
	// by the verifier's clock, unless configured otherwise: the backend's
	// and the game servers' clocks differ a little even under NTP.
	DefaultClockSkew = 10 * time.Second
	// DefaultReplayCapacity is the number of unexpired admitted tokens a
	// verifier remembers unless configured otherwise: 218 admissions a
	// second, sustained, if every token lived the default MaxLifetime;
	// 2184 a second with DefaultLifetime tokens.
	DefaultReplayCapacity = 65536
)

// VerifierConfig configures a [Verifier]: the game server's side.
type VerifierConfig struct {
	// Keys are the backend's Ed25519 public keys by KeyID: every key whose
	// tokens may still be presented (during a rotation, the old one and the
	// new one). Required.
	Keys map[uint32]ed25519.PublicKey
	// ProtocolID is the game and network version this server runs; tokens
	// for another are refused.
	ProtocolID uint64
	// Addrs are this server's public addresses, host:port, exactly as the
	// backend writes them in tokens (as clients dial them), not the address
	// it listens on: behind NAT or a load balancer, the public IP or DNS
	// name and port that the allocator reports; if the backend may name the
	// server both by a DNS name and by its IP address, list both. Compared
	// after canonicalisation (see the package documentation). At least one.
	Addrs []string
	// PrivateKey is the AES-256 key (PrivateKeySize bytes) that decrypts
	// the private data of tokens of any KeyID not in PrivateKeys. Optional:
	// without a key for its KeyID, a token carrying private data is
	// refused (ErrPrivateData); tokens without private data do not need it.
	PrivateKey []byte
	// PrivateKeys are AES-256 keys by KeyID, for rotating the private data
	// key together with the signing key; each overrides PrivateKey for its
	// KeyID. Optional.
	PrivateKeys map[uint32][]byte
	// MaxLifetime is the longest lifetime accepted; 0 means
	// DefaultMaxLifetime.
	MaxLifetime time.Duration
	// ClockSkew is how far in the future IssuedAt may be; 0 means
	// DefaultClockSkew (for no allowance, 1 ns: IssuedAt is whole seconds).
	// Expiry gets no such allowance.
	ClockSkew time.Duration
	// ReplayCapacity is the number of unexpired admitted tokens remembered;
	// when that many are held, new tokens are refused (ErrBusy) until some
	// expire. 0 means DefaultReplayCapacity. See the package documentation
	// for sizing and memory.
	ReplayCapacity int
}

// Verifier checks connect tokens on a game server and admits each one
// once. It holds only public keys (and, optionally, the private data key):
// it cannot mint tokens. It is safe for concurrent use: the signature check,
// which is most of the work, runs in parallel; only the replay cache's
// bookkeeping is serialised.
type Verifier struct {
	keys        map[uint32]ed25519.PublicKey
	keyList     string // the KeyIDs known, for messages
	protocol    uint64
	addrs       map[string]bool
	addrList    string // Addrs, for messages
	aead        cipher.AEAD
	aeads       map[uint32]cipher.AEAD
	maxLifetime time.Duration
	skew        time.Duration
	replay      *replayCache
}

// NewVerifier returns a Verifier for c, or an error wrapping ErrInvalid that
// names the field at fault. It keeps copies of the keys.
func NewVerifier(c VerifierConfig) (*Verifier, error) {
	if len(c.Keys) == 0 {
		return nil, fail(ErrInvalid, "invalid: no Keys: the verifier needs the backend's public key")
	}
	v := &Verifier{
		keys:        make(map[uint32]ed25519.PublicKey, len(c.Keys)),
		protocol:    c.ProtocolID,
		addrs:       make(map[string]bool, len(c.Addrs)),
		maxLifetime: c.MaxLifetime,
		skew:        c.ClockSkew,
	}
	if err := v.setKeys(c.Keys); err != nil {
		return nil, err
	}
	if err := v.setAddrs(c.Addrs); err != nil {
		return nil, err
	}

	if c.PrivateKey != nil {
		aead, err := newAEAD(c.PrivateKey, "PrivateKey")
		if err != nil {
			return nil, err
		}
		v.aead = aead
	}
	if len(c.PrivateKeys) > 0 {
		v.aeads = make(map[uint32]cipher.AEAD, len(c.PrivateKeys))
		for id, k := range c.PrivateKeys {
			aead, err := newAEAD(k, fmt.Sprintf("PrivateKeys[%d]", id))
			if err != nil {
				return nil, err
			}
			v.aeads[id] = aead
		}
	}

	if v.maxLifetime == 0 {
		v.maxLifetime = DefaultMaxLifetime
	}
	if v.maxLifetime < time.Second {
		return nil, fail(ErrInvalid, "invalid: MaxLifetime %v is less than a second, the tokens' resolution", c.MaxLifetime)
	}
	if v.skew == 0 {
		v.skew = DefaultClockSkew
	}
	if v.skew < 0 {
		return nil, fail(ErrInvalid, "invalid: ClockSkew %v is negative", c.ClockSkew)
	}
	capacity := c.ReplayCapacity
	if capacity == 0 {
		capacity = DefaultReplayCapacity
	}
	if capacity < 0 {
		return nil, fail(ErrInvalid, "invalid: ReplayCapacity %d is negative", c.ReplayCapacity)
	}
	v.replay = newReplayCache(capacity)
	return v, nil
}

// setKeys takes the backend's public keys by key ID, and lists their IDs
// for the errors that name them.
func (v *Verifier) setKeys(keys map[uint32]ed25519.PublicKey) error {
	ids := make([]uint32, 0, len(keys))
	for id, k := range keys {
		if len(k) != ed25519.PublicKeySize {
			return fail(ErrInvalid, "invalid: Keys[%d] is %d bytes, not an Ed25519 public key (%d)", id, len(k), ed25519.PublicKeySize)
		}
		v.keys[id] = slices.Clone(k)
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var list []string
	for _, id := range ids {
		list = append(list, strconv.FormatUint(uint64(id), 10))
	}
	v.keyList = strings.Join(list, ", ")
	return nil
}

// setAddrs takes this server's public addresses in canonical form, and
// lists them for the errors that name them.
func (v *Verifier) setAddrs(addrs []string) error {
	if len(addrs) == 0 {
		return fail(ErrInvalid, "invalid: no Addrs: the verifier needs this server's public address")
	}
	var list []string
	for _, a := range addrs {
		ca, err := canonicalAddr(a)
		if err != nil {
			return fail(ErrInvalid, "invalid: Addrs: %q: %v", a, err)
		}
		if !v.addrs[ca] {
			v.addrs[ca] = true
			list = append(list, ca)
		}
	}
	v.addrList = strings.Join(list, ", ")
	return nil
}

// Verify checks the token b at time now (usually time.Now()) and, if it
// admits a connection, records it as used and returns its content, private
// data decrypted. The checks, in order:
//
//  1. the layout: version, every length and count within its limit, no
//     trailing bytes (ErrMalformed);
//  2. the KeyID names a known key (ErrUnknownKey) and the Ed25519
//     signature over every byte before it verifies (ErrSignature); the
//     fields below are the backend's word from here on;
//  3. the ProtocolID is this server's (ErrWrongProtocol);
//  4. now is before Expires (ErrExpired), not more than ClockSkew before
//     IssuedAt (ErrNotYetValid), and the lifetime is positive and at most
//     MaxLifetime (ErrLifetime);
//  5. one of Servers is one of Addrs (ErrWrongServer);
//  6. the private data, if any, decrypts (ErrPrivateData);
//  7. the token was not admitted before (ErrReplayed) and the replay
//     cache has room for it (ErrBusy).
//
// Only a token passing every check is recorded: a refused one can be
// presented again (and refused again). Verify never panics, whatever the
// bytes; b is not retained, and the Token returned does not alias it.
func (v *Verifier) Verify(b []byte, now time.Time) (Token, error) {
	t, err := v.Check(b, now)
	if err != nil {
		return Token{}, err
	}
	if err := v.Record(t, now); err != nil {
		return Token{}, err
	}
	return t, nil
}

// Check is Verify without its last step: it makes checks 1 to 6 and
// returns the token's content, recording nothing. A server that must also
// find room for the client checks the token first, then records it with
// Record once it has the room, so that a client refused for want of room
// keeps its token for another try; the expensive checks (the signature)
// then run outside whatever lock guards the room.
func (v *Verifier) Check(b []byte, now time.Time) (Token, error) {
	p, err := parse(b)
	if err != nil {
		return Token{}, err
	}
	t := &p.Token
	key, ok := v.keys[t.KeyID]
	if !ok {
		return Token{}, fail(ErrUnknownKey, "signed with key %d, unknown to this server (it knows %s)", t.KeyID, v.keyList)
	}
	if !ed25519.Verify(key, p.signed, p.sig) {
		return Token{}, fail(ErrSignature, "bad signature (key %d): altered, forged, or signed with another key", t.KeyID)
	}
	if t.ProtocolID != v.protocol {
		return Token{}, fail(ErrWrongProtocol, "for protocol %#x, not for this server's %#x", t.ProtocolID, v.protocol)
	}
	if !now.Before(t.Expires) {
		return Token{}, fail(ErrExpired, "expired %s ago", seconds(now.Sub(t.Expires)))
	}
	if early := t.IssuedAt.Sub(now); early > v.skew {
		return Token{}, fail(ErrNotYetValid, "issued %s in the future (allowed clock skew %s): check the clocks of the backend and this server",
			seconds(early), seconds(v.skew))
	}
	// Subtracting the Unix seconds could overflow for hostile values;
	// time.Time.Sub saturates.
	if life := t.Expires.Sub(t.IssuedAt); life <= 0 {
		return Token{}, fail(ErrLifetime, "lifetime %s is not positive (expires before it was issued)", seconds(life))
	} else if life > v.maxLifetime {
		return Token{}, fail(ErrLifetime, "lifetime %s, more than the %s allowed", seconds(life), seconds(v.maxLifetime))
	}
	if !v.forMe(t.Servers) {
		return Token{}, fail(ErrWrongServer, "valid for %s, not for %s", strings.Join(t.Servers, ", "), v.addrList)
	}
	if len(p.sealed) > 0 {
		aead := v.aeads[t.KeyID]
		if aead == nil {
			aead = v.aead
		}
		if aead == nil {
			return Token{}, fail(ErrPrivateData, "carries private data, and this server has no PrivateKey for key %d", t.KeyID)
		}
		pt, err := aead.Open(nil, t.ID[:nonceLen], p.sealed, p.aad)
		if err != nil {
			return Token{}, fail(ErrPrivateData, "private data does not decrypt: this server's PrivateKey for key %d is not the backend's", t.KeyID)
		}
		t.PrivateData = pt
	}
	return p.Token, nil
}

// Record admits t, a token Check accepted, at time now: it fails with
// ErrExpired if t has expired since, ErrReplayed if it was admitted
// before, ErrBusy if the replay cache is full. Of two connections that
// present the same token at once, one is admitted.
func (v *Verifier) Record(t Token, now time.Time) error {
	if !now.Before(t.Expires) {
		return fail(ErrExpired, "expired %s ago", seconds(now.Sub(t.Expires)))
	}
	return v.replay.admit(t.ID, t.Expires.Unix(), now)
}

// forMe reports whether one of servers is one of the verifier's addresses:
// as written (the issuer writes canonical forms), or else once
// canonicalised.
func (v *Verifier) forMe(servers []string) bool {
	for _, s := range servers {
		if v.addrs[s] {
			return true
		}
	}
	for _, s := range servers {
		if c, err := canonicalAddr(s); err == nil && v.addrs[c] {
			return true
		}
	}
	return false
}

// seconds formats d in seconds for messages: "12 s", "0.4 s", "300 s".
func seconds(d time.Duration) string {
	if d < 10*time.Second && d > -10*time.Second {
		return strconv.FormatFloat(d.Round(100*time.Millisecond).Seconds(), 'f', -1, 64) + " s"
	}
	return strconv.FormatFloat(d.Round(time.Second).Seconds(), 'f', -1, 64) + " s"
}

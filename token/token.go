package token

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// Limits of the format. [Issuer.Issue] refuses a request beyond them
// (ErrInvalid) and [Verifier.Verify] a token beyond them (ErrMalformed).
const (
	// Version is the first byte of every token, the format's magic and
	// version in one. A token starting with another byte is ErrMalformed.
	Version = 1
	// MaxSize bounds a token's encoded size in bytes, signature included;
	// its text form ([EncodeString]) is at most 2731 characters. The field
	// limits below allow more than this together (3210 bytes), so a request
	// may be refused for its total size: name fewer or shorter servers, or
	// carry less data. A token naming one server and no data is about 140
	// bytes (190 characters as text).
	MaxSize = 2048
	// MaxServers is the most server addresses a token names; it names at
	// least one.
	MaxServers = 8
	// MaxServerLen bounds one server address, in bytes, in its canonical
	// host:port form.
	MaxServerLen = 255
	// MaxUserData bounds Token.UserData, in bytes.
	MaxUserData = 512
	// MaxPrivateData bounds Token.PrivateData (the plaintext), in bytes.
	MaxPrivateData = 512
	// IDSize is the size of Token.ID, in bytes.
	IDSize = 16
	// PrivateKeySize is the size of the AEAD key that encrypts private
	// data: an AES-256 key.
	PrivateKeySize = 32
)

// Offsets of the fixed fields, in the layout described in the package
// documentation.
const (
	offVersion  = 0
	offKeyID    = 1
	offProtocol = 5
	offClient   = 13
	offID       = 21
	offIssued   = 37
	offExpires  = 45
	offFlags    = 53
	offCount    = 54
	fixedSize   = 55

	maxUnix  = 253402300799 // 9999-12-31T23:59:59Z, the latest time a token may name
	sigSize  = ed25519.SignatureSize
	minSize  = fixedSize + 1 + 1 + 2 + 2 + sigSize // one 1-byte server, no data
	sealTag  = 16                                  // AES-GCM's tag
	nonceLen = 12                                  // AES-GCM's nonce: Token.ID[:12]

	flagSpectator = 1 << 0
	knownFlags    = flagSpectator
)

// Token is a connect token's content: what the backend grants one client.
//
// A backend fills the identity fields in a [Request] and [Issuer.Issue] adds
// the rest; a game server gets a Token back from [Verifier.Verify] only once
// every check has passed, private data decrypted.
type Token struct {
	// KeyID names the backend's signing key (and the AEAD key, if any) that
	// the token was issued with, so that keys can be rotated: verifiers hold
	// the public keys of every KeyID in service.
	KeyID uint32
	// ProtocolID names the game and its network version, so that a token
	// issued for one game (or an incompatible version of it) is refused by
	// the servers of another.
	ProtocolID uint64
	// ClientID is the player's identity as the backend knows it (an account
	// number). It is the backend's word, never the client's; it is not the
	// player's NetID, which the game server assigns.
	ClientID uint64
	// ID is random and unique per token: the key by which a verifier
	// refuses a second use.
	ID [IDSize]byte
	// IssuedAt and Expires bound the token's validity, with second
	// resolution (they travel as Unix seconds). The token is valid until
	// Expires, excluded.
	IssuedAt, Expires time.Time
	// Servers lists the addresses, host:port as clients dial them, that
	// the token admits to: 1 to MaxServers, in canonical form (see the
	// package documentation).
	Servers []string
	// Spectator: the backend grants this client the right to watch only
	// (receive snapshots, send no inputs). The game server enforces it.
	Spectator bool
	// UserData is public data for the game server (display name, team,
	// cosmetics), signed but readable by anyone who holds the token. At most
	// MaxUserData bytes; nil if none.
	UserData []byte
	// PrivateData is data for the game server only (a session secret,
	// matchmaking details), encrypted with AES-256-GCM under a key that the
	// backend and the game servers share; a client holding the token cannot
	// read it, though it sees its length. At most MaxPrivateData bytes; nil
	// if none.
	PrivateData []byte
}

// String describes the token for logs: every field but the contents of the
// user and private data, of which it gives the sizes.
func (t Token) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "token %s key %d protocol %#x client %d", hex.EncodeToString(t.ID[:]), t.KeyID, t.ProtocolID, t.ClientID)
	if t.Spectator {
		b.WriteString(" spectator")
	}
	fmt.Fprintf(&b, " for %s issued %s expires %s", strings.Join(t.Servers, ","),
		t.IssuedAt.UTC().Format(time.RFC3339), t.Expires.UTC().Format(time.RFC3339))
	if len(t.UserData) > 0 {
		fmt.Fprintf(&b, " user data %d bytes", len(t.UserData))
	}
	if len(t.PrivateData) > 0 {
		fmt.Fprintf(&b, " private data %d bytes", len(t.PrivateData))
	}
	return b.String()
}

// encodedSize is the size of t's encoding with sealed bytes of private data
// (0 if none), signature included.
func encodedSize(t *Token, sealed int) int {
	n := fixedSize + 2 + len(t.UserData) + 2 + sealed + sigSize
	for _, s := range t.Servers {
		n += 1 + len(s)
	}
	return n
}

// appendPrefix appends t's encoding up to its private data: every field
// before it and the private data's length, sealed bytes. The sealed bytes
// and the signature follow. The caller has checked every limit.
func appendPrefix(b []byte, t *Token, sealed int) []byte {
	b = append(b, Version)
	b = binary.LittleEndian.AppendUint32(b, t.KeyID)
	b = binary.LittleEndian.AppendUint64(b, t.ProtocolID)
	b = binary.LittleEndian.AppendUint64(b, t.ClientID)
	b = append(b, t.ID[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(t.IssuedAt.Unix()))
	b = binary.LittleEndian.AppendUint64(b, uint64(t.Expires.Unix()))
	var flags byte
	if t.Spectator {
		flags |= flagSpectator
	}
	b = append(b, flags, byte(len(t.Servers)))
	for _, s := range t.Servers {
		b = append(b, byte(len(s)))
		b = append(b, s...)
	}
	b = binary.LittleEndian.AppendUint16(b, uint16(len(t.UserData)))
	b = append(b, t.UserData...)
	return binary.LittleEndian.AppendUint16(b, uint16(sealed))
}

// parsed is a token read from its bytes, checked for nothing but the
// layout.
type parsed struct {
	Token         // PrivateData nil: it is still sealed
	sealed []byte // private data's ciphertext and tag; aliases the input
	aad    []byte // the bytes before sealed, authenticated with it; aliases the input
	signed []byte // the bytes the signature covers; aliases the input
	sig    []byte // aliases the input
}

// parse reads b strictly: the layout must be exact, every length and count
// within its limit, and the fields must end where the signature begins. The
// Token's strings and slices are copies; the parsed's byte slices alias b.
func parse(b []byte) (p parsed, err error) {
	if len(b) < minSize {
		return p, fail(ErrMalformed, "malformed: %d bytes, shorter than the smallest token (%d)", len(b), minSize)
	}
	if len(b) > MaxSize {
		return p, fail(ErrMalformed, "malformed: %d bytes, more than MaxSize (%d)", len(b), MaxSize)
	}
	if b[offVersion] != Version {
		return p, fail(ErrMalformed, "malformed: version byte %#x, this package reads version %d", b[offVersion], Version)
	}
	body := b[:len(b)-sigSize]
	t := &p.Token
	t.KeyID = binary.LittleEndian.Uint32(body[offKeyID:])
	t.ProtocolID = binary.LittleEndian.Uint64(body[offProtocol:])
	t.ClientID = binary.LittleEndian.Uint64(body[offClient:])
	copy(t.ID[:], body[offID:offID+IDSize])
	issued := binary.LittleEndian.Uint64(body[offIssued:])
	expires := binary.LittleEndian.Uint64(body[offExpires:])
	if issued > maxUnix || expires > maxUnix {
		return p, fail(ErrMalformed, "malformed: times %d and %d (Unix seconds) are not both from 1970 to 9999", int64(issued), int64(expires))
	}
	t.IssuedAt = time.Unix(int64(issued), 0).UTC()
	t.Expires = time.Unix(int64(expires), 0).UTC()
	flags := body[offFlags]
	if flags&^knownFlags != 0 {
		return p, fail(ErrMalformed, "malformed: unknown flag bits %#x", flags&^knownFlags)
	}
	t.Spectator = flags&flagSpectator != 0
	n := int(body[offCount])
	if n < 1 || n > MaxServers {
		return p, fail(ErrMalformed, "malformed: %d servers, not 1 to %d", n, MaxServers)
	}

	off, err := t.readServers(body, n)
	if err != nil {
		return p, err
	}

	user, off, err := field(body, off, "user data", MaxUserData)
	if err != nil {
		return p, err
	}
	if len(user) > 0 {
		t.UserData = append([]byte(nil), user...)
	}
	aadEnd := off + 2
	sealed, off, err := field(body, off, "private data", MaxPrivateData+sealTag)
	if err != nil {
		return p, err
	}
	if len(sealed) > 0 && len(sealed) <= sealTag {
		return p, fail(ErrMalformed, "malformed: private data of %d bytes, shorter than its %d-byte tag", len(sealed), sealTag)
	}
	if off != len(body) {
		return p, fail(ErrMalformed, "malformed: %d bytes between the last field and the signature", len(body)-off)
	}
	if len(sealed) > 0 {
		p.sealed, p.aad = sealed, body[:aadEnd]
	}
	p.signed, p.sig = body, b[len(body):]
	return p, nil
}

// readServers reads the n length-prefixed server addresses that start at
// fixedSize in body, copied in one allocation that the Token's strings
// share, and returns the offset after them.
func (t *Token) readServers(body []byte, n int) (int, error) {
	off := fixedSize
	for i := range n {
		if off >= len(body) {
			return 0, fail(ErrMalformed, "malformed: server %d of %d missing", i+1, n)
		}
		l := int(body[off])
		if l == 0 {
			return 0, fail(ErrMalformed, "malformed: server %d of %d is empty", i+1, n)
		}
		off += 1 + l
		if off > len(body) {
			return 0, fail(ErrMalformed, "malformed: server %d of %d runs past the end", i+1, n)
		}
	}
	all := string(body[fixedSize:off])
	t.Servers = make([]string, n)
	for i, at := 0, 0; i < n; i++ {
		l := int(all[at])
		t.Servers[i] = all[at+1 : at+1+l]
		at += 1 + l
	}
	return off, nil
}

// field reads the 2-byte length and the bytes of a variable field at off in
// body, of at most limit bytes, and returns them (aliasing body) and the
// offset after them.
func field(body []byte, off int, name string, limit int) ([]byte, int, error) {
	if off+2 > len(body) {
		return nil, 0, fail(ErrMalformed, "malformed: %s length missing", name)
	}
	l := int(binary.LittleEndian.Uint16(body[off:]))
	off += 2
	if l > limit {
		return nil, 0, fail(ErrMalformed, "malformed: %s of %d bytes, more than %d", name, l, limit)
	}
	if off+l > len(body) {
		return nil, 0, fail(ErrMalformed, "malformed: %s of %d bytes runs past the end", name, l)
	}
	return body[off : off+l], off + l, nil
}

// ParseUnverified reads a token's public fields WITHOUT checking its
// signature, expiry or anything else: for a client that wants to know which
// servers its token names and when it expires, and for tools. Anyone can
// write bytes that parse; a server admits only what [Verifier.Verify]
// returns. PrivateData is left nil: it stays encrypted.
func ParseUnverified(b []byte) (Token, error) {
	p, err := parse(b)
	if err != nil {
		return Token{}, err
	}
	return p.Token, nil
}

// textEncoding is the text form: base64url without padding, refusing
// non-zero trailing bits.
var textEncoding = base64.RawURLEncoding.Strict()

// EncodeString returns a token's text form, base64url without padding: safe
// in URLs, JSON, HTTP headers and command lines.
func EncodeString(b []byte) string { return textEncoding.EncodeToString(b) }

// ParseString decodes a token's text form ([EncodeString]), ignoring
// surrounding white space, into its bytes for [Verifier.Verify]. It refuses
// text that is not base64url without padding, or that is longer than a
// token can be, as ErrMalformed.
func ParseString(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if len(s) > textEncoding.EncodedLen(MaxSize) {
		return nil, fail(ErrMalformed, "malformed: %d characters, more than a token's %d", len(s), textEncoding.EncodedLen(MaxSize))
	}
	b, err := textEncoding.DecodeString(s)
	if err != nil {
		return nil, fail(ErrMalformed, "malformed: not base64url without padding: %v", err)
	}
	return b, nil
}

package token

import (
	"errors"
	"fmt"
)

// Errors returned by the package. Every error it returns wraps exactly one of
// them, and its message says what was wrong with the values at fault
// ("token: expired 12 s ago", "token: valid for 10.0.0.1:7777, not for
// 10.0.0.2:7777"), so a server classifies with [errors.Is], logs the message
// as is, and may tell the client the sentinel's own short text as a reason.
var (
	// ErrMalformed: the bytes are not a token of this format: too short or
	// too long, another version, a length or count out of its limits, unknown
	// flag bits, fields that do not end where the signature begins. Nothing
	// in it can be trusted; it was not checked further.
	ErrMalformed = errors.New("token: malformed")
	// ErrUnknownKey: the token names a KeyID the verifier has no public key
	// for: signed by a retired key, a key not yet deployed to this server, or
	// another backend altogether.
	ErrUnknownKey = errors.New("token: unknown signing key")
	// ErrSignature: the Ed25519 signature does not verify. The token was
	// altered (any byte of it), forged, or signed with another key than the
	// one its KeyID names here.
	ErrSignature = errors.New("token: bad signature")
	// ErrWrongProtocol: a genuine token for another game or game version.
	ErrWrongProtocol = errors.New("token: wrong protocol")
	// ErrExpired: the token's expiry has passed.
	ErrExpired = errors.New("token: expired")
	// ErrNotYetValid: the token was issued further in the future than the
	// allowed clock skew: the backend's clock or this server's is wrong.
	ErrNotYetValid = errors.New("token: not yet valid")
	// ErrLifetime: the token's lifetime (Expires - IssuedAt) exceeds the
	// verifier's MaxLifetime, or is not positive.
	ErrLifetime = errors.New("token: lifetime too long")
	// ErrWrongServer: a genuine token for other servers than this one.
	ErrWrongServer = errors.New("token: wrong server")
	// ErrPrivateData: the token carries private data that this verifier
	// cannot decrypt: it has no AEAD key for the token's KeyID, or the key
	// differs from the backend's.
	ErrPrivateData = errors.New("token: private data")
	// ErrReplayed: the token was already admitted by this verifier. Each
	// token admits one connection.
	ErrReplayed = errors.New("token: already used")
	// ErrBusy: the replay cache holds VerifierConfig.ReplayCapacity tokens
	// that have not expired yet; new tokens are refused until some expire,
	// rather than forgetting one that could then be replayed.
	ErrBusy = errors.New("token: too many recent tokens")
	// ErrInvalid: an IssuerConfig, VerifierConfig, Request or key the
	// caller passed is out of its allowed range; the message names the
	// field.
	ErrInvalid = errors.New("token: invalid argument")
)

// tokenError is an error whose message is complete in itself and which wraps
// one of the sentinels above for errors.Is.
type tokenError struct {
	kind error
	msg  string
}

func (e *tokenError) Error() string { return e.msg }
func (e *tokenError) Unwrap() error { return e.kind }

// fail returns an error wrapping kind whose message is "token: " and the
// formatted text.
func fail(kind error, format string, args ...any) error {
	return &tokenError{kind: kind, msg: "token: " + fmt.Sprintf(format, args...)}
}

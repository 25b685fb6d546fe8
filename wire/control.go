package wire

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/netsmooth/netsmooth/internal/limits"
)

// Control messages open and close a connection. They travel on the
// connection's reliable channel (a QUIC or WebTransport stream, or the
// first messages of a WebSocket), never as datagrams: [Hello] from the
// client first, then [Welcome] or [Close] from the server, and a [Close]
// from either side when the connection ends.
//
// Each starts with the protocol magic, the version and its type, like a
// datagram, so that a message of another protocol or version is refused
// with the same errors; unlike a datagram it has no sequence number or
// acknowledgements.

// Limits of the control messages.
const (
	// MaxTokenSize bounds the connect token a Hello carries.
	MaxTokenSize = 2048
	// MaxCloseMessage bounds the human-readable text of a Close, in bytes.
	MaxCloseMessage = 256
	// MaxControlSize bounds an encoded control message: a Hello with the
	// largest token.
	MaxControlSize = controlPrefix + 1 + maxVarint32 + MaxTokenSize
	// controlPrefix is magic, version and type.
	controlPrefix = 4
)

// hello flag bits
const helloSpectator = 1 << 0

// Hello is the client's first message on a new connection: its connect
// token (issued by the game's backend, see package token), and whether it
// only watches.
type Hello struct {
	// Token is the connect token, opaque to this package (at most
	// MaxTokenSize bytes).
	Token []byte
	// Spectator asks to receive snapshots without controlling an entity or
	// sending inputs.
	Spectator bool
}

// Welcome is the server's answer to an admitted Hello.
type Welcome struct {
	// ClientID is the server's number for the connection, for logs and
	// for telling the game which player is which.
	ClientID uint32
	// TickRate is the server's simulation rate in ticks per second; the
	// client's pipeline must run at the same rate.
	TickRate float64
	// Spectator says the client is admitted as a spectator (it asked to
	// be, or its token allows nothing else): inputs it sends are refused.
	Spectator bool
}

// Reason says why a connection was refused or ended. It travels in a
// [Close] message and, for transports that carry one, in the
// connection's close code, so that the peer learns it even when the Close
// message is lost.
type Reason uint8

const (
	// ReasonNone: no reason given (an unknown code reads as this too).
	ReasonNone Reason = iota
	// ReasonLeft: the client closed the connection.
	ReasonLeft
	// ReasonKicked: the server removed the client (the game's decision).
	ReasonKicked
	// ReasonTimeout: nothing arrived from the peer for too long.
	ReasonTimeout
	// ReasonShutdown: the server is shutting down.
	ReasonShutdown
	// ReasonFull: the server has no room for another client.
	ReasonFull
	// ReasonBadToken: the connect token is invalid, expired, already used,
	// or not for this server.
	ReasonBadToken
	// ReasonProtocol: the peer broke the protocol (a malformed or
	// unexpected message, another protocol version).
	ReasonProtocol
	// ReasonBusy: the server is handling too many connection attempts;
	// try again shortly.
	ReasonBusy
	reasonCount
)

// Known reports whether r is a reason this version of the protocol
// defines; a peer's unknown reason reads as ReasonNone.
func (r Reason) Known() bool { return r < reasonCount }

// String returns the reason's name.
func (r Reason) String() string {
	switch r {
	case ReasonNone:
		return "none"
	case ReasonLeft:
		return "left"
	case ReasonKicked:
		return "kicked"
	case ReasonTimeout:
		return "timeout"
	case ReasonShutdown:
		return "server shutdown"
	case ReasonFull:
		return "server full"
	case ReasonBadToken:
		return "bad token"
	case ReasonProtocol:
		return "protocol error"
	case ReasonBusy:
		return "server busy"
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}

// Close ends a connection, or refuses it in place of a [Welcome].
type Close struct {
	// Reason is why.
	Reason Reason
	// Message is a short human-readable explanation (at most
	// MaxCloseMessage bytes of UTF-8, no control characters), for logs
	// and for the player.
	Message string
}

// AppendHello appends h's encoding to dst. It fails, appending nothing,
// for a token over MaxTokenSize bytes or an empty one.
func AppendHello(dst []byte, h *Hello) ([]byte, error) {
	if len(h.Token) == 0 || len(h.Token) > MaxTokenSize {
		return dst, fmt.Errorf("%w: hello token of %d bytes, want 1..%d", ErrLimit, len(h.Token), MaxTokenSize)
	}
	dst = appendControlPrefix(dst, TypeHello)
	var flags uint8
	if h.Spectator {
		flags |= helloSpectator
	}
	dst = append(dst, flags)
	dst = appendUvarint(dst, uint32(len(h.Token)))
	return append(dst, h.Token...), nil
}

// ParseHello decodes a Hello. The token aliases b.
func ParseHello(b []byte) (Hello, error) {
	var h Hello
	r, err := parseControlPrefix(b, TypeHello)
	if err != nil {
		return h, err
	}
	flags, err := r.u8("hello flags")
	if err != nil {
		return h, err
	}
	if flags&^helloSpectator != 0 {
		return h, fmt.Errorf("%w: hello flags %#02x has unknown bits", ErrMalformed, flags)
	}
	h.Spectator = flags&helloSpectator != 0
	n, err := r.uvarint("token length", MaxTokenSize)
	if err != nil {
		return h, err
	}
	if n == 0 {
		return h, fmt.Errorf("%w: hello without a token", ErrMalformed)
	}
	if h.Token, err = r.bytes("token", int(n)); err != nil {
		return h, err
	}
	return h, r.end("hello")
}

// AppendWelcome appends w's encoding to dst. It fails, appending nothing,
// for a TickRate outside 1 to 1e6 ticks per second.
func AppendWelcome(dst []byte, w *Welcome) ([]byte, error) {
	if err := limits.CheckTickRate(w.TickRate); err != nil {
		return dst, fmt.Errorf("%w: welcome tick rate: %w", ErrRange, err)
	}
	dst = appendControlPrefix(dst, TypeWelcome)
	var flags uint8
	if w.Spectator {
		flags |= helloSpectator
	}
	dst = append(dst, flags)
	dst = binary.LittleEndian.AppendUint32(dst, w.ClientID)
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(w.TickRate)), nil
}

// ParseWelcome decodes a Welcome. A tick rate outside 1 to 1e6 ticks per
// second is malformed.
func ParseWelcome(b []byte) (Welcome, error) {
	var w Welcome
	r, err := parseControlPrefix(b, TypeWelcome)
	if err != nil {
		return w, err
	}
	flags, err := r.u8("welcome flags")
	if err != nil {
		return w, err
	}
	if flags&^helloSpectator != 0 {
		return w, fmt.Errorf("%w: welcome flags %#02x has unknown bits", ErrMalformed, flags)
	}
	w.Spectator = flags&helloSpectator != 0
	if w.ClientID, err = r.u32("client ID"); err != nil {
		return w, err
	}
	bits, err := r.bytes("tick rate", 8)
	if err != nil {
		return w, err
	}
	w.TickRate = math.Float64frombits(binary.LittleEndian.Uint64(bits))
	if err := limits.CheckTickRate(w.TickRate); err != nil {
		return w, fmt.Errorf("%w: welcome tick rate: %w", ErrMalformed, err)
	}
	return w, r.end("welcome")
}

// AppendClose appends c's encoding to dst, its message made a
// [CloseText].
func AppendClose(dst []byte, c *Close) []byte {
	msg := CloseText(c.Message)
	dst = appendControlPrefix(dst, TypeClose)
	dst = append(dst, byte(c.Reason))
	dst = appendUvarint(dst, uint32(len(msg)))
	return append(dst, msg...)
}

// CloseText returns s as a Close message carries it: valid UTF-8 (invalid
// bytes replaced), with no control characters (replaced: a message from a
// peer goes to logs and terminals, where an escape sequence would act),
// cut at a rune boundary to at most MaxCloseMessage bytes. Package
// transport makes the reasons QUIC and WebTransport carry the same.
func CloseText(s string) string {
	if !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl) {
		b := make([]byte, 0, len(s))
		for _, r := range s {
			if unicode.IsControl(r) {
				r = utf8.RuneError
			}
			b = utf8.AppendRune(b, r) // invalid bytes come as RuneError
		}
		s = string(b)
	}
	if len(s) <= MaxCloseMessage {
		return s
	}
	cut := MaxCloseMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// ParseClose decodes a Close. A reason this version does not know reads
// as ReasonNone; the message must be valid UTF-8 without control
// characters.
func ParseClose(b []byte) (Close, error) {
	var c Close
	r, err := parseControlPrefix(b, TypeClose)
	if err != nil {
		return c, err
	}
	reason, err := r.u8("close reason")
	if err != nil {
		return c, err
	}
	if Reason(reason).Known() {
		c.Reason = Reason(reason)
	}
	n, err := r.uvarint("close message length", MaxCloseMessage)
	if err != nil {
		return c, err
	}
	msg, err := r.bytes("close message", int(n))
	if err != nil {
		return c, err
	}
	if !utf8.Valid(msg) {
		return c, fmt.Errorf("%w: close message is not UTF-8", ErrMalformed)
	}
	if bytes.ContainsFunc(msg, unicode.IsControl) {
		return c, fmt.Errorf("%w: close message has a control character", ErrMalformed)
	}
	c.Message = string(msg)
	return c, r.end("close")
}

// ControlType returns the type of the control message b, after checking
// its magic and version: TypeHello, TypeWelcome or TypeClose. A reader
// that may get either a Welcome or a Close looks here first.
func ControlType(b []byte) (PacketType, error) {
	if _, err := checkPrefix(b); err != nil {
		return 0, err
	}
	t := PacketType(b[3])
	if !t.control() {
		return t, fmt.Errorf("%w: %v, want a control message", ErrType, t)
	}
	return t, nil
}

func appendControlPrefix(dst []byte, t PacketType) []byte {
	return append(dst, Magic[0], Magic[1], Version, byte(t))
}

// checkPrefix checks the magic and version at the start of b, which must
// hold at least the prefix.
func checkPrefix(b []byte) (PacketType, error) {
	if len(b) < controlPrefix {
		return 0, fmt.Errorf("%w: message needs %d bytes, has %d", ErrTruncated, controlPrefix, len(b))
	}
	if b[0] != Magic[0] || b[1] != Magic[1] {
		return 0, fmt.Errorf("%w: %#02x %#02x, want %q", ErrMagic, b[0], b[1], Magic)
	}
	if b[2] != Version {
		return 0, fmt.Errorf("%w: version %d, this end speaks %d", ErrVersion, b[2], Version)
	}
	return PacketType(b[3]), nil
}

// parseControlPrefix checks b's prefix for type t and returns a reader on
// the rest.
func parseControlPrefix(b []byte, t PacketType) (reader, error) {
	if len(b) > MaxControlSize {
		return reader{}, fmt.Errorf("%w: control message of %d bytes > %d", ErrLimit, len(b), MaxControlSize)
	}
	got, err := checkPrefix(b)
	if err != nil {
		return reader{}, err
	}
	if got != t {
		return reader{}, fmt.Errorf("%w: %v, want %v", ErrType, got, t)
	}
	return reader{b: b, off: controlPrefix}, nil
}

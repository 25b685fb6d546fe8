package transport

import (
	"errors"
	"fmt"
	"net"

	"github.com/netsmooth/netsmooth/wire"
)

// Conn is an admitted connection's datagram channel, the same on both
// ends and over every carrier: QUIC datagrams (RFC 9221) natively,
// WebTransport datagrams in browsers, and the messages of a reliable
// connection (a WebSocket) as the fallback. Packets are carried whole,
// one per datagram or message; a QUIC or WebTransport datagram may be
// lost, reordered or duplicated, as a UDP packet may.
//
// A Conn is made by the handshake: [Dial], [DialWebTransport] or
// [Handshake] on the client, [Incoming.Accept] on the server. Its owner
// reads it until ReadPacket fails, or closes it: until then a connection
// over a message conn keeps a goroutine. Its methods are safe for
// concurrent use.
type Conn interface {
	// ReadPacket blocks until a packet arrives and returns it; the slice
	// is the caller's. Once the connection has ended it returns an error:
	// a *CloseError saying why when the peer or this end said so, or
	// when the peer fell silent (ReasonTimeout).
	ReadPacket() ([]byte, error)
	// WritePacket queues one packet to send, whole, and returns without
	// waiting for the network: a full queue (the network is slower than
	// the sender) drops the oldest packet queued, as a congested router
	// would. It must not keep b. After the connection has ended it
	// returns the error ReadPacket returns.
	WritePacket(b []byte) error
	// Close ends the connection, telling the peer why (its ReadPacket
	// then returns a *CloseError with reason and message). Packets still
	// queued are dropped. Only the first call does anything.
	Close(reason wire.Reason, message string) error
	// RemoteAddr returns the peer's address, as the carrier sees it.
	RemoteAddr() net.Addr
	// Kind says what carries the connection.
	Kind() Kind
	// Stats returns the connection's counters.
	Stats() ConnStats
}

// Kind says what carries a [Conn].
type Kind uint8

const (
	// KindQUIC: QUIC datagrams on a connection of netsmooth's own
	// application protocol (native clients).
	KindQUIC Kind = iota + 1
	// KindWebTransport: WebTransport datagrams over HTTP/3 (browsers).
	KindWebTransport
	// KindMessage: the messages of a reliable, ordered connection, a
	// WebSocket say (browsers without WebTransport).
	KindMessage
)

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case KindQUIC:
		return "QUIC"
	case KindWebTransport:
		return "WebTransport"
	case KindMessage:
		return "message"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// ConnStats are a [Conn]'s counters.
type ConnStats struct {
	// PacketsSent and BytesSent count the packets handed to the carrier;
	// PacketsReceived and BytesReceived those ReadPacket returned.
	PacketsSent, BytesSent, PacketsReceived, BytesReceived uint64
	// Dropped counts packets dropped from a full send queue, and packets
	// the carrier refused (too large for a datagram, say).
	Dropped uint64
}

// Add adds o's counters to s's: totals over several connections.
func (s *ConnStats) Add(o ConnStats) {
	s.PacketsSent += o.PacketsSent
	s.BytesSent += o.BytesSent
	s.PacketsReceived += o.PacketsReceived
	s.BytesReceived += o.BytesReceived
	s.Dropped += o.Dropped
}

// CloseError says why a connection ended or was refused: the reason and
// message the peer gave in its Close (Remote), or that this end gave.
// errors.Is(err, net.ErrClosed) holds for every CloseError.
type CloseError struct {
	Reason  wire.Reason
	Message string
	// Remote is true when the peer ended the connection (or, with
	// ReasonTimeout, fell silent), false when this end did.
	Remote bool
	// Claimed is true when Reason and Message are the peer's own words
	// (its close code and text, or its Close message), which a hostile
	// peer chooses freely, rather than what this end saw happen (an idle
	// timeout, a lost connection).
	Claimed bool
}

func (e *CloseError) Error() string {
	who := "closed by this end"
	if e.Remote {
		who = "closed by the peer"
	}
	if e.Message == "" {
		return fmt.Sprintf("transport: connection %s: %v", who, e.Reason)
	}
	return fmt.Sprintf("transport: connection %s: %v: %s", who, e.Reason, e.Message)
}

// Unwrap makes every CloseError a net.ErrClosed.
func (e *CloseError) Unwrap() error { return net.ErrClosed }

// ErrTimeout: the server did not answer the handshake in time.
var ErrTimeout = errors.New("transport: handshake timed out")

// ErrHandshake: the peer broke the handshake (an unexpected or malformed
// message, another protocol version, a control channel that closed).
var ErrHandshake = errors.New("transport: handshake failed")

// Reason codes on the wire: QUIC application error codes and WebTransport
// session error codes carry a wire.Reason as codeBase + reason, so that
// the peer learns the reason even when the Close message is lost.
const codeBase = 0x4e53_00 // "NS"

func reasonCode(r wire.Reason) uint64 { return codeBase + uint64(r) }

func codeReason(c uint64) (wire.Reason, bool) {
	if c < codeBase || c >= codeBase+256 {
		return wire.ReasonNone, false
	}
	r := wire.Reason(c - codeBase)
	if !r.Known() {
		return wire.ReasonNone, true
	}
	return r, true
}

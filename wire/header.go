package wire

import (
	"encoding/binary"
	"fmt"
)

// Protocol identification: the first bytes of every packet.
const (
	// Magic is the two bytes every packet starts with, "NS".
	Magic = "NS"
	// Version is the protocol version this package writes and accepts.
	// Version 2 added the control messages, the snapshot's state hash and
	// the input packet's resync request, and dropped the input packet's
	// NetID (the server assigns entities).
	Version = 2
	// HeaderSize is the size of the packet header in bytes.
	HeaderSize = 23
)

// PacketType says what follows the header.
type PacketType uint8

const (
	// TypeSnapshot is a server→client snapshot part (see [Encoder]).
	TypeSnapshot PacketType = 1
	// TypeInput is a client→server input packet (see [InputPacket]).
	TypeInput PacketType = 2
	// TypeHello, TypeWelcome and TypeClose are control messages (see
	// [Hello]): they travel on a connection's reliable channel, never as
	// datagrams, and have no Header.
	TypeHello   PacketType = 3
	TypeWelcome PacketType = 4
	TypeClose   PacketType = 5
)

// control reports whether t is a control message's type.
func (t PacketType) control() bool { return t >= TypeHello && t <= TypeClose }

// String returns the type's name.
func (t PacketType) String() string {
	switch t {
	case TypeSnapshot:
		return "snapshot"
	case TypeInput:
		return "input"
	case TypeHello:
		return "hello"
	case TypeWelcome:
		return "welcome"
	case TypeClose:
		return "close"
	}
	return fmt.Sprintf("PacketType(%d)", uint8(t))
}

// header flag bits
const (
	hdrHasAck  = 1 << 0
	hdrHasEcho = 1 << 1
)

// Header is the versioned header every packet starts with, in both
// directions. It carries the packet's sequence number, acknowledgements of
// the other side's packets (the newest received plus a bitfield of the 32
// before it, as in Glenn Fiedler's reliability scheme) and the timing
// fields an end needs to measure the round trip without a dedicated ping:
// its own send time, and an echo of the latest send time it received with
// how long it held it before this reply. [Receipts] keeps the receiving
// side's part of it.
type Header struct {
	// Type says what follows.
	Type PacketType
	// Seq is this packet's sequence number; one more per packet sent, in
	// each direction, wrapping at 2^16.
	Seq uint16
	// Ack is the newest sequence number received from the other side,
	// valid with HasAck.
	Ack uint16
	// AckBits has bit i set when packet Ack-1-i was received too.
	AckBits uint32
	// HasAck is false until something was received from the other side.
	HasAck bool
	// Sent is the sender's local clock in milliseconds when it sent the
	// packet (any origin; it wraps at 2^32).
	Sent uint32
	// Echo is the Sent field of the newest packet received from the other
	// side, valid with HasEcho.
	Echo uint32
	// Hold is how long, in milliseconds, the sender held Echo before this
	// packet, so the other side measures RTT = now - Echo - Hold.
	Hold uint16
	// HasEcho is false until something was received from the other side,
	// or when the echo was held longer than 65535 ms.
	HasEcho bool
}

// AppendHeader appends h's wire form (HeaderSize bytes) to dst. Fields
// behind an unset Has flag are written as zero.
func AppendHeader(dst []byte, h *Header) []byte {
	var flags uint8
	ack, bits, echo, hold := h.Ack, h.AckBits, h.Echo, h.Hold
	if h.HasAck {
		flags |= hdrHasAck
	} else {
		ack, bits = 0, 0
	}
	if h.HasEcho {
		flags |= hdrHasEcho
	} else {
		echo, hold = 0, 0
	}
	dst = append(dst, Magic[0], Magic[1], Version, byte(h.Type), flags)
	dst = binary.LittleEndian.AppendUint16(dst, h.Seq)
	dst = binary.LittleEndian.AppendUint16(dst, ack)
	dst = binary.LittleEndian.AppendUint32(dst, bits)
	dst = binary.LittleEndian.AppendUint32(dst, h.Sent)
	dst = binary.LittleEndian.AppendUint32(dst, echo)
	return binary.LittleEndian.AppendUint16(dst, hold)
}

// ParseHeader reads the header at the start of packet and returns it with
// the body that follows. It checks the magic, the version, that the type is
// known and that the flags are canonical; it does not look at the body.
func ParseHeader(packet []byte) (Header, []byte, error) {
	var h Header
	if len(packet) < HeaderSize {
		return h, nil, fmt.Errorf("%w: header needs %d bytes, packet has %d", ErrTruncated, HeaderSize, len(packet))
	}
	if packet[0] != Magic[0] || packet[1] != Magic[1] {
		return h, nil, fmt.Errorf("%w: %#02x %#02x, want %q", ErrMagic, packet[0], packet[1], Magic)
	}
	if packet[2] != Version {
		return h, nil, fmt.Errorf("%w: version %d, this end speaks %d", ErrVersion, packet[2], Version)
	}
	h.Type = PacketType(packet[3])
	if h.Type.control() {
		return h, nil, fmt.Errorf("%w: %v is a control message, not a datagram", ErrType, h.Type)
	}
	if h.Type != TypeSnapshot && h.Type != TypeInput {
		return h, nil, fmt.Errorf("%w: unknown packet type %d", ErrType, packet[3])
	}
	flags := packet[4]
	if flags&^(hdrHasAck|hdrHasEcho) != 0 {
		return h, nil, fmt.Errorf("%w: header flags %#02x has unknown bits", ErrMalformed, flags)
	}
	h.HasAck = flags&hdrHasAck != 0
	h.HasEcho = flags&hdrHasEcho != 0
	le := binary.LittleEndian
	h.Seq = le.Uint16(packet[5:])
	h.Ack = le.Uint16(packet[7:])
	h.AckBits = le.Uint32(packet[9:])
	h.Sent = le.Uint32(packet[13:])
	h.Echo = le.Uint32(packet[17:])
	h.Hold = le.Uint16(packet[21:])
	if !h.HasAck && (h.Ack != 0 || h.AckBits != 0) {
		return h, nil, fmt.Errorf("%w: ack fields set without the ack flag", ErrMalformed)
	}
	if !h.HasEcho && (h.Echo != 0 || h.Hold != 0) {
		return h, nil, fmt.Errorf("%w: echo fields set without the echo flag", ErrMalformed)
	}
	return h, packet[HeaderSize:], nil
}

// Acks reports whether h acknowledges the packet with sequence number seq
// (it is Ack, or one of the 32 before it with its bit set).
func (h *Header) Acks(seq uint16) bool {
	if !h.HasAck {
		return false
	}
	if seq == h.Ack {
		return true
	}
	d := h.Ack - seq - 1 // 0 for Ack-1
	return d < 32 && h.AckBits&(1<<d) != 0
}

// RTT returns the round-trip time in milliseconds that h measures, given the
// local clock now (the same clock whose readings the other side echoes):
// now - Echo - Hold. ok is false without an echo, or when the result would
// be negative (an echo from the future: a bogus or reordered packet).
func (h *Header) RTT(now uint32) (rtt uint32, ok bool) {
	if !h.HasEcho {
		return 0, false
	}
	d := now - h.Echo - uint32(h.Hold)
	if int32(d) < 0 {
		return 0, false
	}
	return d, true
}

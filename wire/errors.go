package wire

import "errors"

// Errors returned by the package. Every error it returns wraps exactly one of
// them, with the field and the values at fault in the message, so callers can
// classify with [errors.Is] and log the message as is.
var (
	// ErrTruncated: the packet ends before a field it announces.
	ErrTruncated = errors.New("wire: truncated packet")
	// ErrMagic: the packet does not start with the protocol magic; it is
	// not a netsmooth packet at all (stray traffic, another protocol).
	ErrMagic = errors.New("wire: bad magic")
	// ErrVersion: the packet is from another version of the protocol.
	ErrVersion = errors.New("wire: unsupported protocol version")
	// ErrType: the packet is of another type than the one asked for, or of
	// an unknown type.
	ErrType = errors.New("wire: unexpected packet type")
	// ErrLimit: a count, a length or a size exceeds its configured limit.
	ErrLimit = errors.New("wire: limit exceeded")
	// ErrMalformed: the bytes break a rule of the format (unknown flag bits,
	// a non-minimal varint, NetIDs out of order, trailing bytes, a NetID in
	// two parts of one tick).
	ErrMalformed = errors.New("wire: malformed packet")
	// ErrRange: a value cannot be quantised (not finite, or beyond ±2^31
	// steps) or is otherwise outside what the format can carry.
	ErrRange = errors.New("wire: value out of range")
	// ErrOrder: records were added out of NetID order, or a call was made out
	// of sequence (Add before Begin).
	ErrOrder = errors.New("wire: out of order")
	// ErrNoBaseline: a delta snapshot names a baseline tick the decoder does
	// not hold (never completely received, or already evicted). The packet
	// cannot be decoded; the server falls back to a full snapshot once it
	// sees no newer acknowledgement.
	ErrNoBaseline = errors.New("wire: baseline not held")
	// ErrDuplicate: a part that was already received, or a part of a tick
	// already completely received (a duplicated packet).
	ErrDuplicate = errors.New("wire: duplicate")
	// ErrConfig: a Config or Quantizer field is out of its allowed range.
	ErrConfig = errors.New("wire: invalid config")
)

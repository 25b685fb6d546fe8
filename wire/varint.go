package wire

import (
	"encoding/binary"
	"fmt"
)

// maxVarint32 is the longest varint of a 32-bit value.
const maxVarint32 = 5

// reader reads the fields of one packet. Every read names its field, so that
// an error says what was wrong and where.
type reader struct {
	b   []byte
	off int
}

func (r *reader) remaining() int { return len(r.b) - r.off }

func (r *reader) truncated(field string, need int) error {
	return fmt.Errorf("%w: %s needs %d bytes at offset %d, %d left", ErrTruncated, field, need, r.off, r.remaining())
}

func (r *reader) u8(field string) (uint8, error) {
	if r.remaining() < 1 {
		return 0, r.truncated(field, 1)
	}
	v := r.b[r.off]
	r.off++
	return v, nil
}

func (r *reader) u32(field string) (uint32, error) {
	if r.remaining() < 4 {
		return 0, r.truncated(field, 4)
	}
	v := binary.LittleEndian.Uint32(r.b[r.off:])
	r.off += 4
	return v, nil
}

// uvarint reads a minimal unsigned LEB128 varint of at most 5 bytes whose
// value is at most limit.
func (r *reader) uvarint(field string, limit uint32) (uint32, error) {
	start := r.off
	var v uint64
	for i := 0; ; i++ {
		if r.off >= len(r.b) {
			r.off = start
			return 0, r.truncated(field, i+1)
		}
		c := r.b[r.off]
		r.off++
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			if i > 0 && c == 0 {
				return 0, fmt.Errorf("%w: %s: varint at offset %d is not minimal", ErrMalformed, field, start)
			}
			break
		}
		if i == maxVarint32-1 {
			return 0, fmt.Errorf("%w: %s: varint at offset %d is longer than %d bytes", ErrMalformed, field, start, maxVarint32)
		}
	}
	if v > uint64(limit) {
		return 0, fmt.Errorf("%w: %s %d > %d", ErrLimit, field, v, limit)
	}
	return uint32(v), nil
}

// end reports an error if bytes remain after the last field of what.
func (r *reader) end(what string) error {
	if n := r.remaining(); n != 0 {
		return fmt.Errorf("%w: %d trailing bytes after the %s", ErrMalformed, n, what)
	}
	return nil
}

// bytes returns the next n bytes, aliasing the packet.
func (r *reader) bytes(field string, n int) ([]byte, error) {
	if r.remaining() < n {
		return nil, r.truncated(field, n)
	}
	v := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return v, nil
}

// appendUvarint appends v as a minimal unsigned LEB128 varint.
func appendUvarint(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// zigzag maps signed differences to unsigned ones so that small magnitudes
// of either sign give short varints: 0, -1, 1, -2 → 0, 1, 2, 3.
func zigzag(d int32) uint32 { return uint32(d<<1) ^ uint32(d>>31) }

// unzigzag is the inverse of zigzag.
func unzigzag(u uint32) int32 { return int32(u>>1) ^ -int32(u&1) }

// tickBefore reports whether tick a comes before tick b, with wrap-around
// (serial number arithmetic, RFC 1982): correct while the two are less than
// 2^31 ticks apart.
func tickBefore(a, b uint32) bool { return int32(a-b) < 0 }

// seqNewer reports whether packet sequence a is newer than b, with
// wrap-around: correct while the two are less than 2^15 packets apart.
func seqNewer(a, b uint16) bool { return int16(a-b) > 0 }

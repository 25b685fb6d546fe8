package wire

import (
	"errors"
	"math"
	"testing"
)

func TestUvarintRoundTrip(t *testing.T) {
	for _, v := range []uint32{0, 1, 127, 128, 300, 1<<14 - 1, 1 << 14, 1<<21 + 5, 1<<28 - 1, 1 << 28, math.MaxUint32} {
		b := appendUvarint(nil, v)
		if len(b) != UvarintLen(v) {
			t.Errorf("%d: %d bytes, UvarintLen says %d", v, len(b), UvarintLen(v))
		}
		r := reader{b: b}
		got, err := r.uvarint("v", math.MaxUint32)
		if err != nil || got != v || r.remaining() != 0 {
			t.Errorf("%d: got %d, %v, %d left", v, got, err, r.remaining())
		}
	}
}

func TestUvarintRejects(t *testing.T) {
	for _, c := range []struct {
		name  string
		b     []byte
		limit uint32
		want  error
	}{
		{"empty", nil, 10, ErrTruncated},
		{"unterminated", []byte{0x80}, 10, ErrTruncated},
		{"not minimal", []byte{0x81, 0x00}, 10, ErrMalformed},
		{"six bytes", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, math.MaxUint32, ErrMalformed},
		{"beyond 32 bits", []byte{0xff, 0xff, 0xff, 0xff, 0x1f}, math.MaxUint32, ErrLimit},
		{"over limit", []byte{11}, 10, ErrLimit},
	} {
		r := reader{b: c.b}
		if _, err := r.uvarint("field", c.limit); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

func TestZigzag(t *testing.T) {
	for _, d := range []int32{0, -1, 1, -2, 2, 63, -64, 64, math.MaxInt32, math.MinInt32} {
		if got := unzigzag(zigzag(d)); got != d {
			t.Errorf("%d round-trips to %d", d, got)
		}
	}
	if zigzag(-1) != 1 || zigzag(1) != 2 || zigzag(-64) != 127 {
		t.Errorf("small magnitudes must map to small codes")
	}
}

func TestSerialArithmetic(t *testing.T) {
	if !tickBefore(math.MaxUint32, 0) || tickBefore(0, math.MaxUint32) || tickBefore(5, 5) {
		t.Error("tickBefore must wrap")
	}
	if !seqNewer(0, 65535) || seqNewer(65535, 0) || seqNewer(7, 7) {
		t.Error("seqNewer must wrap")
	}
}

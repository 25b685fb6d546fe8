package wire

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzDecodeInput: any bytes decode without panicking, to an error that
// wraps one of the package's errors; what decodes re-encodes to the same
// bytes (decode∘encode is the identity on valid packets).
func FuzzDecodeInput(f *testing.F) {
	for _, p := range []InputPacket{
		{},
		{HasAckedTick: true, AckedTick: 77, Resync: true, FirstSeq: 1 << 31, Inputs: [][]byte{{1, 2, 3}, {}, {4}}},
		{FirstSeq: 5, Inputs: [][]byte{make([]byte, 64), {9}, {9}, {9}, {9}, {9}, {9}, {9}}},
		{FirstSeq: 9, Inputs: [][]byte{{1}, {2}}, Drawn: []Drawn{
			{Time: 0xfffffff0, Late: []Late{{NetID: 3, Behind: 300, Span: 4, Back: 1}, {NetID: 1 << 30, Behind: 1}}},
			{Time: 0x10},
		}},
	} {
		b, err := AppendInput(nil, &Header{Seq: 3, HasAck: true, Ack: 2}, &p, nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	cfg := DefaultConfig()
	f.Fuzz(func(t *testing.T, b []byte) {
		var p InputPacket
		h, err := DecodeInput(b, &p, &cfg)
		if err != nil {
			if !isPackageError(err) {
				t.Fatalf("error wraps no package error: %v", err)
			}
			return
		}
		again, err := AppendInput(nil, &h, &p, &cfg)
		if err != nil {
			t.Fatalf("a decoded packet does not re-encode: %v", err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("re-encoded\n% x\nfrom\n% x", again, b)
		}
	})
}

func isPackageError(err error) bool {
	for _, e := range []error{ErrTruncated, ErrMagic, ErrVersion, ErrType, ErrLimit, ErrMalformed, ErrRange, ErrOrder, ErrNoBaseline, ErrDuplicate, ErrConfig} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

package wire

import (
	"bytes"
	"testing"
)

// FuzzParseHeader: any bytes parse without panicking, and a header that
// parses re-encodes to the same bytes (the layout is canonical).
func FuzzParseHeader(f *testing.F) {
	f.Add(AppendHeader(nil, &Header{Type: TypeSnapshot}))
	f.Add(AppendHeader(nil, &Header{Type: TypeInput, Seq: 9, Ack: 8, AckBits: 3, HasAck: true, Sent: 5, Echo: 4, Hold: 1, HasEcho: true}))
	f.Add([]byte("NS"))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, body, err := ParseHeader(b)
		if err != nil {
			return
		}
		if again := AppendHeader(nil, &h); !bytes.Equal(again, b[:HeaderSize]) {
			t.Fatalf("re-encoded % x, parsed % x", again, b[:HeaderSize])
		}
		if len(body) != len(b)-HeaderSize {
			t.Fatal("body length")
		}
	})
}

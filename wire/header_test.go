package wire

import (
	"bytes"
	"errors"
	"testing"
)

func TestHeaderRoundTrip(t *testing.T) {
	h := Header{Type: TypeInput, Seq: 65535, Ack: 7, AckBits: 0xdeadbeef, HasAck: true, Sent: 4e9, Echo: 123456, Hold: 17, HasEcho: true}
	b := AppendHeader([]byte{0xaa}, &h)
	if len(b) != 1+HeaderSize {
		t.Fatalf("%d bytes", len(b))
	}
	got, body, err := ParseHeader(append(b[1:], 1, 2, 3))
	if err != nil || got != h || !bytes.Equal(body, []byte{1, 2, 3}) {
		t.Fatalf("got %+v body %v err %v", got, body, err)
	}
	// Fields behind an unset flag are written as zero.
	h.HasAck, h.HasEcho = false, false
	got, _, err = ParseHeader(AppendHeader(nil, &h))
	if err != nil || got.Ack != 0 || got.AckBits != 0 || got.Echo != 0 || got.Hold != 0 {
		t.Fatalf("unset fields: %+v %v", got, err)
	}
}

func TestParseHeaderRejects(t *testing.T) {
	good := AppendHeader(nil, &Header{Type: TypeSnapshot})
	mod := func(i int, v byte) []byte {
		b := bytes.Clone(good)
		b[i] = v
		return b
	}
	for _, c := range []struct {
		name string
		b    []byte
		want error
	}{
		{"short", good[:HeaderSize-1], ErrTruncated},
		{"magic", mod(0, 'X'), ErrMagic},
		{"version", mod(2, 1), ErrVersion},
		{"control type", mod(3, byte(TypeHello)), ErrType},
		{"type 0", mod(3, 0), ErrType},
		{"type 9", mod(3, 9), ErrType},
		{"flags", mod(4, 0x80), ErrMalformed},
		{"ack without flag", mod(7, 1), ErrMalformed},
		{"echo without flag", mod(21, 1), ErrMalformed},
	} {
		if _, _, err := ParseHeader(c.b); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

func TestHeaderAcks(t *testing.T) {
	h := Header{HasAck: true, Ack: 1, AckBits: 1 | 1<<2 | 1<<31}
	for seq, want := range map[uint16]bool{1: true, 0: true, 65535: false, 65534: true, 65505: true, 65504: false, 2: false} {
		if got := h.Acks(seq); got != want {
			t.Errorf("Acks(%d) = %v", seq, got)
		}
	}
	if (&Header{Ack: 1}).Acks(1) {
		t.Error("acks without HasAck")
	}
}

func TestHeaderRTT(t *testing.T) {
	h := Header{HasEcho: true, Echo: 1000, Hold: 15}
	if rtt, ok := h.RTT(1100); !ok || rtt != 85 {
		t.Errorf("RTT = %d, %v", rtt, ok)
	}
	if _, ok := h.RTT(1010); ok {
		t.Error("negative RTT accepted")
	}
	wrapped := Header{HasEcho: true, Echo: 0xffffff00, Hold: 0}
	if rtt, ok := wrapped.RTT(0x10); !ok || rtt != 0x110 {
		t.Errorf("RTT across the wrap = %d, %v", rtt, ok)
	}
	if _, ok := (&Header{}).RTT(5); ok {
		t.Error("RTT without an echo")
	}
}

func TestPacketTypeString(t *testing.T) {
	if TypeSnapshot.String() != "snapshot" || TypeInput.String() != "input" || PacketType(7).String() != "PacketType(7)" {
		t.Error("names")
	}
}

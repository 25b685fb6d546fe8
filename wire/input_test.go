package wire

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestInputRoundTrip(t *testing.T) {
	cfg := DefaultConfig()
	for n := 0; n <= cfg.MaxInputs; n++ {
		var p InputPacket
		p.Resync, p.FirstSeq = n%3 == 1, 0xfffffffe // wraps inside the packet
		p.AckedTick, p.HasAckedTick = uint32(n), n%2 == 0
		for i := range n {
			p.Inputs = append(p.Inputs, bytes.Repeat([]byte{byte(i)}, i*9%(cfg.MaxInputSize+1)))
		}
		h := Header{Seq: uint16(n), Sent: 99}
		b, err := AppendInput(nil, &h, &p, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got InputPacket
		gh, err := DecodeInput(b, &got, &cfg)
		if err != nil {
			t.Fatalf("%d inputs: %v", n, err)
		}
		if gh.Type != TypeInput || gh.Seq != uint16(n) || gh.Sent != 99 {
			t.Fatalf("header %+v", gh)
		}
		if got.Resync != p.Resync || got.FirstSeq != p.FirstSeq || got.HasAckedTick != p.HasAckedTick ||
			(p.HasAckedTick && got.AckedTick != p.AckedTick) || len(got.Inputs) != n {
			t.Fatalf("%d inputs: got %+v", n, got)
		}
		for i := range n {
			if !bytes.Equal(got.Inputs[i], p.Inputs[i]) {
				t.Fatalf("input %d differs", i)
			}
		}
	}
}

func TestAppendInputLimits(t *testing.T) {
	dst := []byte{1, 2}
	too := InputPacket{Inputs: make([][]byte, 9)}
	if out, err := AppendInput(dst, &Header{}, &too, nil); !errors.Is(err, ErrLimit) || !slices.Equal(out, dst) {
		t.Errorf("9 inputs: %v", err)
	}
	big := InputPacket{FirstSeq: 40, Inputs: [][]byte{{1}, make([]byte, 65)}}
	out, err := AppendInput(dst, &Header{}, &big, nil)
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "seq 41") || !slices.Equal(out, dst) {
		t.Errorf("65-byte input: %v", err)
	}
	if _, err := AppendInput(nil, &Header{}, &InputPacket{}, &Config{History: 1}); !errors.Is(err, ErrConfig) {
		t.Errorf("bad config: %v", err)
	}
}

func TestDecodeInputRejects(t *testing.T) {
	p := InputPacket{FirstSeq: 10, Inputs: [][]byte{{1, 2}, {3}}}
	good, _ := AppendInput(nil, &Header{}, &p, nil)
	body := HeaderSize
	mod := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	small := Config{MaxInputs: 1, MaxInputSize: 1}
	for _, c := range []struct {
		name string
		b    []byte
		cfg  *Config
		want error
	}{
		{"truncated", good[:len(good)-1], nil, ErrTruncated},
		{"trailing", append(bytes.Clone(good), 0), nil, ErrMalformed},
		{"flags", mod(func(b []byte) []byte { b[body] = 0x10; return b }), nil, ErrMalformed},
		{"count", mod(func(b []byte) []byte { b[body+1+4] = 9; return b }), nil, ErrLimit},
		{"count over small limit", good, &small, ErrLimit},
		{"snapshot type", mod(func(b []byte) []byte { b[3] = byte(TypeSnapshot); return b }), nil, ErrType},
		{"too big", append(bytes.Clone(good), make([]byte, 1200)...), nil, ErrLimit},
		{"header", good[:5], nil, ErrTruncated},
	} {
		var out InputPacket
		if _, err := DecodeInput(c.b, &out, c.cfg); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	// Payloads larger than MaxInputSize.
	var out InputPacket
	if _, err := DecodeInput(good, &out, &Config{MaxInputSize: 1}); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "seq 10") {
		t.Errorf("payload size: %v", err)
	}
}

func TestDecodeInputAliasesPacket(t *testing.T) {
	p := InputPacket{Inputs: [][]byte{{7, 7}}}
	b, _ := AppendInput(nil, &Header{}, &p, nil)
	var out InputPacket
	if _, err := DecodeInput(b, &out, nil); err != nil {
		t.Fatal(err)
	}
	b[len(b)-1] = 8
	if out.Inputs[0][1] != 8 {
		t.Fatal("payload does not alias the packet")
	}
	if cap(out.Inputs[0]) != 2 {
		t.Fatal("payload capacity reaches past it: appending would overwrite the packet")
	}
}

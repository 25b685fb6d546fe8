package wire

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestControlRoundTrip(t *testing.T) {
	for _, h := range []Hello{{Token: []byte{1}}, {Token: bytes.Repeat([]byte{7}, MaxTokenSize), Spectator: true}} {
		b, err := AppendHello(nil, &h)
		if err != nil {
			t.Fatal(err)
		}
		if typ, err := ControlType(b); err != nil || typ != TypeHello {
			t.Fatalf("type %v %v", typ, err)
		}
		got, err := ParseHello(b)
		if err != nil || got.Spectator != h.Spectator || !bytes.Equal(got.Token, h.Token) {
			t.Fatalf("hello %+v %v", got, err)
		}
	}
	w := Welcome{ClientID: 1 << 31, TickRate: 60, Spectator: true}
	b, err := AppendWelcome(nil, &w)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ParseWelcome(b); err != nil || got != w {
		t.Fatalf("welcome %+v %v", got, err)
	}
	for r := ReasonNone; r < reasonCount; r++ {
		c := Close{Reason: r, Message: "reason: " + r.String()}
		got, err := ParseClose(AppendClose(nil, &c))
		if err != nil || got != c {
			t.Fatalf("close %+v %v", got, err)
		}
	}
}

func TestControlLimits(t *testing.T) {
	if _, err := AppendHello(nil, &Hello{}); !errors.Is(err, ErrLimit) {
		t.Errorf("empty token: %v", err)
	}
	if _, err := AppendHello(nil, &Hello{Token: make([]byte, MaxTokenSize+1)}); !errors.Is(err, ErrLimit) {
		t.Errorf("token too long: %v", err)
	}
	for _, rate := range []float64{0, -1, 2e6, 0.05, math.NaN()} {
		if _, err := AppendWelcome(nil, &Welcome{TickRate: rate}); !errors.Is(err, ErrRange) {
			t.Errorf("tick rate %v: %v", rate, err)
		}
	}
	// A long message is cut at a rune boundary, invalid UTF-8 replaced.
	long := strings.Repeat("é", MaxCloseMessage)
	c, err := ParseClose(AppendClose(nil, &Close{Reason: ReasonKicked, Message: long}))
	if err != nil || len(c.Message) > MaxCloseMessage || !utf8.ValidString(c.Message) || !strings.HasPrefix(long, c.Message) {
		t.Fatalf("long message: %d bytes, %v", len(c.Message), err)
	}
	c, err = ParseClose(AppendClose(nil, &Close{Message: "a\xffb"}))
	if err != nil || c.Message != "a\uFFFDb" {
		t.Fatalf("invalid UTF-8: %q %v", c.Message, err)
	}
	// Control characters (a terminal's escape sequences, a line break,
	// C1 controls) are replaced on the way out and refused on the way in.
	c, err = ParseClose(AppendClose(nil, &Close{Message: "\x1b[2Jgone\nnow\u009b"}))
	if err != nil || c.Message != "\uFFFD[2Jgone\uFFFDnow\uFFFD" {
		t.Fatalf("control characters: %q %v", c.Message, err)
	}
	forged := AppendClose(nil, &Close{Message: "xgone"})
	forged[len(forged)-5] = 0x1b
	if _, err := ParseClose(forged); !errors.Is(err, ErrMalformed) {
		t.Fatalf("a close message with an escape character: %v", err)
	}
}

func TestControlRejects(t *testing.T) {
	hello, _ := AppendHello(nil, &Hello{Token: []byte("token")})
	welcome, _ := AppendWelcome(nil, &Welcome{ClientID: 3, TickRate: 20})
	closeMsg := AppendClose(nil, &Close{Reason: ReasonFull, Message: "full"})
	mod := func(b []byte, i int, v byte) []byte { b = bytes.Clone(b); b[i] = v; return b }
	for _, c := range []struct {
		name  string
		parse func([]byte) error
		b     []byte
		want  error
	}{
		{"hello truncated", helloErr, hello[:len(hello)-1], ErrTruncated},
		{"hello trailing", helloErr, append(bytes.Clone(hello), 0), ErrMalformed},
		{"hello magic", helloErr, mod(hello, 0, 'x'), ErrMagic},
		{"hello version", helloErr, mod(hello, 2, 1), ErrVersion},
		{"hello flags", helloErr, mod(hello, 4, 0x80), ErrMalformed},
		{"hello as welcome", welcomeErr, hello, ErrType},
		{"hello empty token", helloErr, []byte{'N', 'S', Version, byte(TypeHello), 0, 0}, ErrMalformed},
		{"hello huge", helloErr, append(bytes.Clone(hello), make([]byte, MaxControlSize)...), ErrLimit},
		{"welcome rate NaN", welcomeErr, append(welcome[:len(welcome)-8:len(welcome)-8], 0, 0, 0, 0, 0, 0, 0xf8, 0x7f), ErrMalformed},
		{"welcome truncated", welcomeErr, welcome[:9], ErrTruncated},
		{"close truncated", closeErr, closeMsg[:len(closeMsg)-1], ErrTruncated},
		{"close not UTF-8", closeErr, mod(closeMsg, len(closeMsg)-1, 0xff), ErrMalformed},
		{"snapshot header", closeErr, []byte{'N', 'S', Version, byte(TypeSnapshot)}, ErrType},
		{"short", closeErr, []byte{'N', 'S'}, ErrTruncated},
	} {
		if err := c.parse(c.b); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := ControlType([]byte{'N', 'S', Version, byte(TypeInput)}); !errors.Is(err, ErrType) {
		t.Errorf("ControlType of an input: %v", err)
	}
	// An unknown reason reads as none, so that newer peers' reasons pass.
	if c, err := ParseClose(mod(closeMsg, 4, 200)); err != nil || c.Reason != ReasonNone {
		t.Errorf("unknown reason: %+v %v", c, err)
	}
}

func helloErr(b []byte) error   { _, err := ParseHello(b); return err }
func welcomeErr(b []byte) error { _, err := ParseWelcome(b); return err }
func closeErr(b []byte) error   { _, err := ParseClose(b); return err }

// FuzzControl: any bytes parse as each control message without panicking,
// to an error wrapping a package error, and what parses re-encodes to the
// same bytes.
func FuzzControl(f *testing.F) {
	hello, _ := AppendHello(nil, &Hello{Token: []byte("a token"), Spectator: true})
	welcome, _ := AppendWelcome(nil, &Welcome{ClientID: 9, TickRate: 60})
	f.Add(hello)
	f.Add(welcome)
	f.Add(AppendClose(nil, &Close{Reason: ReasonKicked, Message: "bye"}))
	f.Fuzz(func(t *testing.T, b []byte) {
		if h, err := ParseHello(b); err == nil {
			again, err := AppendHello(nil, &h)
			if err != nil || !bytes.Equal(again, b) {
				t.Fatalf("hello re-encodes to %x (%v), was %x", again, err, b)
			}
		} else if !isPackageError(err) {
			t.Fatal(err)
		}
		if w, err := ParseWelcome(b); err == nil {
			again, err := AppendWelcome(nil, &w)
			if err != nil || !bytes.Equal(again, b) {
				t.Fatalf("welcome re-encodes to %x (%v), was %x", again, err, b)
			}
		} else if !isPackageError(err) {
			t.Fatal(err)
		}
		if c, err := ParseClose(b); err == nil {
			if int(b[4]) < int(reasonCount) && !bytes.Equal(AppendClose(nil, &c), b) {
				t.Fatalf("close re-encodes differently: %x", b)
			}
		} else if !isPackageError(err) {
			t.Fatal(err)
		}
	})
}

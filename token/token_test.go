package token

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Every field survives Issue and Verify, and ParseUnverified reads the same
// public fields.
func TestRoundTrip(t *testing.T) {
	is := newIssuer(t, IssuerConfig{SigningKey: priv3, KeyID: 3, PrivateKey: dataKey, Lifetime: 45 * time.Second},
		&clock{t0.Add(700 * time.Millisecond)})
	r := Request{
		ClientID:    1<<63 + 5,
		Servers:     []string{"Game-1.Example.COM.:07777", "10.0.0.1:7777", "[2001:DB8::0:1]:9000"},
		Spectator:   true,
		UserData:    []byte("name=Ada;team=blue"),
		PrivateData: []byte("session secret"),
	}
	b, err := is.Issue(r)
	if err != nil {
		t.Fatal(err)
	}
	v := newVerifier(t, VerifierConfig{PrivateKey: dataKey})
	got, err := v.Verify(b, t0.Add(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	want := Token{
		KeyID:       3,
		ProtocolID:  game,
		ClientID:    1<<63 + 5,
		ID:          got.ID,
		IssuedAt:    t0, // the second it was issued in
		Expires:     t0.Add(45 * time.Second),
		Servers:     []string{"game-1.example.com:7777", "10.0.0.1:7777", "[2001:db8::1]:9000"},
		Spectator:   true,
		UserData:    []byte("name=Ada;team=blue"),
		PrivateData: []byte("session secret"),
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("verified\n%#v\nwant\n%#v", got, want)
	}
	if got.ID == ([IDSize]byte{}) {
		t.Fatal("zero ID")
	}
	pub, err := ParseUnverified(b)
	if err != nil {
		t.Fatal(err)
	}
	want.PrivateData = nil // still sealed
	if !reflect.DeepEqual(pub, want) {
		t.Fatalf("parsed\n%#v\nwant\n%#v", pub, want)
	}

	// The defaults: no spectator, no data, 30 s.
	b = issue(t, newIssuer(t, IssuerConfig{}, nil), Request{})
	got, err = v.Verify(b, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got.Spectator || got.UserData != nil || got.PrivateData != nil || !got.Expires.Equal(t0.Add(DefaultLifetime)) ||
		got.KeyID != 1 || got.ClientID != 42 {
		t.Fatalf("defaults: %#v", got)
	}
}

// The returned Token does not alias the bytes verified.
func TestVerifyCopies(t *testing.T) {
	b := issue(t, newIssuer(t, IssuerConfig{PrivateKey: dataKey}, nil),
		Request{UserData: []byte("user"), PrivateData: []byte("private")})
	tok, err := newVerifier(t, VerifierConfig{PrivateKey: dataKey}).Verify(b, t0)
	if err != nil {
		t.Fatal(err)
	}
	clear(b)
	if string(tok.UserData) != "user" || string(tok.PrivateData) != "private" || tok.Servers[0] != server {
		t.Fatalf("token changed with its bytes: %#v", tok)
	}
}

// The encoding is the layout the package documentation gives.
func TestLayout(t *testing.T) {
	is := newIssuer(t, IssuerConfig{KeyID: 0x01020304, SigningKey: priv1, PrivateKey: dataKey}, nil)
	b := issue(t, is, Request{ClientID: 0x1112131415161718, Servers: []string{"a:1", "b:2"}, Spectator: true,
		UserData: []byte("user"), PrivateData: []byte("priv")})
	le := binary.LittleEndian
	tok, _ := ParseUnverified(b)
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"version", uint64(b[0]), Version},
		{"key ID", uint64(le.Uint32(b[1:])), 0x01020304},
		{"protocol", le.Uint64(b[5:]), game},
		{"client", le.Uint64(b[13:]), 0x1112131415161718},
		{"issued", le.Uint64(b[37:]), uint64(t0.Unix())},
		{"expires", le.Uint64(b[45:]), uint64(t0.Unix()) + 30},
		{"flags", uint64(b[53]), 1},
		{"servers", uint64(b[54]), 2},
		{"server 1 length", uint64(b[55]), 3},
		{"server 2 length", uint64(b[59]), 3},
		{"user data length", uint64(le.Uint16(b[63:])), 4},
		{"private data length", uint64(le.Uint16(b[69:])), 4 + 16},
		{"size", uint64(len(b)), 71 + 20 + 64},
	} {
		if c.got != c.want {
			t.Errorf("%s: %#x, want %#x", c.name, c.got, c.want)
		}
	}
	if !bytes.Equal(b[21:37], tok.ID[:]) || string(b[56:59]) != "a:1" || string(b[60:63]) != "b:2" || string(b[65:69]) != "user" {
		t.Errorf("variable fields misplaced: % x", b)
	}
	if bytes.Contains(b, []byte("priv")) {
		t.Error("private data in clear")
	}
}

// The largest token the limits allow verifies, and Issue refuses one byte
// more.
func TestMaxSize(t *testing.T) {
	is := newIssuer(t, IssuerConfig{PrivateKey: dataKey}, nil)
	servers := []string{server}
	for i := range 5 {
		servers = append(servers, string(rune('a'+i))+strings.Repeat("bcdefghij.", 24)+"x:7777")
	}
	r := Request{Servers: servers, UserData: make([]byte, MaxUserData), PrivateData: make([]byte, MaxPrivateData)}
	_, err := is.Issue(Request{ClientID: 1, Servers: r.Servers, UserData: r.UserData, PrivateData: r.PrivateData})
	wantErr(t, err, ErrInvalid, "")
	// Trim the user data to fit exactly.
	over := encodedSize(&Token{Servers: servers, UserData: r.UserData}, MaxPrivateData+16) - MaxSize
	r.UserData = r.UserData[:MaxUserData-over]
	b := issue(t, is, r)
	if len(b) != MaxSize {
		t.Fatalf("%d bytes, want %d", len(b), MaxSize)
	}
	if _, err := newVerifier(t, VerifierConfig{PrivateKey: dataKey}).Verify(b, t0); err != nil {
		t.Fatal(err)
	}
	r.UserData = append(r.UserData, 0)
	r.ClientID = 1
	_, err = is.Issue(r)
	wantErr(t, err, ErrInvalid, "token: invalid: the token would be 2049 bytes, more than MaxSize (2048): name fewer or shorter servers or carry less data")
}

// Malformed layouts are refused as ErrMalformed, with what is wrong. Each is
// re-signed, so that nothing but the layout is at fault.
func TestMalformed(t *testing.T) {
	b := issue(t, newIssuer(t, IssuerConfig{}, nil), Request{UserData: []byte("u")})
	body := b[:len(b)-64]
	edit := func(f func(body []byte) []byte) []byte {
		return resign(append(f(append([]byte(nil), body...)), make([]byte, 64)...), priv1)
	}
	for _, c := range []struct {
		b   []byte
		msg string
	}{
		{b[:minSize-1], "token: malformed: 124 bytes, shorter than the smallest token (125)"},
		{make([]byte, MaxSize+1), "token: malformed: 2049 bytes, more than MaxSize (2048)"},
		{edit(func(b []byte) []byte { b[0] = 2; return b }), "token: malformed: version byte 0x2, this package reads version 1"},
		{edit(func(b []byte) []byte { b[offFlags] = 0x82; return b }), "token: malformed: unknown flag bits 0x82"},
		{edit(func(b []byte) []byte { b[offCount] = 0; return b }), "token: malformed: 0 servers, not 1 to 8"},
		{edit(func(b []byte) []byte { b[offCount] = 9; return b }), "token: malformed: 9 servers, not 1 to 8"},
		// One server more: the user data's length is read as the second
		// server's, and what follows as the user data's length.
		{edit(func(b []byte) []byte { b[offCount] = 2; return b }), "token: malformed: user data of 117 bytes runs past the end"},
		{edit(func(b []byte) []byte { b[offExpires+7] = 0x80; return b }),
			"token: malformed: times 1700000000 and -9223372035154775778 (Unix seconds) are not both from 1970 to 9999"},
		{edit(func(b []byte) []byte { b[fixedSize] = 0; return b }), "token: malformed: server 1 of 1 is empty"},
		{edit(func(b []byte) []byte { b[fixedSize] = 200; return b }), "token: malformed: server 1 of 1 runs past the end"},
		{edit(func(b []byte) []byte { return append(b, 0) }), "token: malformed: 1 bytes between the last field and the signature"},
		{edit(func(b []byte) []byte { return b[:len(b)-1] }), "token: malformed: private data length missing"},
		{edit(func(b []byte) []byte { b[len(b)-5] = 9; return b }), "token: malformed: user data of 9 bytes runs past the end"},
		{edit(func(b []byte) []byte { b[len(b)-2] = 16; return append(b, make([]byte, 16)...) }),
			"token: malformed: private data of 16 bytes, shorter than its 16-byte tag"},
		{edit(func(b []byte) []byte { b[len(b)-1] = 3; return append(b, make([]byte, 768)...) }),
			"token: malformed: private data of 768 bytes, more than 528"},
	} {
		_, err := ParseUnverified(c.b)
		wantErr(t, err, ErrMalformed, c.msg)
		_, err = newVerifier(t, VerifierConfig{}).Verify(c.b, t0)
		wantErr(t, err, ErrMalformed, c.msg)
	}
}

// The text form round-trips, tolerates surrounding white space and refuses
// anything else.
func TestText(t *testing.T) {
	b := issue(t, newIssuer(t, IssuerConfig{}, nil), Request{})
	s := EncodeString(b)
	if strings.ContainsAny(s, "+/=") {
		t.Fatalf("not base64url without padding: %s", s)
	}
	got, err := ParseString(" " + s + "\n")
	if err != nil || !bytes.Equal(got, b) {
		t.Fatalf("ParseString: %v", err)
	}
	for _, bad := range []string{s + "=", s[:len(s)-1] + "+", s[:len(s)-1] + "!", strings.Repeat("A", 2732)} {
		_, err := ParseString(bad)
		wantErr(t, err, ErrMalformed, "")
	}
}

func TestTokenString(t *testing.T) {
	tok := Token{KeyID: 1, ProtocolID: 0xab, ClientID: 42, ID: [IDSize]byte{0xde, 0xad}, Spectator: true,
		Servers: []string{"a:1", "b:2"}, IssuedAt: t0, Expires: t0.Add(30 * time.Second),
		UserData: []byte("xyz"), PrivateData: []byte("secret")}
	want := "token dead0000000000000000000000000000 key 1 protocol 0xab client 42 spectator for a:1,b:2 " +
		"issued 2023-11-14T22:13:20Z expires 2023-11-14T22:13:50Z user data 3 bytes private data 6 bytes"
	if got := tok.String(); got != want {
		t.Fatalf("\n%s\nwant\n%s", got, want)
	}
}

package token

import (
	"strings"
	"testing"
)

func TestCanonicalAddr(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"10.0.0.1:7777", "10.0.0.1:7777"},
		{"10.0.0.1:07777", "10.0.0.1:7777"},
		{"[::ffff:10.0.0.1]:7777", "10.0.0.1:7777"},
		{"[2001:DB8:0:0::1]:443", "[2001:db8::1]:443"},
		{"[::1]:1", "[::1]:1"},
		{"LocalHost:65535", "localhost:65535"},
		{"Game-1.EU.example.com.:9000", "game-1.eu.example.com:9000"},
		{"xn--bcher-kva.example:5", "xn--bcher-kva.example:5"},
		{"1.example:5", "1.example:5"},
		{strings.Repeat("a", 63) + ".b:1", strings.Repeat("a", 63) + ".b:1"},
	} {
		got, err := canonicalAddr(c.in)
		if err != nil || got != c.want {
			t.Errorf("%q: %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, msg string }{
		{"10.0.0.1", "not host:port"},
		{"[::1]", "not host:port"},
		{"::1:7777", "not host:port"},
		{":7777", "no host"},
		{".:7777", "no host"},
		{"a:0", `port "0" is not a number from 1 to 65535`},
		{"a:65536", `port "65536" is not a number from 1 to 65535`},
		{"a:http", `port "http" is not a number from 1 to 65535`},
		{"a:+1", `port "+1" is not a number from 1 to 65535`},
		{"[fe80::1%eth0]:1", `IPv6 zone "eth0" is meaningful on one machine only`},
		{"[1:2:3]:1", `host "1:2:3" is not a valid IPv6 address`},
		{"10.0.0.256:1", `host "10.0.0.256" is not a valid IPv4 address`},
		{"010.0.0.1:1", `host "010.0.0.1" is not a valid IPv4 address`},
		{"a..b:1", `host "a..b" has a label of 0 characters, not 1 to 63`},
		{strings.Repeat("a", 64) + ":1", `host "` + strings.Repeat("a", 64) + `" has a label of 64 characters, not 1 to 63`},
		{"-a.b:1", `host "-a.b" has a label starting or ending with a hyphen`},
		{"a_b:1", `host "a_b" is neither an IP address nor a host name (character "_")`},
		{"ä.example:1", `host "ä.example" is neither an IP address nor a host name (character "\xc3")`},
		{"a b:1", `host "a b" is neither an IP address nor a host name (character " ")`},
		{strings.Repeat("abcdefghi.", 26) + "a:1", "263 bytes, more than 255"},
	} {
		got, err := canonicalAddr(c.in)
		if err == nil || err.Error() != c.msg {
			t.Errorf("%q: %q, %v; want error %q", c.in, got, err, c.msg)
		}
	}
}

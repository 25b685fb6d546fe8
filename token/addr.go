package token

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// canonicalAddr returns addr, a server address as host:port, in the one
// form tokens carry and verifiers compare, so that "LOCALHOST:07777" and
// "localhost:7777", or "[::FFFF:10.0.0.1]:7777" and "10.0.0.1:7777", name the
// same server:
//
//   - the port is a decimal number from 1 to 65535, without leading zeros
//     (service names such as "https" are refused: they depend on the
//     machine's services file);
//   - an IP address is written as net/netip writes it: IPv4 dotted
//     decimal, an IPv4-mapped IPv6 address as its IPv4 address, IPv6
//     compressed, lower case and in brackets; zones (fe80::1%eth0) are
//     refused, being meaningful on one machine only;
//   - a host name is lower case, without a trailing dot, made of labels
//     of 1 to 63 letters, digits and hyphens that neither start nor end
//     with a hyphen, and its last label is not all digits (that would be a
//     mistyped IPv4 address such as 10.0.0.256 or 010.0.0.1);
//   - the whole is at most MaxServerLen bytes.
//
// No name is resolved: a name and the addresses it resolves to are
// different servers to a token.
func canonicalAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", errors.New("not host:port")
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil || p == 0 {
		return "", fmt.Errorf("port %q is not a number from 1 to 65535", port)
	}
	if host == "" {
		return "", errors.New("no host")
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if ip.Zone() != "" {
			return "", fmt.Errorf("IPv6 zone %q is meaningful on one machine only", ip.Zone())
		}
		host = ip.Unmap().String()
	} else if strings.Contains(host, ":") {
		return "", fmt.Errorf("host %q is not a valid IPv6 address", host)
	} else {
		host = strings.TrimSuffix(strings.ToLower(host), ".")
		if err := checkHostname(host); err != nil {
			return "", err
		}
	}
	s := net.JoinHostPort(host, strconv.FormatUint(p, 10))
	if len(s) > MaxServerLen {
		return "", fmt.Errorf("%d bytes, more than %d", len(s), MaxServerLen)
	}
	return s, nil
}

// checkHostname checks a lower-case host name without its trailing dot
// against the rules of canonicalAddr.
func checkHostname(host string) error {
	if host == "" {
		return errors.New("no host")
	}
	labels := strings.Split(host, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return fmt.Errorf("host %q has a label of %d characters, not 1 to 63", host, len(l))
		}
		if l[0] == '-' || l[len(l)-1] == '-' {
			return fmt.Errorf("host %q has a label starting or ending with a hyphen", host)
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return fmt.Errorf("host %q is neither an IP address nor a host name (character %q)", host, l[i:i+1])
			}
		}
	}
	last := labels[len(labels)-1]
	if strings.Trim(last, "0123456789") == "" {
		return fmt.Errorf("host %q is not a valid IPv4 address", host)
	}
	return nil
}

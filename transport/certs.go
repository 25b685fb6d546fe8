//go:build !js

package transport

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"net"
	"time"
)

// MaxHashedValidity is the longest validity a certificate accepted by its
// hash may have: what browsers allow for WebTransport's
// serverCertificateHashes, and what a client pinning a hash ([DialConfig]
// CertHashes) enforces too.
const MaxHashedValidity = 14 * 24 * time.Hour

// DefaultCertValidity is the validity of the certificate SelfSigned makes
// by default: within MaxHashedValidity, with a day of slack for clocks.
const DefaultCertValidity = 10 * 24 * time.Hour

// SelfSigned returns a new self-signed certificate for hosts (DNS names
// or IP addresses; localhost, 127.0.0.1 and ::1 when empty), with an
// ECDSA P-256 key, valid from an hour ago for validity (0:
// DefaultCertValidity; at most MaxHashedValidity less that hour). It is
// what a server uses when given no certificate: clients accept it by its
// hash ([CertHash]), a browser through WebTransport's
// serverCertificateHashes, a native client through DialConfig.CertHashes.
// Leaf is set.
func SelfSigned(hosts []string, validity time.Duration) (tls.Certificate, error) {
	if validity == 0 {
		validity = DefaultCertValidity
	}
	const backdate = time.Hour
	if validity < 0 || validity+backdate > MaxHashedValidity {
		return tls.Certificate{}, fmt.Errorf("transport: certificate validity %v, want up to %v", validity, MaxHashedValidity-backdate)
	}
	if len(hosts) == 0 {
		hosts = []string{"localhost", "127.0.0.1", "::1"}
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: hosts[0]},
		NotBefore:             now.Add(-backdate),
		NotAfter:              now.Add(validity),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

// CertHash returns the SHA-256 hash of a certificate's leaf (its DER
// encoding): what WebTransport's serverCertificateHashes and
// DialConfig.CertHashes name.
func CertHash(cert *tls.Certificate) [32]byte {
	if len(cert.Certificate) == 0 {
		return [32]byte{}
	}
	return sha256.Sum256(cert.Certificate[0])
}

// LoadCertificate reads a PEM certificate chain and its key, for a
// server in production (a certificate from a public CA, so that browsers
// and native clients verify it the usual way).
func LoadCertificate(certFile, keyFile string) (tls.Certificate, error) {
	c, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return c, fmt.Errorf("transport: %w", err)
	}
	return c, nil
}

// verifyHashes returns a TLS check that accepts a server certificate only
// if its hash is one of hashes and it is valid now for no longer than
// MaxHashedValidity, as browsers do for serverCertificateHashes.
func verifyHashes(hashes [][32]byte) func(tls.ConnectionState) error {
	return func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("transport: the server sent no certificate")
		}
		leaf := cs.PeerCertificates[0]
		h := sha256.Sum256(leaf.Raw)
		found := false
		for _, want := range hashes {
			found = found || h == want
		}
		if !found {
			return fmt.Errorf("transport: server certificate hash %x is not one of the %d expected", h[:8], len(hashes))
		}
		now := time.Now()
		if now.Before(leaf.NotBefore) || now.After(leaf.NotAfter) {
			return fmt.Errorf("transport: server certificate valid %v to %v, not now", leaf.NotBefore, leaf.NotAfter)
		}
		if leaf.NotAfter.Sub(leaf.NotBefore) > MaxHashedValidity {
			return fmt.Errorf("transport: a certificate accepted by its hash may be valid %v at most, this one %v",
				MaxHashedValidity, leaf.NotAfter.Sub(leaf.NotBefore))
		}
		return nil
	}
}

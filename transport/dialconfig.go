package transport

import (
	"crypto/x509"
	"net"
	"time"
)

// DialConfig configures a client's connection. How the server's
// certificate is checked: by its hash when CertHashes is set (a
// self-signed certificate, as a development server makes), else by the
// usual chain verification against RootCAs (nil: the system's roots).
//
// In a browser (a js/wasm build) the browser's WebTransport checks the
// certificate, against its own roots or CertHashes (as
// serverCertificateHashes), and runs QUIC itself: RootCAs, ServerName,
// IdleTimeout and PacketConn do not apply there.
type DialConfig struct {
	// CertHashes accepts a server certificate whose SHA-256 hash is one of
	// these, valid now for at most MaxHashedValidity, whoever signed it:
	// the native form of WebTransport's serverCertificateHashes.
	CertHashes [][32]byte
	// RootCAs verifies the server's certificate chain when CertHashes is
	// empty (nil: the system's roots).
	RootCAs *x509.CertPool
	// ServerName is the name the certificate must be for (default: the
	// host of the address dialled).
	ServerName string
	// Timeout bounds the whole handshake, from the first packet to the
	// server's Welcome (default DefaultHelloTimeout).
	Timeout time.Duration
	// IdleTimeout closes the connection after this long without a packet
	// from the server (default DefaultIdleTimeout); the client sends
	// keep-alives at a third of it.
	IdleTimeout time.Duration
	// QueueLen is how many packets the connection queues for sending
	// (default DefaultQueueLen).
	QueueLen int
	// PacketConn, if set, is the local socket to dial from (a test's
	// counting socket, say); the connection does not close it.
	PacketConn net.PacketConn
}

func (c DialConfig) timeout() time.Duration {
	if c.Timeout <= 0 {
		return DefaultHelloTimeout
	}
	return c.Timeout
}

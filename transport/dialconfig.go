package transport

import (
	"crypto/x509"
	"net"
	"time"
)

// DefaultIdleTimeout is how long either end of a connection waits
// without a packet from the other before it ends the connection, by
// default (ListenConfig.IdleTimeout, DialConfig.IdleTimeout).
const DefaultIdleTimeout = 10 * time.Second

// DialConfig configures a client's connection. How the server's
// certificate is checked: by its hash when CertHashes is set (a
// self-signed certificate, as a development server makes), else by the
// usual chain verification against RootCAs (nil: the system's roots).
//
// In a browser (a js/wasm build) the browser's WebTransport checks the
// certificate, against its own roots or CertHashes (as
// serverCertificateHashes), and runs QUIC itself: RootCAs, ServerName
// and PacketConn do not apply there, and IdleTimeout only to a
// client.Client's watch for a silent server.
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
	// keep-alives at a third of it. QUIC's idle timeout counts the
	// server's acknowledgements of those keep-alives as packets:
	// client.Client also ends a connection over which nothing of the
	// server's has arrived for this long, over any carrier.
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

// Package transport carries netsmooth's packets between a server and its
// clients, encrypted and authenticated, built on QUIC (github.com/quic-go/
// quic-go) and WebTransport (github.com/quic-go/webtransport-go), with no
// cryptography or handshake of its own:
//
//   - native clients and servers exchange packets as QUIC unreliable
//     datagrams (RFC 9221) on connections of netsmooth's application
//     protocol ([ALPN]);
//   - browsers use WebTransport datagrams, served by the same [Listener]
//     on the same UDP socket;
//   - browsers without WebTransport fall back to a WebSocket (TLS in
//     production), or any reliable connection that carries messages whole
//     ([MessageConn]), with the same handshake.
//
// Packets larger than a datagram are split by the codec (package wire)
// into parts of at most wire.Config.MaxPacket bytes, 1200 by default,
// which every QUIC path carries.
//
// # The handshake
//
// After the carrier's own handshake (TLS 1.3; for QUIC, address
// validation first), the client's first message is a wire.Hello with its
// connect token. The server answers with a wire.Welcome, or refuses with
// a wire.Close saying why; nothing else reaches a client before it is
// welcomed, so a server that is not admitting anyone sends at most what
// QUIC's handshake sends: a small Retry to an unvalidated address, and
// never more than three times the bytes received before the address is
// validated. [Listener.Accept] hands the server each connection whose
// Hello arrived as an [Incoming] to accept or refuse (package server
// verifies the token); [NewIncoming] makes one of a [MessageConn]. On the
// client, [Dial] (QUIC), [DialWebTransport] and [Handshake] (a
// MessageConn) return the connection and the Welcome, or the server's
// refusal as a [CloseError].
//
// A connection ends with a reason both ends learn: the QUIC application
// close code, the WebTransport session close code (0x4e5300 plus the
// wire.Reason) and a Close message on a MessageConn carry it, with a
// message in words.
//
// # Certificates
//
// A server given no certificate makes a self-signed ECDSA one, valid
// for 10 days ([SelfSigned]): development with no setup. Browsers accept
// it through WebTransport's serverCertificateHashes, native clients
// through [DialConfig] CertHashes, both with the hash [Listener.CertHash]
// gives, and both refuse a certificate valid longer than 14 days that
// way. In production the server takes a certificate from a public CA
// ([LoadCertificate]) and clients verify it the usual way.
//
// # Sending
//
// A [Conn]'s WritePacket queues a copy of the packet and returns: a
// goroutine hands it to QUIC (whose congestion control may hold it back)
// or to the WebSocket. A queue that fills, because the network is slower
// than the sender, drops its oldest packet: a game server's tick never
// waits for a client's link.
//
// # Impairment
//
// [Impairment] applies a netsim.Link to real packets on the wall clock,
// and a [Path] switches one on, changes it and off in front of a
// connection's packets while they flow: the client's and server's Impair
// options use them, so that tests and demos see the loss, latency and
// jitter they ask for, over any carrier.
package transport

//go:build !js

package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/netsmooth/netsmooth/wire"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/webtransport-go"
)

// ALPN is the TLS application protocol of netsmooth's native QUIC
// connections; WebTransport connections negotiate HTTP/3's "h3".
const ALPN = "netsmooth/2"

// Defaults of [ListenConfig].
const (
	DefaultAddr             = "127.0.0.1:0"
	DefaultWebTransportPath = "/netsmooth"
	DefaultMaxPending       = 256
)

// RetryPolicy says when a server makes a new client prove its address
// (QUIC's Retry, RFC 9000 section 8.1.2) before it keeps any state for the
// connection.
type RetryPolicy uint8

const (
	// RetryAlways validates every client's address first: a packet from
	// a spoofed address gets one small Retry packet and costs the server
	// nothing else, at the price of one more round trip to connect.
	RetryAlways RetryPolicy = iota
	// RetryUnderLoad validates addresses only while more than a quarter
	// of MaxPending connections are being set up. QUIC's limit of 3x the
	// bytes received before an address is validated applies either way.
	RetryUnderLoad
)

// ListenConfig configures a [Listener]. The zero value of every field
// means its default.
type ListenConfig struct {
	// Addr is the UDP address to listen on (default 127.0.0.1 on a port
	// the system picks). Listen on other interfaces on purpose.
	Addr string
	// PacketConn, if set, is the socket to use instead of opening one on
	// Addr (a socket shared with other protocols, or one a test counts
	// the bytes of). The Listener closes it.
	PacketConn net.PacketConn
	// Certificate is the server's TLS certificate. Nil makes a
	// self-signed one for the listening host, valid DefaultCertValidity,
	// which clients accept by its hash ([Listener.CertHash]): enough for
	// development, with no setup. In production give one from a public
	// CA ([LoadCertificate]).
	Certificate *tls.Certificate
	// WebTransportPath is the HTTP/3 path browsers open WebTransport
	// sessions on (default "/netsmooth"). NoWebTransport serves native
	// QUIC clients only.
	WebTransportPath string
	NoWebTransport   bool
	// CheckOrigin decides which pages may open WebTransport sessions. Nil
	// admits every origin: a session grants nothing without a connect
	// token, and a browser sends no ambient credentials with it.
	CheckOrigin func(*http.Request) bool
	// HelloTimeout bounds the time from a connection's first packet to the
	// server's answer to its Hello (default DefaultHelloTimeout): the QUIC
	// handshake, the Hello, and the server's decision.
	HelloTimeout time.Duration
	// MaxPending bounds the connections being set up at once, from their
	// first packet (after Retry, with RetryAlways) to the server's answer
	// (default 256). Further ones are refused at once.
	MaxPending int
	// IdleTimeout closes a connection silent for this long (default
	// DefaultIdleTimeout).
	IdleTimeout time.Duration
	// Retry says when to validate a client's address first (default
	// RetryAlways).
	Retry RetryPolicy
	// QueueLen is how many packets each connection queues for sending
	// (default DefaultQueueLen).
	QueueLen int
}

// ListenerStats are a [Listener]'s counters.
type ListenerStats struct {
	// Pending is the number of connections being set up now.
	Pending int
	// Offered counts the connections handed to Accept; Busy those refused
	// because MaxPending were being set up; TimedOut those that sent no
	// Hello, or got no answer, within HelloTimeout; BadHello those whose
	// first message was not a Hello.
	Offered, Busy, TimedOut, BadHello uint64
}

// Listener accepts connections on one UDP socket: native clients over
// QUIC (application protocol [ALPN]) and browsers over WebTransport
// (HTTP/3), both with TLS 1.3, QUIC's address validation and its 3x
// anti-amplification limit. Each connection's first message is the
// client's Hello; Accept hands it to the server as an [Incoming] to
// accept or refuse, and nothing but the handshake is sent to the client
// before that. A server serving browsers without WebTransport makes
// Incomings from WebSockets with [NewIncoming].
type Listener struct {
	cfg      ListenConfig
	pc       net.PacketConn
	tr       *quic.Transport
	ql       *quic.Listener
	wt       *webtransport.Server
	certHash [32]byte

	incoming chan *Incoming
	pending  atomic.Int64
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	closeErr error
	once     sync.Once

	offered, busy, timedOut, badHello atomic.Uint64
}

// pendingKey keys a connection's *setup in its context.
type pendingKey struct{}

// setup is one connection being set up: its place among MaxPending,
// given back once, when the server has answered or the connection died.
type setup struct {
	l       *Listener
	once    sync.Once
	decided atomic.Bool
	conn    atomic.Pointer[quic.Conn] // set once the handshake completed
}

func (s *setup) release() { s.once.Do(func() { s.l.pending.Add(-1) }) }

// Listen opens the socket and starts accepting connections; cancelling
// ctx closes the Listener, as Close does.
func Listen(ctx context.Context, cfg ListenConfig) (*Listener, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	pc := cfg.PacketConn
	if pc == nil {
		if pc, err = net.ListenPacket("udp", cfg.Addr); err != nil {
			return nil, fmt.Errorf("transport: %w", err)
		}
		if u, ok := pc.(*net.UDPConn); ok {
			_ = u.SetReadBuffer(4 << 20) // best effort: room for bursts of input packets
			_ = u.SetWriteBuffer(4 << 20)
		}
	}
	cert := cfg.Certificate
	if cert == nil {
		c, err := SelfSigned(hostsOf(pc.LocalAddr()), 0)
		if err != nil {
			pc.Close()
			return nil, err
		}
		cert = &c
	}
	l := &Listener{cfg: cfg, pc: pc, certHash: CertHash(cert), incoming: make(chan *Incoming, cfg.MaxPending)}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	l.tr = &quic.Transport{Conn: pc, ConnContext: l.connContext, VerifySourceAddress: l.verifySource}
	tlsConf := &tls.Config{Certificates: []tls.Certificate{*cert}, MinVersion: tls.VersionTLS13,
		NextProtos: []string{ALPN, http3.NextProtoH3}}
	if l.ql, err = l.tr.Listen(tlsConf, quicConfig(cfg.IdleTimeout, cfg.HelloTimeout)); err != nil {
		l.tr.Close()
		pc.Close()
		return nil, fmt.Errorf("transport: %w", err)
	}
	if !cfg.NoWebTransport {
		l.startWebTransport()
	}
	l.wg.Add(1)
	go l.acceptLoop()
	context.AfterFunc(ctx, func() { l.Close() })
	return l, nil
}

func (c ListenConfig) normalize() (ListenConfig, error) {
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	if c.WebTransportPath == "" {
		c.WebTransportPath = DefaultWebTransportPath
	}
	if c.HelloTimeout == 0 {
		c.HelloTimeout = DefaultHelloTimeout
	}
	if c.MaxPending == 0 {
		c.MaxPending = DefaultMaxPending
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.QueueLen == 0 {
		c.QueueLen = DefaultQueueLen
	}
	switch {
	case c.HelloTimeout < 0, c.IdleTimeout < 0:
		return c, errors.New("transport: HelloTimeout and IdleTimeout must be positive (or 0 for the default)")
	case c.MaxPending < 1, c.QueueLen < 1:
		return c, errors.New("transport: MaxPending and QueueLen must be at least 1 (or 0 for the default)")
	case c.Retry > RetryUnderLoad:
		return c, fmt.Errorf("transport: unknown RetryPolicy %d", c.Retry)
	}
	return c, nil
}

// quicConfig is the QUIC configuration of both ends: datagrams on (and
// the partial-delivery stream resets WebTransport needs), a few streams
// only (the control stream; HTTP/3's for WebTransport), small flow-control
// windows (the streams carry a few control messages), and the timeouts.
func quicConfig(idle, handshake time.Duration) *quic.Config {
	return &quic.Config{
		EnableDatagrams:                  true,
		EnableStreamResetPartialDelivery: true,
		HandshakeIdleTimeout:             handshake,
		MaxIdleTimeout:                   idle,
		MaxIncomingStreams:               16,
		MaxIncomingUniStreams:            16,
		InitialStreamReceiveWindow:       16 << 10,
		MaxStreamReceiveWindow:           64 << 10,
		InitialConnectionReceiveWindow:   64 << 10,
		MaxConnectionReceiveWindow:       256 << 10,
	}
}

// hostsOf returns the names a self-signed certificate for a socket bound
// to addr should carry.
func hostsOf(addr net.Addr) []string {
	hosts := []string{"localhost", "127.0.0.1", "::1"}
	if ap, err := netip.ParseAddrPort(addr.String()); err == nil && !ap.Addr().IsUnspecified() && !ap.Addr().IsLoopback() {
		hosts = append(hosts, ap.Addr().String())
	}
	return hosts
}

// connContext is called for every new QUIC connection (after Retry, when
// validated): it takes one of MaxPending places, or refuses the
// connection.
func (l *Listener) connContext(ctx context.Context, _ *quic.ClientInfo) (context.Context, error) {
	if l.pending.Add(1) > int64(l.cfg.MaxPending) {
		l.pending.Add(-1)
		l.busy.Add(1)
		return nil, errors.New("transport: too many connections being set up")
	}
	s := &setup{l: l}
	context.AfterFunc(ctx, s.release)
	return context.WithValue(ctx, pendingKey{}, s), nil
}

// verifySource says whether a new connection must prove its address.
func (l *Listener) verifySource(net.Addr) bool {
	return l.cfg.Retry == RetryAlways || l.pending.Load() > int64(l.cfg.MaxPending/4)
}

// acceptLoop takes the connections whose QUIC handshake completed and
// starts reading their Hello.
func (l *Listener) acceptLoop() {
	defer l.wg.Done()
	for {
		qc, err := l.ql.Accept(l.ctx)
		if err != nil {
			return
		}
		s, _ := qc.Context().Value(pendingKey{}).(*setup)
		if s == nil { // cannot happen: connContext made every connection
			qc.CloseWithError(quic.ApplicationErrorCode(reasonCode(wire.ReasonBusy)), "")
			continue
		}
		time.AfterFunc(l.cfg.HelloTimeout, func() {
			if !s.decided.Load() {
				l.timedOut.Add(1)
				qc.CloseWithError(quic.ApplicationErrorCode(reasonCode(wire.ReasonTimeout)), "no hello in time")
			}
		})
		switch qc.ConnectionState().TLS.NegotiatedProtocol {
		case ALPN:
			l.wg.Add(1)
			go func() {
				defer l.wg.Done()
				l.native(qc, s)
			}()
		case http3.NextProtoH3:
			if l.wt == nil {
				qc.CloseWithError(quic.ApplicationErrorCode(reasonCode(wire.ReasonProtocol)), "WebTransport is off")
				continue
			}
			s.conn.Store(qc)
			l.wg.Add(1)
			go func() {
				defer l.wg.Done()
				l.wt.ServeQUICConn(qc)
			}()
		default:
			qc.CloseWithError(quic.ApplicationErrorCode(reasonCode(wire.ReasonProtocol)), "unknown application protocol")
		}
	}
}

// native reads a native client's Hello from the first stream it opens.
func (l *Listener) native(qc *quic.Conn, s *setup) {
	st, err := qc.AcceptStream(qc.Context())
	if err != nil {
		return // closed: by the client, or by the Hello timeout
	}
	h, err := readHello(st)
	if err != nil {
		l.badHello.Add(1)
		qc.CloseWithError(quic.ApplicationErrorCode(reasonCode(wire.ReasonProtocol)), "expected a hello")
		return
	}
	car := quicCarrier{qc}
	l.offer(&Incoming{hello: h, remote: qc.RemoteAddr(), kind: KindQUIC,
		accept: func(w wire.Welcome) (Conn, error) { return l.welcome(st, car, KindQUIC, w) },
		refuse: func(c wire.Close) error { return refuseOn(st, car, c) },
	}, s)
}

// readHello reads and copies the framed Hello at the start of st.
func readHello(st interface {
	Read([]byte) (int, error)
	SetReadDeadline(time.Time) error
}) (wire.Hello, error) {
	b, err := readFrame(st)
	if err != nil {
		return wire.Hello{}, err
	}
	h, err := wire.ParseHello(b)
	if err != nil {
		return h, err
	}
	h.Token = append([]byte(nil), h.Token...)
	return h, nil
}

// welcome sends w on the control stream, closes the stream's sending
// side, and returns the connection.
func (l *Listener) welcome(st interface {
	Write([]byte) (int, error)
	Close() error
	SetWriteDeadline(time.Time) error
}, car carrier, kind Kind, w wire.Welcome) (Conn, error) {
	msg, err := wire.AppendWelcome(nil, &w)
	if err != nil {
		car.closeWith(wire.ReasonShutdown, "")
		return nil, err
	}
	_ = st.SetWriteDeadline(time.Now().Add(l.cfg.HelloTimeout))
	if err := writeFrame(st, msg); err != nil {
		car.closeWith(wire.ReasonNone, "")
		return nil, fmt.Errorf("transport: sending the welcome: %w", err)
	}
	st.Close()
	return newDatagramConn(car, kind, l.cfg.QueueLen), nil
}

// refuseOn answers a Hello with c on the control stream st, the
// reliable way, and ends the connection with c's code and message, after
// the carrier's grace.
func refuseOn(st interface {
	Write([]byte) (int, error)
	Close() error
	SetWriteDeadline(time.Time) error
}, car carrier, c wire.Close) error {
	_ = st.SetWriteDeadline(time.Now().Add(time.Second))
	writeFrame(st, wire.AppendClose(nil, &c))
	st.Close()
	if g := car.grace(); g > 0 {
		time.AfterFunc(g, func() { car.closeWith(c.Reason, c.Message) })
		return nil
	}
	return car.closeWith(c.Reason, c.Message)
}

// offer hands in to Accept, or refuses it when MaxPending are waiting.
// Either way s's place is given back once the server has answered.
func (l *Listener) offer(in *Incoming, s *setup) {
	in.done = func() {
		s.decided.Store(true)
		s.release()
	}
	select {
	case l.incoming <- in:
		l.offered.Add(1)
	default:
		l.busy.Add(1)
		in.Refuse(wire.ReasonBusy, "too many connections being set up")
	}
}

// wtMaxHeaderBytes bounds an HTTP/3 request's HEADERS frame: a
// WebTransport CONNECT request takes a few hundred bytes, and HTTP/3
// allocates the length a frame claims before reading it (1 MB a stream
// by default, before any token).
const wtMaxHeaderBytes = 4 << 10

// startWebTransport serves WebTransport sessions on HTTP/3 connections.
func (l *Listener) startWebTransport() {
	mux := http.NewServeMux()
	h3 := &http3.Server{Handler: mux, QUICConfig: quicConfig(l.cfg.IdleTimeout, l.cfg.HelloTimeout), MaxHeaderBytes: wtMaxHeaderBytes}
	l.wt = &webtransport.Server{H3: h3, CheckOrigin: l.cfg.CheckOrigin, ReorderingTimeout: l.cfg.HelloTimeout}
	if l.wt.CheckOrigin == nil {
		l.wt.CheckOrigin = func(*http.Request) bool { return true }
	}
	webtransport.ConfigureHTTP3Server(h3)
	mux.HandleFunc(l.cfg.WebTransportPath, func(w http.ResponseWriter, r *http.Request) {
		s, _ := r.Context().Value(pendingKey{}).(*setup)
		if s == nil || s.decided.Load() {
			w.WriteHeader(http.StatusTooManyRequests) // one session per connection
			return
		}
		sess, err := l.wt.Upgrade(w, r)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		ctx, cancel := context.WithTimeout(sess.Context(), l.cfg.HelloTimeout)
		defer cancel()
		st, err := sess.AcceptStream(ctx)
		if err != nil {
			return
		}
		h, err := readHello(st)
		car := wtCarrier{sess, s.conn.Load()}
		if err != nil {
			l.badHello.Add(1)
			car.closeWith(wire.ReasonProtocol, "expected a hello")
			return
		}
		l.offer(&Incoming{hello: h, remote: sess.RemoteAddr(), kind: KindWebTransport,
			accept: func(w wire.Welcome) (Conn, error) { return l.welcome(st, car, KindWebTransport, w) },
			refuse: func(c wire.Close) error { return refuseOn(st, car, c) },
		}, s)
	})
}

// Accept returns the next connection whose Hello has arrived, for the
// server to accept or refuse within HelloTimeout (after which the
// connection is closed). It returns an error once the Listener is closed
// or ctx is done.
func (l *Listener) Accept(ctx context.Context) (*Incoming, error) {
	select {
	case in := <-l.incoming:
		return in, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-l.ctx.Done():
		return nil, net.ErrClosed
	}
}

// Addr returns the UDP address the Listener is bound to.
func (l *Listener) Addr() netip.AddrPort {
	ap, _ := netip.ParseAddrPort(l.pc.LocalAddr().String())
	return ap
}

// CertHash returns the SHA-256 hash of the server's certificate: what a
// browser passes as WebTransport's serverCertificateHashes, and a native
// client as DialConfig.CertHashes, to accept a self-signed certificate.
func (l *Listener) CertHash() [32]byte { return l.certHash }

// WebTransportURL returns the URL browsers open WebTransport sessions on,
// for host (the name or address clients reach the server by); "" when
// WebTransport is off.
func (l *Listener) WebTransportURL(host string) string {
	if l.cfg.NoWebTransport {
		return ""
	}
	return fmt.Sprintf("https://%s%s", net.JoinHostPort(host, fmt.Sprint(l.Addr().Port())), l.cfg.WebTransportPath)
}

// Stats returns the Listener's counters.
func (l *Listener) Stats() ListenerStats {
	return ListenerStats{Pending: int(l.pending.Load()), Offered: l.offered.Load(), Busy: l.busy.Load(),
		TimedOut: l.timedOut.Load(), BadHello: l.badHello.Load()}
}

// Close stops accepting, closes every connection (with ReasonShutdown)
// and the socket, and waits for the Listener's goroutines. Only the first
// call does anything.
func (l *Listener) Close() error {
	l.once.Do(func() {
		l.cancel()
		l.ql.Close()
		if l.wt != nil {
			l.wt.Close()
		}
		l.closeErr = l.tr.Close()
		l.pc.Close()
		l.wg.Wait()
		for drained := false; !drained; {
			select {
			case in := <-l.incoming:
				in.Refuse(wire.ReasonShutdown, "the server is shutting down")
			default:
				drained = true
			}
		}
	})
	return l.closeErr
}

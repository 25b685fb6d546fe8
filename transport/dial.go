//go:build !js

package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"sync/atomic"

	"github.com/netsmooth/netsmooth/wire"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/webtransport-go"
)

func (c DialConfig) tlsConfig(host string, protos ...string) *tls.Config {
	t := &tls.Config{MinVersion: tls.VersionTLS13, NextProtos: protos, ServerName: c.ServerName, RootCAs: c.RootCAs}
	if t.ServerName == "" {
		t.ServerName = host
	}
	if len(c.CertHashes) > 0 {
		// The chain is not verified: the hash stands for it.
		t.InsecureSkipVerify = true
		t.VerifyConnection = verifyHashes(c.CertHashes)
	}
	return t
}

func (c DialConfig) quic() *quic.Config {
	idle := c.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	q := quicConfig(idle, c.timeout())
	q.KeepAlivePeriod = idle / 3
	return q
}

// Dial connects to a netsmooth server at addr (host:port) over QUIC,
// sends hello (the client's connect token) and waits for the server's
// answer. It returns the connection and the server's Welcome, or an
// error: a *CloseError with the server's reason when the server refused
// (ReasonBadToken, ReasonFull, ReasonBusy...), an error wrapping
// ErrTimeout when nothing answered in time, or the TLS error when the
// server's certificate did not check out.
func Dial(ctx context.Context, addr string, hello wire.Hello, cfg DialConfig) (Conn, wire.Welcome, error) {
	msg, err := wire.AppendHello(nil, &hello)
	if err != nil {
		return nil, wire.Welcome{}, err
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, wire.Welcome{}, fmt.Errorf("transport: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout())
	defer cancel()
	var qc *quic.Conn
	if cfg.PacketConn != nil {
		raddr, err := net.ResolveUDPAddr("udp", addr)
		if err != nil {
			return nil, wire.Welcome{}, fmt.Errorf("transport: %w", err)
		}
		qc, err = quic.Dial(ctx, cfg.PacketConn, raddr, cfg.tlsConfig(host, ALPN), cfg.quic())
		if err != nil {
			return nil, wire.Welcome{}, dialErr(ctx, addr, err)
		}
	} else if qc, err = quic.DialAddr(ctx, addr, cfg.tlsConfig(host, ALPN), cfg.quic()); err != nil {
		return nil, wire.Welcome{}, dialErr(ctx, addr, err)
	}
	car := quicCarrier{qc}
	st, err := qc.OpenStreamSync(ctx)
	if err != nil {
		car.closeWith(wire.ReasonLeft, "")
		return nil, wire.Welcome{}, dialErr(ctx, addr, err)
	}
	w, err := hail(ctx, st, msg)
	if err != nil {
		car.closeWith(wire.ReasonLeft, "")
		return nil, w, dialErr(ctx, addr, err)
	}
	return newDatagramConn(car, KindQUIC, cfg.QueueLen), w, nil
}

// DialWebTransport connects to a netsmooth server's WebTransport endpoint
// at url (https://host:port/path), sends hello and waits for the answer,
// as Dial does. It is what a browser does (in a js/wasm build it uses the
// browser's WebTransport); natively it serves tests and tools.
func DialWebTransport(ctx context.Context, url string, hello wire.Hello, cfg DialConfig) (Conn, wire.Welcome, error) {
	msg, err := wire.AppendHello(nil, &hello)
	if err != nil {
		return nil, wire.Welcome{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout())
	defer cancel()
	d := &webtransport.Transport{QUICConfig: cfg.quic(), StreamReorderingTimeout: cfg.timeout()}
	var conn atomic.Pointer[quic.Conn]
	d.DialAddr = func(dctx context.Context, addr string, t *tls.Config, q *quic.Config) (*quic.Conn, error) {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		qc, err := quic.DialAddrEarly(dctx, addr, cfg.tlsConfig(host, http3.NextProtoH3), q)
		if err == nil {
			conn.Store(qc)
			if ctx.Err() != nil { // ended as the connection was made
				qc.CloseWithError(0, "")
			}
		}
		return qc, err
	}
	// webtransport-go waits for the answer to its CONNECT request without
	// a context: a server that never answers would hold the dial for ever,
	// the client's keep-alives keeping the connection up. Ending the
	// connection when ctx ends is what bounds the wait.
	ended := context.AfterFunc(ctx, func() {
		if qc := conn.Load(); qc != nil {
			qc.CloseWithError(0, "")
		}
	})
	fail := func(err error) (Conn, wire.Welcome, error) {
		ended()
		if qc := conn.Load(); qc != nil {
			qc.CloseWithError(0, "") // the session's connection, of no further use
		}
		return nil, wire.Welcome{}, err
	}
	rsp, sess, err := d.Dial(ctx, url, nil)
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err() // not the close that ended the wait
		}
		return fail(dialErr(ctx, url, err))
	}
	if rsp.StatusCode < 200 || rsp.StatusCode > 299 {
		sess.CloseWithError(0, "")
		return fail(fmt.Errorf("%w: WebTransport at %s answered HTTP %d", ErrHandshake, url, rsp.StatusCode))
	}
	car := wtCarrier{sess, conn.Load()}
	st, err := sess.OpenStreamSync(ctx)
	if err != nil {
		car.closeWith(wire.ReasonLeft, "")
		return nil, wire.Welcome{}, dialErr(ctx, url, err)
	}
	w, err := hail(ctx, st, msg)
	if err == nil && !ended() {
		err = ctx.Err() // ended as the Welcome came: the connection is closed
	}
	if err != nil {
		car.closeWith(wire.ReasonLeft, "")
		return nil, w, dialErr(ctx, url, err)
	}
	return newDatagramConn(car, KindWebTransport, cfg.QueueLen), w, nil
}

// dialErr turns a failed dial into the error Dial documents.
func dialErr(ctx context.Context, addr string, err error) error {
	var ce *CloseError
	var app *quic.ApplicationError
	var sess *webtransport.SessionError
	var hs *quic.HandshakeTimeoutError
	var idle *quic.IdleTimeoutError
	switch {
	case errors.As(err, &ce):
		return ce
	case errors.As(err, &app), errors.As(err, &sess):
		return closeReason(err) // the server's answer, whatever its code
	case ctx.Err() != nil, errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &hs), errors.As(err, &idle):
		return fmt.Errorf("%w: %s did not answer: %w", ErrTimeout, addr, err)
	}
	return fmt.Errorf("transport: connecting to %s: %w", addr, err)
}

//go:build !js

package transport

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/netsmooth/netsmooth/wire"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/webtransport-go"
)

// carrier is what a QUIC connection or a WebTransport session offers a
// Conn: datagrams, and a close that carries a code and a message.
type carrier interface {
	SendDatagram([]byte) error
	ReceiveDatagram(context.Context) ([]byte, error)
	RemoteAddr() net.Addr
	Context() context.Context // done when the connection or session ends
	closeWith(wire.Reason, string) error
}

type quicCarrier struct{ *quic.Conn }

func (q quicCarrier) closeWith(r wire.Reason, msg string) error {
	return q.CloseWithError(quic.ApplicationErrorCode(reasonCode(r)), msg)
}

type wtCarrier struct{ *webtransport.Session }

// ReceiveDatagram returns the session's next datagram, or, once the
// session has ended, why: its datagram queue can end before the session
// has recorded the peer's close, so it waits for the session to end and
// takes the reason from it.
func (w wtCarrier) ReceiveDatagram(ctx context.Context) ([]byte, error) {
	b, err := w.Session.ReceiveDatagram(ctx)
	if err == nil {
		return b, nil
	}
	select {
	case <-w.Context().Done():
	case <-time.After(time.Second):
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if _, why := w.AcceptStream(ended); why != nil && !errors.Is(why, context.Canceled) {
		return nil, why
	}
	return nil, err
}

func (w wtCarrier) closeWith(r wire.Reason, msg string) error {
	return w.CloseWithError(webtransport.SessionErrorCode(reasonCode(r)), msg)
}

// closeReason says why a QUIC connection or WebTransport session ended,
// from the error its operations return.
func closeReason(err error) *CloseError {
	var app *quic.ApplicationError
	var sess *webtransport.SessionError
	var idle *quic.IdleTimeoutError
	var hs *quic.HandshakeTimeoutError
	var reset *quic.StatelessResetError
	switch {
	case errors.As(err, &app):
		r, _ := codeReason(uint64(app.ErrorCode))
		return &CloseError{Reason: r, Message: app.ErrorMessage, Remote: app.Remote}
	case errors.As(err, &sess):
		r, _ := codeReason(uint64(sess.ErrorCode))
		return &CloseError{Reason: r, Message: sess.Message, Remote: sess.Remote}
	case errors.As(err, &idle), errors.As(err, &hs):
		return &CloseError{Reason: wire.ReasonTimeout, Message: err.Error(), Remote: true}
	case errors.As(err, &reset):
		return &CloseError{Reason: wire.ReasonShutdown, Message: "the peer lost the connection's state (stateless reset)", Remote: true}
	}
	return &CloseError{Reason: wire.ReasonNone, Message: err.Error(), Remote: true}
}

// datagramConn is a Conn over a carrier: QUIC datagrams, or WebTransport
// datagrams.
type datagramConn struct {
	car   carrier
	kind  Kind
	sendq *sendQueue

	received, receivedBytes atomic.Uint64

	mu       sync.Mutex
	closeErr *CloseError
}

func newDatagramConn(car carrier, kind Kind, queue int) *datagramConn {
	c := &datagramConn{car: car, kind: kind}
	c.sendq = newSendQueue(queue, car.SendDatagram, func(err error) {
		var big *quic.DatagramTooLargeError
		if errors.As(err, &big) {
			return // counted as dropped; the connection goes on
		}
		c.end(closeReason(err))
	})
	// Once the connection has ended, nothing more can be sent: the send
	// queue's goroutine goes, even if nobody reads or closes the Conn.
	context.AfterFunc(car.Context(), c.sendq.close)
	return c
}

func (c *datagramConn) ReadPacket() ([]byte, error) {
	b, err := c.car.ReceiveDatagram(context.Background())
	if err != nil {
		e := c.end(closeReason(err))
		c.sendq.close()
		return nil, e
	}
	c.received.Add(1)
	c.receivedBytes.Add(uint64(len(b)))
	return b, nil
}

func (c *datagramConn) WritePacket(b []byte) error {
	if err := c.ended(); err != nil {
		return err
	}
	if !c.sendq.push(b) {
		// The connection ended; its reader records why.
		return &CloseError{Reason: wire.ReasonNone, Message: "connection closed"}
	}
	return nil
}

func (c *datagramConn) Close(reason wire.Reason, message string) error {
	c.mu.Lock()
	first := c.closeErr == nil
	if first {
		c.closeErr = &CloseError{Reason: reason, Message: message}
	}
	c.mu.Unlock()
	if !first {
		c.sendq.close()
		return nil
	}
	err := c.car.closeWith(reason, message)
	c.sendq.close()
	return err
}

func (c *datagramConn) RemoteAddr() net.Addr { return c.car.RemoteAddr() }
func (c *datagramConn) Kind() Kind           { return c.kind }

func (c *datagramConn) Stats() ConnStats {
	return ConnStats{PacketsSent: c.sendq.sent.Load(), BytesSent: c.sendq.bytes.Load(), Dropped: c.sendq.dropped.Load(),
		PacketsReceived: c.received.Load(), BytesReceived: c.receivedBytes.Load()}
}

func (c *datagramConn) end(e *CloseError) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closeErr == nil {
		c.closeErr = e
	}
	return c.closeErr
}

func (c *datagramConn) ended() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closeErr == nil {
		return nil
	}
	return c.closeErr
}

//go:build !js

package transport

import (
	"context"
	"errors"
	"time"

	"github.com/netsmooth/netsmooth/wire"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/webtransport-go"
)

// quicCarrier is a native QUIC connection of netsmooth's protocol.
type quicCarrier struct{ *quic.Conn }

func (q quicCarrier) closeWith(r wire.Reason, msg string) error {
	return q.CloseWithError(quic.ApplicationErrorCode(reasonCode(r)), msg)
}

func (quicCarrier) reason(err error) *CloseError { return closeReason(err) }
func (quicCarrier) fatal(err error) bool         { return fatalSend(err) }

// grace is none: a QUIC peer reads the close's code and message.
func (quicCarrier) grace() time.Duration { return 0 }

// wtGrace is how long a WebTransport session's close waits after its
// Close datagram: browsers may drop the session close's code and message
// when the session's CONNECT stream is reset in the same packet
// (quic-go/webtransport-go#242), so they learn the reason from the
// datagram.
const wtGrace = 250 * time.Millisecond

// fatalSend reports whether a send error ends the connection: a datagram
// too large for the path does not.
func fatalSend(err error) bool {
	var big *quic.DatagramTooLargeError
	return !errors.As(err, &big)
}

// wtCarrier is a WebTransport session of netsmooth's protocol, and the
// QUIC connection that carries it (one session per connection).
type wtCarrier struct {
	*webtransport.Session
	conn *quic.Conn
}

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

// closeWith closes the session, and its QUIC connection a grace later
// (time for the session's close to arrive first): closing the session
// alone leaves the connection open, with its state and goroutines, for
// as long as the peer keeps it alive.
func (w wtCarrier) closeWith(r wire.Reason, msg string) error {
	err := w.CloseWithError(webtransport.SessionErrorCode(reasonCode(r)), msg)
	if w.conn != nil {
		time.AfterFunc(wtGrace, func() { w.conn.CloseWithError(quic.ApplicationErrorCode(reasonCode(r)), msg) })
	}
	return err
}

func (wtCarrier) reason(err error) *CloseError { return closeReason(err) }
func (wtCarrier) fatal(err error) bool         { return fatalSend(err) }
func (wtCarrier) grace() time.Duration         { return wtGrace }

// closeReason says why a QUIC connection or WebTransport session ended,
// from the error its operations return. The peer's message is made a
// wire.CloseText, as a Close message's is: it may be a kilobyte of
// terminal escapes.
func closeReason(err error) *CloseError {
	var app *quic.ApplicationError
	var sess *webtransport.SessionError
	var idle *quic.IdleTimeoutError
	var hs *quic.HandshakeTimeoutError
	var reset *quic.StatelessResetError
	switch {
	case errors.As(err, &app):
		r, _ := codeReason(uint64(app.ErrorCode))
		return &CloseError{Reason: r, Message: wire.CloseText(app.ErrorMessage), Remote: app.Remote, Claimed: app.Remote}
	case errors.As(err, &sess):
		r, _ := codeReason(uint64(sess.ErrorCode))
		return &CloseError{Reason: r, Message: wire.CloseText(sess.Message), Remote: sess.Remote, Claimed: sess.Remote}
	case errors.As(err, &idle), errors.As(err, &hs):
		return &CloseError{Reason: wire.ReasonTimeout, Message: err.Error(), Remote: true}
	case errors.As(err, &reset):
		return &CloseError{Reason: wire.ReasonShutdown, Message: "the peer lost the connection's state (stateless reset)", Remote: true}
	}
	return &CloseError{Reason: wire.ReasonNone, Message: err.Error(), Remote: true}
}

package transport

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/netsmooth/netsmooth/wire"
)

// MessageConn is a reliable, ordered connection that carries messages
// whole, one per call: a WebSocket, typically, the fallback for browsers
// without WebTransport. The game wraps its WebSocket library's connection
// in these four methods (see the package documentation) and hands it to
// [NewIncoming] on the server, [Handshake] on the client. The connect
// token, the Welcome and the Close travel as messages of their own,
// before and among the packets.
type MessageConn interface {
	// ReadMessage blocks until a message arrives and returns it. After
	// Close it must return an error.
	ReadMessage() ([]byte, error)
	// WriteMessage sends one message, whole, and must not keep b. It is
	// called from one goroutine at a time, and should bound the time it
	// waits (a stalled TCP connection).
	WriteMessage(b []byte) error
	// Close ends the connection and makes a blocked ReadMessage return.
	Close() error
	// RemoteAddr returns the peer's address (nil if unknown).
	RemoteAddr() net.Addr
}

// DefaultHelloTimeout is how long a server waits for a new connection's
// Hello, and a client for the answer, by default.
const DefaultHelloTimeout = 5 * time.Second

// NewIncoming reads the Hello a client sends first on mc, waiting at most
// timeout (0: DefaultHelloTimeout), and returns the connection for the
// server to accept or refuse. A connection that sends no Hello in time,
// or anything else first, is closed (with a Close saying why when it sent
// something) and an error returned.
func NewIncoming(mc MessageConn, timeout time.Duration) (*Incoming, error) {
	if timeout <= 0 {
		timeout = DefaultHelloTimeout
	}
	timer := time.AfterFunc(timeout, func() { mc.Close() })
	b, err := mc.ReadMessage()
	if !timer.Stop() {
		return nil, fmt.Errorf("%w: no hello within %v", ErrTimeout, timeout)
	}
	if err != nil {
		mc.Close()
		return nil, fmt.Errorf("%w: reading the hello: %w", ErrHandshake, err)
	}
	h, err := wire.ParseHello(b)
	if err != nil {
		refuseMessage(mc, wire.Close{Reason: wire.ReasonProtocol, Message: "expected a hello"})
		return nil, fmt.Errorf("%w: %w", ErrHandshake, err)
	}
	h.Token = append([]byte(nil), h.Token...)
	in := &Incoming{hello: h, remote: mc.RemoteAddr(), kind: KindMessage}
	in.accept = func(w wire.Welcome) (Conn, error) {
		msg, err := wire.AppendWelcome(nil, &w)
		if err != nil {
			mc.Close()
			return nil, err
		}
		if err := mc.WriteMessage(msg); err != nil {
			mc.Close()
			return nil, fmt.Errorf("transport: sending the welcome: %w", err)
		}
		return newMessageConn(mc, 0), nil
	}
	in.refuse = func(c wire.Close) error { return refuseMessage(mc, c) }
	return in, nil
}

// refuseMessage sends c on mc and closes it.
func refuseMessage(mc MessageConn, c wire.Close) error {
	err := mc.WriteMessage(wire.AppendClose(nil, &c))
	if cerr := mc.Close(); err == nil {
		err = cerr
	}
	return err
}

// Handshake sends hello on mc, a connection the client has made (a
// WebSocket to the server's fallback endpoint), and waits for the
// server's answer until ctx is done: the Welcome and the connection's
// datagram channel, or the server's refusal as a *CloseError. On error mc
// is closed.
func Handshake(ctx context.Context, mc MessageConn, hello wire.Hello) (Conn, wire.Welcome, error) {
	msg, err := wire.AppendHello(nil, &hello)
	if err != nil {
		mc.Close()
		return nil, wire.Welcome{}, err
	}
	stop := context.AfterFunc(ctx, func() { mc.Close() })
	defer stop()
	if err := mc.WriteMessage(msg); err != nil {
		mc.Close()
		return nil, wire.Welcome{}, handshakeErr(ctx, fmt.Errorf("%w: sending the hello: %w", ErrHandshake, err))
	}
	b, err := mc.ReadMessage()
	if err != nil {
		mc.Close()
		return nil, wire.Welcome{}, handshakeErr(ctx, fmt.Errorf("%w: reading the answer: %w", ErrHandshake, err))
	}
	w, err := answer(b)
	if err != nil {
		mc.Close()
		return nil, w, err
	}
	if !stop() {
		mc.Close()
		return nil, w, handshakeErr(ctx, ctx.Err())
	}
	return newMessageConn(mc, 0), w, nil
}

// handshakeErr returns ErrTimeout when ctx ended the handshake, err
// otherwise.
func handshakeErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w: %w", ErrTimeout, context.Cause(ctx))
	}
	return err
}

// messageConn is a Conn over a MessageConn.
type messageConn struct {
	mc    MessageConn
	sendq *sendQueue

	received, receivedBytes atomic.Uint64

	mu       sync.Mutex
	closeErr *CloseError // why it ended, once it has
}

func newMessageConn(mc MessageConn, queue int) *messageConn {
	c := &messageConn{mc: mc}
	c.sendq = newSendQueue(queue, mc.WriteMessage, func(err error) {
		c.end(&CloseError{Reason: wire.ReasonNone, Message: err.Error(), Remote: true})
		mc.Close()
	})
	return c
}

func (c *messageConn) ReadPacket() ([]byte, error) {
	b, err := c.mc.ReadMessage()
	if err != nil {
		e := c.end(&CloseError{Reason: wire.ReasonNone, Message: err.Error(), Remote: true})
		c.mc.Close()
		c.sendq.close()
		return nil, e
	}
	if cl, ok := closeDatagram(b); ok {
		e := c.end(&CloseError{Reason: cl.Reason, Message: cl.Message, Remote: true, Claimed: true})
		c.sendq.close()
		c.mc.Close()
		return nil, e
	}
	c.received.Add(1)
	c.receivedBytes.Add(uint64(len(b)))
	return b, nil
}

func (c *messageConn) WritePacket(b []byte) error {
	if err := c.ended(); err != nil {
		return err
	}
	if !c.sendq.push(b) {
		// The connection ended; its reader records why.
		return &CloseError{Reason: wire.ReasonNone, Message: "connection closed"}
	}
	return nil
}

func (c *messageConn) Close(reason wire.Reason, message string) error {
	c.mu.Lock()
	first := c.closeErr == nil
	if first {
		c.closeErr = &CloseError{Reason: reason, Message: message}
	}
	c.mu.Unlock()
	if !first {
		return nil
	}
	c.sendq.close()
	return refuseMessage(c.mc, wire.Close{Reason: reason, Message: message})
}

func (c *messageConn) RemoteAddr() net.Addr { return c.mc.RemoteAddr() }
func (c *messageConn) Kind() Kind           { return KindMessage }

func (c *messageConn) Stats() ConnStats {
	return ConnStats{PacketsSent: c.sendq.sent.Load(), BytesSent: c.sendq.bytes.Load(), Dropped: c.sendq.dropped.Load(),
		PacketsReceived: c.received.Load(), BytesReceived: c.receivedBytes.Load()}
}

// end records why the connection ended, unless it already had, and
// returns the reason in force.
func (c *messageConn) end(e *CloseError) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closeErr == nil {
		c.closeErr = e
	}
	return c.closeErr
}

func (c *messageConn) ended() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closeErr == nil {
		return nil
	}
	return c.closeErr
}

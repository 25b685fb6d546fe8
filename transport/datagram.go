package transport

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/netsmooth/netsmooth/wire"
)

// carrier is what a QUIC connection or a WebTransport session (native or
// the browser's) offers a Conn: datagrams, and a close that carries a
// code and a message.
type carrier interface {
	SendDatagram([]byte) error
	ReceiveDatagram(context.Context) ([]byte, error)
	RemoteAddr() net.Addr
	// Context is done when the connection or session has ended.
	Context() context.Context
	// closeWith ends the connection with reason's code and message.
	closeWith(reason wire.Reason, message string) error
	// reason says why the connection ended, from the error an operation
	// returned.
	reason(err error) *CloseError
	// fatal reports whether a send error ends the connection (a datagram
	// too large does not: it is dropped and counted).
	fatal(err error) bool
	// grace is how long a close waits after its Close datagram before it
	// ends the connection: time for a peer whose stack might lose the
	// connection close's code and message to read the datagram first.
	grace() time.Duration
}

// datagramConn is a Conn over a carrier's datagrams.
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
		if car.fatal(err) {
			c.end(car.reason(err))
		}
	})
	// Once the connection has ended, nothing more can be sent: the send
	// queue's goroutine goes, even if nobody reads or closes the Conn.
	context.AfterFunc(car.Context(), c.sendq.close)
	return c
}

func (c *datagramConn) ReadPacket() ([]byte, error) {
	b, err := c.car.ReceiveDatagram(context.Background())
	if err != nil {
		e := c.end(c.car.reason(err))
		c.sendq.close()
		return nil, e
	}
	if cl, ok := closeDatagram(b); ok {
		// The peer says why it is closing; the connection's own close
		// follows, and might lose its message.
		e := c.end(&CloseError{Reason: cl.Reason, Message: cl.Message, Remote: true, Claimed: true})
		c.sendq.close()
		c.car.closeWith(cl.Reason, cl.Message)
		return nil, e
	}
	c.received.Add(1)
	c.receivedBytes.Add(uint64(len(b)))
	return b, nil
}

// closeDatagram reports whether datagram b is a Close message and parses
// it.
func closeDatagram(b []byte) (wire.Close, bool) {
	if len(b) < 4 || b[0] != wire.Magic[0] || b[1] != wire.Magic[1] || b[3] != byte(wire.TypeClose) {
		return wire.Close{}, false
	}
	cl, err := wire.ParseClose(b)
	if err != nil {
		return wire.Close{Reason: wire.ReasonProtocol, Message: err.Error()}, true
	}
	return cl, true
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

// Close sends a Close datagram (best effort: a second way for the reason
// to reach the peer), then ends the connection with the reason's code,
// after the carrier's grace if it has one. It does not wait for a peer
// that acknowledges nothing: the send under way and the Close datagram,
// which a congested connection holds back, return once the connection
// ends, and the connection ends after the grace, or closeDatagramWait
// without one, whatever they do.
func (c *datagramConn) Close(reason wire.Reason, message string) error {
	c.mu.Lock()
	first := c.closeErr == nil
	if first {
		c.closeErr = &CloseError{Reason: reason, Message: message}
	}
	c.mu.Unlock()
	c.sendq.stop()
	if !first {
		return nil
	}
	queued := make(chan struct{})
	go func() {
		c.car.SendDatagram(wire.AppendClose(nil, &wire.Close{Reason: reason, Message: message}))
		close(queued)
	}()
	if g := c.car.grace(); g > 0 {
		time.AfterFunc(g, func() { c.car.closeWith(reason, message) })
		return nil
	}
	select {
	case <-queued:
	case <-time.After(closeDatagramWait):
	}
	return c.car.closeWith(reason, message)
}

// closeDatagramWait is how long Close waits, without a grace, for a
// congested connection to take its Close datagram.
const closeDatagramWait = 50 * time.Millisecond

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

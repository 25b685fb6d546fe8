package transport

import (
	"errors"
	"fmt"
	"net"
)

// Conn is a connection to a server that carries the session's packets
// whole, one per message: what a [Client] runs over. [Dial] makes one of
// a UDP socket; [NewClient] takes any other, such as a WebSocket in a
// browser (which has no UDP), WebTransport datagrams or a pipe in a test.
// A reliable connection loses nothing by itself; ClientConfig.Impair and
// ImpairReceive put the network the game wants to see on it.
type Conn interface {
	// ReadPacket blocks until a packet arrives and returns it; the slice
	// may be reused by the next call. An error wrapping ErrTemporary is
	// counted (ClientStats.ReadErrors) and reading goes on; any other
	// ends the connection: the Client stops reading and reports it from
	// Err, unless the Client was closed. After Close, ReadPacket must
	// return an error (a temporary one then ends the reading too).
	ReadPacket() ([]byte, error)
	// WritePacket sends one packet, whole, and must not keep b, which the
	// Client reuses. It may be called from several goroutines at once,
	// and while ReadPacket blocks. Without Impair it runs on the goroutine
	// that called SendInputs: a connection that can stall (TCP under a
	// WebSocket) should bound the time it waits.
	WritePacket(b []byte) error
	// Close ends the connection and makes a blocked ReadPacket return. It
	// may be called while ReadPacket and WritePacket run.
	Close() error
}

// ErrTemporary marks a read error after which a [Conn] can go on reading:
// a connected UDP socket, for one, reports "connection refused" while no
// server listens, and reads again once one does.
var ErrTemporary = errors.New("transport: temporary read error")

// udpConn is a connected UDP socket as a Conn.
type udpConn struct {
	*net.UDPConn
	buf []byte
}

func (u *udpConn) ReadPacket() ([]byte, error) {
	n, err := u.Read(u.buf)
	switch {
	case err == nil:
		return u.buf[:n], nil
	case errors.Is(err, net.ErrClosed):
		return nil, err
	}
	return nil, fmt.Errorf("%w: %w", ErrTemporary, err)
}

func (u *udpConn) WritePacket(b []byte) error {
	_, err := u.Write(b)
	return err
}

package transport

import (
	"errors"
	"net"
	"sync"

	"github.com/netsmooth/netsmooth/wire"
)

// Incoming is a connection whose handshake is under way on the server: the
// carrier's own handshake is done (for QUIC and WebTransport: TLS 1.3 and
// address validation) and the client's [wire.Hello] has arrived, but
// nothing else has been sent to the client. The server checks the Hello's
// connect token and answers with Accept or Refuse; until then the client
// gets no snapshot, and the connection holds no place in the game.
type Incoming struct {
	hello  wire.Hello
	remote net.Addr
	kind   Kind

	accept func(wire.Welcome) (Conn, error)
	refuse func(wire.Close) error
	done   func() // called once, when decided

	once sync.Once
}

// ErrDecided: Accept or Refuse of an Incoming already answered.
var ErrDecided = errors.New("transport: connection already accepted or refused")

// Hello returns the client's Hello: its connect token (a copy, the
// Incoming's own) and whether it only watches.
func (in *Incoming) Hello() wire.Hello { return in.hello }

// RemoteAddr returns the client's address as the carrier sees it.
func (in *Incoming) RemoteAddr() net.Addr { return in.remote }

// Kind says what carries the connection.
func (in *Incoming) Kind() Kind { return in.kind }

// Accept admits the connection: it sends w to the client and returns the
// connection's datagram channel.
func (in *Incoming) Accept(w wire.Welcome) (Conn, error) {
	if !in.decide() {
		return nil, ErrDecided
	}
	return in.accept(w)
}

// Refuse turns the connection away, telling the client why, and closes
// it.
func (in *Incoming) Refuse(reason wire.Reason, message string) error {
	if !in.decide() {
		return ErrDecided
	}
	return in.refuse(wire.Close{Reason: reason, Message: message})
}

// decide reports whether this is the first answer.
func (in *Incoming) decide() bool {
	first := false
	in.once.Do(func() {
		first = true
		if in.done != nil {
			in.done()
		}
	})
	return first
}

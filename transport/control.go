package transport

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"time"

	"github.com/netsmooth/netsmooth/wire"
)

// On a stream (QUIC, WebTransport) the control messages travel framed:
// a 2-byte big-endian length, then the message. A message conn carries
// them as messages of their own.

// writeFrame writes one framed control message to w.
func writeFrame(w io.Writer, msg []byte) error {
	buf := make([]byte, 2, 2+len(msg))
	binary.BigEndian.PutUint16(buf, uint16(len(msg)))
	_, err := w.Write(append(buf, msg...))
	return err
}

// readFrame reads one framed control message of at most
// wire.MaxControlSize bytes from r.
func readFrame(r io.Reader) ([]byte, error) {
	var n [2]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	size := int(binary.BigEndian.Uint16(n[:]))
	if size > wire.MaxControlSize {
		return nil, fmt.Errorf("%w: control message of %d bytes > %d", ErrHandshake, size, wire.MaxControlSize)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	return b, nil
}

// answer reads the server's answer to a Hello: its Welcome, or the Close
// that refuses the connection (as a *CloseError).
func answer(b []byte) (wire.Welcome, error) {
	t, err := wire.ControlType(b)
	if err != nil {
		return wire.Welcome{}, fmt.Errorf("%w: %w", ErrHandshake, err)
	}
	switch t {
	case wire.TypeWelcome:
		w, err := wire.ParseWelcome(b)
		if err != nil {
			return w, fmt.Errorf("%w: %w", ErrHandshake, err)
		}
		return w, nil
	case wire.TypeClose:
		c, err := wire.ParseClose(b)
		if err != nil {
			return wire.Welcome{}, fmt.Errorf("%w: %w", ErrHandshake, err)
		}
		return wire.Welcome{}, &CloseError{Reason: c.Reason, Message: c.Message, Remote: true, Claimed: true}
	}
	return wire.Welcome{}, fmt.Errorf("%w: %v instead of a welcome", ErrHandshake, t)
}

// hail sends the Hello on the control stream st and reads the answer.
func hail(ctx context.Context, st interface {
	Read([]byte) (int, error)
	Write([]byte) (int, error)
	Close() error
	SetDeadline(time.Time) error
}, hello []byte) (wire.Welcome, error) {
	if d, ok := ctx.Deadline(); ok {
		_ = st.SetDeadline(d)
	}
	if err := writeFrame(st, hello); err != nil {
		return wire.Welcome{}, err
	}
	st.Close() // nothing more to say on it
	b, err := readFrame(st)
	if err != nil {
		return wire.Welcome{}, err
	}
	return answer(b)
}

//go:build !js

package transport

import (
	"context"

	"github.com/quic-go/quic-go"
)

// rawDial opens a QUIC connection of netsmooth's protocol to l without
// saying hello: what a client that stops halfway does.
func rawDial(ctx context.Context, l *Listener) (*quic.Conn, error) {
	cfg := devDial(l)
	return quic.DialAddr(ctx, l.Addr().String(), cfg.tlsConfig("127.0.0.1", ALPN), cfg.quic())
}

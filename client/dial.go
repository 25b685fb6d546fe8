//go:build !js

package client

import (
	"context"

	"github.com/netsmooth/netsmooth/transport"
	"github.com/netsmooth/netsmooth/wire"
)

// Dial connects to the server at addr (host:port) over QUIC, sends the
// connect token, and returns once the server has welcomed the client. It
// fails with the server's refusal as a *transport.CloseError (a bad,
// expired, reused or misaddressed token: ReasonBadToken; no room:
// ReasonFull; too many connections being set up: ReasonBusy), with an
// error wrapping transport.ErrTimeout when the server did not answer in
// time, or with the TLS error when its certificate did not check out.
func Dial(ctx context.Context, addr string, cfg Config) (*Client, error) {
	conn, w, err := transport.Dial(ctx, addr, wire.Hello{Token: cfg.Token, Spectator: cfg.Spectator}, cfg.Transport)
	if err != nil {
		return nil, err
	}
	return New(conn, w, cfg)
}

//go:build js

package arenanet

import (
	"context"
	"errors"

	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/session"
)

// dialUDP: a browser has no UDP; the browser version joins over
// WebSocket.
func dialUDP(context.Context, string, session.ClientConfig, netsim.Config, uint64) (link, error) {
	return link{}, errors.New("arena: no UDP in the browser: join over WebSocket")
}

//go:build !js

package arenanet

import (
	"context"

	"github.com/netsmooth/netsmooth/client"
	"github.com/netsmooth/netsmooth/internal/devauth"
)

// dialQUIC joins the arena server at addr over QUIC.
func dialQUIC(ctx context.Context, addr string, cfg client.Config) (*client.Client, error) {
	return client.Dial(ctx, addr, cfg)
}

// fetchTicket gets a ticket from the development backend at url.
func fetchTicket(ctx context.Context, url string) (devauth.Ticket, error) {
	return devauth.Fetch(ctx, url)
}

//go:build !js

package arenanet

import (
	"context"

	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/session"
	"github.com/netsmooth/netsmooth/transport"
)

// dialUDP connects to the arena server's UDP address.
func dialUDP(ctx context.Context, addr string, cfg session.ClientConfig, cond netsim.Config, seed uint64) (link, error) {
	tc := clientConfig(cfg, cond, seed)
	tc.Addr = addr
	c, err := transport.Dial(ctx, tc)
	if err != nil {
		return link{}, err
	}
	return link{c}, nil
}

//go:build !js

package arenanet

import (
	"context"
	"errors"

	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/session"
	"github.com/netsmooth/netsmooth/transport"
)

// udpLink is a link over UDP: a transport.Client with the simulated
// network on what it sends and on what it receives.
type udpLink struct{ *transport.Client }

// dialUDP connects to the arena server's UDP address.
func dialUDP(ctx context.Context, addr string, cfg session.ClientConfig, cond netsim.Config, seed uint64) (link, error) {
	c, err := transport.Dial(ctx, transport.ClientConfig{Addr: addr, Session: cfg, Impair: &cond, ImpairReceive: &cond, Seed: seed})
	if err != nil {
		return nil, err
	}
	return &udpLink{c}, nil
}

func (l *udpLink) SetConditions(c netsim.Config) error {
	return errors.Join(l.SetImpair(&c), l.SetImpairReceive(&c))
}

func (l *udpLink) Err() error { return nil }

func (l *udpLink) Traffic() traffic {
	st := l.Stats()
	ss := l.Session().Stats()
	return traffic{down: ss.BytesReceived, up: st.BytesSent, lostDown: st.LinkReceive.Lost, lostUp: st.Link.Lost}
}

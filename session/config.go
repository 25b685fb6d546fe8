package session

import (
	"fmt"

	"github.com/netsmooth/netsmooth/wire"
)

// Defaults and bounds of [Config].
const (
	DefaultMaxClients  = 64
	DefaultInputWindow = 64
	MaxInputWindow     = 4096
)

// Config configures a [Server]. The zero value of every field means its
// default.
type Config struct {
	// Wire is the codec configuration shared with the clients: the
	// Quantizer, packet size and limits, and History, the number of ticks
	// whose state is kept per client to delta-encode against (clients'
	// decoders must keep at least as many).
	Wire wire.Config
	// MaxClients bounds the clients connected at once (default 64).
	MaxClients int
	// InputWindow is how many inputs a client's buffer holds, counted from
	// the next one the simulation needs (default 64, at least
	// Wire.MaxInputs, at most 4096). Inputs further ahead are dropped and
	// counted in Stats.InputsTooEarly.
	InputWindow int
	// Filter, if set, decides for each client which changed entities are
	// sent in a tick: interest management, or lower send rates for far
	// entities (see [Every]). Nil sends every change.
	Filter Filter
}

// normalize fills in the defaults, given the codec's configuration with
// its defaults filled in, and checks the ranges.
func (c Config) normalize(w wire.Config) (Config, error) {
	c.Wire = w
	if c.MaxClients == 0 {
		c.MaxClients = DefaultMaxClients
	}
	if c.InputWindow == 0 {
		c.InputWindow = DefaultInputWindow
	}
	if c.MaxClients < 1 {
		return c, fmt.Errorf("%w: MaxClients = %d, want at least 1 (or 0 for the default)", wire.ErrConfig, c.MaxClients)
	}
	if c.InputWindow < w.MaxInputs || c.InputWindow > MaxInputWindow {
		return c, fmt.Errorf("%w: InputWindow = %d, want %d (Wire.MaxInputs)..%d (or 0 for the default)",
			wire.ErrConfig, c.InputWindow, w.MaxInputs, MaxInputWindow)
	}
	return c, nil
}

package server

import (
	"fmt"
	"math"

	"github.com/netsmooth/netsmooth/internal/limits"
	"github.com/netsmooth/netsmooth/wire"
)

// Defaults and bounds of [SessionConfig].
const (
	DefaultTickRate      = 20
	DefaultMaxClients    = 64
	DefaultInputWindow   = 64
	MaxInputWindow       = 4096
	DefaultMaxCatchUp    = 2
	MaxCatchUpLimit      = 8
	DefaultMaxLostReplay = 2
)

// SessionConfig configures a [Session]. The zero value of every field
// means its default.
type SessionConfig struct {
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
	// counted in ClientStats.InputsTooEarly.
	InputWindow int
	// MaxCatchUp is the most inputs NextInput hands out for one client in
	// one tick (default 2, at most 8). Each tick gives a client one input's
	// worth of credit, kept up to MaxCatchUp, so that a client whose inputs
	// came late catches up by that many a tick, while no client, however
	// many inputs it sends, is stepped more often than once per tick on
	// average: a speed hack by flooding gains nothing.
	MaxCatchUp int
	// MaxLostReplay is how many inputs in a row NextInput reports lost
	// (for the simulation to repeat the previous input) before it skips
	// the rest of a gap without stepping (default 2; negative means 0). A
	// client that jumps its sequence numbers ahead is not replayed for the
	// inputs it pretends were lost.
	MaxLostReplay int
	// AllowNoDelta makes the session send a full snapshot every tick to
	// every client that acknowledges no tick (a client configured with
	// client.SessionConfig.NoDelta does that): for a session whose
	// clients are trusted, on a LAN or for measuring. Without it, a
	// client without a baseline (it acknowledges no tick) is sent full
	// snapshots every tick for a round trip and two ticks (a second at
	// most), then ever more rarely, down to one a second
	// (ClientStats.FullHeld counts the ticks held back), unless it
	// acknowledges the packets it receives (a lossy link, or a round
	// trip longer than Wire.History ticks): a full snapshot is the whole
	// of what is relevant to the client, and a connection that
	// acknowledges nothing must not make the server send it that every
	// tick.
	AllowNoDelta bool
	// TickRate is the simulation's rate in ticks per second (default 20;
	// 1 to 1e6): the budget's bytes per tick and MaxInterval's ticks
	// follow it. [Server] sets it from its own Config.TickRate.
	// [Session.MeasuredTickRate] says when the game's ticks run at
	// another rate.
	TickRate float64
	// Interest, if set, turns on interest management: each client is sent
	// only the entities near its view (SetView), the ones always relevant
	// (SetAlways) and the one it controls. Nil sends every entity to every
	// client.
	Interest *InterestConfig
	// Budget bounds the bytes each client is sent a second, filled by
	// priority. The zero value sends every change every tick.
	Budget BudgetConfig
	// History, if set, turns on lag compensation: the poses of the
	// entities with a hit shape are kept for a while, to judge a client's
	// shots against what it saw (Rewind, Raycast, Overlap). Nil keeps no
	// history.
	History *HistoryConfig
	// Filter, if set, decides for each client which changed entities are
	// sent in a tick: lower send rates for far entities (see [Every]),
	// say. It may leave out anything but despawns and the entity the
	// client controls. Nil sends every change.
	Filter Filter
}

// normalize fills in the defaults, given the codec's configuration with
// its defaults filled in, and checks the ranges.
func (c SessionConfig) normalize(w wire.Config) (SessionConfig, error) {
	c.Wire = w
	if c.MaxClients == 0 {
		c.MaxClients = DefaultMaxClients
	}
	if c.InputWindow == 0 {
		c.InputWindow = DefaultInputWindow
	}
	if c.MaxCatchUp == 0 {
		c.MaxCatchUp = DefaultMaxCatchUp
	}
	switch {
	case c.MaxLostReplay == 0:
		c.MaxLostReplay = DefaultMaxLostReplay
	case c.MaxLostReplay < 0:
		c.MaxLostReplay = 0
	}
	if c.MaxClients < 1 {
		return c, configErr("MaxClients = %d, want at least 1 (or 0 for the default)", c.MaxClients)
	}
	if c.InputWindow < w.MaxInputs || c.InputWindow > MaxInputWindow {
		return c, configErr("InputWindow = %d, want %d (Wire.MaxInputs)..%d (or 0 for the default)", c.InputWindow, w.MaxInputs, MaxInputWindow)
	}
	if c.MaxCatchUp < 1 || c.MaxCatchUp > MaxCatchUpLimit {
		return c, configErr("MaxCatchUp = %d, want 1..%d (or 0 for the default)", c.MaxCatchUp, MaxCatchUpLimit)
	}
	if c.TickRate == 0 {
		c.TickRate = DefaultTickRate
	}
	if err := limits.CheckTickRate(c.TickRate); err != nil {
		return c, configErr("TickRate: %v (or 0 for %d)", err, DefaultTickRate)
	}
	if c.Interest != nil {
		in, err := c.Interest.normalize()
		if err != nil {
			return c, err
		}
		if in.Every == 0 {
			in.Every = max(1, int(math.Round(0.1*c.TickRate)))
		}
		c.Interest = &in
	}
	var err error
	if c.Budget, err = c.Budget.normalize(c.TickRate, len(w.Quantizer.Fields)); err != nil {
		return c, err
	}
	return c, nil
}

// configError is a configuration NewSession or Listen refuses: its text
// names the field and the fix, and it wraps wire.ErrConfig, which
// errors.Is finds.
type configError string

func (e configError) Error() string { return "server: " + string(e) }
func (e configError) Unwrap() error { return wire.ErrConfig }

// configErr formats a configError.
func configErr(format string, args ...any) error {
	return configError(fmt.Sprintf(format, args...))
}

// maxAckAge is, in ticks, the longest round trip the session serves: two
// seconds' worth (at most wire.MaxHistory ticks), or Wire.History if that
// is longer. An acknowledgement of a tick sent longer ago measures no
// round trip and counts as no late one.
func (cfg *SessionConfig) maxAckAge() int {
	return max(cfg.Wire.History, min(2*max(1, int(cfg.TickRate)), wire.MaxHistory))
}

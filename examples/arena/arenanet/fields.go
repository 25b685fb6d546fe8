package arenanet

import (
	"math"

	"github.com/netsmooth/netsmooth/wire"
)

// The bots' custom fields: besides its position each bot carries its size
// and its health, set by the server and drawn by the client interpolated
// like the position (netsmooth's custom fields). A bot's size breathes
// slowly; its health drops by HitDamage when the server confirms a shot at
// it and comes back at RegenPerSecond.

// BotSize is a bot's size as the client draws it: the scale of its disc, 1
// the usual size. The pipeline draws it from the server's field 0.
type BotSize float32

// BotHealth is a bot's health as the client draws it, 0..MaxHealth. The
// pipeline draws it from the server's field 1.
type BotHealth float32

// The bots' health rules.
const (
	// MaxHealth is a bot's full health, and where it starts.
	MaxHealth = 100
	// HitDamage is what a confirmed shot takes from the bot struck.
	HitDamage = 25
	// RegenPerSecond is how fast a bot's health comes back: a hit heals
	// in 2.5 s.
	RegenPerSecond = 10
)

// The bots' breathing: their size swings by sizeSwing either side of 1
// in sizePeriod seconds, each bot in its own phase.
const (
	sizeSwing  = 0.15
	sizePeriod = 6
)

// The fields' indexes and quantisation. A size is sent to a 50th (a fifth
// of a pixel of a bot's disc on the screen), a health to half a point (a
// health bar's pixel is 8 points): a breathing bot's size changes by a
// step about every other tick, and a bot at full health sends no health
// at all.
const (
	fieldSize, fieldHealth = 0, 1
	sizePrecision          = 0.02
	healthPrecision        = 0.5
	maxSize                = 4
)

// arenaWire is the wire configuration of both ends: the default
// quantisation of positions and rotations, and the bots' two fields. A
// player's fields are zero (within both ranges: an unchanged zero costs
// no byte); the client does not draw them.
func arenaWire() wire.Config {
	return wire.Config{Quantizer: wire.Quantizer{Fields: []wire.FieldSpec{
		fieldSize:   {Min: 0, Max: maxSize, Precision: sizePrecision},
		fieldHealth: {Min: 0, Max: MaxHealth, Precision: healthPrecision},
	}}}
}

// BotSizeAt is bot k's size at tick t (fractional ticks allowed): the
// server sends it, the client's tests compare what it draws with it.
func (r Rules) BotSizeAt(k int, t float64) float32 {
	phase := 2 * math.Pi * unit(hash2(uint32(k), 0x51ce))
	return float32(1 + sizeSwing*math.Sin(2*math.Pi*t/TickRate/sizePeriod+phase))
}

// Look is how a remote entity looks besides its place: a bot's size and
// health as the pipeline draws them from the server's fields, or their
// defaults (1, MaxHealth) before the first values and for players.
type Look struct {
	Size   float32
	Health float32
}

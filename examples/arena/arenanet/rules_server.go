//go:build !js

package arenanet

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/wire"
)

// The server's side of the rules: the wire states it sets and the inputs
// it reads.

// botEntity is bot k's wire state at tick t, with its health: its place,
// its size (BotSizeAt) and health in the fields.
func (r Rules) botEntity(k int, t uint32, health float32) wire.Entity {
	pos, rot, epoch := r.BotAt(k, float64(t))
	e := wire.Entity{NetID: uint32(k + 1), Pos: mgl32.Vec3{pos[0], pos[1], 0}, Rot: rot, Epoch: epoch}
	e.Fields[fieldSize], e.Fields[fieldHealth] = r.BotSizeAt(k, float64(t)), health
	return e
}

// regenPerTick is a tick's healing of a bot's health.
const regenPerTick = RegenPerSecond / (TickRate * 1.0)

// botHealth is the bots' health on the server, by NetID-1: full at the
// start, lowered by confirmed shots, healed a little every tick.
type botHealth []float32

// newBotHealth returns n bots at full health.
func newBotHealth(n int) botHealth {
	h := make(botHealth, n)
	for i := range h {
		h[i] = MaxHealth
	}
	return h
}

// heal heals every bot by a tick's regeneration, up to MaxHealth.
func (h botHealth) heal() {
	for i, v := range h {
		if v < MaxHealth {
			h[i] = min(MaxHealth, v+regenPerTick)
		}
	}
}

// hit takes HitDamage from the bot with NetID netID, down to 0; any other
// NetID (a player's) is left alone.
func (h botHealth) hit(netID uint32) {
	if netID >= 1 && uint64(netID) <= uint64(len(h)) {
		h[netID-1] = max(0, h[netID-1]-HitDamage)
	}
}

// inputSize is the length of an input's wire form without a shot
// (encodeInput); with one (switch inShot), shotSize bytes follow.
const inputSize = 3

// decodeInput reads an input: the stick, each axis kept within -1..1 as
// a server must, and the switches. An input is inputSize bytes, or, with
// the inShot switch, inputSize+shotSize (shotOf reads the shot); anything
// else is no input (ok false).
func decodeInput(b []byte) (stick scenario.Stick, switches byte, ok bool) {
	if len(b) < inputSize || (len(b) == inputSize) != (b[2]&inShot == 0) || len(b) > inputSize && len(b) != inputSize+shotSize {
		return scenario.Stick{}, 0, false
	}
	return scenario.Stick{X: max(-1, min(1, int8(b[0]))), Y: max(-1, min(1, int8(b[1])))}, b[2], true
}

// shotOf reads the shot of an input decodeInput accepted, if it has one.
func shotOf(b []byte) (shot, bool) {
	if len(b) != inputSize+shotSize || b[2]&inShot == 0 {
		return shot{}, false
	}
	return readShot(b[inputSize:])
}

// playerEntity is a player's wire state: position and velocity. Its
// fields are zero, within their ranges, and cost nothing on the wire.
func playerEntity(netID uint32, m scenario.Mover) wire.Entity {
	return wire.Entity{
		NetID: netID,
		Pos:   mgl32.Vec3{m.Pos[0], m.Pos[1], 0},
		Vel:   mgl32.Vec3{m.Vel[0], m.Vel[1], 0},
		Flags: wire.HasVelocity,
	}
}

// quantized returns m as the client will decode it, so that the server
// steps on from exactly the state it sends and the client's replay of the
// same inputs lands on the same floats.
func quantized(q wire.Quantizer, netID uint32, m scenario.Mover) scenario.Mover {
	r, err := q.Record(playerEntity(netID, m))
	if err != nil {
		return m // out of the quantizer's range: cannot happen in the arena
	}
	return moverOf(q.Entity(r))
}

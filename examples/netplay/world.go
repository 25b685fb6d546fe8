package main

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/wire"
)

// The world both ends know: the tick rate, the paths of the entities, the
// players' NetIDs, movement and inputs.
const (
	// tickRate is the server's simulation and snapshot rate, Hz.
	tickRate = 20
	// playerBase is where the players' NetIDs start: the server gives the
	// player of client c NetID playerBase + c. The entities are
	// 1..entities (at most maxEntities), below. NetIDs stay small: the
	// client's NetID index keeps a direct table up to the largest one it
	// has seen (systems.DefaultDenseIDs), 24 bytes an ID.
	playerBase = 20_000
	// maxEntities bounds -entities.
	maxEntities = 16000
	// radius and speed of the entities' circles: 10 units/s.
	radius = 8
	speed  = 10
)

// pathPos is where entity k (NetID k+1) is at tick t (fractional ticks
// allowed), on a circle of its own, and the rotation facing its way.
// Entities at or beyond moving stand still at their tick-0 place.
func pathPos(k int, t float64, moving int) (mgl32.Vec3, mgl32.Quat) {
	if k >= moving {
		t = 0
	}
	a := speed/radius*t/tickRate + float64(k)*0.7
	cx, cy := float64(k%32)*20, float64(k/32)*20
	pos := mgl32.Vec3{float32(cx + radius*math.Cos(a)), float32(cy + radius*math.Sin(a)), 0}
	return pos, mgl32.QuatRotate(float32(a+math.Pi/2), mgl32.Vec3{0, 0, 1})
}

// entityAt is entity k's state at tick t, as the server sets it.
func entityAt(k int, t uint32, moving int) wire.Entity {
	pos, rot := pathPos(k, float64(t), moving)
	return wire.Entity{NetID: uint32(k + 1), Pos: pos, Rot: rot}
}

// script is the player's input at its prediction tick n: a square dance
// with pauses, a few seconds a side.
func script(n uint64) scenario.Stick {
	switch (n / (2 * tickRate)) % 6 {
	case 0:
		return scenario.Stick{X: 1}
	case 1:
		return scenario.Stick{Y: 1}
	case 2:
		return scenario.Stick{}
	case 3:
		return scenario.Stick{X: -1}
	case 4:
		return scenario.Stick{Y: -1}
	}
	return scenario.Stick{}
}

// encodeStick is the wire form of an input: two bytes.
func encodeStick(dst []byte, s scenario.Stick) []byte { return append(dst, byte(s.X), byte(s.Y)) }

// decodeStick reads an input; anything but two bytes is no input.
func decodeStick(b []byte) scenario.Stick {
	if len(b) != 2 {
		return scenario.Stick{}
	}
	return scenario.Stick{X: clampAxis(int8(b[0])), Y: clampAxis(int8(b[1]))}
}

// clampAxis keeps a client's axis within -1..1, as a server must.
func clampAxis(v int8) int8 { return max(-1, min(1, v)) }

// isPlayer reports whether netID is a player's rather than a world
// entity's.
func isPlayer(netID uint32) bool { return netID > playerBase }

// playerEntity is player netID's wire state: position and velocity.
func playerEntity(netID uint32, m scenario.Mover) wire.Entity {
	return wire.Entity{
		NetID: netID,
		Pos:   mgl32.Vec3{m.Pos[0], m.Pos[1], 0},
		Vel:   mgl32.Vec3{m.Vel[0], m.Vel[1], 0},
		Flags: wire.HasVelocity,
	}
}

// moverOf turns the player's wire state back into the game's.
func moverOf(e wire.Entity) scenario.Mover {
	return scenario.Mover{Pos: mgl32.Vec2{e.Pos[0], e.Pos[1]}, Vel: mgl32.Vec2{e.Vel[0], e.Vel[1]}}
}

// quantized returns m as the client will decode it, so that the server
// steps on from exactly the state it sends and the client's replay of the
// same inputs lands on the same floats.
func quantized(q wire.Quantizer, m scenario.Mover) scenario.Mover {
	r, err := q.Record(playerEntity(playerBase+1, m))
	if err != nil {
		return m // out of the quantizer's range: unchanged (cannot happen at these speeds)
	}
	return moverOf(q.Entity(r))
}

package arenanet

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/wire"
)

// The rules both ends know: the tick rate, the arena's size, the
// players' NetIDs and top speed.
const (
	// TickRate is the server's simulation and snapshot rate, Hz.
	TickRate = 20
	// WorldW and WorldH are the arena's size in world units (x right,
	// y up, from 0).
	WorldW, WorldH = 128, 80
	// PlayerBase is above every bot's NetID (1..bots): the server gives
	// the players NetIDs PlayerBase+1, PlayerBase+2, ...
	PlayerBase = 1 << 20
	// PlayerSpeed is the players' top speed, units per second.
	PlayerSpeed = 16
)

// The bots' and players' motion.
const (
	botSpeed       = 9  // units per second
	teleportPeriod = 6  // seconds between a teleporting bot's jumps
	teleportEvery  = 25 // every 25th bot teleports
	playerAccel    = 90 // units per second²
)

// BotAt is bot k (NetID k+1) at tick t (fractional ticks allowed): its
// position on a circle of its own, the rotation facing its way, and its
// epoch. Every 25th bot moves its circle to a new place every 6 seconds
// (a teleport): the epoch counts those jumps. Clients use it to draw the
// true path next to the drawn one.
func BotAt(k int, t float64) (mgl32.Vec2, mgl32.Quat, uint8) {
	sec := t / TickRate
	var epoch uint32
	if k%teleportEvery == 0 {
		epoch = uint32(max(0, math.Floor(sec/teleportPeriod+float64(k)*0.137)))
	}
	h := hash2(uint32(k), epoch)
	r := 3 + 5*unit(h)
	cx := r + 1 + (WorldW-2*r-2)*unit(h>>8^h<<3)
	cy := r + 1 + (WorldH-2*r-2)*unit(h>>16^h<<7)
	dir := 1.0
	if h&1 == 0 {
		dir = -1
	}
	a := dir*botSpeed/r*sec + 6.283*unit(h>>5)
	pos := mgl32.Vec2{float32(cx + r*math.Cos(a)), float32(cy + r*math.Sin(a))}
	heading := a + dir*math.Pi/2
	return pos, mgl32.QuatRotate(float32(heading), mgl32.Vec3{0, 0, 1}), uint8(epoch)
}

// hash2 mixes two numbers into 32 well-spread bits (a finaliser of
// MurmurHash3's kind), for the bots' places.
func hash2(a, b uint32) uint32 {
	h := a*0x9e3779b1 ^ b*0x85ebca77
	h ^= h >> 16
	h *= 0x7feb352d
	h ^= h >> 15
	h *= 0x846ca68b
	h ^= h >> 16
	return h
}

// unit maps the low 8 bits of h to [0, 1].
func unit(h uint32) float64 { return float64(h&0xff) / 255 }

// stepPlayer is the players' movement, the same on the server and in the
// client's prediction: accelerate toward the stick's direction, stay in
// the arena.
func stepPlayer(s scenario.Mover, in scenario.Stick, dt float64) scenario.Mover {
	want := mgl32.Vec2{float32(in.X), float32(in.Y)}
	if l := want.Len(); l > 0 {
		want = want.Mul(PlayerSpeed / l)
	}
	d := want.Sub(s.Vel)
	if l, maxDv := d.Len(), float32(playerAccel*dt); l > maxDv {
		d = d.Mul(maxDv / l)
	}
	s.Vel = s.Vel.Add(d)
	s.Pos = s.Pos.Add(s.Vel.Mul(float32(dt)))
	for i, hi := range [2]float32{WorldW, WorldH} {
		if s.Pos[i] < 0 || s.Pos[i] > hi {
			s.Pos[i] = max(0, min(hi, s.Pos[i]))
			s.Vel[i] = 0
		}
	}
	return s
}

// playerSim is the players' Simulation for the client's predictor.
var playerSim = systems.Simulation[scenario.Mover, scenario.Stick]{
	Step:     stepPlayer,
	Position: func(s *scenario.Mover) mgl32.Vec3 { return mgl32.Vec3{s.Pos[0], s.Pos[1], 0} },
}

// spawnPoint is where the player with NetID id starts.
func spawnPoint(id uint32) scenario.Mover {
	h := hash2(id, 0xa5a5)
	return scenario.Mover{Pos: mgl32.Vec2{float32(20 + (WorldW-40)*unit(h)), float32(15 + (WorldH-30)*unit(h>>8))}}
}

// encodeStick is the wire form of an input: two bytes.
func encodeStick(dst []byte, s scenario.Stick) []byte { return append(dst, byte(s.X), byte(s.Y)) }

// moverOf turns a player's wire state back into the game's.
func moverOf(e wire.Entity) scenario.Mover {
	return scenario.Mover{Pos: mgl32.Vec2{e.Pos[0], e.Pos[1]}, Vel: mgl32.Vec2{e.Vel[0], e.Vel[1]}}
}

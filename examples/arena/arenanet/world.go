package arenanet

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/wire"
)

// The rules every arena has: the tick rate, the players' NetIDs and
// top speed.
const (
	// TickRate is the server's simulation and snapshot rate, Hz.
	TickRate = 20
	// PlayerBase is above every bot's NetID (1..bots): the server gives
	// the players NetIDs PlayerBase+1, PlayerBase+2, ...
	PlayerBase = 1 << 20
	// PlayerSpeed is the players' top speed, units per second.
	PlayerSpeed = 16
	// MaxBots bounds Rules.Bots.
	MaxBots = 16000
)

// The bots' and players' motion.
const (
	botSpeed       = 9  // units per second
	teleportPeriod = 6  // seconds between a teleporting bot's jumps
	teleportEvery  = 25 // every 25th bot teleports
	playerAccel    = 90 // units per second²
)

// Rules are what both ends of an arena know of it: the world's size, its
// bots, and how the server bounds what each client receives. The server
// chooses them and announces them in its tickets (Ticket.Rules), so a
// client draws the world the server simulates and predicts its player
// within the same walls.
type Rules struct {
	// W and H are the world's size in units (x right, y up, from 0).
	W float32 `json:"w"`
	H float32 `json:"h"`
	// Bots is the number of bots: NetIDs 1..Bots.
	Bots int `json:"bots"`
	// View is the radius around a client's player within which the
	// server sends it the entities (interest management): its area.
	// 0 sends every entity to every client.
	View float32 `json:"view"`
	// Budget is what the server sends each client at most, in bytes a
	// second, filled by priority (the nearer the player, the more
	// often); 0 sends every change every tick.
	Budget int `json:"budget"`
}

// DefaultRules is the arena at scale: a world of 400 × 256 units with
// 5,000 bots, where each client receives the entities within 48 units of
// its player (about 350 bots), within 32 kB/s (256 kbit/s).
func DefaultRules() Rules {
	return Rules{W: 400, H: 256, Bots: 5000, View: 48, Budget: 32000}
}

// SmallRules is the arena as it was before it grew, a tenth of the area:
// 128 × 80 units, one screen, with 400 bots, every entity sent to every
// client, every change every tick.
func SmallRules() Rules { return Rules{W: 128, H: 80, Bots: 400} }

// Check reports rules that no arena can have.
func (r Rules) Check() error {
	switch {
	case !(r.W >= 16 && r.W <= 4096 && r.H >= 16 && r.H <= 4096):
		return fmt.Errorf("arena: a world of %v × %v units: want each side within 16..4096", r.W, r.H)
	case r.Bots < 0 || r.Bots > MaxBots:
		return fmt.Errorf("arena: %d bots: want 0..%d", r.Bots, MaxBots)
	case !(r.View >= 0 && r.View <= 8192):
		return fmt.Errorf("arena: view radius %v: want 0 (every entity to every client) or up to 8192 units", r.View)
	case r.Budget < 0:
		return fmt.Errorf("arena: budget %d B/s: want 0 (none) or more", r.Budget)
	case r.Budget > 0 && r.Budget < 4000:
		return fmt.Errorf("arena: budget %d B/s: want 0 (none) or at least 4000 (a snapshot's headers and the player's own state)", r.Budget)
	}
	return nil
}

// String describes the rules for the overlay and the logs.
func (r Rules) String() string {
	s := fmt.Sprintf("world %.0f×%.0f units, %d bots", r.W, r.H, r.Bots)
	if r.View > 0 {
		s += fmt.Sprintf(", area radius %.0f", r.View)
	} else {
		s += ", every entity to every client"
	}
	if r.Budget > 0 {
		s += fmt.Sprintf(", budget %.1f kB/s", float64(r.Budget)/1000)
	}
	return s
}

// BotAt is bot k (NetID k+1) at tick t (fractional ticks allowed): its
// position on a circle of its own, the rotation facing its way, and its
// epoch. Every 25th bot moves its circle to a new place every 6 seconds
// (a teleport): the epoch counts those jumps. Clients use it to draw the
// true path next to the drawn one.
func (r Rules) BotAt(k int, t float64) (mgl32.Vec2, mgl32.Quat, uint8) {
	sec := t / TickRate
	var epoch uint32
	if k%teleportEvery == 0 {
		epoch = uint32(max(0, math.Floor(sec/teleportPeriod+float64(k)*0.137)))
	}
	h := hash2(uint32(k), epoch)
	rad := 3 + 5*unit(h)
	w, ht := float64(r.W), float64(r.H)
	// The circle's centre, to a 65536th of the world: 8 bits would leave
	// a big world's bots in visible rows.
	cx := rad + 1 + (w-2*rad-2)*unit16(hash2(h, 1))
	cy := rad + 1 + (ht-2*rad-2)*unit16(hash2(h, 2))
	dir := 1.0
	if h&1 == 0 {
		dir = -1
	}
	a := dir*botSpeed/rad*sec + 6.283*unit(h>>5)
	pos := mgl32.Vec2{float32(cx + rad*math.Cos(a)), float32(cy + rad*math.Sin(a))}
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

// unit16 maps the low 16 bits of h to [0, 1].
func unit16(h uint32) float64 { return float64(h&0xffff) / 0xffff }

// stepPlayer is the players' movement, the same on the server and in the
// client's prediction: accelerate toward the stick's direction, stay in
// the world.
func (r Rules) stepPlayer(s scenario.Mover, in scenario.Stick, dt float64) scenario.Mover {
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
	for i, hi := range [2]float32{r.W, r.H} {
		if s.Pos[i] < 0 || s.Pos[i] > hi {
			s.Pos[i] = max(0, min(hi, s.Pos[i]))
			s.Vel[i] = 0
		}
	}
	return s
}

// playerSim is the players' Simulation for the client's predictor.
func (r Rules) playerSim() systems.Simulation[scenario.Mover, scenario.Stick] {
	return systems.Simulation[scenario.Mover, scenario.Stick]{
		Step:     r.stepPlayer,
		Position: func(s *scenario.Mover) mgl32.Vec3 { return mgl32.Vec3{s.Pos[0], s.Pos[1], 0} },
	}
}

// spawnPoint is where the player with NetID id starts: anywhere but
// within 15% of the walls.
func (r Rules) spawnPoint(id uint32) scenario.Mover {
	h := hash2(id, 0xa5a5)
	mx, my := 0.15*float64(r.W), 0.15*float64(r.H)
	return scenario.Mover{Pos: mgl32.Vec2{
		float32(mx + (float64(r.W)-2*mx)*unit16(h)),
		float32(my + (float64(r.H)-2*my)*unit16(hash2(h, 3))),
	}}
}

// inInterestOff asks the server to turn interest management off for the
// client sending it: every entity is relevant to it (key N), to compare.
const inInterestOff = 1 << 0

// encodeInput is the wire form of an input, inputSize bytes: the stick's
// two axes and a byte of switches, the client's requests to the server
// (inInterestOff).
func encodeInput(dst []byte, s scenario.Stick, switches byte) []byte {
	return append(dst, byte(s.X), byte(s.Y), switches)
}

// moverOf turns a player's wire state back into the game's.
func moverOf(e wire.Entity) scenario.Mover {
	return scenario.Mover{Pos: mgl32.Vec2{e.Pos[0], e.Pos[1]}, Vel: mgl32.Vec2{e.Vel[0], e.Vel[1]}}
}

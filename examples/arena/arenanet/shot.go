package arenanet

import (
	"encoding/binary"
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// The arena's shots: space or a mouse click fires at the nearest bot
// within ShotCone of the player's facing and ShotRange of it. The client
// aims at the bot where it draws it and sends the shot with its input,
// with what it drew (client.Session.SetDrawn); the server judges it
// against the bots as that client drew them (lag compensation: History,
// Rewind, Raycast), or against the present when the client has switched
// compensation off (key C), to compare.
const (
	// ShotRange is how far a shot reaches, in units: within a client's
	// area (Rules.View), where it holds the bots.
	ShotRange = 40
	// ShotCone is the half-angle around the player's facing within which
	// it fires at a bot, in radians (30°).
	ShotCone = math.Pi / 6
	// ShotEvery is the fewest inputs (ticks) from one shot to the next:
	// at most TickRate/ShotEvery shots a second. The server refuses a
	// shot sooner, and counts it.
	ShotEvery = 4
	// BotRadius is a bot's hit sphere, in units: the disc the arena draws.
	BotRadius = 0.6
)

// inLagCompOff asks the server to judge the client's shots against the
// present instead of what the client drew (key C), to compare.
const inLagCompOff = 1 << 1

// inShot says an input carries a shot after its stick and switches.
const inShot = 1 << 2

// shot is what a client says of a shot: its number (for the server's
// verdict), the bot it aims at, where from and which way.
type shot struct {
	no     uint8
	target uint32
	origin mgl32.Vec2
	angle  float32 // radians, counter-clockwise from +x
}

// appendShot appends s's wire form: the number, the target's NetID, the
// origin (two float32) and the direction in 65536ths of a turn.
func appendShot(dst []byte, s *shot) []byte {
	dst = append(dst, s.no)
	dst = binary.LittleEndian.AppendUint32(dst, s.target)
	dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(s.origin[0]))
	dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(s.origin[1]))
	turn := math.Mod(float64(s.angle)/(2*math.Pi)+1, 1)
	return binary.LittleEndian.AppendUint16(dst, uint16(math.Round(turn*65536)))
}

// readVerdict splits a verdictState.
func readVerdict(s uint16) (last uint8, confirmed bool, count uint8) {
	return uint8(s >> 8), s&0x80 != 0, uint8(s & 0x7f)
}

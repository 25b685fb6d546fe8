//go:build !js

package arenanet

import (
	"encoding/binary"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/wire"
)

// originSlack is how far a shot's origin may be from the shooter's
// position on the server, in units: the client fires from where it draws
// its player, which its prediction's smoothing keeps within a tick or two
// of the server's state (PlayerSpeed/TickRate a tick).
const originSlack = 2.5

// shotSize is the length of a shot's wire form (appendShot), after an
// input's first inputSize bytes.
const shotSize = 1 + 4 + 4 + 4 + 2

// readShot reads a shot's wire form (shotSize bytes). A non-finite origin
// is no shot (ok false).
func readShot(b []byte) (s shot, ok bool) {
	if len(b) != shotSize {
		return shot{}, false
	}
	s.no = b[0]
	s.target = binary.LittleEndian.Uint32(b[1:])
	s.origin[0] = math.Float32frombits(binary.LittleEndian.Uint32(b[5:]))
	s.origin[1] = math.Float32frombits(binary.LittleEndian.Uint32(b[9:]))
	s.angle = float32(float64(binary.LittleEndian.Uint16(b[13:])) / 65536 * 2 * math.Pi)
	for _, v := range s.origin {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return shot{}, false
		}
	}
	return s, true
}

// verdictState is the player's wire State word that carries the server's
// verdicts back to its client: the number of the newest shot judged
// (high byte), whether it was confirmed (bit 7) and the count of shots
// confirmed, modulo 128 (bits 0..6). The client follows the changes.
func verdictState(last uint8, confirmed bool, count uint32) uint16 {
	s := uint16(last)<<8 | uint16(count&0x7f)
	if confirmed {
		s |= 0x80
	}
	return s
}

// ShotCounts are the server's counts of a player's shots.
type ShotCounts struct {
	// Judged counts the shots judged against what the client drew (lag
	// compensation, [1]) and against the present ([0], key C); Confirmed
	// those whose ray struck first the bot the client claims (the first
	// it drew in the line of fire).
	Judged, Confirmed [2]int
	// Refused counts the shots refused unjudged: sooner than ShotEvery
	// inputs after the previous one, or fired from further than a tick
	// or two of movement from the shooter's position on the server.
	Refused int
	// Clamped counts the judged shots whose drawn time (or a late
	// entity's) the server did not wholly believe (server.Rewind.Clamped):
	// older than the client's round trip and the longest delay allow.
	Clamped int
}

// verdict is the server's judgement of one shot.
type verdict uint8

const (
	shotMissed    verdict = iota // judged: the ray struck nothing, or another bot first
	shotConfirmed                // judged: the ray struck the bot aimed at
	shotRefused                  // not judged: too soon, or from elsewhere
)

// shotHistory is the history lag compensation keeps: the default window
// (1 s) and trust (the round trip and 900 ms). It sets no MaxSpeed: a
// teleporting bot jumps further than any speed, and a ray looks at every
// bot (a few thousand bounding spheres a shot, at most TickRate/ShotEvery
// shots a second a player).
func shotHistory() *server.HistoryConfig { return &server.HistoryConfig{} }

// botShape is every bot's hit shape: the disc the arena draws.
var botShape = server.Shape{Kind: server.Sphere, Radius: BotRadius}

// judgeShot judges shot sh of client id, whose player shooter stands at
// pos on the server, made when the client drew drawn (nil if its input
// said nothing of it): against the bots as the client drew them
// (compensate: sess.Rewind, clamped to what the server believes) or as
// they are now. The client chooses the direction, as a player aims; the
// origin must be within originSlack of the shooter, and the ray reaches
// ShotRange. It reports whether the server clamped the drawn time.
func judgeShot(sess *server.Session, id server.ClientID, shooter uint32, pos mgl32.Vec2, sh *shot, drawn *wire.Drawn, compensate bool) (v verdict, clamped bool) {
	if sh.origin.Sub(pos).Len() > originSlack {
		return shotRefused, false
	}
	rw := server.Rewind{Tick: float64(sess.Tick())} // the present: the bots as set this tick
	if compensate && drawn != nil {
		r, err := sess.Rewind(id, drawn)
		if err != nil {
			return shotRefused, false // gone: its Leave follows
		}
		rw, clamped = r, r.Clamped
	}
	sin, cos := math.Sincos(float64(sh.angle))
	origin := mgl32.Vec3{sh.origin[0], sh.origin[1], 0}
	hit, ok := sess.Raycast(&rw, origin, mgl32.Vec3{float32(cos), float32(sin), 0}, ShotRange, shooter)
	if ok && hit.NetID == sh.target {
		return shotConfirmed, clamped
	}
	return shotMissed, clamped
}

// shoot judges the shot an input of client id carries, if it carries one
// (payload is the input; drawn what the input says the client drew), and
// keeps the verdict in the player's counts and in the State its client
// reads (verdictState); a confirmed shot hurts the bot struck
// (HitDamage). It counts the inputs between shots: a shot sooner than
// ShotEvery inputs after the previous one is refused. The session
// hands out at most about one input a tick however many a client sends,
// so no client fires faster than TickRate/ShotEvery a second.
func (s *Server) shoot(id server.ClientID, p *serverPlayer, payload []byte, drawn *wire.Drawn) {
	p.sinceShot = min(p.sinceShot+1, ShotEvery)
	sh, ok := shotOf(payload)
	if !ok {
		return
	}
	v := shotRefused
	if p.sinceShot >= ShotEvery {
		comp := p.switches&inLagCompOff == 0
		var clamped bool
		v, clamped = judgeShot(s.srv.Session(), id, p.netID, p.state.Pos, &sh, drawn, comp)
		if v != shotRefused {
			p.sinceShot = 0
			p.shots.Judged[b2i(comp)]++
			if v == shotConfirmed {
				p.shots.Confirmed[b2i(comp)]++
				s.health.hit(sh.target)
			}
			if clamped {
				p.shots.Clamped++
			}
		}
	}
	if v == shotRefused {
		p.shots.Refused++
	}
	p.lastShot, p.lastHit = sh.no, v == shotConfirmed
}

// verdicts is the State word of player p: its newest verdict and the
// count of its confirmed shots.
func (p *serverPlayer) verdicts() uint16 {
	return verdictState(p.lastShot, p.lastHit, uint32(p.shots.Confirmed[0]+p.shots.Confirmed[1]))
}

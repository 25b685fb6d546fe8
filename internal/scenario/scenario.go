package scenario

import (
	"math"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/netsim"
)

// Scenario describes a server, a network and how long to watch.
type Scenario struct {
	// Name identifies the scenario in reports.
	Name string
	// Seconds of virtual time to simulate.
	Seconds float64
	// TickRate is the server's tick and snapshot rate (Hz).
	TickRate float64
	// FPS is the client's render rate.
	FPS float64
	// Entities is how many remote entities the server moves.
	Entities int
	// PerPacket is how many entity states share a packet.
	PerPacket int
	// Link is the network from server to client.
	Link netsim.Config
	// Drift makes the server's clock run 1+Drift times as fast as the
	// client's (0.01: 1% fast).
	Drift float64
	// TeleportEvery, if positive, teleports every entity by TeleportJump
	// units along x at that interval, announced with a Teleport message.
	TeleportEvery time.Duration
	// TeleportJump is the teleport distance (default 50 units).
	TeleportJump float32
	// ChurnPerSecond is the fraction of entities replaced (despawned and
	// spawned under a new NetID) every second.
	ChurnPerSecond float64
	// SlowEvery, if above 1, sends the odd entity slots only every
	// SlowEvery ticks (the way servers send distant entities less often);
	// the others are sent every tick. Results are also given per group.
	SlowEvery int
	// StopGo, if positive, makes every entity alternate StopGo of motion
	// with StopGo standing still (phases staggered), and the server send
	// an entity only when it moved, with a Complete marker every tick.
	StopGo time.Duration
	// Disturbance, if set, is where recovery is measured from (its end).
	Disturbance netsim.Window
	// Paths chooses the entities' true motion (default: [Circles]).
	Paths Paths
	// Seed seeds the link and the paths.
	Seed uint64
}

func (sc *Scenario) withDefaults() Scenario {
	s := *sc
	if s.Seconds <= 0 {
		s.Seconds = 20
	}
	if s.TickRate <= 0 {
		s.TickRate = 20
	}
	if s.FPS <= 0 {
		s.FPS = 60
	}
	if s.Entities <= 0 {
		s.Entities = 20
	}
	if s.PerPacket <= 0 {
		s.PerPacket = 32
	}
	if s.TeleportJump == 0 {
		s.TeleportJump = 50
	}
	return s
}

// Paths names a shape of true motion.
type Paths int

const (
	// Circles moves entity slot k (k = 0..Entities-1) on a circle of
	// radius 8 at 1.25 rad/s (10 units per second), centred 30 units apart.
	Circles Paths = iota
	// VariedCircles gives every slot a circle of its own radius (10 to 14
	// units) and speed (3 to 5 units per second), drawn from the seed:
	// slower motion, where a small step in the drawing is a large share
	// of a frame's true motion.
	VariedCircles
	// ZigZags moves every slot at 4 units per second along x and 4 units
	// per second along y, flipping the y direction every 0.7 to 1.0 s
	// (intervals drawn from the seed): sharp turns that interpolation
	// must not draw as backward motion.
	ZigZags
	// Mixed gives the even slots varied circles and the odd slots
	// zig-zags.
	Mixed
)

// String names the paths in reports.
func (p Paths) String() string {
	switch p {
	case VariedCircles:
		return "circles of radius 10–14 at 3–5 units/s"
	case ZigZags:
		return "zig-zags at 4 units/s along x and 4 units/s in y, flipping y every 0.7–1.0 s"
	case Mixed:
		return "half circles of radius 10–14 at 3–5 units/s, half zig-zags at 4 units/s along x and 4 units/s in y flipping y every 0.7–1.0 s"
	}
	return "circles at 10 units/s"
}

// Ground truth of [Circles]; every path's centre is shifted by every
// teleport so far.
const (
	pathRadius = 8
	pathOmega  = 1.25
	// Speed is the true speed of every entity on [Circles], in units per
	// second.
	Speed = pathRadius * pathOmega
)

// zigzag shapes [ZigZags]: the speed along each axis, and how many flip
// intervals make one repeating pattern.
const (
	zigSpeed = 4
	zigFlips = 16
)

// unit returns a number in [0, 1) determined by the seed, slot k and i.
func (sc *Scenario) unit(k, i int) float64 {
	x := sc.Seed ^ uint64(k+1)*0x9e3779b97f4a7c15 ^ uint64(i+1)*0xbf58476d1ce4e5b9
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}

// shape returns the path of slot k.
func (sc *Scenario) shape(k int) Paths {
	if sc.Paths == Mixed {
		if k%2 == 0 {
			return VariedCircles
		}
		return ZigZags
	}
	return sc.Paths
}

// circle returns slot k's circle: radius and angular speed.
func (sc *Scenario) circle(k int) (radius, omega float64) {
	if sc.shape(k) != VariedCircles {
		return pathRadius, pathOmega
	}
	radius = 10 + 4*sc.unit(k, 0)
	return radius, (3 + 2*sc.unit(k, 1)) / radius
}

// speed returns slot k's true speed, in units per second.
func (sc *Scenario) speed(k int) float64 {
	if sc.shape(k) == ZigZags {
		return zigSpeed * math.Sqrt2
	}
	r, w := sc.circle(k)
	return r * w
}

// zig returns slot k's y offset and y direction (+1 or -1) on its zig-zag
// after moving for m seconds. The flip intervals repeat every zigFlips.
func (sc *Scenario) zig(k int, m float64) (y, dir float64) {
	var period, net float64
	sign := 1.0
	for i := 0; i < zigFlips; i++ {
		d := 0.7 + 0.3*sc.unit(k, 2+i)
		period += d
		net += sign * d
		sign = -sign
	}
	n := math.Floor(m / period)
	y, rest := n*net*zigSpeed, m-n*period
	sign = 1
	for i := 0; i < zigFlips; i++ {
		d := 0.7 + 0.3*sc.unit(k, 2+i)
		if rest < d {
			return y + sign*rest*zigSpeed, sign
		}
		y += sign * d * zigSpeed
		rest -= d
		sign = -sign
	}
	return y, sign
}

// truth returns where slot k is at server time t (seconds), given the
// teleports so far.
func (sc *Scenario) truth(k int, t float64) mgl32.Vec3 {
	m := sc.moved(k, t)
	// Circles lie in a row, 30 units apart; the other paths on a grid
	// (50 a row), so that thousands of them stay near the origin, where
	// float32 resolves a frame's motion finely.
	cx, cy := float64(k%50*30), float64(k/50*30)
	var x, y float32
	switch {
	case sc.Paths == Circles:
		a := pathOmega*m + float64(k)*0.7
		x = float32(k*30) + float32(pathRadius*math.Cos(a))
		y = float32(pathRadius * math.Sin(a))
	case sc.shape(k) == ZigZags:
		zy, _ := sc.zig(k, m)
		x = float32(cx + zigSpeed*(m-sc.Seconds/2))
		y = float32(cy + zy)
	default:
		r, w := sc.circle(k)
		a := w*m + float64(k)*0.7
		x = float32(cx + r*math.Cos(a))
		y = float32(cy + r*math.Sin(a))
	}
	if sc.TeleportEvery > 0 && t > 0 {
		n := math.Floor(t / sc.TeleportEvery.Seconds())
		x += float32(n) * sc.TeleportJump
	}
	return mgl32.Vec3{x, y, 0}
}

// moved returns how long slot k has been moving by server time t: all of
// t, or with StopGo the moving half of every period.
func (sc *Scenario) moved(k int, t float64) float64 {
	if sc.StopGo <= 0 {
		return t
	}
	p := 2 * sc.StopGo.Seconds()
	off := float64(k%4) * p / 4
	m := func(u float64) float64 { return math.Floor(u/p)*p/2 + math.Min(math.Mod(u, p), p/2) }
	return m(t+off) - m(off)
}

// sentAt reports whether the server sends slot k at tick (server time ts).
func (sc *Scenario) sentAt(k int, tick uint32, ts float64) bool {
	switch {
	case tick == 0:
		return true
	case sc.SlowEvery > 1 && k%2 == 1:
		return tick%uint32(sc.SlowEvery) == 0
	case sc.StopGo > 0:
		// Only when it moved since the previous tick.
		return sc.moved(k, ts) != sc.moved(k, ts-1/sc.TickRate)
	}
	return true
}

// direction is the unit direction of slot k's true motion at time t.
func (sc *Scenario) direction(k int, t float64) mgl32.Vec3 {
	m := sc.moved(k, t)
	if sc.shape(k) == ZigZags {
		_, dir := sc.zig(k, m)
		return mgl32.Vec3{float32(1 / math.Sqrt2), float32(dir * 1 / math.Sqrt2), 0}
	}
	_, w := sc.circle(k)
	a := w*m + float64(k)*0.7
	return mgl32.Vec3{float32(-math.Sin(a)), float32(math.Cos(a)), 0}
}

// teleportBetween reports whether a teleport lies in (t0, t1].
func (sc *Scenario) teleportBetween(t0, t1 float64) bool {
	if sc.TeleportEvery <= 0 {
		return false
	}
	p := sc.TeleportEvery.Seconds()
	return math.Floor(t1/p) != math.Floor(t0/p)
}

// slots tracks which NetID each entity slot currently has (churn replaces
// them) and when its current life began.
type slots struct {
	ids    []components.NetID
	born   []float64 // server time the current life began
	nextID components.NetID
}

func newSlots(n int) *slots {
	s := &slots{ids: make([]components.NetID, n), born: make([]float64, n), nextID: components.NetID(n + 1)}
	for k := range s.ids {
		s.ids[k] = components.NetID(k + 1)
	}
	return s
}

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

// Ground truth: entity slot k (k = 0..Entities-1) moves on a circle of
// radius 8 at 1.25 rad/s (10 units per second), centred 30 units apart,
// shifted by every teleport so far.
const (
	pathRadius = 8
	pathOmega  = 1.25
	// Speed is the true speed of every entity, in units per second.
	Speed = pathRadius * pathOmega
)

// truth returns where slot k is at server time t (seconds), given the
// teleports so far.
func (sc *Scenario) truth(k int, t float64) mgl32.Vec3 {
	a := pathOmega*sc.moved(k, t) + float64(k)*0.7
	x := float32(k*30) + float32(pathRadius*math.Cos(a))
	y := float32(pathRadius * math.Sin(a))
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
	a := pathOmega*sc.moved(k, t) + float64(k)*0.7
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

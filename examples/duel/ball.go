package main

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/systems"
)

// The ball: it lies on the local player's path, the player picks it up,
// carries it and throws it, and it rolls on until friction stops it. The
// client draws it interpolated from the server's snapshots while it is
// free, predicted while the player holds it and for a moment after the
// throw (so it leaves the hand the player sees, not the one of 100 ms
// ago), and interpolated again once it flies on its own.

// ballID is the ball's NetID.
const ballID = 2000

// Ball is the ball's state, on the server and in the client's prediction.
type Ball struct{ Pos, Vel mgl32.Vec2 }

// Grip is what the local player does to the ball in a tick: hold it at
// Hand, or throw it at Throw (units per second), or neither.
type Grip struct {
	Held  bool
	Hand  mgl32.Vec2
	Throw mgl32.Vec2
}

// ballFriction slows a free ball, in units per second squared.
const ballFriction = 3

// StepBall is the ball's deterministic movement, shared by the server and
// the client's prediction.
func StepBall(b Ball, g Grip, dt float64) Ball {
	switch {
	case g.Held:
		b.Vel = g.Hand.Sub(b.Pos).Mul(float32(1 / dt))
		b.Pos = g.Hand
		return b
	case g.Throw != mgl32.Vec2{}:
		b.Vel = g.Throw
	}
	if s := b.Vel.Len(); s > 0 {
		b.Vel = b.Vel.Mul(float32(math.Max(0, float64(s)-ballFriction*dt)) / s)
	}
	b.Pos = b.Pos.Add(b.Vel.Mul(float32(dt)))
	return b
}

// ballSim is the Simulation of [Ball] and [Grip].
var ballSim = systems.Simulation[Ball, Grip]{
	Step:     StepBall,
	Position: func(b *Ball) mgl32.Vec3 { return mgl32.Vec3{b.Pos[0], b.Pos[1], 0} },
}

// The scripted play, by the local player's input sequence numbers (the
// server and the client agree on them, as they would on a button in the
// input): pick up at grabSeq, throw at throwSeq, and the client hands the
// ball back to its snapshots at releaseSeq.
const (
	grabSeq    = 90  // 1.5 s in: the player runs right
	throwSeq   = 180 // 3 s in: the player runs up
	releaseSeq = 240 // 1 s of flight later
)

// handOffset is where the player holds the ball, relative to its centre.
var handOffset = mgl32.Vec2{0.5, 0}

// gripFor is the grip applied with input seq, the player being at p
// before it.
func gripFor(seq uint32, p scenario.Mover) Grip {
	switch {
	case seq >= grabSeq && seq < throwSeq:
		return Grip{Held: true, Hand: p.Pos.Add(handOffset)}
	case seq == throwSeq:
		return Grip{Throw: p.Vel.Add(mgl32.Vec2{8, 2})}
	}
	return Grip{}
}

// ballStart is where the ball lies: where the player's hand will be when
// it picks the ball up, had nothing shoved it.
func ballStart(rate float64) Ball {
	var p scenario.Mover
	for n := uint64(0); n+1 < grabSeq; n++ {
		p = scenario.StepMover(p, script(n, rate), 1/rate)
	}
	return Ball{Pos: p.Pos.Add(handOffset)}
}

// carrier is the client: the local player, who picks up and throws the
// ball, switching it between interpolated and predicted drawing.
type carrier struct {
	*scenario.Player
	ball   *systems.Predictor[Ball, Grip]
	states generic.Map1[components.PredictedState[scenario.Mover]]
	grips  generic.Map1[components.InputCommand[Grip]]
	render generic.Map1[components.Render]
	e      ecs.Entity
	// predicted says the ball is drawn predicted; switched lists the
	// frames at which it switched.
	predicted bool
	frame     int
	switched  []int
	spare     []systems.SentInput[Grip]
}

func newCarrier(p *scenario.Player) (*carrier, error) {
	bp, err := nsecs.AddPredictor(p.Pipeline(), ballSim)
	if err != nil {
		return nil, err
	}
	w := p.World()
	return &carrier{Player: p, ball: bp,
		states: generic.NewMap1[components.PredictedState[scenario.Mover]](w),
		grips:  generic.NewMap1[components.InputCommand[Grip]](w),
		render: generic.NewMap1[components.Render](w)}, nil
}

// Frame implements [scenario.Client]: the game's decisions about the ball
// for the tick about to run, then the frame.
func (c *carrier) Frame(dt float64) {
	next := c.Status().NextSeq // the sequence number of the next tick's input
	w := c.World()
	switch {
	case !c.predicted && next == grabSeq:
		if e, ok := c.Pipeline().Lookup(ballID); ok {
			// Pick it up: predicted from where it is drawn, lying still;
			// its inputs share the player's numbers, so one
			// acknowledgement covers both.
			pos := c.render.Get(e).Pos
			if err := c.ball.PredictEntity(w, e, Ball{Pos: mgl32.Vec2{pos[0], pos[1]}}, next); err == nil {
				c.e, c.predicted = e, true
				c.switched = append(c.switched, c.frame)
			}
		}
	case c.predicted && next >= releaseSeq:
		if err := c.ball.InterpolateEntity(w, c.e); err == nil {
			c.predicted = false
			c.switched = append(c.switched, c.frame)
		}
	}
	if c.predicted && w.Alive(c.e) {
		c.grips.Get(c.e).Input = gripFor(next, c.states.Get(c.Entity).Current)
	}
	c.Player.Frame(dt)
	// The server knows the grip from the player's inputs: the ball's own
	// need not travel.
	c.spare = c.ball.Outbox().Drain(c.spare)
	c.frame++
}

// ballDrawn returns where the ball is drawn, if it is.
func (c *carrier) ballDrawn() (mgl32.Vec3, bool) {
	e, ok := c.Pipeline().Lookup(ballID)
	if !ok {
		return mgl32.Vec3{}, false
	}
	r := c.render.Get(e)
	return r.Pos, r.Flags&components.Visible != 0
}

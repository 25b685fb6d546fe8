// Command quickstart is the README's Quick start, complete: a netsmooth
// pipeline in an arche world, fed the snapshots of a pretend server and
// drawn frame by frame.
package main

import (
	"fmt"
	"log"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

func main() {
	world := ecs.NewWorld()
	// Your server's tick rate, here 60 Hz; every other setting has a default.
	pipe, err := nsecs.New(&world, nsecs.Config{TickRate: 60})
	if err != nil {
		log.Fatal(err)
	}
	remotes := generic.NewFilter1[components.Render]().With(generic.T[components.Remote]())

	const dt = 1.0 / 144 // seconds per render frame: measure yours
	server := pretendServer{rate: 60}
	for frame := range 3 * 144 { // three seconds
		// Your transport, on any goroutine: decode packets, push messages.
		for _, msg := range server.until(float64(frame) * dt) {
			pipe.Inbox().Push(msg)
		}

		// Your game loop, on the world's goroutine: one Update per frame,
		// then draw every remote entity that is visible.
		pipe.Update(dt)
		q := remotes.Query(&world)
		for q.Next() {
			if r := q.Get(); r.Flags&components.Visible != 0 && (frame+1)%144 == 0 {
				fmt.Printf("%.0f s: draw at x=%.2f (the server's newest: x=%.2f)\n", float64(frame+1)*dt, r.Pos[0], server.x())
			}
		}
	}
}

// pretendServer stands for your server: entity 7 moves along x at 3 units
// per second, and every tick it sends a snapshot of it.
type pretendServer struct {
	rate float64
	tick uint32 // the newest tick sent
}

// until returns the snapshots of the ticks due by time t, in seconds.
func (s *pretendServer) until(t float64) []systems.Message {
	var msgs []systems.Message
	for float64(s.tick) <= t*s.rate {
		s.tick++
		msgs = append(msgs, systems.Message{NetID: 7, Tick: s.tick, Pos: mgl32.Vec3{s.x(), 0, 0}})
	}
	return msgs
}

// x is where entity 7 was at the newest tick sent.
func (s *pretendServer) x() float32 { return 3 * float32(s.tick) / float32(s.rate) }

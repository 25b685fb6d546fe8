package ecs_test

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/client"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/wire"
)

// A game's own interpolated components: each bot has a Scale that grows
// and an Aim angle that turns through ±π. Both ends declare the fields'
// quantisation in the wire config; the server sets them with the entity's
// state; the client session hands them to the pipeline, which draws them
// on the same render time as the positions.
func ExampleAddField() {
	type Scale float32 // world units
	type Aim float32   // radians

	// Both ends: the wire carries Fields[0] (scale, 0..8 at 1/100) and
	// Fields[1] (aim, a full turn in 1024 steps, wrapping).
	wcfg := wire.Config{Quantizer: wire.Quantizer{Fields: []wire.FieldSpec{
		{Min: 0, Max: 8, Precision: 0.01},
		{Min: -math.Pi, Max: math.Pi, Precision: 2 * math.Pi / 1024, Wrap: true},
	}}}

	// Client: the pipeline draws them as the components Scale and Aim.
	world := ecs.NewWorld()
	pipe, _ := nsecs.New(&world, nsecs.DefaultConfig())
	nsecs.AddField(pipe, systems.FieldConfig[Scale]{Index: 0, Blend: systems.Linear, Min: 0, Max: 8, Extrapolate: true})
	nsecs.AddField(pipe, systems.FieldConfig[Aim]{Index: 1, Blend: systems.Angle, Min: -math.Pi, Max: math.Pi})
	cli, _ := client.NewSession(client.SessionConfig{Wire: wcfg, Inbox: pipe.Inbox(), Fields: pipe.FieldInbox()})

	// Server: the fields travel in the entity's record.
	srv, _ := server.NewSession(server.SessionConfig{Wire: wcfg})
	srv.Connect(1)

	scales, aims := generic.NewMap1[Scale](&world), generic.NewMap1[Aim](&world)
	for frame := 0; frame < 30; frame++ {
		if frame%3 == 0 { // a 20 Hz server, a 60 Hz client
			tick := uint32(frame / 3)
			srv.BeginTick(tick)
			srv.SetEntity(wire.Entity{
				NetID:  7,
				Pos:    mgl32.Vec3{float32(tick), 0, 0},
				Fields: [wire.MaxFields]float32{1 + 0.3*float32(tick), float32(math.Remainder(2.8+0.1*float64(tick), 2*math.Pi))},
			})
			packets, _ := srv.Snapshot(1, tick*50, nil)
			for _, p := range packets {
				cli.Receive(p, tick*50)
			}
			// The client acknowledges what it received: deltas from here.
			ack, _ := cli.InputPacket(tick*50, nil)
			srv.Receive(1, ack, tick*50)
		}
		pipe.Update(1.0 / 60)
		if e, ok := pipe.Lookup(7); ok && frame >= 14 && frame < 20 && world.Has(e, ecs.ComponentID[Scale](&world)) {
			fmt.Printf("render tick %.2f: scale %.2f, aim %+.3f\n", pipe.Clock().RenderTick(), *scales.Get(e), *aims.Get(e))
		}
	}
	// The aim turns through +π to -π by the short way round, with no
	// jump; the scale follows the server's growth.

	// Output:
	// render tick 3.07: scale 1.92, aim +3.106
	// render tick 3.40: scale 2.02, aim +3.140
	// render tick 3.73: scale 2.12, aim -3.108
	// render tick 4.07: scale 2.22, aim -3.074
	// render tick 4.40: scale 2.32, aim -3.041
	// render tick 4.73: scale 2.42, aim -3.008
}

// Package ecs plugs netsmooth into an arche world: [New] adds the resources
// (inbox, NetID index, clock, metrics, frame) and builds the ordered
// systems from a [Config]; [Pipeline.Update] runs one render frame.
//
// The package shares its name with arche's own ecs package. Import it under
// an alias:
//
//	import (
//		"github.com/mlange-42/arche/ecs"
//		nsecs "github.com/netsmooth/netsmooth/ecs"
//		"github.com/netsmooth/netsmooth/systems"
//	)
//
// # Plugging in
//
//	world := ecs.NewWorld()
//	pipe, err := nsecs.New(&world, nsecs.DefaultConfig().WithTickRate(60))
//	// transports, on any goroutine:
//	pipe.Inbox().Push(systems.Message{NetID: 7, Tick: 1200, Pos: pos})
//	// every render frame, on the world's goroutine:
//	pipe.Update(dt)
//	// then draw each remote entity with components.Render (and the
//	// components.Visible flag).
//
// The message, inbox, metrics and prediction types are defined in package
// [github.com/netsmooth/netsmooth/systems], whose systems use them; this
// package only assembles the pipeline.
//
// To run the systems in an arche-model Model instead, create the pipeline on
// the model's world, add a [systems.FrameTimer] and then the systems from
// [Pipeline.Systems], in that order.
package ecs

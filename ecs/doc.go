// Package ecs plugs netsmooth into an arche world: [New] adds the resources
// (inbox, NetID index, clock, metrics) and builds the ordered systems from a
// [Config]; [Pipeline.Update] runs one render frame.
//
// The package shares its name with arche's own ecs package. Import it under
// an alias:
//
//	import (
//		"github.com/mlange-42/arche/ecs"
//		nsecs "github.com/netsmooth/netsmooth/ecs"
//	)
//
// # Plugging in
//
//	world := ecs.NewWorld()
//	pipe, err := nsecs.New(&world, nsecs.DefaultConfig())
//	// transports, on any goroutine:
//	pipe.Inbox().Push(nsecs.Message{NetID: 7, Tick: 1200, Pos: pos})
//	// every render frame, on the world's goroutine:
//	pipe.Update(dt)
//	// then draw each entity with components.Render (and components.Visible).
//
// To run the systems in an arche-model Model instead, create the pipeline on
// the model's world, add a [systems.FrameTimer] and then the systems from
// [Pipeline.Systems], in that order.
//
// The message, inbox, metrics and index types are defined in package
// [github.com/netsmooth/netsmooth/systems], whose systems use them, and
// are re-exported here as aliases so that one import is enough, the way
// package os re-exports io/fs types.
package ecs

package ecs

import (
	"errors"

	"github.com/netsmooth/netsmooth/systems"
)

// These aliases re-export the types a game uses every day, so that one
// import of this package is enough.
type (
	// Message is a snapshot or lifecycle event pushed by a transport.
	Message = systems.Message
	// Kind says what a Message asks for.
	Kind = systems.Kind
	// Inbox is the concurrency-safe queue transports push into.
	Inbox = systems.Inbox
	// Metrics is the pipeline's dashboard resource.
	Metrics = systems.Metrics
	// RejectReason says why a message was refused.
	RejectReason = systems.RejectReason
)

// Message kinds, re-exported from package systems.
const (
	Snapshot = systems.Snapshot
	Spawn    = systems.Spawn
	Despawn  = systems.Despawn
	Teleport = systems.Teleport
)

// ErrAlreadyInstalled is returned by [New] for a world that already has a
// netsmooth pipeline: its resources are per world.
var ErrAlreadyInstalled = errors.New("ecs: the world already has a netsmooth pipeline")

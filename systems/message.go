package systems

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/components"
)

// Kind says what a [Message] asks the client to do.
type Kind uint8

const (
	// Snapshot is an authoritative state of an entity at Tick. By default an
	// unknown NetID spawns an entity (unless ReceiveConfig.RequireSpawn).
	Snapshot Kind = iota
	// Spawn creates the entity with its first state at Tick. A spawn for a
	// live entity is treated as a snapshot.
	Spawn
	// Despawn removes the entity when the render time reaches Tick (not on
	// arrival: it stays visible until its last moments have been drawn).
	// Only NetID and Tick are read.
	Despawn
	// Teleport is a snapshot that starts a discontinuity: the entity is not
	// interpolated from its earlier samples into this one; it holds its old
	// place until the render time reaches Tick, then appears here.
	Teleport
	// Complete says the server's snapshot for Tick named every entity that
	// changed: a remote entity it did not name is unchanged at Tick, so it
	// is drawn still (not extrapolated) until the render time reaches Tick.
	// Servers that delta-encode snapshots, or send an entity only when it
	// changes, push one per complete snapshot. Only Tick is read.
	Complete
	numKinds
)

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case Snapshot:
		return "snapshot"
	case Spawn:
		return "spawn"
	case Despawn:
		return "despawn"
	case Teleport:
		return "teleport"
	case Complete:
		return "complete"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Message is what a transport pushes into the [Inbox]: one entity's state at
// one server tick, or a lifecycle event. It is a plain value (56 bytes, no
// pointers), decoded by the transport from whatever wire format it uses.
type Message struct {
	// Kind is what to do; the zero value is a Snapshot.
	Kind Kind
	// HasVelocity says Vel was sent. Without it, extrapolation estimates the
	// velocity from the two newest samples.
	HasVelocity bool
	// State is a discrete state word, switched (never blended) at Tick.
	State uint16
	// Epoch is the server's lifecycle counter for the entity; a change of
	// epoch is an interpolation boundary, like a Teleport. Servers that do
	// not track epochs leave it zero.
	Epoch uint8
	// NetID is the server's identity of the entity.
	NetID components.NetID
	// Tick is the server tick the message belongs to.
	Tick uint32
	// Pos is the position in world units.
	Pos mgl32.Vec3
	// Vel is the velocity in world units per second.
	Vel mgl32.Vec3
	// Rot is the rotation. The zero quaternion means "no rotation" (the
	// identity), so position-only games can leave it unset; any other
	// value is normalised.
	Rot mgl32.Quat
}

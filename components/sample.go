package components

import "github.com/go-gl/mathgl/mgl32"

// SampleFlags are per-sample bits set by the Receive system.
type SampleFlags uint8

const (
	// HasVelocity says Vel was sent by the server. Without it, extrapolation
	// estimates velocity from the two newest samples.
	HasVelocity SampleFlags = 1 << iota
	// Cut marks a discontinuity that ends at this sample (a teleport): the
	// entity is never interpolated from an earlier sample into this one.
	Cut
	// Spawn marks the first sample of an entity's life. Before the render
	// time reaches it the entity is not visible.
	Spawn
)

// Sample is one authoritative snapshot of a remote entity, stored in its
// ring (see [Ring]). Its identity is the entity plus
// Tick; Tick is also its simulation time. The local arrival time is not
// stored per sample: it only feeds clock statistics.
//
// 48 bytes, no padding, no pointers.
type Sample struct {
	// Tick is the server tick the state belongs to.
	Tick uint32
	// State is a discrete state word (animation, stance, ...). It is never
	// blended: it switches when the render time reaches Tick.
	State uint16
	// Epoch is the server's lifecycle counter for this entity (incremented on
	// teleports and attachment changes). Samples of different epochs are
	// never interpolated into each other.
	Epoch uint8
	// Flags holds the bits in [SampleFlags].
	Flags SampleFlags
	// Pos is the position in world units.
	Pos mgl32.Vec3
	// Vel is the velocity in world units per second; valid when Flags has
	// [HasVelocity].
	Vel mgl32.Vec3
	// Rot is a unit quaternion.
	Rot mgl32.Quat
}

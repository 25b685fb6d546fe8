package components

import "github.com/go-gl/mathgl/mgl32"

// RenderFlags describe how this frame's [Render] value was produced: the
// bits [Visible], [Extrapolated], [Held], [Snapped] and [Teleported].
type RenderFlags uint8

const (
	// Visible is set once the render time has reached the entity's spawn
	// sample. Draw only visible entities.
	Visible RenderFlags = 1 << iota
	// Extrapolated: the render time is past the newest sample and the
	// position was projected by the extrapolation policy.
	Extrapolated
	// Held: the render time is past the newest sample and the position is
	// held still (Hold policy, or past the extrapolation limit). Together
	// with Extrapolated it marks an underrun.
	Held
	// Snapped: the entity was snapped this frame (teleport or a correction
	// beyond the snap distance).
	Snapped
	// Teleported: the render time crossed a teleport (a Teleport message,
	// an epoch change, or samples further apart than the teleport
	// distance) this frame. Snap draws such an entity at its target.
	Teleported
)

// Render is the pipeline's output for one entity: the position, rotation and
// discrete state to draw this frame, corrections included.
type Render struct {
	// Pos is the position to draw.
	Pos mgl32.Vec3
	// Rot is the unit rotation to draw.
	Rot mgl32.Quat
	// State is the discrete state word to show.
	State uint16
	// Flags holds the bits in [RenderFlags].
	Flags RenderFlags
}

// Correction is a visual offset being smoothed away: what is drawn is the
// target plus this offset, and the Smooth system shrinks it geometrically
// every frame. It absorbs a jump of the target (a reconciliation, or a real
// sample replacing an extrapolated guess) so the drawn entity glides instead
// of popping. The zero value means no correction.
//
// Game code may write a Correction too (to glide an entity it moved by
// hand): Snap and Smooth look at every entity's Correction each frame, so
// it is snapped or smoothed like the pipeline's own.
type Correction struct {
	// Pos is the position offset added to the target.
	Pos mgl32.Vec3
	// Rot is the vector part of the rotation offset, a unit quaternion with a
	// non-negative scalar part (applied as Rot * target); zero means none.
	Rot mgl32.Vec3
}

// IsZero reports whether there is nothing to smooth.
func (c *Correction) IsZero() bool {
	return c.Pos == mgl32.Vec3{} && c.Rot == mgl32.Vec3{}
}

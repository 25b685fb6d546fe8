package components

import "github.com/go-gl/mathgl/mgl32"

// Absorb is a visual offset absorbed into an entity's own motion, for
// differences that must not be seen as a correction: a predicted entity's
// small reconciliation errors while it moves, and the jump between the
// interpolated and the predicted drawing when an entity switches from one
// to the other. Where a [Correction] decays at a rate per second (a glide
// that shows as a push when the entity moves slowly), this offset shrinks
// each frame by at most a share of the distance the entity's target moved
// that frame (systems.SmoothConfig.MotionShare), so the entity is drawn
// a little faster or slower than it moves and never jerks. Once the target
// stands still, what is left settles at the Correction's rate.
//
// Predicted entities carry one; the prediction systems and Smooth maintain
// it. The zero value means no offset, but Last must be the target's
// position when the component is added.
type Absorb struct {
	// Pos is the offset added to the target.
	Pos mgl32.Vec3
	// Last is the target (without offsets) drawn in the previous frame:
	// the target's motion this frame is measured from it.
	Last mgl32.Vec3
	// Drawn is, while Pending, the position drawn in the previous frame,
	// offsets included.
	Drawn mgl32.Vec3
	// Vel is, while Pending, the velocity the entity was drawn moving at
	// when it switched, in units per second.
	Vel mgl32.Vec3
	// Rot is, while Pending, the rotation drawn before the switch, which
	// the new target's rotation glides from as a [Correction] once it is
	// drawn; the zero quaternion means none (the switch set the
	// Correction itself).
	Rot mgl32.Quat
	// Wait is, while Pending, the time since the switch in seconds.
	Wait float32
	// Still counts the frames the target has stood still in a row.
	Still uint8
	// Pending says the entity's target changed source (interpolated to
	// predicted or back) and the new one has not moved yet: until it does
	// (or has stood still for more than a tick), the entity is drawn
	// moving on from Drawn at Vel, and then the difference becomes Pos.
	Pending bool
}

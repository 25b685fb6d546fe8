package systems

// Signals are a frame's control signals between systems, a world resource
// of their own (the game's dashboard, [Metrics], drives nothing). The
// systems that draw entities, Interpolate for remote ones and Predict for
// predicted ones, count what they drew that Snap and Smooth must act on, and bound its
// size;
// Snap and Smooth skip their loops on frames with nothing to do. A
// Correction the game writes on a remote or predicted entity is counted
// like netsmooth's own. [Timeline] clears them at the start of a frame.
type Signals struct {
	// Corrections counts entities drawn this frame with a Correction to
	// smooth.
	Corrections int
	// MaxCorrectionSq bounds the squared length of those corrections'
	// position offsets (it may overestimate, never underestimate): Snap
	// has nothing to snap on a frame where it is within Snap's distance
	// and no teleport was crossed.
	MaxCorrectionSq float32
	// Teleports counts entities whose render time crossed a teleport this
	// frame (Render flag Teleported).
	Teleports int
}

func (s *Signals) reset() { *s = Signals{} }

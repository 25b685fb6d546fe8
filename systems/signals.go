package systems

// frameSignals are a frame's control signals between systems, a world resource
// of their own (the game's dashboard, [Metrics], drives nothing). The
// systems that draw entities, Interpolate for remote ones and Predict for
// predicted ones, count what they drew that Snap and Smooth must act on,
// and bound its size; Snap and Smooth skip their loops on frames with
// nothing to do. A Correction the game writes on a remote or predicted
// entity is counted like netsmooth's own. [Timeline] clears them at the
// start of a frame. Only the systems read and write them.
type frameSignals struct {
	// corrections counts entities drawn this frame with a Correction to
	// smooth.
	corrections int
	// maxCorrectionSq bounds the squared length of those corrections'
	// position offsets (it may overestimate, never underestimate): Snap
	// has nothing to snap on a frame where it is within Snap's distance
	// and no teleport was crossed.
	maxCorrectionSq float32
	// teleports counts entities whose render time crossed a teleport this
	// frame (Render flag Teleported).
	teleports int
}

func (s *frameSignals) reset() { *s = frameSignals{} }

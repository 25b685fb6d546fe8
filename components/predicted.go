package components

import "github.com/go-gl/mathgl/mgl32"

// MaxPendingInputs is the most inputs an [InputHistory] can hold: about four
// seconds of unacknowledged input at 60 ticks per second. The configured
// capacity may be lower.
const MaxPendingInputs = 256

const inputMask = MaxPendingInputs - 1

// PredictedState holds a predicted entity's simulation state, of the game's
// own type S, at the last two local prediction ticks. Current is the state
// the simulation continues from; Previous is one tick earlier, so a render
// frame between two ticks can be drawn between the two.
type PredictedState[S any] struct {
	// Current is the state after the latest prediction tick.
	Current S
	// Previous is the state one prediction tick before Current.
	Previous S
}

// InputCommand is where the game puts the input for a predicted entity:
// every prediction tick applies the value found here, records it with a new
// sequence number and sends it to the server.
type InputCommand[I any] struct {
	// Input is applied on every prediction tick until the game changes it.
	Input I
}

// PendingInput is one input applied locally and not yet acknowledged by the
// server.
type PendingInput[I any] struct {
	// Seq is the input's sequence number, counting from 1.
	Seq uint32
	// Input is what was applied.
	Input I
}

// InputHistory is the ring of a predicted entity's unacknowledged inputs, in
// sequence order: what Reconcile replays on top of an authoritative state.
// The zero value is empty.
type InputHistory[I any] struct {
	start uint16
	count uint16
	slots [MaxPendingInputs]PendingInput[I]
}

// Len returns the number of pending inputs.
func (h *InputHistory[I]) Len() int { return int(h.count) }

// At returns the i-th pending input counted from the oldest.
func (h *InputHistory[I]) At(i int) *PendingInput[I] {
	return &h.slots[(int(h.start)+i)&inputMask]
}

// Push appends p, which must have a larger Seq than every pending input. It
// returns false, changing nothing, when capacity inputs are already
// pending (capacity is capped at [MaxPendingInputs]).
func (h *InputHistory[I]) Push(p PendingInput[I], capacity int) bool {
	if int(h.count) >= min(capacity, MaxPendingInputs) {
		return false
	}
	h.slots[(int(h.start)+int(h.count))&inputMask] = p
	h.count++
	return true
}

// DropThrough removes every pending input with Seq <= seq (acknowledged by
// the server) and returns how many it removed.
func (h *InputHistory[I]) DropThrough(seq uint32) int {
	n := 0
	for h.count > 0 && h.slots[h.start].Seq <= seq {
		h.start = uint16((int(h.start) + 1) & inputMask)
		h.count--
		n++
	}
	return n
}

// Clear drops every pending input.
func (h *InputHistory[I]) Clear() { h.start, h.count = 0, 0 }

// PredictedStatus is the bookkeeping of a predicted entity that does not depend
// on the game's types: sequence numbers, the last acknowledgement, and the
// outcome of the last reconciliation.
type PredictedStatus struct {
	// NextSeq is the sequence number the next input will get (from 1).
	NextSeq uint32
	// LastAck is the highest input sequence the server has acknowledged
	// (for an entity switched to prediction, until its first state, the
	// one before its first input); LastAuthTick the server tick of the
	// state that carried it.
	LastAck, LastAuthTick uint32
	// Acked says an authoritative state has been processed.
	Acked bool
	// Ticks counts prediction ticks run for this entity.
	Ticks uint64
	// AuthPos is the position of the latest authoritative state
	// processed: whether the next one differs tells whether the server
	// has the entity moving or standing still.
	AuthPos mgl32.Vec3
	// Last is the outcome of the latest reconciliation.
	Last ReconcileReport
}

// ReconcileReport describes one reconciliation of a predicted entity with an
// authoritative state.
type ReconcileReport struct {
	// Tick is the server tick of the authoritative state; Ack the input
	// sequence it acknowledged.
	Tick, Ack uint32
	// Error is the distance between the prediction and the replayed
	// authoritative state, in world units.
	Error float32
	// Replayed is the number of pending inputs replayed on top of the
	// authoritative state.
	Replayed uint16
	// Corrected says the prediction differed from the replayed state:
	// the simulation took the replayed state, and the visual difference
	// went into the entity's Correction, or into its Absorb offset when
	// Absorbed is set.
	Corrected bool
	// Absorbed says the error was within the dead zone while the server
	// had the entity moving (its position changed since the previous
	// state): the visual difference is absorbed into the entity's motion
	// (Absorb) instead of glided away as a correction.
	Absorbed bool
	// HardCut says the error exceeded the hard-cut distance
	// (PredictConfig.HardCutDistance): the simulation and the drawing both
	// jumped to the replayed state.
	HardCut bool
}

package systems

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/netsmooth/netsmooth/components"
)

// RejectReason says why the Receive system refused a message.
type RejectReason uint8

const (
	// RejectDuplicate: an identical sample for this entity and tick is
	// already buffered (or a second despawn for the same entity). A sample
	// that differs from the one buffered replaces it (Metrics.Replaced).
	// Expected on a healthy link: networks duplicate packets, and a server
	// repeats a despawn until the client acknowledges it.
	RejectDuplicate RejectReason = iota
	// RejectStale: the render time has already passed the sample, or the
	// entity's ring is full of newer samples.
	RejectStale
	// RejectNonFinite: a position, velocity or rotation component is NaN or
	// infinite.
	RejectNonFinite
	// RejectInvalid: an unknown message kind, a rotation too short to
	// normalise, or a coordinate beyond ReceiveConfig.MaxAbs.
	RejectInvalid
	// RejectUnknown: a snapshot for a NetID with no entity, with
	// ReceiveConfig.RequireSpawn. (A despawn for an unknown NetID is accepted:
	// it leaves a tombstone, so that a spawn it overtook is refused.)
	RejectUnknown
	// RejectDespawned: a sample of a life that has ended: at or before the
	// despawn tick of a despawned NetID, or before the current life's first
	// tick. Later samples start a new life.
	RejectDespawned
	// RejectFuture: a tick further ahead of the estimated server time than
	// ReceiveConfig.MaxFuture allows.
	RejectFuture
	// RejectEntityLimit: a spawn beyond ReceiveConfig.MaxEntities.
	RejectEntityLimit
	// RejectInboxFull: the inbox was full when the transport pushed it.
	RejectInboxFull
	// RejectPredicted: a remote snapshot or lifecycle message for a locally
	// predicted entity (its authoritative states go to the prediction inbox).
	RejectPredicted
	// RejectOtherPredictor: an authoritative state for a predicted entity
	// of another Predictor (one with another state type).
	RejectOtherPredictor
	// RejectNetID: a snapshot, lifecycle or field message for NetID 0,
	// which names no entity (see components.NetID).
	RejectNetID
	// NumRejectReasons is the number of reasons, for sizing arrays.
	NumRejectReasons
)

// String returns the reason's short name.
func (r RejectReason) String() string {
	switch r {
	case RejectDuplicate:
		return "duplicate"
	case RejectStale:
		return "stale"
	case RejectNonFinite:
		return "non-finite"
	case RejectInvalid:
		return "invalid"
	case RejectUnknown:
		return "unknown-entity"
	case RejectDespawned:
		return "despawned"
	case RejectFuture:
		return "future"
	case RejectEntityLimit:
		return "entity-limit"
	case RejectInboxFull:
		return "inbox-full"
	case RejectPredicted:
		return "predicted"
	case RejectOtherPredictor:
		return "other-predictor"
	case RejectNetID:
		return "netid-zero"
	}
	return fmt.Sprintf("RejectReason(%d)", uint8(r))
}

// Metrics is the pipeline's dashboard, a world resource the systems update
// as they run. It is plain data: read any field at any time on the world's
// goroutine, at no cost and without allocation. The game only reads it;
// no system takes decisions from it.
//
// Counting invariant: every message pushed to the inbox (and every
// authoritative state pushed to a Predictor's inbox) ends in exactly one of
// Accepted or Rejected[reason], so Received() equals the number pushed.
type Metrics struct {
	// Frames counts pipeline frames run.
	Frames uint64

	// Accepted counts messages applied.
	Accepted uint64
	// Rejected counts refused messages by reason.
	Rejected [NumRejectReasons]uint64
	// HeldFuture is how many messages Receive holds for later frames
	// because their ticks lay ahead of the estimated server time (see
	// ReceiveConfig.MaxFuture).
	HeldFuture int
	// FieldsAccepted counts custom field values buffered, one per Field
	// system per FieldMessage; FieldsRejected those refused, by reason:
	// per value RejectNonFinite, RejectInvalid (outside the field's range)
	// and RejectStale (older than a full ring); per message, for all its
	// fields at once, RejectUnknown (no entity came for it), RejectNetID
	// (NetID 0), RejectPredicted and RejectInboxFull. They are apart from
	// Accepted and Rejected, which count the inbox's messages.
	FieldsAccepted uint64
	FieldsRejected [NumRejectReasons]uint64

	// Entities is the number of remote entities alive.
	Entities int
	// Spawned and Despawned count remote entity lifecycle events applied.
	Spawned, Despawned uint64
	// Evicted counts accepted samples pushed out of a full ring by newer ones.
	Evicted uint64
	// Replaced counts accepted samples that replaced a different sample
	// already buffered for the same entity and tick.
	Replaced uint64
	// Occupancy[n] is the number of remote entities holding n samples.
	Occupancy [components.RingCapacity + 1]int
	// AheadMin, AheadMean and AheadMax describe, over the remote entities
	// drawn last frame, how many buffered samples lay ahead of the render
	// time: the margin left before an underrun (0 means extrapolating or
	// holding).
	AheadMin, AheadMax int
	AheadMean          float64

	// FrameExtrapolated and FrameHeld count remote entities, in the last
	// frame, whose render time was past their newest sample and that were
	// extrapolated or held still.
	FrameExtrapolated, FrameHeld int
	// Extrapolated and Held are the same, summed over all frames
	// (entity-frames).
	Extrapolated, Held uint64
	// UnderrunFrames counts frames in which at least one remote entity ran
	// past its newest sample.
	UnderrunFrames uint64

	// FrameCorrections counts corrections started in the last frame
	// (reset by Timeline at the start of each frame).
	FrameCorrections int
	// Corrections counts visual corrections started (a target jump absorbed
	// by smoothing instead of drawn).
	Corrections uint64
	// CorrectionDistance sums the position distance of those corrections.
	CorrectionDistance float64
	// MaxCorrection is the largest correction distance seen.
	MaxCorrection float64
	// ActiveCorrections is the number of entities with a correction still
	// being smoothed after the last frame, counted by Smooth.
	ActiveCorrections int

	// FrameTeleports counts teleports crossed by the render time in the last
	// frame; Teleports sums them.
	FrameTeleports int
	Teleports      uint64
	// Snaps counts entities drawn straight at their target instead of
	// smoothed: teleports and corrections beyond the snap distance.
	Snaps uint64

	// PredictionTicks counts fixed prediction ticks run; SkippedTicks the
	// ticks dropped by the per-frame cap (a frame that took too long).
	PredictionTicks, SkippedTicks uint64
	// InputOverflows counts predicted entity-ticks paused because the
	// input history was full (no acknowledgement for too long).
	InputOverflows uint64
	// BadSteps counts predicted entity-ticks whose Step result had a
	// non-finite or out-of-range position or rotation: the entity kept its
	// last good state.
	BadSteps uint64
	// OutboxDropped counts inputs the outbox could not hold (nobody drained it).
	OutboxDropped uint64
	// Reconciles counts authoritative states applied to predicted entities;
	// InputsReplayed sums the inputs replayed on top of them.
	Reconciles, InputsReplayed uint64
	// PredictionError is the error of the last reconciliation, in world
	// units; MaxPredictionError the largest seen.
	PredictionError, MaxPredictionError float64
	// HardCuts counts reconciliations whose error exceeded the hard-cut
	// distance: drawn at the replayed state at once, not smoothed.
	HardCuts uint64

	// RenderTick is the render time used in the last frame, in ticks.
	RenderTick float64
	// Delay is the interpolation delay target of the last frame, in
	// seconds (the delay policy's choice); ActualDelay is how far the render
	// time actually was behind the estimated server time (more after an
	// outage held the timeline back, until it has caught up).
	Delay, ActualDelay float64
	// PresentationDelay estimates how old what was drawn is relative to the
	// server's present: one-way latency (if the game told the clock, see
	// timeline.Clock.SetLatency) plus ActualDelay.
	PresentationDelay float64
	// NewestAge is how old the newest received tick is, in seconds of
	// estimated server time: about a send interval normally, growing while
	// nothing arrives.
	NewestAge float64
	// ClockClamps counts frames in which the render time was held at the
	// newest sample (plus the allowance) instead of running ahead.
	ClockClamps uint64
	// ClockResets counts jumps of the render time past a discontinuity
	// (forward after a suspend or a new timeline, backward when the clock
	// re-anchored to a server behind it); ClockHolds counts frames it stood
	// still because its target fell too far behind (see timeline.Clock).
	ClockResets, ClockHolds uint64
	// TickRate is the tick rate the pipeline was configured with, ticks
	// per second; ServerTickRate the rate at which the server's ticks
	// have actually been arriving, measured from the snapshots' ticks and
	// arrival times (zero until measured, after about six seconds of
	// snapshots; see timeline.Clock.MeasuredTickRate).
	TickRate, ServerTickRate float64
	// TickRateMismatch says the two differ by more than
	// timeline.RateTolerance (5%): the client was told another tick rate
	// than the server's. Nothing then looks right (the render time cannot
	// follow the server, remote entities underrun or stall, prediction
	// steps at the wrong rate) and nothing is refused: set the pipeline's
	// TickRate to the server's.
	TickRateMismatch bool
}

// Received returns the number of messages counted: accepted, rejected,
// or held for a later frame (HeldFuture).
func (m *Metrics) Received() uint64 {
	return m.Accepted + m.RejectedTotal() + uint64(m.HeldFuture)
}

// RejectedTotal returns the number of rejected messages, all reasons.
func (m *Metrics) RejectedTotal() uint64 {
	var n uint64
	for _, r := range m.Rejected {
		n += r
	}
	return n
}

// OccupancyStats returns the minimum, mean and maximum number of samples
// buffered per remote entity (zeros when there are none).
func (m *Metrics) OccupancyStats() (minimum int, mean float64, maximum int) {
	total, sum := 0, 0
	minimum = -1
	for n, c := range m.Occupancy {
		if c == 0 {
			continue
		}
		if minimum < 0 {
			minimum = n
		}
		maximum = n
		total += c
		sum += n * c
	}
	if total == 0 {
		return 0, 0, 0
	}
	return minimum, float64(sum) / float64(total), maximum
}

func (m *Metrics) occupancyMove(from, to int) {
	if from == to {
		return
	}
	m.Occupancy[from]--
	m.Occupancy[to]++
}

func (m *Metrics) reject(r RejectReason) { m.Rejected[r]++ }

// ms converts seconds to milliseconds for printing with one decimal,
// without a minus sign on what rounds to zero.
func ms(seconds float64) float64 {
	v := math.Round(seconds*10000) / 10
	if v == 0 {
		return 0 // not -0
	}
	return v
}

// WriteTo prints the metrics as aligned "name value" lines.
func (m *Metrics) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	lo, mean, hi := m.OccupancyStats()
	fmt.Fprintf(&b, "frames              %d\n", m.Frames)
	fmt.Fprintf(&b, "entities            %d (spawned %d, despawned %d)\n", m.Entities, m.Spawned, m.Despawned)
	fmt.Fprintf(&b, "messages            %d accepted, %d rejected\n", m.Accepted, m.RejectedTotal())
	for r := RejectReason(0); r < NumRejectReasons; r++ {
		if m.Rejected[r] > 0 {
			fmt.Fprintf(&b, "  rejected %-10s %d\n", r, m.Rejected[r])
		}
	}
	fmt.Fprintf(&b, "buffer occupancy    min %d, mean %.1f, max %d (oldest samples dropped for newer %d, replaced %d)\n", lo, mean, hi, m.Evicted, m.Replaced)
	fmt.Fprintf(&b, "underruns           %d frames; %d extrapolated, %d held entity-frames\n", m.UnderrunFrames, m.Extrapolated, m.Held)
	fmt.Fprintf(&b, "corrections         %d (total distance %.3g, max %.3g, active %d)\n", m.Corrections, m.CorrectionDistance, m.MaxCorrection, m.ActiveCorrections)
	fmt.Fprintf(&b, "snaps               %d (teleports %d)\n", m.Snaps, m.Teleports)
	if m.PredictionTicks > 0 {
		fmt.Fprintf(&b, "prediction          %d ticks (%d skipped, %d input overflows, %d bad steps), %d reconciles, %d inputs replayed\n",
			m.PredictionTicks, m.SkippedTicks, m.InputOverflows, m.BadSteps, m.Reconciles, m.InputsReplayed)
		fmt.Fprintf(&b, "prediction error    last %.3g, max %.3g; hard cuts %d\n", m.PredictionError, m.MaxPredictionError, m.HardCuts)
	}
	fmt.Fprintf(&b, "samples ahead       min %d, mean %.1f, max %d\n", m.AheadMin, m.AheadMean, m.AheadMax)
	fmt.Fprintf(&b, "delay               target %.1f ms, actual %.1f ms, presentation %.1f ms, newest age %.1f ms\n",
		ms(m.Delay), ms(m.ActualDelay), ms(m.PresentationDelay), ms(m.NewestAge))
	fmt.Fprintf(&b, "clock               %d resets, %d holds, %d clamped frames\n", m.ClockResets, m.ClockHolds, m.ClockClamps)
	switch {
	case m.ServerTickRate == 0:
		fmt.Fprintf(&b, "tick rate           %.4g/s configured; the server's not measured yet\n", m.TickRate)
	case m.TickRateMismatch:
		fmt.Fprintf(&b, "tick rate           %.4g/s configured, but the server ticks at %.1f/s: MISMATCH, set TickRate to the server's\n", m.TickRate, m.ServerTickRate)
	default:
		fmt.Fprintf(&b, "tick rate           %.4g/s configured, the server's measured at %.1f/s\n", m.TickRate, m.ServerTickRate)
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

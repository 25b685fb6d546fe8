package systems

import (
	"github.com/mlange-42/arche/ecs"
	c "github.com/netsmooth/netsmooth/components"
)

// UpdateGeneral runs r's frame as Update does, but with every message
// through the general path, without the shortcut, so that tests can check
// that the two store the same.
func UpdateGeneral(r *Receive, w *ecs.World) {
	msgs := r.begin(w)
	for i := range msgs {
		r.handleAt(w, msgs, i)
	}
	r.end(w, msgs)
}

// UpdateCounting runs r's frame on the world's goroutine as Update does,
// and returns how many messages the shortcut stored.
func UpdateCounting(r *Receive, w *ecs.World) int {
	msgs := r.begin(w)
	n := r.storeAlone(w, msgs)
	r.end(w, msgs)
	return n
}

// ForgetBeyond drops every tick r's pipeline holds beyond horizon, as r
// does when the clock takes up a new timeline.
func ForgetBeyond(r *Receive, w *ecs.World, horizon float64) { r.forgetBeyond(w, horizon) }

// SlotIDs returns the component IDs of the ring slot columns in w, by
// physical slot, so that tests can take columns away from an entity.
func SlotIDs(w *ecs.World) [c.RingCapacity]ecs.ID { return slotIDs(w) }

// RateFromAlpha is rateFromAlpha, for the tests of Smooth's decay.
func RateFromAlpha(alpha, tickRate float64) float64 { return rateFromAlpha(alpha, tickRate) }

// Decay is s.decay: the fraction of a correction left after dt seconds.
func (s *Smooth) Decay(dt float64) float32 { return s.decay(dt) }

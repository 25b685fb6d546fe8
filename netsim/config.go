package netsim

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// DefaultMaxInFlight is the queue capacity used when [Config.MaxInFlight] is 0.
//
// 65536 messages is far more than any realistic game link holds in flight
// (a 60 Hz stream with a 10 s delay is 600 messages), so the default never
// interferes with a plausible configuration, while still bounding memory if a
// caller sends in a loop and forgets to deliver.
const DefaultMaxInFlight = 1 << 16

// DefaultReorderHold is the base of the extra hold used for reordered packets
// when [Config.ReorderDelay] is 0. The effective default is
// 2*Jitter + DefaultReorderHold; see [Config.ReorderDelay] for why.
const DefaultReorderHold = 60 * time.Millisecond

// Config describes the impairments a [Link] applies. All durations are
// one-way. The zero Config is a perfect link: every message is delivered at
// the virtual time it was sent, in send order.
type Config struct {
	// Latency is the base one-way delay added to every packet.
	Latency time.Duration

	// Jitter spreads each packet's delay uniformly over
	// [Latency-Jitter, Latency+Jitter] (in whole nanoseconds), drawn
	// independently per packet. The delay is clamped at 0, so with
	// Jitter > Latency the low end piles up at 0 and the mean exceeds Latency.
	Jitter time.Duration

	// Loss is the probability in [0, 1] that a packet is dropped.
	Loss float64

	// Reorder is the probability in [0, 1] that a packet is held back by an
	// extra ReorderDelay, so that packets sent after it can overtake it.
	Reorder float64

	// ReorderDelay is the extra hold added to a reordered packet.
	//
	// 0 selects the default 2*Jitter + [DefaultReorderHold] (60 ms). The
	// 2*Jitter term is the full width of the jitter window, so a held packet
	// is overtaken by every unheld packet sent less than DefaultReorderHold
	// after it, however the jitter falls. 60 ms is longer than one send
	// interval at every common snapshot rate (20 Hz and up), so at those
	// rates a held packet really is overtaken by at least one later packet.
	// A smaller default such as 1 ms would reorder nothing in periodic
	// traffic.
	ReorderDelay time.Duration

	// Duplicate is the probability in [0, 1] that a packet which was not
	// lost is delivered twice. The copy gets its own, independently drawn
	// delay (jitter and reorder), so the two copies usually arrive at
	// different times and possibly in either order.
	Duplicate float64

	// MaxInFlight caps the number of packets queued inside the link. A packet
	// (original or duplicate copy) that would exceed it is dropped and
	// counted in [Stats.Overflow]. It bounds the link's memory.
	// 0 selects [DefaultMaxInFlight].
	MaxInFlight int
}

// Validate reports every problem with c, joined into one error, or nil if c
// is usable. Each message names the offending field and its value: negative
// durations, probabilities that are NaN or outside [0, 1], and a negative
// MaxInFlight are rejected.
func (c Config) Validate() error {
	var errs []error
	durations := [...]struct {
		name string
		v    time.Duration
	}{
		{"Latency", c.Latency},
		{"Jitter", c.Jitter},
		{"ReorderDelay", c.ReorderDelay},
	}
	for _, d := range durations {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("netsim: Config.%s must not be negative, got %v", d.name, d.v))
		}
	}
	probabilities := [...]struct {
		name string
		v    float64
	}{
		{"Loss", c.Loss},
		{"Reorder", c.Reorder},
		{"Duplicate", c.Duplicate},
	}
	for _, p := range probabilities {
		if math.IsNaN(p.v) || p.v < 0 || p.v > 1 {
			errs = append(errs, fmt.Errorf("netsim: Config.%s must be a probability in [0, 1], got %v", p.name, p.v))
		}
	}
	if c.MaxInFlight < 0 {
		errs = append(errs, fmt.Errorf("netsim: Config.MaxInFlight must not be negative (0 means %d), got %d", DefaultMaxInFlight, c.MaxInFlight))
	}
	return errors.Join(errs...)
}

// reorderDelay returns the effective ReorderDelay, resolving the default.
func (c Config) reorderDelay() time.Duration {
	if c.ReorderDelay > 0 {
		return c.ReorderDelay
	}
	return addSat(addSat(c.Jitter, c.Jitter), DefaultReorderHold)
}

// maxInFlight returns the effective MaxInFlight, resolving the default.
func (c Config) maxInFlight() int {
	if c.MaxInFlight > 0 {
		return c.MaxInFlight
	}
	return DefaultMaxInFlight
}

// addSat returns a+b for b >= 0, saturating at the largest Duration instead
// of wrapping, so huge configured delays mean "never" rather than "in the past".
func addSat(a, b time.Duration) time.Duration {
	s := a + b
	if b > 0 && s < a {
		return math.MaxInt64
	}
	return s
}

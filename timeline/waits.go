package timeline

import "math"

// Wait histogram: bins of waitBin ticks up to waitBins*waitBin ticks (64
// ticks: over three seconds at 20 Hz); longer waits land in the last bin.
const (
	waitBins = 1024
	waitBin  = 1.0 / 16
)

// outageFactor: a wait longer than this many times the median is an
// outage or a burst of losses, which extrapolation covers; it is not
// buffered for.
const outageFactor = 3

// waits is a histogram, with exponentially fading weights, of how long the
// newest data had to last before newer data arrived: the estimated server
// time minus the previous newest tick, in ticks, at the last frame without
// the new data. For the stream as a whole that is one send interval, plus
// how late the new tick came, plus the frame it waited to be seen; for
// one entity, a sample it lost adds an interval. A delay that covers a
// high quantile of it leaves the render time past the newest data only
// rarely, whatever the shape of the jitter, and covers single lost
// snapshots when losses are common enough to matter.
//
// A histogram rather than a list: a pipeline feeds it one wait per entity
// sample (sampled), hundreds per second, at a constant cost per sample
// and per frame.
type waits struct {
	w     [waitBins]float64
	total float64

	// This frame's summary, outages excluded.
	kept   float64 // total weight at or below the cut
	cutBin int     // last bin kept
}

func (h *waits) add(ticks float64) {
	b := int(math.Max(ticks, 0) / waitBin)
	if !(b < waitBins) { // also NaN
		b = waitBins - 1
	}
	h.w[b]++
	h.total++
}

func (h *waits) reset() { *h = waits{} }

// fade multiplies every weight by k (0 < k <= 1): old waits count less.
func (h *waits) fade(k float64) {
	if k >= 1 || h.total == 0 {
		return
	}
	if h.total*k < 1e-3 {
		h.reset()
		return
	}
	for i := range h.w {
		h.w[i] *= k
	}
	h.total *= k
}

// update finds the median and leaves out the waits beyond outageFactor
// times it; it returns the standard deviation of the rest, in ticks.
func (h *waits) update() (sd float64) {
	h.kept, h.cutBin = 0, -1
	if h.total <= 0 {
		return 0
	}
	median := h.at(0.5*h.total, waitBins-1)
	cut := min(int(outageFactor*(float64(median)+0.5)), waitBins-1)
	var sum, sq float64
	for i := 0; i <= cut; i++ {
		v := (float64(i) + 0.5) * waitBin
		h.kept += h.w[i]
		sum += h.w[i] * v
		sq += h.w[i] * v * v
	}
	h.cutBin = cut
	if h.kept <= 0 {
		return 0
	}
	mean := sum / h.kept
	return math.Sqrt(math.Max(0, sq/h.kept-mean*mean))
}

// at returns the first bin, up to last, at which the cumulative weight
// reaches target.
func (h *waits) at(target float64, last int) int {
	acc := 0.0
	for i := 0; i <= last; i++ {
		acc += h.w[i]
		if acc >= target {
			return i
		}
	}
	return last
}

// quantile returns the q-quantile (0 < q <= 1) of the waits left after
// update, in ticks: the upper edge of the bin that reaches it. Zero when
// there are none.
func (h *waits) quantile(q float64) float64 {
	if h.kept <= 0 || !(q > 0) {
		return 0
	}
	return float64(h.at(math.Min(q, 1)*h.kept, h.cutBin)+1) * waitBin
}

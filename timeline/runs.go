package timeline

import "slices"

// MinorRun is how many times fewer messages than the median of the
// recent arrival runs a run may carry before it counts as minor: it still
// tells the clock where the server is (re-anchoring, statistics), but it
// does not feed the server-time estimate or the tick-rate meter.
//
// The estimate follows the least delayed arrivals, so an early-stamped
// message looks like a fast packet. A server's real snapshots name many
// entities per tick; a single early-stamped message a second (a hostile
// or broken entity, within the future limit) would otherwise win two of
// the envelope's buckets per window and ratchet the estimate ahead, by
// over a second at 20 Hz, until the real stream re-anchored it. A stream
// whose every run is small (one entity, or only the entities that
// changed) has a small median and keeps every run.
const MinorRun = 4

// runSizes keeps the message counts of the last len(sizes) accepted
// arrival runs, and the median of them as of the start of the frame.
type runSizes struct {
	sizes   [31]int32
	scratch [31]int32
	n, next int
	median  int // of the sizes at the last refresh; 0 before any
}

// add records a run of n messages.
func (r *runSizes) add(n int) {
	r.sizes[r.next] = int32(min(n, 1<<30))
	r.next = (r.next + 1) % len(r.sizes)
	r.n = min(r.n+1, len(r.sizes))
}

// refresh takes the median of the recorded runs, once a frame: a frame
// of many small runs (a flood of alternating ticks) then costs one
// comparison each.
func (r *runSizes) refresh() {
	if r.n == 0 {
		return
	}
	s := r.scratch[:r.n]
	copy(s, r.sizes[:r.n])
	slices.Sort(s)
	r.median = int(s[r.n/2])
}

// minority reports whether a run of n messages carries fewer than
// 1/MinorRun of the median of the recent runs.
func (r *runSizes) minority(n int) bool {
	return n*MinorRun < r.median
}

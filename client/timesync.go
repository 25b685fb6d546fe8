package client

import (
	"math"
	"slices"
)

// Time synchronisation parameters of a [Client].
const (
	// SyncWindowMs is the window, in ms of the client's clock, over which
	// the clock offset is taken from the sample with the smallest round
	// trip: 8 buckets of a second (8000 ms).
	SyncWindowMs = syncBuckets * syncBucketMs
	// RTTSamples is how many of the latest samples the RTT and latency
	// estimates are the medians of.
	RTTSamples = 64

	syncBuckets  = 8
	syncBucketMs = 1000
)

// Sync is a client's estimate of its link and of the server's clock,
// measured from the timing fields of the snapshot headers (the echo of the
// client's own send time, how long the server held it, and the server's
// send time), with no packet of its own.
type Sync struct {
	// RTT is the round-trip time in ms, the median of the latest
	// RTTSamples round trips measured: from the client's newest input
	// packet the server had received to the snapshot echoing it. With
	// jitter larger than the interval between input packets, the newest
	// to arrive tends to be one that travelled fast, so this is somewhat
	// below the mean of the two one-way delays (see TestSyncAccuracy).
	RTT float64
	// Latency is the one-way latency from the server, in ms: the median,
	// over the latest RTTSamples snapshots, of the time from the server's
	// send time (converted with Offset) to their arrival. It is what
	// timeline.Clock.SetLatency wants, and it does not depend on how
	// often the client sends. It is exact when the fastest round trip of
	// the window was symmetric, and off by half its asymmetry otherwise.
	Latency float64
	// MinRTT is the smallest round trip of the last SyncWindowMs: the
	// sample Offset comes from.
	MinRTT float64
	// Offset is the server's clock minus the client's, in ms: server time
	// = client time + Offset (modulo 2^32).
	Offset float64
	// Samples counts the samples taken: one per tick, from the first part
	// of its snapshot (the parts of a tick share one send time, and the
	// first of them to arrive is the fastest, not a typical one).
	Samples uint64
}

// timeSync estimates the round-trip time and the server clock offset from
// (rtt, offset) samples, in the manner of NTP's and Cristian's algorithms:
// a sample taken over a round trip of rtt ms bounds the offset within
// ±rtt/2, and is exact when both directions took the same time, so the
// sample with the smallest round trip of a recent window is the most
// trustworthy. The window is kept as syncBuckets buckets of syncBucketMs,
// each holding its fastest sample, so that old samples expire (a drifting
// clock, a changed route) at fixed memory. The RTT itself is the median of
// the latest RTTSamples samples: robust to spikes, and the typical round
// trip rather than the best one; the one-way latency is the median of
// the latest arrival delays measured against the offset.
type timeSync struct {
	buckets [syncBuckets]syncSample
	latest  uint32 // bucket number of the latest sample
	best    syncSample
	hasBest bool

	rtt   medianRing // round trips, ms
	delay medianRing // arrival - server send time, ms, on the two clocks

	samples uint64
}

// syncSample is one round trip: rtt in ms and the offset it implies.
type syncSample struct {
	bucket uint32 // at / syncBucketMs
	used   bool
	rtt    uint32
	offset float64
}

// add records a sample taken at local time at (ms): a packet sent at
// server time sent arrived at at, over a round trip of rtt ms.
func (t *timeSync) add(rtt, sent, at uint32) {
	t.samples++

	// The server sent at its time `sent`, which is the client's time
	// at - one-way; with symmetric paths, one-way = rtt/2.
	s := syncSample{bucket: at / syncBucketMs, used: true, rtt: rtt,
		offset: float64(int32(sent-at)) + float64(rtt)/2}
	b := &t.buckets[s.bucket%syncBuckets]
	if !b.used || b.bucket != s.bucket || s.rtt <= b.rtt {
		*b = s
	}
	t.latest = s.bucket
	t.pickBest()

	t.rtt.add(int32(rtt))
	t.delay.add(int32(at - sent))
}

// medianRing keeps the latest RTTSamples values and their median.
type medianRing struct {
	v      [RTTSamples]int32
	n      int
	head   int
	median float64
}

func (r *medianRing) add(x int32) {
	r.v[r.head] = x
	r.head = (r.head + 1) % RTTSamples
	r.n = min(r.n+1, RTTSamples)
	var sorted [RTTSamples]int32
	n := copy(sorted[:], r.v[:r.n])
	slices.Sort(sorted[:n])
	if n%2 == 1 {
		r.median = float64(sorted[n/2])
	} else {
		r.median = (float64(sorted[n/2-1]) + float64(sorted[n/2])) / 2
	}
}

// pickBest takes the fastest sample of the buckets still in the window
// (the newer one on a tie).
func (t *timeSync) pickBest() {
	t.hasBest = false
	for i := range t.buckets {
		b := &t.buckets[i]
		if !b.used || t.latest-b.bucket >= syncBuckets {
			continue
		}
		if !t.hasBest || b.rtt < t.best.rtt || (b.rtt == t.best.rtt && b.bucket > t.best.bucket) {
			t.best, t.hasBest = *b, true
		}
	}
}

// sync returns the estimate, false before the first sample.
func (t *timeSync) sync() (Sync, bool) {
	if !t.hasBest {
		return Sync{RTT: t.rtt.median, Samples: t.samples}, false
	}
	return Sync{RTT: t.rtt.median, Latency: max(t.delay.median+t.best.offset, 0), MinRTT: float64(t.best.rtt),
		Offset: t.best.offset, Samples: t.samples}, true
}

// serverMs converts local time now (ms) to the server's clock.
func (t *timeSync) serverMs(now uint32) (uint32, bool) {
	if !t.hasBest {
		return 0, false
	}
	return now + uint32(int32(math.Round(t.best.offset))), true
}

// resetOffset forgets the samples that depend on the server's clock (a
// new server, with a new clock); the round trips stay valid.
func (t *timeSync) resetOffset() {
	t.buckets = [syncBuckets]syncSample{}
	t.hasBest = false
	t.delay = medianRing{}
}

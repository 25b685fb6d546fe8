// Package sampling says which snapshots report their entity's wait to the
// clock: Receive samples one message in Every, and the benchmarks' lower
// bounds and the scorecard's baselines, which feed clocks of their own,
// sample as it does so that their render times agree with the pipeline's.
package sampling

// Every: one message in this many, counted over the stream, reports its
// entity's wait to the clock if it is stored as a newer sample; plenty for
// the statistics, and cheap. It divides 1<<32, so that a message's
// residue follows its index across the wrap of a uint32 count.
const Every = 8

var _ = [1]struct{}{}[(1<<32)%Every]

package components

import (
	"math/rand/v2"
	"testing"
)

const benchN = 1024

// BenchmarkRingInsertInOrder is the steady state: a full ring receiving the
// next tick, which evicts the oldest.
func BenchmarkRingInsertInOrder(b *testing.B) {
	var r testRing
	for tick := uint32(0); tick < RingCapacity; tick++ {
		r.Insert(sample(tick))
	}
	s := sample(RingCapacity)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r.Insert(s) != InsertedEvicting {
			b.Fatal("not evicting")
		}
		s.Tick++
	}
}

// BenchmarkRingInsertOutOfOrder feeds a full ring ticks shuffled within
// windows of 8: each lands up to 7 places before the newest end.
func BenchmarkRingInsertOutOfOrder(b *testing.B) {
	rnd := rand.New(rand.NewPCG(1, 2))
	perm := make([]uint32, benchN)
	for w := 0; w < benchN; w += 8 {
		for k, p := range rnd.Perm(8) {
			perm[w+k] = uint32(w + p)
		}
	}
	var r testRing
	for tick := uint32(0); tick < RingCapacity; tick++ {
		r.Insert(sample(tick))
	}
	s := sample(0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Tick = RingCapacity + uint32(i/benchN)*benchN + perm[i&(benchN-1)]
		if r.Insert(s) != InsertedEvicting {
			b.Fatal("not evicting")
		}
	}
}

// BenchmarkRingSearch searches a full ring for render times spread over it
// and a little beyond both ends.
func BenchmarkRingSearch(b *testing.B) {
	var r testRing
	for tick := uint32(100); tick < 100+RingCapacity; tick++ {
		r.Insert(sample(tick))
	}
	rnd := rand.New(rand.NewPCG(3, 4))
	ticks := make([]float64, benchN)
	for i := range ticks {
		ticks[i] = 99 + rnd.Float64()*(RingCapacity+2)
	}
	out := make([]int, benchN)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j := i & (benchN - 1)
		out[j] = r.Search(ticks[j])
	}
}

// BenchmarkRingSearchNewest is the common case of the Interpolate system: the
// render time lies between the two newest samples.
func BenchmarkRingSearchNewest(b *testing.B) {
	var r testRing
	for tick := uint32(100); tick < 100+RingCapacity; tick++ {
		r.Insert(sample(tick))
	}
	out := make([]int, benchN)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j := i & (benchN - 1)
		out[j] = r.Search(100 + RingCapacity - 1.5)
	}
}

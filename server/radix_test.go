package server

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// sortHigh orders by the high word and keeps the order of equal high
// words, for small and large inputs, with few and many distinct bytes.
func TestSortHigh(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var tmp []uint64
	for _, n := range []int{0, 1, 5, 32, 33, 300, 5000} {
		for _, spread := range []uint64{1, 200, 70_000, 1 << 32} {
			keys := make([]uint64, n)
			for i := range keys {
				keys[i] = rng.Uint64N(spread)<<32 | uint64(i)
			}
			want := slices.Clone(keys)
			slices.SortStableFunc(want, func(a, b uint64) int { return cmpUint32(uint32(a>>32), uint32(b>>32)) })
			tmp = sortHigh(keys, tmp)
			if !slices.Equal(keys, want) {
				t.Fatalf("n %d spread %d: sorted wrong", n, spread)
			}
		}
	}
}

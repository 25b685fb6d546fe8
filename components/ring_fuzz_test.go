package components

import (
	"slices"
	"testing"
)

// The reference model of a testRing: a sorted slice of at most
// RingCapacity distinct ticks; when full, a newer tick evicts the oldest and
// one older than everything is refused.

func modelInsert(m *[]uint32, tick uint32) InsertResult {
	i, found := slices.BinarySearch(*m, tick)
	if found {
		return Duplicate
	}
	res := Inserted
	if len(*m) == RingCapacity {
		if i == 0 {
			return TooOld
		}
		*m = (*m)[1:]
		i--
		res = InsertedEvicting
	}
	*m = slices.Insert(*m, i, tick)
	return res
}

func modelDropBefore(m *[]uint32, tick uint32) int {
	i, _ := slices.BinarySearch(*m, tick)
	*m = (*m)[i:]
	return i
}

func modelSearch(m []uint32, tick float64) int {
	i := -1
	for j, t := range m {
		if float64(t) <= tick {
			i = j
		}
	}
	return i
}

// FuzzRing reads the input as (op, arg) byte pairs and runs them against a
// ring and the model. Ticks are drawn from a window around a base tick that
// the input can move forward, so inserts hit duplicates, late samples, too
// old samples and evictions.
func FuzzRing(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 10, 0, 12, 0, 11, 0, 11, 4, 45})
	f.Add([]byte{0, 0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8, 0, 9, 0, 10,
		0, 11, 0, 12, 0, 13, 0, 14, 0, 15, 0, 16, 0, 17, 1, 3, 2, 9, 4, 40, 5, 12})
	f.Add([]byte{3, 7, 0, 40, 0, 20, 0, 30, 2, 25, 4, 100, 0xff, 0, 0, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		var r testRing
		var m []uint32
		base := uint32(1 << 20)
		for i := 0; i+1 < len(data); i += 2 {
			op, arg := data[i], data[i+1]
			// A window of 64 ticks below and around base.
			tick := base + uint32(arg&63) - 32
			switch {
			case op == 0xff:
				r.Clear()
				m = m[:0]
			case op%6 <= 1:
				got, want := r.Insert(sample(tick)), modelInsert(&m, tick)
				if got != want {
					t.Fatalf("op %d: Insert(%d) = %d, model %d (ring %v)", i/2, tick, got, want, m)
				}
			case op%6 == 2:
				got, want := r.DropBefore(tick), modelDropBefore(&m, tick)
				if got != want {
					t.Fatalf("op %d: DropBefore(%d) = %d, model %d", i/2, tick, got, want)
				}
			case op%6 == 3:
				base += uint32(arg & 15)
			case op%6 == 4:
				x := float64(base) - 34 + float64(arg)/3
				if got, want := r.Search(x), modelSearch(m, x); got != want {
					t.Fatalf("op %d: Search(%v) = %d, model %d (ring %v)", i/2, x, got, want, m)
				}
			case op%6 == 5:
				if got, want := r.Contains(tick), slices.Contains(m, tick); got != want {
					t.Fatalf("op %d: Contains(%d) = %v, model %v", i/2, tick, got, want)
				}
			}
			if r.Len() > RingCapacity {
				t.Fatalf("op %d: Len() = %d > %d", i/2, r.Len(), RingCapacity)
			}
			ticks := ringTicks(t, &r)
			for j := 1; j < len(ticks); j++ {
				if ticks[j] <= ticks[j-1] {
					t.Fatalf("op %d: ticks not strictly increasing: %v", i/2, ticks)
				}
			}
			if !slices.Equal(ticks, m) {
				t.Fatalf("op %d: ring %v, model %v", i/2, ticks, m)
			}
			if len(m) > 0 && (r.Oldest().Tick != m[0] || r.Newest().Tick != m[len(m)-1]) {
				t.Fatalf("op %d: Oldest/Newest = %d/%d, model %v", i/2, r.Oldest().Tick, r.Newest().Tick, m)
			}
			if len(m) == 0 && (r.Oldest() != nil || r.Newest() != nil) {
				t.Fatalf("op %d: Oldest/Newest not nil on an empty ring", i/2)
			}
		}
	})
}

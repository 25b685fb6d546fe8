package components

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// sample returns a sample whose payload is derived from its tick, so tests
// can check that the whole sample moved with its tick.
func sample(tick uint32) Sample {
	return Sample{
		Tick:  tick,
		State: uint16(tick),
		Epoch: uint8(tick >> 3),
		Flags: HasVelocity,
		Pos:   mgl32.Vec3{float32(tick), 1, 2},
		Vel:   mgl32.Vec3{3, float32(tick), 4},
		Rot:   mgl32.Quat{W: 1, V: mgl32.Vec3{0, 0, float32(tick)}},
	}
}

// ringTicks returns the ticks from the oldest to the newest, checking on the
// way that each payload belongs to its tick.
func ringTicks(t testing.TB, r *testRing) []uint32 {
	t.Helper()
	out := make([]uint32, 0, r.Len())
	for i := 0; i < r.Len(); i++ {
		s := r.At(i)
		if *s != sample(s.Tick) {
			t.Fatalf("At(%d) = %+v: payload does not belong to tick %d", i, *s, s.Tick)
		}
		out = append(out, s.Tick)
	}
	return out
}

func seq(from, to uint32) []uint32 {
	var out []uint32
	for t := from; t <= to; t++ {
		out = append(out, t)
	}
	return out
}

func checkTicks(t testing.TB, r *testRing, want []uint32) {
	t.Helper()
	got := ringTicks(t, r)
	if !slices.Equal(got, want) {
		t.Fatalf("ring ticks = %v, want %v", got, want)
	}
	if r.Len() != len(want) {
		t.Fatalf("Len() = %d, want %d", r.Len(), len(want))
	}
	if len(want) == 0 {
		if r.Oldest() != nil || r.Newest() != nil {
			t.Fatalf("Oldest/Newest on an empty ring = %v, %v; want nil", r.Oldest(), r.Newest())
		}
		return
	}
	if o := r.Oldest(); o != r.At(0) || o.Tick != want[0] {
		t.Fatalf("Oldest() = %+v, want At(0) with tick %d", o, want[0])
	}
	if n := r.Newest(); n != r.At(r.Len()-1) || n.Tick != want[len(want)-1] {
		t.Fatalf("Newest() = %+v, want At(Len-1) with tick %d", n, want[len(want)-1])
	}
}

func insertAll(t testing.TB, r *testRing, want InsertResult, ticks ...uint32) {
	t.Helper()
	for _, tick := range ticks {
		if got := r.Insert(sample(tick)); got != want {
			t.Fatalf("Insert(%d) = %d, want %d", tick, got, want)
		}
	}
}

func TestRingEmpty(t *testing.T) {
	var r testRing
	checkTicks(t, &r, nil)
	for _, tick := range []float64{-1, 0, 0.5, 100} {
		if got := r.Search(tick); got != -1 {
			t.Errorf("Search(%v) on an empty ring = %d, want -1", tick, got)
		}
	}
	if r.Contains(0) {
		t.Error("Contains(0) on an empty ring = true")
	}
	if n := r.DropBefore(100); n != 0 {
		t.Errorf("DropBefore on an empty ring = %d, want 0", n)
	}
}

func TestRingInsertInOrder(t *testing.T) {
	var r testRing
	insertAll(t, &r, Inserted, 10, 11, 12, 15)
	checkTicks(t, &r, []uint32{10, 11, 12, 15})
}

func TestRingInsertOutOfOrder(t *testing.T) {
	var r testRing
	insertAll(t, &r, Inserted, 20, 10, 30, 15, 25, 5, 35, 12)
	checkTicks(t, &r, []uint32{5, 10, 12, 15, 20, 25, 30, 35})

	// Every permutation order of a handful lands sorted.
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		ticks := seq(100, 100+uint32(rnd.IntN(RingCapacity)))
		rnd.Shuffle(len(ticks), func(a, b int) { ticks[a], ticks[b] = ticks[b], ticks[a] })
		var r testRing
		insertAll(t, &r, Inserted, ticks...)
		slices.Sort(ticks)
		checkTicks(t, &r, ticks)
	}
}

func TestRingDuplicate(t *testing.T) {
	var r testRing
	insertAll(t, &r, Inserted, 10, 12, 14)
	for _, tick := range []uint32{10, 12, 14} {
		s := sample(tick)
		s.Pos = mgl32.Vec3{-1, -1, -1} // a different payload must not replace the stored one
		if got := r.Insert(s); got != Duplicate {
			t.Errorf("Insert(%d) again = %d, want Duplicate", tick, got)
		}
	}
	checkTicks(t, &r, []uint32{10, 12, 14})

	// Duplicates in a full ring, the oldest included, change nothing either.
	r.Clear()
	insertAll(t, &r, Inserted, seq(100, 115)...)
	for _, tick := range []uint32{100, 107, 115} {
		if got := r.Insert(sample(tick)); got != Duplicate {
			t.Errorf("Insert(%d) into a full ring = %d, want Duplicate", tick, got)
		}
	}
	checkTicks(t, &r, seq(100, 115))
}

func TestRingEviction(t *testing.T) {
	var r testRing
	insertAll(t, &r, Inserted, seq(0, RingCapacity-1)...)
	checkTicks(t, &r, seq(0, RingCapacity-1))
	insertAll(t, &r, InsertedEvicting, seq(RingCapacity, RingCapacity+3)...)
	if r.Len() != RingCapacity {
		t.Fatalf("Len() = %d, want %d", r.Len(), RingCapacity)
	}
	checkTicks(t, &r, seq(4, RingCapacity+3))
}

func TestRingTooOld(t *testing.T) {
	var r testRing
	insertAll(t, &r, Inserted, seq(100, 115)...)
	for _, tick := range []uint32{99, 50, 0} {
		if got := r.Insert(sample(tick)); got != TooOld {
			t.Errorf("Insert(%d) into a full ring from 100 = %d, want TooOld", tick, got)
		}
	}
	checkTicks(t, &r, seq(100, 115))

	// Not full: an older sample is kept.
	r.Clear()
	insertAll(t, &r, Inserted, 100, 101)
	insertAll(t, &r, Inserted, 50)
	checkTicks(t, &r, []uint32{50, 100, 101})
}

func TestRingOutOfOrderIntoFull(t *testing.T) {
	var r testRing
	var even []uint32
	for tick := uint32(100); tick <= 130; tick += 2 {
		even = append(even, tick)
	}
	insertAll(t, &r, Inserted, even...)

	// Lands in the middle, the oldest (100) goes.
	insertAll(t, &r, InsertedEvicting, 105)
	checkTicks(t, &r, append([]uint32{102, 104, 105}, even[3:]...))

	// Right after the oldest: the oldest goes and the new one takes its place.
	insertAll(t, &r, InsertedEvicting, 103)
	checkTicks(t, &r, append([]uint32{103, 104, 105}, even[3:]...))

	// Now older than everything kept.
	if got := r.Insert(sample(101)); got != TooOld {
		t.Errorf("Insert(101) = %d, want TooOld", got)
	}

	// Newer than everything.
	insertAll(t, &r, InsertedEvicting, 200)
	checkTicks(t, &r, append([]uint32{104, 105}, append(even[3:], 200)...))

	// Just before the newest.
	insertAll(t, &r, InsertedEvicting, 199)
	checkTicks(t, &r, append([]uint32{105}, append(even[3:], 199, 200)...))
}

// TestRingWrapAround drives the internal start index around the slots many
// times, with in-order and slightly reordered arrivals and drops, and checks
// the ring against the newest RingCapacity ticks each time.
func TestRingWrapAround(t *testing.T) {
	var r testRing
	var model []uint32
	rnd := rand.New(rand.NewPCG(3, 4))
	next := uint32(1000)
	starts := map[uint8]bool{}
	for i := 0; i < 5000; i++ {
		tick := next
		if rnd.IntN(4) == 0 && next > 1003 {
			tick = next - uint32(1+rnd.IntN(3)) // a late one
		} else {
			next++
		}
		res := r.Insert(sample(tick))
		want := modelInsert(&model, tick)
		if res != want {
			t.Fatalf("step %d: Insert(%d) = %d, model says %d", i, tick, res, want)
		}
		if i%97 == 0 {
			cut := next - uint32(rnd.IntN(8))
			if got, want := r.DropBefore(cut), modelDropBefore(&model, cut); got != want {
				t.Fatalf("step %d: DropBefore(%d) = %d, want %d", i, cut, got, want)
			}
		}
		checkTicks(t, &r, model)
		starts[r.head.start] = true
	}
	if len(starts) != RingCapacity {
		t.Errorf("start took %d distinct values, want all %d", len(starts), RingCapacity)
	}
}

func TestRingSearch(t *testing.T) {
	var r testRing
	insertAll(t, &r, Inserted, 10, 12, 14, 20)
	tests := []struct {
		tick float64
		want int
	}{
		{-1, -1},
		{0, -1},
		{9.999, -1},
		{10, 0},
		{10.0001, 0},
		{11.5, 0},
		{11.9999999, 0},
		{12, 1},
		{13.25, 1},
		{14, 2},
		{19.5, 2},
		{20, 3},
		{20.5, 3},
		{1e12, 3},
	}
	for _, tt := range tests {
		if got := r.Search(tt.tick); got != tt.want {
			t.Errorf("Search(%v) = %d, want %d", tt.tick, got, tt.want)
		}
	}

	// The same after the start index has moved.
	r.Clear()
	insertAll(t, &r, Inserted, seq(0, 15)...)
	insertAll(t, &r, InsertedEvicting, seq(16, 25)...)
	for tick := 0.0; tick < 30; tick += 0.25 {
		want := -1
		for i, tk := range seq(10, 25) {
			if float64(tk) <= tick {
				want = i
			}
		}
		if got := r.Search(tick); got != want {
			t.Errorf("Search(%v) = %d, want %d", tick, got, want)
		}
	}
}

func TestRingContains(t *testing.T) {
	var r testRing
	insertAll(t, &r, Inserted, 10, 12, 14)
	for tick := uint32(0); tick < 20; tick++ {
		want := tick == 10 || tick == 12 || tick == 14
		if got := r.Contains(tick); got != want {
			t.Errorf("Contains(%d) = %v, want %v", tick, got, want)
		}
	}
}

func TestRingDropBefore(t *testing.T) {
	var r testRing
	insertAll(t, &r, Inserted, seq(10, 25)...)
	if n := r.DropBefore(10); n != 0 {
		t.Errorf("DropBefore(10) = %d, want 0", n)
	}
	checkTicks(t, &r, seq(10, 25))
	if n := r.DropBefore(15); n != 5 {
		t.Errorf("DropBefore(15) = %d, want 5", n)
	}
	checkTicks(t, &r, seq(15, 25))
	// A tick between samples.
	r.Clear()
	insertAll(t, &r, Inserted, 10, 20, 30, 40)
	if n := r.DropBefore(25); n != 2 {
		t.Errorf("DropBefore(25) = %d, want 2", n)
	}
	checkTicks(t, &r, []uint32{30, 40})
	// Room again after a drop: inserts reuse the freed slots in order.
	insertAll(t, &r, Inserted, 35, 50, 45)
	checkTicks(t, &r, []uint32{30, 35, 40, 45, 50})
	if n := r.DropBefore(1000); n != 5 {
		t.Errorf("DropBefore(1000) = %d, want 5", n)
	}
	checkTicks(t, &r, nil)
	if n := r.DropBefore(2000); n != 0 {
		t.Errorf("DropBefore on the emptied ring = %d, want 0", n)
	}
	// Refilled from a non-zero start index.
	insertAll(t, &r, Inserted, seq(2000, 2015)...)
	insertAll(t, &r, InsertedEvicting, 2016)
	checkTicks(t, &r, seq(2001, 2016))
}

func TestRingClear(t *testing.T) {
	var r testRing
	insertAll(t, &r, Inserted, seq(1, 16)...)
	insertAll(t, &r, InsertedEvicting, 17, 18)
	r.Clear()
	checkTicks(t, &r, nil)
	if r.Search(100) != -1 || r.Contains(17) {
		t.Error("Clear left samples visible")
	}
	insertAll(t, &r, Inserted, 5, 3)
	checkTicks(t, &r, []uint32{3, 5})
}

func TestRingExtremeTicks(t *testing.T) {
	var r testRing
	const top = ^uint32(0)
	insertAll(t, &r, Inserted, top, 0, top-1, 1)
	checkTicks(t, &r, []uint32{0, 1, top - 1, top})
	if got := r.Search(float64(top)); got != 3 {
		t.Errorf("Search(max uint32) = %d, want 3", got)
	}
	if got := r.Search(float64(top) - 0.5); got != 2 {
		t.Errorf("Search(max uint32 - 0.5) = %d, want 2", got)
	}
	if n := r.DropBefore(top); n != 3 {
		t.Errorf("DropBefore(max uint32) = %d, want 3", n)
	}
}

func TestRingNoAlloc(t *testing.T) {
	var r testRing
	tick := uint32(0)
	n := testing.AllocsPerRun(1000, func() {
		r.Insert(sample(tick + 1))
		r.Insert(sample(tick))
		tick += 2
		_ = r.Search(float64(tick) - 3.5)
		_ = r.Contains(tick - 5)
	})
	if n != 0 {
		t.Errorf("allocations per run = %v, want 0", n)
	}
}

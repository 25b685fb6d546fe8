package netsim

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestQueueOrdersByTimeThenSeq(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	q := queue[int]{limit: 1 << 20}
	var want []entry[int]
	var seq uint64
	for round := range 200 {
		for range rng.IntN(50) {
			e := entry[int]{at: time.Duration(rng.IntN(20)), seq: seq, msg: int(seq)}
			seq++
			q.push(e)
			want = append(want, e)
		}
		slices.SortFunc(want, func(a, b entry[int]) int {
			if a.at != b.at {
				return int(a.at - b.at)
			}
			return int(a.seq) - int(b.seq)
		})
		for range rng.IntN(len(want) + 1) {
			got := q.pop()
			if got != want[0] {
				t.Fatalf("round %d: pop() = %+v, want %+v", round, got, want[0])
			}
			want = want[1:]
		}
		if q.len() != len(want) {
			t.Fatalf("round %d: len = %d, want %d", round, q.len(), len(want))
		}
	}
}

func TestQueueGrowthCappedAtLimit(t *testing.T) {
	for _, limit := range []int{1, 5, 16, 17, 100} {
		q := queue[int]{limit: limit}
		for i := 0; !q.full(); i++ {
			q.push(entry[int]{at: time.Duration(i)})
		}
		if q.len() != limit || cap(q.items) != limit {
			t.Errorf("limit %d: len %d cap %d, want both %d", limit, q.len(), cap(q.items), limit)
		}
	}
}

func TestQueuePopClearsSlot(t *testing.T) {
	q := queue[*int]{limit: 4}
	x, y := 1, 2
	q.push(entry[*int]{at: 1, msg: &x})
	q.push(entry[*int]{at: 2, msg: &y})
	q.pop()
	if spare := q.items[:2][1]; spare.msg != nil {
		t.Errorf("popped slot still references a message: %+v", spare)
	}
}

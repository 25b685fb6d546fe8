package server

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The grid's queries find every entity within the radius, whatever the
// entities did since: moved across cells, left, came back; and the cells
// it holds are only those in use.
func TestGridAgainstBruteForce(t *testing.T) {
	for _, dims := range []int{2, 3} {
		rng := rand.New(rand.NewPCG(uint64(dims), 9))
		g := newGrid(100, dims)
		var w world
		pos := func() [3]int32 {
			return [3]int32{int32(rng.IntN(4000) - 2000), int32(rng.IntN(4000) - 2000), int32(rng.IntN(1000) - 500)}
		}
		// move puts slot s at p, and in its cell.
		move := func(s int32, p [3]int32) {
			w.ents[s].rec.Pos = p
			g.place(&w, s)
		}
		for id := uint32(1); id <= 500; id++ {
			s := w.add(id)
			w.ents[s].rec.NetID = id
			move(s, pos())
		}
		for round := range 50 {
			for range 100 { // moves, small and across the world
				s := int32(rng.IntN(len(w.ents)))
				if !w.ents[s].alive {
					continue
				}
				p := w.ents[s].rec.Pos
				if rng.IntN(4) == 0 {
					p = pos()
				} else {
					p[0] += int32(rng.IntN(81) - 40)
				}
				move(s, p)
			}
			for range 5 { // despawns and spawns
				if s := int32(rng.IntN(len(w.ents))); w.ents[s].alive {
					g.leave(&w, s)
					w.remove(w.ents[s].rec.NetID, s)
				}
				id := uint32(1000 + round*10 + rng.IntN(10))
				if _, ok := w.slot(id); !ok {
					s := w.add(id)
					w.ents[s].rec.NetID = id
					move(s, pos())
				}
			}
			center := pos()
			radius := int64(rng.IntN(600))
			got := g.query(&center, radius, nil)
			var want []int32
			for s := range w.ents {
				if w.ents[s].alive && dist2(&w.ents[s].rec.Pos, &center, dims) <= float64(radius*radius) {
					want = append(want, int32(s))
				}
			}
			for _, s := range want {
				if !slices.Contains(got, s) {
					t.Fatalf("dims %d round %d: entity in range not found", dims, round)
				}
			}
			for _, s := range got {
				if !w.ents[s].alive {
					t.Fatalf("dims %d: a dead slot in the grid", dims)
				}
			}
		}
		cells := 0
		for list := range g.lists {
			if len(g.lists[list]) > 0 {
				cells++
			}
		}
		if cells != len(g.index) {
			t.Fatalf("dims %d: %d cells with entities, %d indexed", dims, cells, len(g.index))
		}
		// A huge radius walks the cells in use instead of the box.
		if got := g.query(&[3]int32{}, 1<<40, nil); len(got) != w.n {
			t.Fatalf("dims %d: whole-world query found %d of %d", dims, len(got), w.n)
		}
	}
}

func TestFloorDiv(t *testing.T) {
	for _, c := range [][3]int32{{7, 2, 3}, {-7, 2, -4}, {-8, 2, -4}, {0, 5, 0}, {-1, 5, -1}} {
		if got := floorDiv(c[0], c[1]); got != c[2] {
			t.Errorf("floorDiv(%d, %d) = %d, want %d", c[0], c[1], got, c[2])
		}
	}
}

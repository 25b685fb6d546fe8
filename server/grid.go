package server

import "math"

// cellKey names a cell of the grid: the cell's coordinates, in cells.
type cellKey struct{ x, y, z int32 }

// grid is a uniform spatial hash of the world's entities: square (2D) or
// cubic (3D) cells of size quantisation steps on a side, each a list of
// slots. An entity moves to another cell's list only when it crosses a
// cell border, which most entities do not in most ticks: then the grid
// is not written at all, since a write to a cell's list is a write to a
// random place in memory. Empty cells are given back, so a world of any
// extent holds only the cells it uses.
type grid struct {
	size  int32 // cell side, in quantisation steps
	dims  int   // 2: x and y; 3: x, y and z
	index map[cellKey]int32
	keys  []cellKey // of each list
	lists [][]int32 // slots per cell
	free  []int32   // empty lists, their memory kept
}

func newGrid(size int32, dims int) *grid {
	return &grid{size: max(size, 1), dims: dims, index: make(map[cellKey]int32)}
}

// floorDiv is a / b rounded down, for b > 0.
func floorDiv(a, b int32) int32 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// key returns the cell holding a position in quantisation steps.
func (g *grid) key(pos *[3]int32) cellKey {
	k := cellKey{floorDiv(pos[0], g.size), floorDiv(pos[1], g.size), 0}
	if g.dims == 3 {
		k.z = floorDiv(pos[2], g.size)
	}
	return k
}

// within reports whether a position in steps lies in cell k: the test of
// most entities in most ticks, by multiplication rather than division,
// each axis in one unsigned comparison (an offset below the cell's low
// corner wraps to a large number).
func (g *grid) within(k *cellKey, pos *[3]int32) bool {
	size := int64(g.size)
	dx := uint64(int64(pos[0]) - int64(k.x)*size)
	dy := uint64(int64(pos[1]) - int64(k.y)*size)
	return dx < uint64(size) && dy < uint64(size) &&
		(g.dims != 3 || uint64(int64(pos[2])-int64(k.z)*size) < uint64(size))
}

// place puts slot in the cell of its position, moving it from its old
// cell if it crossed a border: within, inlined here, tests the cell it
// is in, and move, out of line, does the work for the few that crossed.
func (g *grid) place(w *world, slot int32) {
	if pl := &w.places[slot]; pl.cell < 0 || !g.within(&g.keys[pl.cell], &w.ents[slot].rec.Pos) {
		g.move(w, slot)
	}
}

// move puts slot in the cell of its position, out of the one it was in.
func (g *grid) move(w *world, slot int32) {
	pl, pos := &w.places[slot], &w.ents[slot].rec.Pos
	k := g.key(pos)
	g.leave(w, slot)
	list, ok := g.index[k]
	if !ok {
		if n := len(g.free); n > 0 {
			list, g.free = g.free[n-1], g.free[:n-1]
			g.keys[list] = k
		} else {
			list = int32(len(g.lists))
			g.lists = append(g.lists, make([]int32, 0, cellRoom))
			g.keys = append(g.keys, k)
		}
		g.index[k] = list
	}
	pl.cell, pl.inCell = list, int32(len(g.lists[list]))
	l := g.lists[list]
	// Room for twice the mean cell (and twice what it holds when full):
	// a cell whose count wanders stops growing, and the cells made while
	// the world filled up catch up with it as entities cross into them.
	if want := 2*(w.n/max(1, len(g.index))) + cellRoom; len(l) == cap(l) || cap(l) < want {
		l = append(make([]int32, 0, max(2*len(l)+cellRoom, want)), l...)
	}
	g.lists[list] = append(l, slot)
}

// cellRoom is the room a new cell's list starts with.
const cellRoom = 8

// leave takes slot out of its cell, if it is in one.
func (g *grid) leave(w *world, slot int32) {
	pl := &w.places[slot]
	if pl.cell < 0 {
		return
	}
	list, at := pl.cell, pl.inCell
	l := g.lists[list]
	last := len(l) - 1
	if int(at) != last {
		moved := l[last]
		l[at] = moved
		w.places[moved].inCell = at
	}
	g.lists[list] = l[:last]
	if last == 0 {
		delete(g.index, g.keys[list])
		g.free = append(g.free, list)
	}
	pl.cell = -1
}

// cellBox is the box of cells within r cells of c (in 2D, c's layer
// only), z0 to z1 its layers; sparse says it has more cells than the grid
// has in use, so that walking the cells in use is shorter.
type cellBox struct {
	c      cellKey
	r      int32
	z0, z1 int32
	sparse bool
}

// boxAround returns the box of the cells that reach within radius steps
// of center.
func (g *grid) boxAround(center *[3]int32, radius int64) cellBox {
	b := cellBox{c: g.key(center), r: int32(min(radius/int64(g.size)+1, 1<<20))}
	b.z0, b.z1 = b.c.z, b.c.z
	if g.dims == 3 {
		b.z0, b.z1 = int32(max(int64(b.c.z)-int64(b.r), math.MinInt32)), int32(min(int64(b.c.z)+int64(b.r), math.MaxInt32))
	}
	side := float64(2*int64(b.r) + 1)
	b.sparse = side*side*float64(int64(b.z1)-int64(b.z0)+1) > float64(len(g.index))
	return b
}

// holds reports whether cell k lies in the box.
func (b *cellBox) holds(k cellKey) bool {
	return abs32(k.x-b.c.x) <= b.r && abs32(k.y-b.c.y) <= b.r && k.z >= b.z0 && k.z <= b.z1
}

// query appends to dst the slots of every cell within radius steps of
// center (a box of cells: the caller measures distances) and returns it.
func (g *grid) query(center *[3]int32, radius int64, dst []int32) []int32 {
	b := g.boxAround(center, radius)
	c, r, z0, z1 := b.c, b.r, b.z0, b.z1
	if b.sparse {
		// More cells in the box than in use: walk the cells in use.
		for list, k := range g.keys {
			if len(g.lists[list]) > 0 && b.holds(k) {
				dst = append(dst, g.lists[list]...)
			}
		}
		return dst
	}
	// int64, so that a box at the edge of the int32 range ends.
	for z := int64(z0); z <= int64(z1); z++ {
		for y := int64(c.y) - int64(r); y <= int64(c.y)+int64(r); y++ {
			for x := int64(c.x) - int64(r); x <= int64(c.x)+int64(r); x++ {
				if list, ok := g.index[cellKey{int32(x), int32(y), int32(z)}]; ok && int64(int32(x)) == x && int64(int32(y)) == y {
					dst = append(dst, g.lists[list]...)
				}
			}
		}
	}
	return dst
}

// cells appends to dst the lists of the cells in use that reach within
// radius steps of center: the box of cells around it, less the cells of
// each row (and, in 3D, layer) wholly beyond the radius. The caller
// measures each entity's distance.
func (g *grid) cells(center *[3]int32, radius float64, dst []int32) []int32 {
	radius = reach(radius)
	b := g.boxAround(center, int64(math.Ceil(radius)))
	c, r, z0, z1 := b.c, b.r, b.z0, b.z1
	if b.sparse {
		// More cells in the box than in use: take the cells in use.
		for list, k := range g.keys {
			if len(g.lists[list]) > 0 && b.holds(k) {
				dst = append(dst, int32(list))
			}
		}
		return dst
	}
	size := float64(g.size)
	r2 := radius * radius
	for z := int64(z0); z <= int64(z1); z++ {
		dz := 0.0
		if g.dims == 3 {
			dz = gap(float64(center[2]), float64(z)*size, size)
		}
		for y := int64(c.y) - int64(r); y <= int64(c.y)+int64(r); y++ {
			dy := gap(float64(center[1]), float64(y)*size, size)
			rest := r2 - dy*dy - dz*dz
			if rest < 0 || int64(int32(y)) != y {
				continue
			}
			// The cells of the row within the radius along x.
			half := math.Sqrt(rest) + 1 // a step more, against rounding
			x0 := max(int64(c.x)-int64(r), int64(math.Floor((float64(center[0])-half)/size)))
			x1 := min(int64(c.x)+int64(r), int64(math.Floor((float64(center[0])+half)/size)))
			for x := x0; x <= x1; x++ {
				if list, ok := g.index[cellKey{int32(x), int32(y), int32(z)}]; ok && int64(int32(x)) == x {
					dst = append(dst, list)
				}
			}
		}
	}
	return dst
}

// maxReach is a radius in steps beyond any distance between two
// positions a record can hold (int32 steps on each axis).
const maxReach = 1 << 34

// reach clamps a radius in steps to maxReach, so that a huge view (up to
// the largest float32) converts to integers without overflow and still
// reaches everything. NaN reaches everything too.
func reach(radius float64) float64 {
	if !(radius <= maxReach) {
		return maxReach
	}
	return radius
}

// gap is the distance from v to the interval [lo, lo+size), 0 inside it.
func gap(v, lo, size float64) float64 {
	switch {
	case v < lo:
		return lo - v
	case v >= lo+size:
		return v - (lo + size)
	}
	return 0
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

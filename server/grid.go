package server

import "math"

// cellKey names a cell of the grid: the cell's coordinates, in cells.
type cellKey struct{ x, y, z int32 }

// grid is a uniform spatial hash of the world's entities: square (2D) or
// cubic (3D) cells of size quantisation steps on a side, each a list of
// slots. An entity moves to another cell's list only when it crosses a
// cell border, which most entities do not in most ticks; empty cells are
// given back, so a world of any extent holds only the cells it uses.
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

// place puts slot in the cell of its position, moving it from its old
// cell if it crossed a border.
func (g *grid) place(w *world, slot int32) {
	we := &w.ents[slot]
	k := g.key(&we.rec.Pos)
	if we.cell >= 0 && g.keys[we.cell] == k {
		return
	}
	g.leave(w, slot)
	list, ok := g.index[k]
	if !ok {
		if n := len(g.free); n > 0 {
			list, g.free = g.free[n-1], g.free[:n-1]
			g.keys[list] = k
		} else {
			list = int32(len(g.lists))
			g.lists = append(g.lists, nil)
			g.keys = append(g.keys, k)
		}
		g.index[k] = list
	}
	we.cell, we.inCell = list, int32(len(g.lists[list]))
	g.lists[list] = append(g.lists[list], slot)
}

// leave takes slot out of its cell, if it is in one.
func (g *grid) leave(w *world, slot int32) {
	we := &w.ents[slot]
	if we.cell < 0 {
		return
	}
	list, at := we.cell, we.inCell
	l := g.lists[list]
	last := len(l) - 1
	if int(at) != last {
		moved := l[last]
		l[at] = moved
		w.ents[moved].inCell = at
	}
	g.lists[list] = l[:last]
	if last == 0 {
		delete(g.index, g.keys[list])
		g.free = append(g.free, list)
	}
	we.cell = -1
}

// query appends to dst the slots of every cell within radius steps of
// center (a box of cells: the caller measures distances) and returns it.
func (g *grid) query(center *[3]int32, radius int64, dst []int32) []int32 {
	r := int32(min(radius/int64(g.size)+1, 1<<20))
	c := g.key(center)
	z0, z1 := c.z, c.z
	if g.dims == 3 {
		z0, z1 = int32(max(int64(c.z)-int64(r), math.MinInt32)), int32(min(int64(c.z)+int64(r), math.MaxInt32))
	}
	side := float64(2*int64(r) + 1)
	if n := side * side * float64(int64(z1)-int64(z0)+1); n > float64(len(g.index)) {
		// More cells in the box than in use: walk the cells in use.
		for list, k := range g.keys {
			if len(g.lists[list]) > 0 && abs32(k.x-c.x) <= r && abs32(k.y-c.y) <= r && k.z >= z0 && k.z <= z1 {
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

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

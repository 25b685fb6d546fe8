package netsim

import "time"

// entry is one queued packet: the message and when it arrives.
type entry[T any] struct {
	at  time.Duration // virtual arrival time
	seq uint64        // enqueue order, breaks ties in at deterministically
	msg T
}

// queue is a binary min-heap of entries ordered by (at, seq).
//
// It is written over a concrete slice instead of using container/heap, whose
// interface{} based Push and Pop would box every entry and allocate per
// packet. The backing slice is reused: after the queue has grown to its
// high-water mark, push and pop do not allocate. Growth is capped at limit,
// so the capacity never exceeds the link's MaxInFlight.
type queue[T any] struct {
	items []entry[T]
	limit int
}

// less orders entries by arrival time, then by enqueue order.
func (q *queue[T]) less(i, j int) bool {
	a, b := &q.items[i], &q.items[j]
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// len returns the number of queued entries.
func (q *queue[T]) len() int { return len(q.items) }

// full reports whether another push would exceed the limit.
func (q *queue[T]) full() bool { return len(q.items) >= q.limit }

// push adds e. The caller must check full first.
func (q *queue[T]) push(e entry[T]) {
	if len(q.items) == cap(q.items) {
		q.grow()
	}
	q.items = append(q.items, e)
	q.up(len(q.items) - 1)
}

// grow doubles the capacity (starting at 16), never beyond limit.
func (q *queue[T]) grow() {
	n := max(2*cap(q.items), 16)
	n = min(n, q.limit)
	if n <= cap(q.items) {
		return // at limit; push is only called when not full, so append fits
	}
	items := make([]entry[T], len(q.items), n)
	copy(items, q.items)
	q.items = items
}

// pop removes and returns the earliest entry. The queue must not be empty.
func (q *queue[T]) pop() entry[T] {
	top := q.items[0]
	last := len(q.items) - 1
	q.items[0] = q.items[last]
	q.items[last] = entry[T]{} // drop the reference so the GC can free msg
	q.items = q.items[:last]
	if last > 0 {
		q.down(0)
	}
	return top
}

// up restores the heap property by moving entry i towards the root.
func (q *queue[T]) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !q.less(i, parent) {
			return
		}
		q.items[i], q.items[parent] = q.items[parent], q.items[i]
		i = parent
	}
}

// down restores the heap property by moving entry i towards the leaves.
func (q *queue[T]) down(i int) {
	n := len(q.items)
	for {
		child := 2*i + 1
		if child >= n {
			return
		}
		if right := child + 1; right < n && q.less(right, child) {
			child = right
		}
		if !q.less(child, i) {
			return
		}
		q.items[i], q.items[child] = q.items[child], q.items[i]
		i = child
	}
}

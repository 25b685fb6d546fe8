package server

// room returns s emptied with room for n elements: when it must grow, it
// takes twice that, so that a length wandering from tick to tick settles
// on a capacity and stops allocating.
func room[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, 0, 2*n)
	}
	return s[:0]
}

// grow returns s with room for n elements in all, keeping its contents:
// like room, it takes twice that when it must grow.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return append(make([]T, 0, 2*n), s...)
	}
	return s
}

// sortHigh sorts keys by their high 32 bits, keeping the order of keys
// whose high words are equal, with a radix sort of one pass per byte in
// which the keys differ: the relevance and priority sorts of every
// client, every tick, take a few passes over a flat array this way. tmp
// is scratch, grown as needed and returned for the next call.
func sortHigh(keys, tmp []uint64) []uint64 {
	n := len(keys)
	if n <= 32 {
		for i := 1; i < n; i++ {
			k := keys[i]
			j := i
			for ; j > 0 && keys[j-1]>>32 > k>>32; j-- {
				keys[j] = keys[j-1]
			}
			keys[j] = k
		}
		return tmp
	}
	if cap(tmp) < n {
		tmp = make([]uint64, n, 2*n)
	}
	tmp = tmp[:n]
	var count [4][256]int32
	for _, k := range keys {
		count[0][byte(k>>32)]++
		count[1][byte(k>>40)]++
		count[2][byte(k>>48)]++
		count[3][byte(k>>56)]++
	}
	src, dst := keys, tmp
	for d := range 4 {
		c := &count[d]
		shift := 32 + 8*uint(d)
		if c[byte(src[0]>>shift)] == int32(n) {
			continue // every key has the same byte here
		}
		var at int32
		for b := range c {
			at, c[b] = at+c[b], at
		}
		for _, k := range src {
			b := byte(k >> shift)
			dst[c[b]] = k
			c[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
	return tmp
}

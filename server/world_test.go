package server

import (
	"testing"
	"unsafe"
)

// A snapshot reads the world entry of every relevant entity for every
// client, from all over the world: each must take one cache line.
func TestWorldEntryIsOneCacheLine(t *testing.T) {
	if n := unsafe.Sizeof(worldEntry{}); n != 64 {
		t.Fatalf("worldEntry takes %d bytes, want 64 (one cache line)", n)
	}
}

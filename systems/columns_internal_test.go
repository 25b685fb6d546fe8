package systems

import (
	"testing"
	"unsafe"

	c "github.com/netsmooth/netsmooth/components"
)

// TestRingSlotIsASample: a ring slot column holds a Sample and nothing
// else, so a pointer to one is a pointer to the other (columns.slot) and
// a remote entity's memory counts a Sample per slot.
func TestRingSlotIsASample(t *testing.T) {
	if got, want := unsafe.Sizeof(ringSlot[ringPos0]{}), unsafe.Sizeof(c.Sample{}); got != want {
		t.Fatalf("ringSlot takes %d bytes, a Sample %d", got, want)
	}
	if off := unsafe.Offsetof(ringSlot[ringPos0]{}.Sample); off != 0 {
		t.Fatalf("the Sample lies at offset %d of a ringSlot, want 0", off)
	}
}

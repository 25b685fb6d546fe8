package components

import (
	"testing"
	"unsafe"
)

// TestComponentSizes pins the layout the design depends on: samples pack
// with no padding, a ring is one inline block, and the hot per-frame
// components (Span, Render, Correction) stay small.
func TestComponentSizes(t *testing.T) {
	sample := unsafe.Sizeof(Sample{})
	head := unsafe.Sizeof(RingHead{})
	span := unsafe.Sizeof(Span{})
	render := unsafe.Sizeof(Render{})
	corr := unsafe.Sizeof(Correction{})
	t.Logf("Sample %d, RingHead %d, Span %d, Render %d, Correction %d bytes; hot total %d",
		sample, head, span, render, corr, span+render+corr)

	if sample != 48 {
		t.Errorf("Sample is %d bytes, want 48", sample)
	}
	if a := unsafe.Alignof(Sample{}); a != 4 {
		t.Errorf("Sample alignment %d, want 4 (no 64-bit fields)", a)
	}
	if head != 8 {
		t.Errorf("RingHead is %d bytes, want 8", head)
	}
	if ring := RingCapacity * sample; ring > 800 {
		t.Errorf("a ring's %d samples take %d bytes, want <= 800", RingCapacity, ring)
	}
	if span > 92 {
		t.Errorf("Span is %d bytes, want <= 92", span)
	}
	if render > 32 {
		t.Errorf("Render is %d bytes, want <= 32", render)
	}
	if corr != 24 {
		t.Errorf("Correction is %d bytes, want 24", corr)
	}
	if n := unsafe.Sizeof(NetID(0)); n != 4 {
		t.Errorf("NetID is %d bytes, want 4", n)
	}
	if n := unsafe.Sizeof(Remote{}) + unsafe.Sizeof(Predicted{}); n != 0 {
		t.Errorf("the role tags take %d bytes, want 0", n)
	}
	if RingCapacity&(RingCapacity-1) != 0 || RingCapacity > 255 {
		t.Errorf("RingCapacity %d must be a power of two that fits the uint8 count", RingCapacity)
	}
}

func TestCorrectionIsZero(t *testing.T) {
	var c Correction
	if !c.IsZero() {
		t.Error("zero Correction: IsZero() = false")
	}
	c.Pos[1] = 1e-30
	if c.IsZero() {
		t.Error("Correction with a position offset: IsZero() = true")
	}
	c = Correction{}
	c.Rot[2] = -1e-30
	if c.IsZero() {
		t.Error("Correction with a rotation offset: IsZero() = true")
	}
}

package perf

import (
	"testing"

	c "github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/internal/scenario"
)

// TestComponentMemoryPerEntity: at most 1 KiB of component data per remote
// entity (the budget), and the measured heap per entity close to it.
func TestComponentMemoryPerEntity(t *testing.T) {
	if b := ComponentBytes(); b > 1024 {
		t.Fatalf("components take %d bytes per remote entity, budget 1024", b)
	}
	n := 20_000
	heap := HeapBytesPerEntity(n)
	t.Logf("components %d bytes per entity; heap %.0f bytes per entity at %d entities", ComponentBytes(), heap, n)
	// The inbox buffers hold a message (56 bytes) per entity twice over, and
	// arche and the index add their bookkeeping: well under 2 KiB in all.
	if heap > 2048 {
		t.Fatalf("heap grows by %.0f bytes per entity", heap)
	}
}

// TestBaselinesAgree: the flat baseline draws the same positions as the
// pipeline on the steady scenario (it must do the same work to be a fair
// comparison), and the naive one too.
func TestBaselinesAgree(t *testing.T) {
	const n = 50
	impls := []scenario.Client{NewPipeline(n), NewFlat(n), NewNaive()}
	for _, impl := range impls {
		newRun(impl, NewStream(n), FPS, FramesPerTick).frames(40 * FramesPerTick)
	}
	for id := c.NetID(1); id <= n; id++ {
		want, _, _, ok := impls[0].Draw(id)
		if !ok {
			t.Fatalf("entity %d missing", id)
		}
		for k, name := range []string{FlatName, NaiveName} {
			got, _, _, ok := impls[k+1].Draw(id)
			if d := got.Sub(want).Len(); !ok || d > 1e-4 {
				t.Fatalf("entity %d: pipeline %v, %s %v (drawn %v)", id, want, name, got, ok)
			}
		}
	}
}

package bench

import "testing"

// TestComponentMemoryPerEntity: at most 1 KiB of component data per remote
// entity (the budget), and the measured heap per entity close to it.
func TestComponentMemoryPerEntity(t *testing.T) {
	if b := ComponentBytes(); b > 1024 {
		t.Fatalf("components take %d bytes per remote entity, budget 1024", b)
	}
	n := 20_000
	heap := HeapBytesPerEntity(n)
	t.Logf("components %d bytes per entity; heap %.0f bytes per entity at %d entities", ComponentBytes(), heap, n)
	// The inbox buffers hold a message (64 bytes) per entity twice over, and
	// arche and the index add their bookkeeping: well under 2 KiB in all.
	if heap > 2048 {
		t.Fatalf("heap grows by %.0f bytes per entity", heap)
	}
}

// TestBaselinesAgree: the flat baseline draws the same positions as the
// pipeline on the steady scenario (it must do the same work to be a fair
// lower bound), and the naive one too.
func TestBaselinesAgree(t *testing.T) {
	const n = 50
	p, f, nv := NewPipeline(n), NewFlat(n), NewNaive()
	sp, sf, sn := NewStream(n), NewStream(n), NewStream(n)
	for fr := 0; fr < 40*FramesPerTick; fr++ {
		if fr%FramesPerTick == 0 {
			p.Push(sp.Tick())
			f.Push(sf.Tick())
			nv.Push(sn.Tick())
		}
		p.Frame(1.0 / FPS)
		f.Frame(1.0 / FPS)
		nv.Frame(1.0 / FPS)
	}
	for id := 1; id <= n; id++ {
		e, ok := p.Pipe.Lookup(c_NetID(id))
		if !ok {
			t.Fatalf("entity %d missing", id)
		}
		got := renderOf(p, e)
		if d := got.Pos.Sub(f.Render(id).Pos).Len(); d > 1e-4 {
			t.Fatalf("entity %d: pipeline %v, flat %v", id, got.Pos, f.Render(id).Pos)
		}
		if d := got.Pos.Sub(nv.Position(id)).Len(); d > 1e-4 {
			t.Fatalf("entity %d: pipeline %v, naive %v", id, got.Pos, nv.Position(id))
		}
	}
}

package systems_test

import (
	"testing"

	"github.com/mlange-42/arche/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

// TestRingOfOnlyForLiveRemoteEntities: RingOf shows a remote entity's
// samples in tick order, and refuses predicted, plain and removed entities.
func TestRingOfOnlyForLiveRemoteEntities(t *testing.T) {
	p := newPredRig(t, cfgAt(20, 100))
	p.Push(snap(2, 12, 2), snap(2, 10, 0), snap(2, 11, 1))
	p.Frame(0)
	remote := p.Entity(2)
	ring, ok := systems.RingOf(&p.World, remote)
	if !ok {
		t.Fatal("no ring for a remote entity")
	}
	if got := ringTicks(&ring); len(got) != 3 || got[0] != 10 || got[1] != 11 || got[2] != 12 {
		t.Fatalf("ring ticks %v, want [10 11 12]", got)
	}
	if s := ring.Newest(); s.Pos[0] != 2 {
		t.Fatalf("newest sample at x = %v, want 2", s.Pos[0])
	}
	plain := p.World.NewEntity()
	p.World.RemoveEntity(remote)
	for name, e := range map[string]ecs.Entity{"predicted": p.e, "plain": plain, "removed": remote, "zero": {}} {
		if _, ok := systems.RingOf(&p.World, e); ok {
			t.Errorf("RingOf a %s entity succeeded", name)
		}
	}
}

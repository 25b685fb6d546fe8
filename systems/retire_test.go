package systems_test

import (
	"testing"

	"github.com/mlange-42/arche/ecs"
	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/systems"
)

// TestDespawnAtRenderTimeNotOnArrival: a despawn takes effect when the
// render time reaches its tick, not when it arrives; afterwards late
// snapshots of that life are refused and a newer one starts a new life.
func TestDespawnAtRenderTimeNotOnArrival(t *testing.T) {
	var despawned []components.NetID
	cfg := cfgAt(20, 4)
	cfg.Receive.OnDespawn = func(w *ecs.World, e ecs.Entity, id components.NetID) { despawned = append(despawned, id) }
	r := newRig(t, cfg)
	for tick := uint32(0); tick <= 10; tick++ {
		r.Push(snap(1, tick, float32(tick)))
	}
	r.Push(systems.Message{Kind: systems.Despawn, NetID: 1, Tick: 10})
	r.Frame(0) // render tick 6
	if _, ok := r.Pipe.Lookup(1); !ok {
		t.Fatal("despawned on arrival; want at render tick 10")
	}
	for r.RenderTick() < 10-1e-9 {
		if _, ok := r.Pipe.Lookup(1); !ok {
			t.Fatalf("despawned at render tick %v, before 10", r.RenderTick())
		}
		r.Frame(1.0 / 60)
	}
	if _, ok := r.Pipe.Lookup(1); ok {
		t.Fatalf("still alive at render tick %v", r.RenderTick())
	}
	if len(despawned) != 1 || despawned[0] != 1 {
		t.Fatalf("OnDespawn calls = %v", despawned)
	}
	// Late snapshots of the dead entity are rejected, not respawned; a
	// snapshot of a new life after the despawn tick spawns again.
	r.Push(snap(1, 9, 0), snap(1, 10, 0), systems.Message{Kind: systems.Despawn, NetID: 1, Tick: 11})
	r.Frame(0)
	m := r.Pipe.Metrics()
	if m.Rejected[systems.RejectDespawned] != 2 || m.Rejected[systems.RejectDuplicate] != 1 {
		t.Fatalf("rejected = %v", m.Rejected)
	}
	r.Push(snap(1, 12, 0))
	r.Frame(0)
	if _, ok := r.Pipe.Lookup(1); !ok || m.Spawned != 2 || m.Despawned != 1 {
		t.Fatalf("respawn: alive=%v spawned=%d despawned=%d", ok, m.Spawned, m.Despawned)
	}
	r.CheckCounted(16)
}

package systems_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

func TestOutOfOrderSamplesAreKeptInTickOrder(t *testing.T) {
	r := newRig(t, cfgAt(20, 2))
	r.Push(snap(1, 10, 10), snap(1, 13, 13), snap(1, 11, 11), snap(1, 12, 12))
	r.Frame(0)
	if got := ringTicks(r.Ring(1)); len(got) != 4 || got[0] != 10 || got[1] != 11 || got[2] != 12 || got[3] != 13 {
		t.Fatalf("ring ticks = %v, want [10 11 12 13]", got)
	}
	// Render tick 11 (13 - 2): exactly the out-of-order sample.
	if x := r.Render(1).Pos[0]; x != 11 {
		t.Fatalf("x = %v, want 11", x)
	}
	r.CheckCounted(4)
}

// TestDuplicatesRejectedChangesReplace: an identical copy of a buffered
// sample is a duplicate; a different sample for the same tick is the
// server's latest word on it and replaces it.
func TestDuplicatesRejectedChangesReplace(t *testing.T) {
	r := newRig(t, cfgAt(20, 2))
	r.Push(snap(1, 10, 1), snap(1, 11, 2), snap(1, 11, 2), snap(1, 10, 1), snap(1, 11, 99), snap(1, 10, 5))
	r.Frame(0)
	m := r.Pipe.Metrics()
	if m.Rejected[systems.RejectDuplicate] != 2 || m.Accepted != 4 || m.Replaced != 2 {
		t.Fatalf("duplicates = %d, accepted = %d, replaced = %d; want 2, 4 and 2", m.Rejected[systems.RejectDuplicate], m.Accepted, m.Replaced)
	}
	if a, b := r.Ring(1).At(0), r.Ring(1).At(1); a.Pos[0] != 5 || b.Pos[0] != 99 {
		t.Fatalf("samples at x = %v and %v, want the replacements 5 and 99", a.Pos[0], b.Pos[0])
	}
	r.CheckCounted(6)
}

func TestStaleRejected(t *testing.T) {
	r := newRig(t, cfgAt(20, 2))
	for tick := uint32(10); tick <= 20; tick++ {
		r.Push(snap(1, tick, float32(tick)))
	}
	r.Frame(0)             // render tick 18
	r.Push(snap(1, 17, 0)) // before the span the render time is in (18..19)
	r.Push(snap(1, 16, 0)) // long gone
	r.Frame(0)
	m := r.Pipe.Metrics()
	if m.Rejected[systems.RejectStale] != 2 {
		t.Fatalf("stale = %d, want 2 (rejected: %v)", m.Rejected[systems.RejectStale], m.Rejected)
	}
	r.CheckCounted(13)
}

func TestNonFiniteAndInvalidRejected(t *testing.T) {
	r := newRig(t, cfgAt(20, 2))
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	bad := []systems.Message{
		{NetID: 1, Tick: 1, Pos: mgl32.Vec3{nan, 0, 0}},
		{NetID: 1, Tick: 2, Pos: mgl32.Vec3{0, inf, 0}},
		{NetID: 1, Tick: 3, Vel: mgl32.Vec3{0, 0, -inf}, HasVelocity: true},
		{NetID: 1, Tick: 4, Rot: mgl32.Quat{W: nan}},
		{NetID: 1, Tick: 5, Rot: mgl32.Quat{V: mgl32.Vec3{0, inf, 0}}},
	}
	invalid := []systems.Message{
		{NetID: 1, Tick: 6, Pos: mgl32.Vec3{2e9, 0, 0}}, // beyond MaxAbs
		{NetID: 1, Tick: 7, Rot: mgl32.Quat{W: 1e-30}},  // no direction
		{Kind: systems.Kind(200), NetID: 1, Tick: 8},    // unknown kind
		{NetID: 1, Tick: 9, Vel: mgl32.Vec3{0, -3e9, 0}, HasVelocity: true},
	}
	r.Push(bad...)
	r.Push(invalid...)
	r.Frame(0)
	m := r.Pipe.Metrics()
	if m.Rejected[systems.RejectNonFinite] != uint64(len(bad)) {
		t.Fatalf("non-finite = %d, want %d", m.Rejected[systems.RejectNonFinite], len(bad))
	}
	if m.Rejected[systems.RejectInvalid] != uint64(len(invalid)) {
		t.Fatalf("invalid = %d, want %d", m.Rejected[systems.RejectInvalid], len(invalid))
	}
	if _, ok := r.Pipe.Lookup(1); ok {
		t.Fatal("a rejected message spawned the entity")
	}
	r.CheckCounted(len(bad) + len(invalid))
}

func TestUnknownEntities(t *testing.T) {
	cfg := cfgAt(20, 2)
	cfg.Receive.RequireSpawn = true
	r := newRig(t, cfg)
	r.Push(
		systems.Message{Kind: systems.Despawn, NetID: 9, Tick: 3}, // despawn of an unknown entity
		snap(1, 1, 0), // snapshot without a spawn
		systems.Message{Kind: systems.Teleport, NetID: 2, Tick: 1},
		systems.Message{Kind: systems.Spawn, NetID: 3, Tick: 1},
		snap(3, 2, 1),
	)
	r.Frame(0)
	m := r.Pipe.Metrics()
	// The despawn of unknown 9 is remembered (it may have overtaken its
	// spawn); the snapshot and teleport of unknown entities are refused.
	if m.Rejected[systems.RejectUnknown] != 2 || m.Accepted != 3 || m.Entities != 1 {
		t.Fatalf("unknown = %d, accepted = %d, entities = %d; want 2, 3, 1", m.Rejected[systems.RejectUnknown], m.Accepted, m.Entities)
	}
	// Its spawn arriving late is refused: no zombie entity; a newer life is
	// welcome.
	r.Push(systems.Message{Kind: systems.Spawn, NetID: 9, Tick: 2}, snap(9, 3, 0), systems.Message{Kind: systems.Spawn, NetID: 9, Tick: 4})
	r.Frame(0)
	if m.Rejected[systems.RejectDespawned] != 2 || m.Entities != 2 {
		t.Fatalf("despawned = %d, entities = %d; want 2 and 2", m.Rejected[systems.RejectDespawned], m.Entities)
	}
	r.CheckCounted(8)
}

func TestRingOverflowKeepsNewest(t *testing.T) {
	r := newRig(t, cfgAt(20, 100)) // render far behind: everything is future
	for tick := uint32(100); tick < 140; tick++ {
		r.Push(snap(1, tick, float32(tick)))
	}
	r.Frame(0)
	ring := r.Ring(1)
	if ring.Len() != components.RingCapacity || ring.At(0).Tick != 140-components.RingCapacity || ring.Newest().Tick != 139 {
		t.Fatalf("ring = %v", ringTicks(ring))
	}
	m := r.Pipe.Metrics()
	if m.Evicted != 40-components.RingCapacity {
		t.Fatalf("evicted = %d, want %d", m.Evicted, 40-components.RingCapacity)
	}
	if lo, _, hi := m.OccupancyStats(); lo != components.RingCapacity || hi != components.RingCapacity {
		t.Fatalf("occupancy min %d max %d", lo, hi)
	}
	r.Push(snap(1, 101, 0)) // older than everything in a full ring
	r.Frame(0)
	if m.Rejected[systems.RejectStale] != 1 {
		t.Fatalf("stale = %d, want 1", m.Rejected[systems.RejectStale])
	}
	r.CheckCounted(41)
}

func TestFutureTicksRejected(t *testing.T) {
	r := newRig(t, cfgAt(20, 2))
	r.Push(snap(1, 100, 0))
	r.Frame(0)
	r.Push(snap(1, 100+20*2+1, 0), snap(2, 1<<31, 0), snap(1, 101, 1))
	r.Frame(0)
	m := r.Pipe.Metrics()
	if m.Rejected[systems.RejectFuture] != 2 || m.Accepted != 2 {
		t.Fatalf("future = %d, accepted = %d", m.Rejected[systems.RejectFuture], m.Accepted)
	}
	r.CheckCounted(4)
}

func TestEntityLimitAndInboxCapacity(t *testing.T) {
	cfg := cfgAt(20, 2)
	cfg.Receive.MaxEntities = 3
	cfg.InboxCapacity = 8
	r := newRig(t, cfg)
	pushed := 0
	for id := components.NetID(1); id <= 10; id++ {
		r.Pipe.Inbox().Push(snap(id, 1, 0))
		pushed++
	}
	r.Frame(0)
	m := r.Pipe.Metrics()
	if m.Rejected[systems.RejectInboxFull] != 2 || m.Rejected[systems.RejectEntityLimit] != 5 || m.Entities != 3 {
		t.Fatalf("inbox-full = %d, limit = %d, entities = %d", m.Rejected[systems.RejectInboxFull], m.Rejected[systems.RejectEntityLimit], m.Entities)
	}
	batch := make([]systems.Message, 12)
	for i := range batch {
		batch[i] = snap(1, uint32(2+i), 0)
	}
	if n := r.Pipe.Inbox().PushBatch(batch); n != 8 {
		t.Fatalf("PushBatch queued %d, want 8", n)
	}
	pushed += len(batch)
	r.Frame(0)
	r.CheckCounted(pushed)
}

// TestRespawnDuringDespawnWindow: a new life that starts while the old one
// still plays out its last moments gets a new entity; the old one is
// removed at its despawn tick.
func TestRespawnDuringDespawnWindow(t *testing.T) {
	cfg := cfgAt(20, 4)
	cfg.Receive.RequireSpawn = true
	r := newRig(t, cfg)
	r.Push(systems.Message{Kind: systems.Spawn, NetID: 1, Tick: 100})
	for tick := uint32(101); tick <= 110; tick++ {
		r.Push(snap(1, tick, float32(tick)))
	}
	r.Push(systems.Message{Kind: systems.Despawn, NetID: 1, Tick: 110})
	r.Push(systems.Message{Kind: systems.Spawn, NetID: 1, Tick: 111, Pos: mgl32.Vec3{500, 0, 0}})
	for tick := uint32(112); tick <= 120; tick++ {
		r.Push(snap(1, tick, 500+float32(tick)))
	}
	r.Frame(0) // render tick 116 - 4... the newest is 120: render 116
	m := r.Pipe.Metrics()
	if m.Spawned != 2 || m.RejectedTotal() != 0 {
		t.Fatalf("spawned %d, rejected %v", m.Spawned, m.Rejected)
	}
	for i := 0; i < 10; i++ {
		r.Frame(1.0 / 60)
	}
	if m.Despawned != 1 || r.World.Stats().Entities.Used != 1 {
		t.Fatalf("despawned %d, entities in the world %d; want the old life gone, the new one there", m.Despawned, r.World.Stats().Entities.Used)
	}
	if x := r.Render(1).Pos[0]; x < 600 {
		t.Fatalf("NetID 1 drawn at %v: not the new life", x)
	}
	// A late sample of the old life must not reach the new one.
	r.Push(snap(1, 105, 0))
	r.Frame(0)
	if m.Rejected[systems.RejectDespawned] != 1 {
		t.Fatalf("late sample of the old life: rejected %v", m.Rejected)
	}
}

// TestGameRemovedEntity: the game removing a remote entity itself does not
// confuse the pipeline: Lookup stops finding it, and the next snapshot of
// its NetID spawns it again.
func TestGameRemovedEntity(t *testing.T) {
	r := newRig(t, cfgAt(20, 2))
	r.Push(snap(1, 10, 0), snap(1, 11, 1))
	r.Frame(0)
	e, _ := r.Pipe.Lookup(1)
	r.World.RemoveEntity(e)
	if _, ok := r.Pipe.Lookup(1); ok {
		t.Fatal("Lookup found an entity the game removed")
	}
	r.Push(snap(1, 12, 2))
	r.Frame(0)
	if _, ok := r.Pipe.Lookup(1); !ok {
		t.Fatal("the next snapshot did not bring the entity back")
	}
	if m := r.Pipe.Metrics(); m.Entities != 1 {
		t.Fatalf("entities %d", m.Entities)
	}
}

func TestRemoteMessagesForPredictedEntityRejected(t *testing.T) {
	p := newPredRig(t, nsecs.DefaultConfig())
	p.Push(snap(1, 5, 3), systems.Message{Kind: systems.Despawn, NetID: 1, Tick: 6})
	p.Frame(0)
	if m := p.Pipe.Metrics(); m.Rejected[systems.RejectPredicted] != 2 || m.Entities != 0 {
		t.Fatalf("rejected %v, remote entities %d", m.Rejected, m.Entities)
	}
	if _, err := p.pr.Spawn(&p.World, 1, player{}); err == nil {
		t.Fatal("spawned a second entity with NetID 1")
	}
}

// TestOnSpawnHook: OnSpawn may add the game's own components to a new
// remote entity, or remove it again; either way the message is counted
// once and nothing breaks.
func TestOnSpawnHook(t *testing.T) {
	type sprite struct{ Frame int }
	cfg := cfgAt(20, 2)
	var spawned []components.NetID
	cfg.Receive.OnSpawn = func(w *ecs.World, e ecs.Entity, id components.NetID) {
		spawned = append(spawned, id)
		if id == 2 {
			w.RemoveEntity(e) // the game does not want this one
			return
		}
		w.Add(e, ecs.ComponentID[sprite](w))
	}
	r := newRig(t, cfg)
	r.Push(snap(1, 10, 0), snap(1, 11, 1), snap(2, 10, 0))
	r.Frame(0)
	if len(spawned) != 2 {
		t.Fatalf("OnSpawn called for %v, want 1 and 2", spawned)
	}
	if !r.World.Has(r.Entity(1), ecs.ComponentID[sprite](&r.World)) {
		t.Fatal("the component added by OnSpawn is missing")
	}
	if _, ok := r.Pipe.Lookup(2); ok {
		t.Fatal("the entity OnSpawn removed is still indexed")
	}
	m := r.Pipe.Metrics()
	if m.Entities != 1 || m.Accepted != 3 {
		t.Fatalf("entities %d, accepted %d; want 1 and 3", m.Entities, m.Accepted)
	}
	if lo, _, hi := m.OccupancyStats(); lo != 2 || hi != 2 {
		t.Fatalf("occupancy %d..%d, want the one entity with 2 samples", lo, hi)
	}
	r.CheckCounted(3)
}

// TestRotationNormalised: a rotation within float32 rounding of unit length
// is kept, a longer one is normalised, and the zero quaternion means the
// identity.
func TestRotationNormalised(t *testing.T) {
	r := newRig(t, cfgAt(20, 100))
	long := snap(1, 2, 0)
	long.Rot = mgl32.Quat{W: 0, V: mgl32.Vec3{0, 0, 2}}
	unit := snap(1, 3, 0)
	unit.Rot = mgl32.Quat{W: 0.6, V: mgl32.Vec3{0, 0.8, 0}}
	r.Push(snap(1, 1, 0), long, unit)
	r.Frame(0)
	ring := r.Ring(1)
	for i, want := range []mgl32.Quat{mgl32.QuatIdent(), {W: 0, V: mgl32.Vec3{0, 0, 1}}, unit.Rot} {
		if got := ring.At(i).Rot; got != want {
			t.Errorf("sample %d: rotation %v, want %v", i, got, want)
		}
	}
}

func TestNewReceiveRejectsBadConfig(t *testing.T) {
	for _, mutate := range []func(*systems.ReceiveConfig){
		func(c *systems.ReceiveConfig) { c.MaxEntities = -1 },
		func(c *systems.ReceiveConfig) { c.MaxFuture = -1 },
		func(c *systems.ReceiveConfig) { c.MaxFuture = math.Inf(1) },
		func(c *systems.ReceiveConfig) { c.MaxAbs = -1 },
		func(c *systems.ReceiveConfig) { c.MaxAbs = 1e16 },
		func(c *systems.ReceiveConfig) { c.MaxAbs = float32(math.NaN()) },
		func(c *systems.ReceiveConfig) { c.Tombstones = -1 },
		func(c *systems.ReceiveConfig) { c.Workers = -1 },
	} {
		cfg := systems.DefaultReceiveConfig()
		mutate(&cfg)
		if _, err := systems.NewReceive(cfg); err == nil {
			t.Errorf("NewReceive(%+v) accepted", cfg)
		}
	}
	if _, err := systems.NewReceive(systems.DefaultReceiveConfig()); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
}

// TestZeroRotationIsIdentity: a snapshot without a rotation (the zero
// quaternion, what a game that never sets one sends) is stored and drawn
// as the identity, the first sample of an entity and the ones after it
// alike.
func TestZeroRotationIsIdentity(t *testing.T) {
	r := newRig(t, cfgAt(20, 2))
	for tick := uint32(1); tick <= 6; tick++ {
		r.Push(snap(1, tick, float32(tick)))
		r.Frame(0.05)
	}
	ring := r.Ring(1)
	if ring.Len() < 3 {
		t.Fatalf("ring %v, want several samples", ringTicks(ring))
	}
	for i := range ring.Len() {
		if rot := ring.At(i).Rot; rot != mgl32.QuatIdent() {
			t.Fatalf("sample at tick %d stored with rotation %v, want the identity", ring.At(i).Tick, rot)
		}
	}
	if rd := r.Render(1); rd.Flags&components.Visible == 0 || rd.Rot != mgl32.QuatIdent() {
		t.Fatalf("drawn %+v, want visible with the identity", rd)
	}
}

// TestShortcutTakesTheCommonCase: the shortcut stores every snapshot of
// a live entity newer than its samples, wherever the entity is in the
// world: after the game removed one remote entity itself (the last of
// its archetype moves into its row) and gave another a component of its
// own (it moves to another archetype). A first snapshot, which spawns,
// and one of an entity the game removed go the general way.
func TestShortcutTakesTheCommonCase(t *testing.T) {
	r := newRig(t, nsecs.DefaultConfig())
	var stored int
	countShortcut(r, &stored)
	const n = 100
	tick := uint32(1000)
	frame := func() int {
		t.Helper()
		before := stored
		for id := range netIDs(n) {
			r.Push(snap(id, tick, float32(id)))
		}
		tick++
		r.Frame(1.0 / 20)
		for id := range netIDs(n) {
			if got := r.Ring(id).Newest(); got.Tick != tick-1 || got.Pos[0] != float32(id) {
				t.Fatalf("NetID %d: newest sample %+v, want tick %d at x %d", id, *got, tick-1, id)
			}
		}
		return stored - before
	}
	if got := frame(); got != 0 {
		t.Fatalf("first frame: the shortcut stored %d first samples, want none (each spawns)", got)
	}
	if got := frame(); got != n {
		t.Fatalf("second frame: the shortcut stored %d, want all %d", got, n)
	}
	removed, _ := r.Pipe.Lookup(10)
	r.World.RemoveEntity(removed)
	moved, _ := r.Pipe.Lookup(20)
	r.World.Add(moved, ecs.ComponentID[ownTag](&r.World))
	// NetID 10 spawns again, the general way.
	if got := frame(); got != n-1 {
		t.Fatalf("after the game's changes: the shortcut stored %d, want %d", got, n-1)
	}
	if got := frame(); got != n {
		t.Fatalf("the frame after: the shortcut stored %d, want all %d", got, n)
	}
}

// TestLossOfOneEntityCostsLessDelay: when half the entities each lose
// every tenth sample, at different ticks, while the stream delivers every
// tick (lost packets of a snapshot split in several), the adaptive delay
// buffers only half a send interval for those losses: when the whole
// stream loses a tick now and then, it buffers all of it.
func TestLossOfOneEntityCostsLessDelay(t *testing.T) {
	delay := func(partial bool) float64 {
		r := newRig(t, nsecs.DefaultConfig().WithTickRate(20))
		for tick := uint32(100); tick < 260; tick++ {
			for id := components.NetID(1); id <= 16; id++ {
				lost := tick%10 == 5
				if partial {
					lost = id <= 8 && (tick+uint32(id))%10 == 0
				}
				if !lost {
					r.Push(snap(id, tick, float32(tick)))
				}
			}
			for f := 0; f < 3; f++ {
				r.Frame(1.0 / 60)
			}
		}
		return r.Pipe.Clock().Delay()
	}
	whole, partial := delay(false), delay(true)
	if !(partial < whole-0.3) {
		t.Fatalf("delay %.2f ticks when entities lost samples alone, %.2f when the stream did; want at least 0.3 less", partial, whole)
	}
}

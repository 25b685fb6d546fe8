package ecs_test

import (
	"math"
	"sync"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/netsmooth/netsmooth/blend"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

func (r *rig) ring(id components.NetID) *components.Ring {
	r.t.Helper()
	e, ok := r.pipe.Lookup(id)
	if !ok {
		r.t.Fatalf("entity %d not found", id)
	}
	ring, ok := systems.RingOf(&r.world, e)
	if !ok {
		r.t.Fatalf("entity %d has no ring", id)
	}
	return &ring
}

func ringTicks(ring *components.Ring) []uint32 {
	var ticks []uint32
	for i := 0; i < ring.Len(); i++ {
		ticks = append(ticks, ring.At(i).Tick)
	}
	return ticks
}

// checkCounted asserts the counting invariant: every pushed message is
// accepted or rejected for exactly one reason.
func (r *rig) checkCounted(pushed int) {
	r.t.Helper()
	m := r.pipe.Metrics()
	if got := m.Received(); got != uint64(pushed) {
		r.t.Fatalf("counted %d messages (accepted %d, rejected %v), pushed %d", got, m.Accepted, m.Rejected, pushed)
	}
}

func TestOutOfOrderSamplesAreKeptInTickOrder(t *testing.T) {
	r := newRig(t, cfgAt(20, 2))
	r.push(snap(1, 10, 10), snap(1, 13, 13), snap(1, 11, 11), snap(1, 12, 12))
	r.frame(0)
	if got := ringTicks(r.ring(1)); len(got) != 4 || got[0] != 10 || got[1] != 11 || got[2] != 12 || got[3] != 13 {
		t.Fatalf("ring ticks = %v, want [10 11 12 13]", got)
	}
	// Render tick 11 (13 - 2): exactly the out-of-order sample.
	if x := r.render(1).Pos[0]; x != 11 {
		t.Fatalf("x = %v, want 11", x)
	}
	r.checkCounted(4)
}

func TestLateSampleInsideSpanRefinesPathWithoutPop(t *testing.T) {
	// Path: x = tick, except tick 12 which is at 20 (a bump). Tick 12 is
	// late; until it arrives the span lerps 11 -> 13.
	r := newRig(t, cfgAt(20, 13.5))
	r.push(snap(1, 10, 10), snap(1, 11, 11))
	for tick := uint32(13); tick <= 25; tick++ {
		r.push(snap(1, tick, float32(tick)))
	}
	r.frame(0) // render 11.5: 11.5 on the 11->13 lerp
	before := r.render(1).Pos[0]
	r.push(snap(1, 12, 20))
	r.frame(0.25 / 20) // render 11.75: the refined path says 17.75
	after := r.render(1).Pos[0]
	m := r.pipe.Metrics()
	if m.Corrections != 1 || m.Accepted != 16 {
		t.Fatalf("corrections = %d, accepted = %d; want 1 and 16", m.Corrections, m.Accepted)
	}
	if math.Abs(m.CorrectionDistance-6) > 1e-4 {
		t.Fatalf("correction distance = %v, want 6", m.CorrectionDistance)
	}
	// The jump (11.75 -> 17.75) is smoothed, not drawn at once: the first
	// frame closes half of it in the half tick... at most.
	if after-before > 3.5 {
		t.Fatalf("drawn jumped from %v to %v", before, after)
	}
	for r.renderTick() < 21.75-1e-9 {
		r.frame(0.25 / 20)
	}
	// Ten ticks later the correction has decayed to 6/2^10.
	if x := r.render(1).Pos[0]; math.Abs(float64(x)-21.75) > 0.01 {
		t.Fatalf("x = %v, want 21.75 once the correction has decayed", x)
	}
}

func TestDuplicatesRejected(t *testing.T) {
	r := newRig(t, cfgAt(20, 2))
	r.push(snap(1, 10, 1), snap(1, 11, 2), snap(1, 11, 99), snap(1, 10, 5))
	r.frame(0)
	m := r.pipe.Metrics()
	if m.Rejected[systems.RejectDuplicate] != 2 || m.Accepted != 2 {
		t.Fatalf("duplicates = %d, accepted = %d; want 2 and 2", m.Rejected[systems.RejectDuplicate], m.Accepted)
	}
	if s := r.ring(1).At(1); s.Pos[0] != 2 {
		t.Fatalf("duplicate overwrote the sample: x = %v", s.Pos[0])
	}
	r.checkCounted(4)
}

func TestStaleRejected(t *testing.T) {
	r := newRig(t, cfgAt(20, 2))
	for tick := uint32(10); tick <= 20; tick++ {
		r.push(snap(1, tick, float32(tick)))
	}
	r.frame(0)             // render tick 18
	r.push(snap(1, 17, 0)) // before the span the render time is in (18..19)
	r.push(snap(1, 16, 0)) // long gone
	r.frame(0)
	m := r.pipe.Metrics()
	if m.Rejected[systems.RejectStale] != 2 {
		t.Fatalf("stale = %d, want 2 (rejected: %v)", m.Rejected[systems.RejectStale], m.Rejected)
	}
	r.checkCounted(13)
}

func TestNonFiniteAndInvalidRejected(t *testing.T) {
	r := newRig(t, cfgAt(20, 2))
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	bad := []nsecs.Message{
		{NetID: 1, Tick: 1, Pos: mgl32.Vec3{nan, 0, 0}},
		{NetID: 1, Tick: 2, Pos: mgl32.Vec3{0, inf, 0}},
		{NetID: 1, Tick: 3, Vel: mgl32.Vec3{0, 0, -inf}, HasVelocity: true},
		{NetID: 1, Tick: 4, Rot: mgl32.Quat{W: nan}},
		{NetID: 1, Tick: 5, Rot: mgl32.Quat{V: mgl32.Vec3{0, inf, 0}}},
	}
	invalid := []nsecs.Message{
		{NetID: 1, Tick: 6, Pos: mgl32.Vec3{2e9, 0, 0}}, // beyond MaxAbs
		{NetID: 1, Tick: 7, Rot: mgl32.Quat{W: 1e-30}},  // no direction
		{Kind: nsecs.Kind(200), NetID: 1, Tick: 8},      // unknown kind
		{NetID: 1, Tick: 9, Vel: mgl32.Vec3{0, -3e9, 0}, HasVelocity: true},
	}
	r.push(bad...)
	r.push(invalid...)
	r.frame(0)
	m := r.pipe.Metrics()
	if m.Rejected[systems.RejectNonFinite] != uint64(len(bad)) {
		t.Fatalf("non-finite = %d, want %d", m.Rejected[systems.RejectNonFinite], len(bad))
	}
	if m.Rejected[systems.RejectInvalid] != uint64(len(invalid)) {
		t.Fatalf("invalid = %d, want %d", m.Rejected[systems.RejectInvalid], len(invalid))
	}
	if _, ok := r.pipe.Lookup(1); ok {
		t.Fatal("a rejected message spawned the entity")
	}
	r.checkCounted(len(bad) + len(invalid))
}

func TestUnknownEntities(t *testing.T) {
	cfg := cfgAt(20, 2)
	cfg.Receive.SpawnOnFirstSnapshot = false
	r := newRig(t, cfg)
	r.push(
		nsecs.Message{Kind: nsecs.Despawn, NetID: 9, Tick: 3}, // despawn of an unknown entity
		snap(1, 1, 0), // snapshot without a spawn
		nsecs.Message{Kind: nsecs.Teleport, NetID: 2, Tick: 1},
		nsecs.Message{Kind: nsecs.Spawn, NetID: 3, Tick: 1},
		snap(3, 2, 1),
	)
	r.frame(0)
	m := r.pipe.Metrics()
	// The despawn of unknown 9 is remembered (it may have overtaken its
	// spawn); the snapshot and teleport of unknown entities are refused.
	if m.Rejected[systems.RejectUnknown] != 2 || m.Accepted != 3 || m.Entities != 1 {
		t.Fatalf("unknown = %d, accepted = %d, entities = %d; want 2, 3, 1", m.Rejected[systems.RejectUnknown], m.Accepted, m.Entities)
	}
	// Its spawn arriving late is refused: no zombie entity; a newer life is
	// welcome.
	r.push(nsecs.Message{Kind: nsecs.Spawn, NetID: 9, Tick: 2}, snap(9, 3, 0), nsecs.Message{Kind: nsecs.Spawn, NetID: 9, Tick: 4})
	r.frame(0)
	if m.Rejected[systems.RejectDespawned] != 2 || m.Entities != 2 {
		t.Fatalf("despawned = %d, entities = %d; want 2 and 2", m.Rejected[systems.RejectDespawned], m.Entities)
	}
	r.checkCounted(8)
}

func TestDespawnAtRenderTimeNotOnArrival(t *testing.T) {
	var despawned []components.NetID
	cfg := cfgAt(20, 4)
	cfg.Receive.OnDespawn = func(w *ecs.World, e ecs.Entity, id components.NetID) { despawned = append(despawned, id) }
	r := newRig(t, cfg)
	for tick := uint32(0); tick <= 10; tick++ {
		r.push(snap(1, tick, float32(tick)))
	}
	r.push(nsecs.Message{Kind: nsecs.Despawn, NetID: 1, Tick: 10})
	r.frame(0) // render tick 6
	if _, ok := r.pipe.Lookup(1); !ok {
		t.Fatal("despawned on arrival; want at render tick 10")
	}
	for r.renderTick() < 10-1e-9 {
		if _, ok := r.pipe.Lookup(1); !ok {
			t.Fatalf("despawned at render tick %v, before 10", r.renderTick())
		}
		r.frame(1.0 / 60)
	}
	if _, ok := r.pipe.Lookup(1); ok {
		t.Fatalf("still alive at render tick %v", r.renderTick())
	}
	if len(despawned) != 1 || despawned[0] != 1 {
		t.Fatalf("OnDespawn calls = %v", despawned)
	}
	// Late snapshots of the dead entity are rejected, not respawned; a
	// snapshot of a new life after the despawn tick spawns again.
	r.push(snap(1, 9, 0), snap(1, 10, 0), nsecs.Message{Kind: nsecs.Despawn, NetID: 1, Tick: 11})
	r.frame(0)
	m := r.pipe.Metrics()
	if m.Rejected[systems.RejectDespawned] != 2 || m.Rejected[systems.RejectDuplicate] != 1 {
		t.Fatalf("rejected = %v", m.Rejected)
	}
	r.push(snap(1, 12, 0))
	r.frame(0)
	if _, ok := r.pipe.Lookup(1); !ok || m.Spawned != 2 || m.Despawned != 1 {
		t.Fatalf("respawn: alive=%v spawned=%d despawned=%d", ok, m.Spawned, m.Despawned)
	}
	r.checkCounted(16)
}

func TestRingOverflowKeepsNewest(t *testing.T) {
	r := newRig(t, cfgAt(20, 100)) // render far behind: everything is future
	for tick := uint32(100); tick < 140; tick++ {
		r.push(snap(1, tick, float32(tick)))
	}
	r.frame(0)
	ring := r.ring(1)
	if ring.Len() != components.RingCapacity || ring.At(0).Tick != 140-components.RingCapacity || ring.Newest().Tick != 139 {
		t.Fatalf("ring = %v", ringTicks(ring))
	}
	m := r.pipe.Metrics()
	if m.Evicted != 40-components.RingCapacity {
		t.Fatalf("evicted = %d, want %d", m.Evicted, 40-components.RingCapacity)
	}
	if lo, _, hi := m.OccupancyStats(); lo != components.RingCapacity || hi != components.RingCapacity {
		t.Fatalf("occupancy min %d max %d", lo, hi)
	}
	r.push(snap(1, 101, 0)) // older than everything in a full ring
	r.frame(0)
	if m.Rejected[systems.RejectStale] != 1 {
		t.Fatalf("stale = %d, want 1", m.Rejected[systems.RejectStale])
	}
	r.checkCounted(41)
}

func TestFutureTicksRejected(t *testing.T) {
	r := newRig(t, cfgAt(20, 2))
	r.push(snap(1, 100, 0))
	r.frame(0)
	r.push(snap(1, 100+20*2+1, 0), snap(2, 1<<31, 0), snap(1, 101, 1))
	r.frame(0)
	m := r.pipe.Metrics()
	if m.Rejected[systems.RejectFuture] != 2 || m.Accepted != 2 {
		t.Fatalf("future = %d, accepted = %d", m.Rejected[systems.RejectFuture], m.Accepted)
	}
	r.checkCounted(4)
}

func TestEntityLimitAndInboxCapacity(t *testing.T) {
	cfg := cfgAt(20, 2)
	cfg.Receive.MaxEntities = 3
	cfg.InboxCapacity = 8
	r := newRig(t, cfg)
	pushed := 0
	for id := components.NetID(1); id <= 10; id++ {
		r.pipe.Inbox().Push(snap(id, 1, 0))
		pushed++
	}
	r.frame(0)
	m := r.pipe.Metrics()
	if m.Rejected[systems.RejectInboxFull] != 2 || m.Rejected[systems.RejectEntityLimit] != 5 || m.Entities != 3 {
		t.Fatalf("inbox-full = %d, limit = %d, entities = %d", m.Rejected[systems.RejectInboxFull], m.Rejected[systems.RejectEntityLimit], m.Entities)
	}
	batch := make([]nsecs.Message, 12)
	for i := range batch {
		batch[i] = snap(1, uint32(2+i), 0)
	}
	if n := r.pipe.Inbox().PushBatch(batch); n != 8 {
		t.Fatalf("PushBatch queued %d, want 8", n)
	}
	pushed += len(batch)
	r.frame(0)
	r.checkCounted(pushed)
}

func TestEpochChangeHoldsThenSwitches(t *testing.T) {
	// Samples 0..4 in epoch 0 at x = tick; from tick 5 the entity is
	// re-attached elsewhere (epoch 1, x = 100 + tick).
	r := newRig(t, cfgAt(20, 6))
	for tick := uint32(0); tick < 10; tick++ {
		m := snap(1, tick, float32(tick))
		if tick >= 5 {
			m.Epoch = 1
			m.Pos[0] = 100 + float32(tick)
		}
		r.push(m)
	}
	r.frame(0) // render tick 3
	for r.renderTick() < 6 {
		rt := r.renderTick()
		x := r.render(1).Pos[0]
		switch {
		case rt < 4:
			if math.Abs(float64(x)-rt) > 1e-4 {
				t.Fatalf("render %v: x = %v, want %v (lerp in the old epoch)", rt, x, rt)
			}
		case rt < 5:
			if x != 4 {
				t.Fatalf("render %v: x = %v, want 4 held across the epoch change", rt, x)
			}
		default:
			if math.Abs(float64(x)-(100+rt)) > 1e-3 {
				t.Fatalf("render %v: x = %v, want %v (new epoch)", rt, x, 100+rt)
			}
		}
		r.frame(0.2 / 20)
	}
	m := r.pipe.Metrics()
	if m.Teleports != 1 || m.Snaps != 1 {
		t.Fatalf("teleports = %d, snaps = %d; want 1 and 1", m.Teleports, m.Snaps)
	}
	if first := r.ring(1).At(0).Tick; first != 5 {
		t.Fatalf("oldest sample after the teleport = %d, want 5 (older dropped)", first)
	}
}

func TestDiscreteStateSwitchesAtNewerTick(t *testing.T) {
	r := newRig(t, cfgAt(20, 3))
	for tick := uint32(0); tick < 6; tick++ {
		m := snap(1, tick, float32(tick))
		m.State = uint16(tick * 10)
		r.push(m)
	}
	r.frame(0) // render 2
	for r.renderTick() < 4 {
		rt := r.renderTick()
		want := uint16(math.Floor(rt+1e-9)) * 10
		if got := r.render(1).State; got != want {
			t.Fatalf("render %v: state %d, want %d", rt, got, want)
		}
		r.frame(0.25 / 20)
	}
}

func TestRotationTakesShortestPath(t *testing.T) {
	r := newRig(t, cfgAt(20, 1.5))
	deg := float32(math.Pi / 180)
	a := snap(1, 0, 0)
	a.Rot = blend.QuatFromAngle(170 * deg)
	b := snap(1, 1, 0)
	b.Rot = blend.QuatFromAngle(-170 * deg)
	c := snap(1, 2, 0)
	c.Rot = b.Rot
	r.push(a, b, c)
	r.frame(0) // render 0.5
	rot := r.render(1).Rot
	got := blend.AngleOf(&rot) / deg
	if math.Abs(math.Abs(float64(got))-180) > 0.01 {
		t.Fatalf("halfway from 170° to -170°: %v°, want ±180° (the short way)", got)
	}
}

func TestExtrapolationRecoveryIsSmoothed(t *testing.T) {
	// Coast past a missing sample, then the real one arrives: the drawn
	// position must not pop.
	cfg := cfgAt(20, 1)
	r := newRig(t, cfg)
	const fps = 60.0
	x := func(tick int) float32 { return float32(tick) * 5 } // 100 units/s
	for tick := 0; tick <= 10; tick++ {
		r.push(snap(1, uint32(tick), x(tick)))
	}
	r.frame(0) // render 9
	var prev float32
	maxStep := float32(0)
	for f := 0; f < 60; f++ {
		if f == 12 { // ticks 11..13 arrive late, at once
			for tick := 11; tick <= 13; tick++ {
				r.push(snap(1, uint32(tick), x(tick)))
			}
		}
		r.frame(1 / fps)
		cur := r.render(1).Pos[0]
		if f > 0 {
			maxStep = max(maxStep, abs(cur-prev))
		}
		prev = cur
	}
	m := r.pipe.Metrics()
	if m.Extrapolated == 0 || m.Corrections == 0 {
		t.Fatalf("extrapolated %d, corrections %d: the scenario did not happen", m.Extrapolated, m.Corrections)
	}
	// True motion is 100/60 = 1.67 per frame; recovery from the coast's
	// lag may run faster, but never pop.
	if maxStep > 3*100/fps {
		t.Fatalf("largest per-frame step %v, true motion %v", maxStep, 100/fps)
	}
}

func TestHiddenBeforeSpawnTick(t *testing.T) {
	r := newRig(t, cfgAt(20, 2))
	r.push(snap(1, 10, 0), snap(1, 11, 1))
	r.frame(0) // render 9: before the spawn sample
	if f := r.render(1).Flags; f&components.Visible != 0 {
		t.Fatalf("visible before its spawn tick (flags %b)", f)
	}
	r.frame(1.0 / 20)
	if f := r.render(1).Flags; f&components.Visible == 0 {
		t.Fatalf("not visible at its spawn tick (flags %b)", f)
	}
}

func TestConcurrentPushesDuringFrames(t *testing.T) {
	r := newRig(t, cfgAt(20, 2))
	const writers, perWriter = 4, 2000
	var wg sync.WaitGroup
	for wi := 0; wi < writers; wi++ {
		wg.Add(1)
		go func(wi int) {
			defer wg.Done()
			batch := make([]nsecs.Message, 0, 10)
			for i := 0; i < perWriter; i++ {
				m := snap(components.NetID(wi+1), uint32(i), float32(i))
				if i%2 == 0 {
					r.pipe.Inbox().Push(m)
				} else {
					batch = append(batch, m)
					if len(batch) == cap(batch) {
						r.pipe.Inbox().PushBatch(batch)
						batch = batch[:0]
					}
				}
			}
			r.pipe.Inbox().PushBatch(batch)
		}(wi)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		r.frame(1.0 / 60)
	}
	r.frame(0)
	r.checkCounted(writers * perWriter)
	if m := r.pipe.Metrics(); m.Entities != writers {
		t.Fatalf("entities = %d, want %d", m.Entities, writers)
	}
}

// TestRespawnDuringDespawnWindow: a new life that starts while the old one
// still plays out its last moments gets a new entity; the old one is
// removed at its despawn tick.
func TestRespawnDuringDespawnWindow(t *testing.T) {
	cfg := cfgAt(20, 4)
	cfg.Receive.SpawnOnFirstSnapshot = false
	r := newRig(t, cfg)
	r.push(nsecs.Message{Kind: nsecs.Spawn, NetID: 1, Tick: 100})
	for tick := uint32(101); tick <= 110; tick++ {
		r.push(snap(1, tick, float32(tick)))
	}
	r.push(nsecs.Message{Kind: nsecs.Despawn, NetID: 1, Tick: 110})
	r.push(nsecs.Message{Kind: nsecs.Spawn, NetID: 1, Tick: 111, Pos: mgl32.Vec3{500, 0, 0}})
	for tick := uint32(112); tick <= 120; tick++ {
		r.push(snap(1, tick, 500+float32(tick)))
	}
	r.frame(0) // render tick 116 - 4... the newest is 120: render 116
	m := r.pipe.Metrics()
	if m.Spawned != 2 || m.RejectedTotal() != 0 {
		t.Fatalf("spawned %d, rejected %v", m.Spawned, m.Rejected)
	}
	for i := 0; i < 10; i++ {
		r.frame(1.0 / 60)
	}
	if m.Despawned != 1 || r.world.Stats().Entities.Used != 1 {
		t.Fatalf("despawned %d, entities in the world %d; want the old life gone, the new one there", m.Despawned, r.world.Stats().Entities.Used)
	}
	if x := r.render(1).Pos[0]; x < 600 {
		t.Fatalf("NetID 1 drawn at %v: not the new life", x)
	}
	// A late sample of the old life must not reach the new one.
	r.push(snap(1, 105, 0))
	r.frame(0)
	if m.Rejected[systems.RejectDespawned] != 1 {
		t.Fatalf("late sample of the old life: rejected %v", m.Rejected)
	}
}

// TestGameRemovedEntity: the game removing a remote entity itself does not
// confuse the pipeline: Lookup stops finding it, and the next snapshot of
// its NetID spawns it again.
func TestGameRemovedEntity(t *testing.T) {
	r := newRig(t, cfgAt(20, 2))
	r.push(snap(1, 10, 0), snap(1, 11, 1))
	r.frame(0)
	e, _ := r.pipe.Lookup(1)
	r.world.RemoveEntity(e)
	if _, ok := r.pipe.Lookup(1); ok {
		t.Fatal("Lookup found an entity the game removed")
	}
	r.push(snap(1, 12, 2))
	r.frame(0)
	if _, ok := r.pipe.Lookup(1); !ok {
		t.Fatal("the next snapshot did not bring the entity back")
	}
	if m := r.pipe.Metrics(); m.Entities != 1 {
		t.Fatalf("entities %d", m.Entities)
	}
}

// TestNoCorrectionAcrossClockJump: after a hidden suspend the clock jumps;
// the old drawing is no reference and must not turn into a correction.
func TestNoCorrectionAcrossClockJump(t *testing.T) {
	cfg := nsecs.DefaultConfig() // clamped clock, as shipped
	r := newRig(t, cfg)
	for tick := uint32(1000); tick <= 1100; tick++ {
		x := float32(tick) * 0.3
		if tick > 1050 {
			x = 1050 * 0.3 // stops at tick 1050
		}
		r.push(snap(1, tick, x))
		for f := 0; f < 3; f++ {
			r.frame(1.0 / 60)
		}
	}
	before := r.pipe.Metrics().Corrections
	// A suspend hidden by a clamped dt: the server moved on 40 ticks. Its
	// snapshots look future-dated until the clock has seen enough of them
	// to re-anchor (three frames), then flow again.
	r.frame(0.1)
	for tick := uint32(1141); tick <= 1160; tick++ {
		r.push(snap(1, tick, 1050*0.3))
		for f := 0; f < 3; f++ {
			r.frame(1.0 / 60)
		}
	}
	m := r.pipe.Metrics()
	if m.ClockResets == 0 {
		t.Fatal("the scenario did not jump the clock")
	}
	if m.Corrections != before {
		t.Fatalf("%d corrections across the jump (max %.2f)", m.Corrections-before, m.MaxCorrection)
	}
}

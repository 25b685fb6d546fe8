package systems_test

import (
	"testing"

	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/systems"
)

// streamFrames runs n frames of 1/20 s on r, each with a snapshot of each
// of ids at the next tick from *tick, and returns the messages pushed.
func streamFrames(r *rig, tick *uint32, n int, ids ...components.NetID) int {
	pushed := 0
	for range n {
		for _, id := range ids {
			r.Push(snap(id, *tick, float32(*tick)))
			pushed++
		}
		*tick++
		r.Frame(1.0 / 20)
	}
	return pushed
}

// A client whose clock is behind the server's finds the server's despawn
// future-dated. The client has decoded its tick and acknowledges it, so the
// server will not send it again: refused, the entity would stay forever.
// Held, it is applied once the clock catches up.
func TestFutureDespawnIsHeldUntilTheClockCatchesUp(t *testing.T) {
	r := newRig(t, cfgAt(20, 2)) // MaxFuture 0.5 s: 10 ticks
	tick := uint32(100)
	pushed := streamFrames(r, &tick, 40, 1, 2)
	// 15 ticks ahead of the stream: beyond the limit, within twice it.
	despawn := tick + 15
	r.Push(systems.Message{Kind: systems.Despawn, NetID: 2, Tick: despawn})
	pushed++
	r.Frame(1.0 / 20)
	m := r.Pipe.Metrics()
	if m.HeldFuture != 1 || m.Rejected[systems.RejectFuture] != 0 {
		t.Fatalf("a despawn 15 ticks ahead: held %d, refused as future %d; want it held", m.HeldFuture, m.Rejected[systems.RejectFuture])
	}
	r.CheckCounted(pushed)
	for f := 0; ; f++ {
		if _, ok := r.Pipe.Lookup(2); !ok {
			t.Logf("entity 2 despawned %d frames (%.2f s) after its despawn arrived", f+1, float64(f+1)/20)
			break
		}
		if f == 40 {
			t.Fatalf("entity 2 still alive 2 s after its despawn (tick %d) arrived; render tick %.1f, held %d, metrics rejected %v",
				despawn, r.RenderTick(), m.HeldFuture, m.Rejected)
		}
		pushed += streamFrames(r, &tick, 1, 1)
	}
	if m.HeldFuture != 0 || m.Rejected[systems.RejectFuture] != 0 {
		t.Fatalf("after the despawn: held %d, refused as future %d; want neither", m.HeldFuture, m.Rejected[systems.RejectFuture])
	}
	r.CheckCounted(pushed)
}

// A tick further ahead than twice MaxFuture is refused at once, and the
// hold is bounded: a flood of messages just ahead fills it, the rest are
// refused, and every message is counted once, held or not.
func TestFutureHoldIsBounded(t *testing.T) {
	r := newRig(t, cfgAt(20, 2))
	tick := uint32(100)
	pushed := streamFrames(r, &tick, 40, 1)
	r.Push(snap(1, tick+25, 0)) // 25 ticks ahead: beyond twice the limit
	pushed++
	r.Frame(1.0 / 20)
	m := r.Pipe.Metrics()
	if m.HeldFuture != 0 || m.Rejected[systems.RejectFuture] != 1 {
		t.Fatalf("a snapshot 25 ticks ahead: held %d, refused as future %d; want it refused", m.HeldFuture, m.Rejected[systems.RejectFuture])
	}
	const flood = 10_000
	for id := range components.NetID(flood) {
		r.Push(snap(1000+id, tick+15, 0))
	}
	pushed += flood
	r.Frame(1.0 / 20)
	if m.HeldFuture != 8192 || m.Rejected[systems.RejectFuture] != 1+flood-8192 {
		t.Fatalf("%d snapshots 15 ticks ahead: held %d, refused as future %d; want 8192 held, the rest refused",
			flood, m.HeldFuture, m.Rejected[systems.RejectFuture]-1)
	}
	r.CheckCounted(pushed)
	// The clock catches up: the held snapshots are taken.
	pushed += streamFrames(r, &tick, 20, 1)
	if _, ok := r.Pipe.Lookup(1000); m.HeldFuture != 0 || !ok {
		t.Fatalf("a second on: held %d, entity 1000 known %v; want none held and the entities spawned", m.HeldFuture, ok)
	}
	r.CheckCounted(pushed)
}

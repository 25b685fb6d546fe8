package systems_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/ecs/event"
	"github.com/mlange-42/arche/listener"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

// Receive's shortcut finds remote entities through arche (World.Alive,
// World.GetUnchecked) wherever they are: these tests change the world the
// ways a game may, and check that it still stores what the general path
// stores, where the general path stores it.

type (
	ownTagB struct{}
	ownTagC struct{}
)

// An arche Listener, told of the entity Receive creates (inside
// NewEntity, with the world unlocked), moves another remote entity into
// a full archetype of the game's, which grows to larger arrays: the next
// snapshot of an entity of that archetype must be stored in them, not in
// the arrays the archetype left.
func TestCommonPathListenerMovesEntities(t *testing.T) {
	run := func(general bool) components.Sample {
		r := newRig(t, nsecs.DefaultConfig())
		if general {
			generalOnly(r)
		}
		w := &r.World
		tagB, tagC := ecs.ComponentID[ownTagB](w), ecs.ComponentID[ownTagC](w)
		const n = 200
		frame := func(tick uint32) {
			for id := range netIDs(n) {
				r.Push(snap(id, tick, float32(tick)))
			}
			r.Frame(1.0 / 20)
		}
		frame(1000)
		for id := range netIDs(128) { // archetype B full (capacity 128)
			w.Add(r.Entity(id), tagB)
		}
		w.Add(r.Entity(150), tagC)
		frame(1001)
		frame(1002)
		y := r.Entity(150)
		spanID := ecs.ComponentID[components.Span](w)
		before := w.Get(r.Entity(5), spanID)
		done := false
		ls := listener.NewCallback(func(w *ecs.World, ev ecs.EntityEvent) {
			if !done {
				done = true
				w.Exchange(y, []ecs.ID{tagB}, []ecs.ID{tagC}) // B grows
			}
		}, event.EntityCreated)
		w.SetListener(&ls)
		// A known entity first, so that the spawn comes between two
		// snapshots the shortcut stores.
		r.Push(snap(7, 1003, 7), snap(n+1, 1003, 1), snap(5, 1003, 555))
		r.Frame(1.0 / 20)
		if w.Get(r.Entity(5), spanID) == before {
			t.Fatal("archetype B did not grow")
		}
		return *r.Ring(5).Newest()
	}
	short, gen := run(false), run(true)
	if short != gen {
		t.Fatalf("NetID 5's newest sample: shortcut %+v, general path %+v", short, gen)
	}
}

type ownRel struct{ ecs.Relation }

// Remote entities spread over > 256 archetypes (a relation with 350
// targets), retargeted, their targets and themselves removed between
// frames: the shortcut, the general path and two workers agree.
func TestCommonPathManyArchetypes(t *testing.T) {
	for _, dense := range []int{systems.DefaultDenseIDs, 100} {
		cfg := nsecs.DefaultConfig()
		cfg.Receive.DenseIDs = dense
		a, b := newRig(t, cfg), newRig(t, cfg)
		generalOnly(b)
		var shortcut int
		countShortcut(a, &shortcut)
		cfg.Receive.Workers, cfg.Receive.ParallelMin = 2, 1
		c := newRig(t, cfg)
		defer c.Pipe.Finalize()
		rigs := []*rig{a, b, c}
		const n, targets = 700, 350
		tg := make([][]ecs.Entity, len(rigs))
		for k, r := range rigs {
			for range targets {
				tg[k] = append(tg[k], r.World.NewEntity())
			}
		}
		rng := rand.New(rand.NewPCG(1, 2))
		tick := uint32(1000)
		for f := range 40 {
			order := rng.Perm(n)
			for _, i := range order {
				if rng.IntN(10) == 0 {
					continue
				}
				m := snap(components.NetID(i), tick+uint32(rng.IntN(2)), float32(i*1000+f))
				for _, r := range rigs {
					r.Push(m)
				}
			}
			tick += 2
			for _, r := range rigs {
				r.Frame(1.0 / 20)
			}
			sameStateN(t, a, b, n)
			sameStateN(t, a, c, n)
			// The game's changes between frames.
			for range 60 {
				id, what, to := components.NetID(rng.IntN(n)), rng.IntN(10), rng.IntN(targets)
				for k, r := range rigs {
					w := &r.World
					rel := ecs.ComponentID[ownRel](w)
					e, ok := r.Pipe.Lookup(id)
					if !ok || !w.Alive(e) {
						continue
					}
					switch {
					case what == 0:
						w.RemoveEntity(e)
					case what == 1:
						if w.Alive(tg[k][to]) {
							w.RemoveEntity(tg[k][to]) // its archetype's entities move
						}
						tg[k][to] = w.NewEntity()
					case !w.Has(e, rel):
						w.Add(e, rel)
						w.Relations().Set(e, rel, tg[k][to])
					case what < 5:
						w.Remove(e, rel)
					default:
						w.Relations().Set(e, rel, tg[k][to])
					}
				}
			}
		}
		// Not a test of the general path alone: most snapshots are of
		// live entities, newer than their samples.
		if 3*uint64(shortcut) < a.Pipe.Metrics().Accepted {
			t.Errorf("dense table of %d: the shortcut stored %d of %d samples, want a third at least", dense, shortcut, a.Pipe.Metrics().Accepted)
		}
	}
}

// The game removes ring slot columns 2 to 15 from remote entities, which
// netsmooth's pipeline cannot work without: storing a sample into a
// missing slot is a nil dereference (World.GetUnchecked finds no such
// component), a panic the game can recover, never a write elsewhere. With
// Receive on two goroutines the store may panic on either (the pool
// raises a worker's panic on the game's goroutine: see
// TestWorkerPoolRaisesPanicsOnTheCaller), and the game recovers it all the
// same. Entities the game left alone are stored in the next frame.
func TestMissingRingSlotPanicsRecoverably(t *testing.T) {
	const n = 200
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			r := storedRig(t, workers, n)
			w := &r.World
			slots := systems.SlotIDs(w)
			gone := slots[2:] // every slot column but 0 and 1
			for id := range netIDs(n) {
				w.Remove(r.Entity(id), gone...)
			}
			for id := range netIDs(n) {
				r.Push(snap(id, 1001, 2)) // into slot 1
			}
			r.Frame(1.0 / 20)
			if got := r.Pipe.Metrics().Accepted; got != 2*n {
				t.Fatalf("accepted %d samples into the remaining slots, want %d", got, 2*n)
			}
			for id := range netIDs(n) {
				r.Push(snap(id, 1002, 3)) // into slot 2
			}
			err, ok := recoverFrame(r).(runtime.Error)
			if !ok || !strings.Contains(err.Error(), "nil pointer dereference") {
				t.Fatalf("recovered %v, want a nil dereference", err)
			}
			for id := range netIDs(n) {
				r.Push(snap(id+n, 1003, 4)) // new entities, whole
			}
			if v := recoverFrame(r); v != nil {
				t.Fatalf("a frame of new entities after the panic panicked with %v", v)
			}
			if got := r.Pipe.Metrics().Entities; got != 2*n {
				t.Errorf("%d remote entities after a frame of %d new ones, want %d", got, n, 2*n)
			}
		})
	}
}

// storedRig returns a rig whose Receive runs on workers goroutines from
// 2 messages on, and that stored a snapshot of n entities.
func storedRig(t *testing.T, workers, n int) *rig {
	t.Helper()
	cfg := nsecs.DefaultConfig().WithWorkers(workers)
	cfg.Receive.ParallelMin = 2
	r := newRig(t, cfg)
	for id := range netIDs(n) {
		r.Push(snap(id, 1000, 1))
	}
	r.Frame(1.0 / 20)
	return r
}

// recoverFrame runs a frame of r and returns what it panicked with.
func recoverFrame(r *rig) (v any) {
	defer func() { v = recover() }()
	r.Frame(1.0 / 20)
	return nil
}

// The game removes the Span from a remote entity: storing into it is a
// nil dereference the game can recover, on one goroutine or two (the
// workers leave it to the world's goroutine, which fails on it as one
// goroutine would).
func TestMissingSpanPanicsRecoverably(t *testing.T) {
	const n = 200
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			r := storedRig(t, workers, n)
			w := &r.World
			w.Remove(r.Entity(n), ecs.ComponentID[components.Span](w))
			for id := range netIDs(n) {
				r.Push(snap(id, 1001, 2))
			}
			err, ok := recoverFrame(r).(runtime.Error)
			if !ok || !strings.Contains(err.Error(), "nil pointer dereference") {
				t.Fatalf("recovered %v, want a nil dereference", err)
			}
		})
	}
}

package systems_test

import (
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

// mixedStream is variedStream (lags, teleports, outages, late samples)
// with everything else that takes Receive off its shortcut mixed in:
// Complete markers (at the end of a tick's messages and in the middle),
// despawns and new lives, explicit spawns of new NetIDs, duplicates,
// samples older than the entity's newest, numbers out of range, unknown
// kinds, and NetIDs beyond the index's direct table (see
// receiveWorkersConfig).
func mixedStream(n int, t uint32) []systems.Message {
	msgs := variedStream(n, t)
	var out []systems.Message
	for i, m := range msgs {
		id := int(m.NetID)
		switch {
		case id%43 == 0 && t%10 == 0:
			m.Pos[0] = float32(math.NaN()) // refused, and the entity's later messages wait for it
		case id%61 == 0 && t%7 == 0:
			m.Kind = systems.Kind(9) // no such kind
		}
		out = append(out, m)
		if id%47 == 0 {
			out = append(out, m) // a duplicate
		}
		if id%37 == 0 && m.Tick > 3 {
			old := m
			old.Tick -= 3 // older than the entity's newest
			old.Pos[1] += 0.5
			out = append(out, old)
		}
		if id%53 == int(t%53) {
			out = append(out, systems.Message{Kind: systems.Despawn, NetID: m.NetID, Tick: m.Tick})
		}
		if i == len(msgs)/2 && t%4 == 1 {
			out = append(out, systems.Message{Kind: systems.Complete, Tick: t - 1})
		}
	}
	// New NetIDs, some beyond the direct table, spawned explicitly.
	for k := range 3 {
		id := components.NetID(n + int(t)*3 + k)
		if k == 2 {
			id += 5000
		}
		out = append(out, systems.Message{Kind: systems.Spawn, NetID: id, Tick: t, Pos: mgl32.Vec3{float32(id), 1, 0}, Rot: mgl32.QuatIdent()})
	}
	if t%4 == 0 {
		out = append(out, systems.Message{Kind: systems.Complete, Tick: t})
	}
	return out
}

// receiveWorkersConfig is the default config with NetIDs from 2000 on in
// the index's map, and an OnSpawn that gives every third new entity a
// component of the game's (moving it to another archetype), as games do.
func receiveWorkersConfig() nsecs.Config {
	cfg := nsecs.DefaultConfig()
	cfg.Receive.DenseIDs = 2000
	cfg.Receive.OnSpawn = func(w *ecs.World, e ecs.Entity, id components.NetID) {
		if id%3 == 0 {
			w.Add(e, ecs.ComponentID[tagA](w))
		}
	}
	return cfg
}

// Receive storing each frame's messages on several goroutines leaves the
// pipeline in exactly the state one goroutine leaves it in, frame by frame
// (some frames bring two ticks of every entity):
// the same metrics (every count, the occupancy), the same render time
// (the clock was told the same), and for every NetID the same entity
// state, ring samples, Render and Correction. Run with -race: the
// goroutines share nothing they write.
func TestReceiveWorkersStoreTheSame(t *testing.T) {
	const n = 1500
	for _, workers := range []int{2, 3, 7} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			cfg := receiveWorkersConfig()
			one := newRig(t, cfg)
			cfg.Receive.Workers, cfg.Receive.ParallelMin = workers, 100
			many := newRig(t, cfg)
			defer many.Pipe.Finalize()
			var held uint64
			for tick := uint32(1); tick <= 120; tick++ {
				if tick == 50 {
					// The game removes some entities itself.
					for id := components.NetID(59); id <= n; id += 59 {
						for _, r := range []*rig{one, many} {
							if e, ok := r.Pipe.Lookup(id); ok {
								r.World.RemoveEntity(e)
							}
						}
					}
				}
				msgs := mixedStream(n, tick)
				if tick%5 == 3 {
					// Two ticks in one frame: an entity's second message
					// must wait for its first, if that one is held.
					tick++
					msgs = append(msgs, mixedStream(n, tick)...)
				}
				one.Push(msgs...)
				many.Push(msgs...)
				for f := range 3 {
					one.Frame(1.0 / 60)
					many.Frame(1.0 / 60)
					if f == 0 {
						// The frame that took the messages in (the others
						// only draw; their counts are compared next time).
						sameStateN(t, one, many, n+3*121+5000)
					}
				}
				held += uint64(len(msgs))
			}
			// The stream exercised what it is meant to.
			m := one.Pipe.Metrics()
			for _, reason := range []systems.RejectReason{systems.RejectNonFinite, systems.RejectInvalid, systems.RejectDuplicate, systems.RejectDespawned} {
				if m.Rejected[reason] == 0 {
					t.Errorf("nothing refused as %v: %+v", reason, m.Rejected)
				}
			}
			if m.Spawned < n+300 || m.Despawned == 0 || m.Teleports == 0 || m.Accepted < held*3/4 {
				t.Errorf("the stream did not exercise the lifecycle: %+v", m)
			}
		})
	}
}

// A frame with fewer than ParallelMin messages is stored on the world's
// goroutine; invalid Workers and ParallelMin are refused.
func TestReceiveWorkersConfig(t *testing.T) {
	cfg := systems.DefaultReceiveConfig()
	for _, bad := range []int{-1, systems.MaxWorkers + 1} {
		cfg.Workers = bad
		if _, err := systems.NewReceive(cfg); err == nil {
			t.Errorf("Workers = %d accepted", bad)
		}
	}
	cfg.Workers, cfg.ParallelMin = 2, -1
	if _, err := systems.NewReceive(cfg); err == nil {
		t.Error("ParallelMin = -1 accepted")
	}
	c := nsecs.DefaultConfig().WithWorkers(3)
	if c.Receive.Workers != 3 || c.Interpolate.Workers != 3 {
		t.Errorf("WithWorkers(3) set Receive.Workers %d, Interpolate.Workers %d", c.Receive.Workers, c.Interpolate.Workers)
	}
	// 200 entities with ParallelMin 500: no goroutine is started.
	c.Receive.ParallelMin, c.Interpolate.ParallelMin = 500, 500
	before := runtime.NumGoroutine()
	r := newRig(t, c)
	for tick := uint32(1); tick <= 10; tick++ {
		r.Push(variedStream(200, tick)...)
		r.Frame(0.05)
	}
	if got := runtime.NumGoroutine(); got > before {
		t.Errorf("%d goroutines after frames below ParallelMin, %d before", got, before)
	}
}

// A pipeline whose Receive and Interpolate have run on workers, dropped
// without Finalize, does not keep its goroutines (nor its world) alive;
// Finalize stops them at once.
func TestReceiveWorkersStop(t *testing.T) {
	rigWith := func() *rig {
		cfg := nsecs.DefaultConfig().WithWorkers(3)
		cfg.Receive.ParallelMin, cfg.Interpolate.ParallelMin = 10, 10
		r := newRig(t, cfg)
		for tick := uint32(1); tick <= 10; tick++ {
			r.Push(variedStream(200, tick)...)
			r.Frame(0.05)
		}
		return r
	}
	waitFor := func(what string, want int) {
		t.Helper()
		for range 100 {
			runtime.GC()
			if runtime.NumGoroutine() <= want {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("%s: %d goroutines, want at most %d", what, runtime.NumGoroutine(), want)
	}
	before := runtime.NumGoroutine()
	func() {
		r := rigWith()
		if got := runtime.NumGoroutine(); got != before+4 {
			t.Fatalf("%d goroutines with workers, want %d (2 for Receive, 2 for Interpolate)", got, before+4)
		}
		_ = r
	}()
	waitFor("after the pipeline was dropped", before)
	r := rigWith()
	r.Pipe.Finalize()
	waitFor("after Finalize", before)
}

// Frames of a single message, or of a few NetIDs, on more goroutines than
// there are NetIDs, are stored as on one.
func TestReceiveWorkersFewMessages(t *testing.T) {
	cfg := receiveWorkersConfig()
	one := newRig(t, cfg)
	cfg.Receive.Workers, cfg.Receive.ParallelMin = 7, 1
	many := newRig(t, cfg)
	defer many.Pipe.Finalize()
	for tick := uint32(1); tick <= 40; tick++ {
		var msgs []systems.Message
		for id := range components.NetID(1 + tick%4) {
			msgs = append(msgs, snap(id+1, tick, float32(tick)))
		}
		one.Push(msgs...)
		many.Push(msgs...)
		one.Frame(0.05)
		many.Frame(0.05)
		sameStateN(t, one, many, 6)
	}
}

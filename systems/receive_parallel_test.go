package systems_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
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
// state, ring samples, Render and Correction, on 2, 3, 7 and 12
// goroutines (2 and 7 with -short). Run with -race: the goroutines share
// nothing they write.
func TestReceiveWorkersStoreTheSame(t *testing.T) {
	const n = 1500
	workers := []int{2, 3, 7, 12}
	if testing.Short() {
		workers = []int{2, 7} // even and odd shares of the messages
	}
	for _, workers := range workers {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			cfg := receiveWorkersConfig()
			one := newRig(t, cfg)
			cfg.Receive.Workers, cfg.Receive.ParallelMin = workers, 100
			many := newRig(t, cfg)
			defer many.Pipe.Finalize()
			var pushed uint64
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
				pushed += uint64(len(msgs))
			}
			// The stream exercised what it is meant to.
			m := one.Pipe.Metrics()
			for _, reason := range []systems.RejectReason{systems.RejectNonFinite, systems.RejectInvalid, systems.RejectDuplicate, systems.RejectDespawned} {
				if m.Rejected[reason] == 0 {
					t.Errorf("nothing refused as %v: %+v", reason, m.Rejected)
				}
			}
			if m.Spawned < n+300 || m.Despawned == 0 || m.Teleports == 0 || m.Accepted < pushed*3/4 {
				t.Errorf("the stream did not exercise the lifecycle: %+v", m)
			}
		})
	}
}

// A frame with fewer than ParallelMin messages is stored on the world's
// goroutine; invalid Workers and ParallelMin are refused.
func TestReceiveWorkersConfig(t *testing.T) {
	refusesBadWorkers(t, func(workers, parallelMin int) error {
		cfg := systems.DefaultReceiveConfig()
		cfg.Workers, cfg.ParallelMin = workers, parallelMin
		_, err := systems.NewReceive(cfg)
		return err
	})
	c := nsecs.DefaultConfig().WithWorkers(3)
	if c.Receive.Workers != 3 || c.Interpolate.Workers != 3 {
		t.Errorf("WithWorkers(3) set Receive.Workers %d, Interpolate.Workers %d", c.Receive.Workers, c.Interpolate.Workers)
	}
	// 200 entities with ParallelMin 500: no goroutine is started.
	c.Receive.ParallelMin, c.Interpolate.ParallelMin = 500, 500
	before := settledPoolWorkers()
	r := newRig(t, c)
	for tick := uint32(1); tick <= 10; tick++ {
		r.Push(variedStream(200, tick)...)
		r.Frame(0.05)
	}
	if got := poolWorkers(); got > before {
		t.Errorf("%d pool goroutines after frames below ParallelMin, %d before", got, before)
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
	before := settledPoolWorkers()
	func() {
		r := rigWith()
		if got := poolWorkers(); got != before+4 {
			t.Fatalf("%d pool goroutines with workers, want %d (2 for Receive, 2 for Interpolate)", got, before+4)
		}
		_ = r
	}()
	waitForPoolWorkers(t, "after the pipeline was dropped", before)
	r := rigWith()
	r.Pipe.Finalize()
	waitForPoolWorkers(t, "after Finalize", before)
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

// Receive on 2 to 7 goroutines stores what it stores on one, on random
// streams of everything a server, a hostile one included, and the game
// may do (see driveWorkers), with the NetID index's direct table of 0, 3,
// 16 or 2^20 ids.
func TestReceiveWorkersRandomStreams(t *testing.T) {
	seeds := uint64(150)
	if testing.Short() {
		seeds = 10
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		k := 2 + int(seed%6)
		dense := []int{0, 3, 16, 1 << 20}[seed%4]
		src := randSource{rand.New(rand.NewPCG(seed, 7))}
		t.Run(fmt.Sprintf("seed=%d/workers=%d/dense=%d", seed, k, dense), func(t *testing.T) {
			driveWorkers(t, src, k, 3000, driveOpts{predictor: seed%2 == 0, denseIDs: dense})
		})
	}
}

// byteSource is where driveWorkers takes its choices from: a fuzzer's
// bytes or a seeded generator.
type byteSource interface{ byte() byte }

// randSource is a byteSource from a seeded generator.
type randSource struct{ r *rand.Rand }

func (s randSource) byte() byte { return byte(s.r.Uint32()) }

// gameTag is a component the game's OnSpawn adds.
type gameTag struct{ V int }

// workersTestIDs are the NetIDs the driver uses: small dense ids, ids beyond
// the dense table's first allocation (it grows during a frame), ids beyond
// DenseIDs (the map) and ids near the top of the range.
var workersTestIDs = []components.NetID{0, 1, 2, 3, 4, 5, 6, 7, 15, 16, 17, 1023, 1024, 1500, 3000, 4095, 4096, 4097, 8192, 1 << 20, 1<<20 + 1, math.MaxUint32 - 1, math.MaxUint32}

// driveOpts are driveWorkers' settings: whether the game predicts some
// NetIDs, and the size of the NetID index's direct table.
type driveOpts struct {
	predictor bool
	denseIDs  int
}

// driveWorkers runs the same random stream on a pipeline storing on one
// goroutine and one storing on k (ParallelMin 1), comparing them after
// every frame: whole server ticks, in-order and older snapshots,
// duplicates, Spawn, Despawn and Teleport around the stream's tick,
// Complete markers, ticks far from the stream's (and server jumps that
// re-anchor the clock), bad numbers, unknown kinds, entities the game
// removes between frames, predicted entities, and an OnSpawn that adds a
// component, removes the new entity or creates one of the game's; with
// rings that fill and evict, a small entity limit, spawning on Spawn
// only, a small inbox and a short MaxFuture, by the first byte.
func driveWorkers(t *testing.T, src byteSource, k int, steps int, o driveOpts) {
	cfg := nsecs.DefaultConfig()
	setup := src.byte()
	if setup&1 != 0 {
		cfg = cfgAt(20, 24) // drawn far behind: rings fill and evict
	}
	cfg.Receive.DenseIDs = o.denseIDs
	cfg.Receive.Tombstones = 3
	cfg.Receive.MaxEntities = 12 + int(setup>>1&7)
	if setup&0x10 != 0 {
		cfg.Receive.RequireSpawn = true
	}
	if setup&0x20 != 0 {
		cfg.InboxCapacity = 40
	}
	if setup&0x40 != 0 {
		cfg.Receive.MaxFuture = 0.05
	}
	type side struct {
		r    *rig
		pred *systems.Predictor[player, move]
	}
	var sides [2]*side
	mk := func(i int, c nsecs.Config) *side {
		s := &side{}
		c.Receive.OnSpawn = func(w *ecs.World, e ecs.Entity, id components.NetID) {
			switch id % 5 {
			case 0:
				gm := generic.NewMap1[gameTag](w)
				gm.Assign(e, &gameTag{int(id)}) // moves it to another archetype
			case 3:
				if id%3 == 0 {
					w.RemoveEntity(e) // the game does not want it
				}
			case 4:
				// Create an unrelated entity of the game's.
				gm := generic.NewMap1[gameTag](w)
				gm.NewWith(&gameTag{-1})
			}
		}
		s.r = newRig(t, c)
		if o.predictor {
			p, err := nsecs.AddPredictor(s.r.Pipe, playerSim)
			if err != nil {
				t.Fatal(err)
			}
			s.pred = p
		}
		return s
	}
	sides[0] = mk(0, cfg)
	cfg.Receive.Workers, cfg.Receive.ParallelMin = k, 1
	sides[1] = mk(1, cfg)
	defer sides[1].r.Pipe.Finalize()

	base := uint32(1000)
	last := make([]uint32, len(workersTestIDs))
	var pending []systems.Message
	frames := 0
	for step := 0; step < steps; step++ {
		op := src.byte()
		var m systems.Message
		idx := int(src.byte()) % len(workersTestIDs)
		id := workersTestIDs[idx]
		sel := op % 16
		if sel == 1 {
			// A server tick: every NetID at once (most stored by the shares).
			base++
			for j, id := range workersTestIDs {
				if src.byte()%8 == 0 {
					continue
				}
				last[j] = max(last[j]+1, base)
				pending = append(pending, systems.Message{NetID: id, Tick: last[j], Pos: mgl32.Vec3{float32(base), float32(j), 0}, Vel: mgl32.Vec3{20, 0, 0}, HasVelocity: true, Rot: mgl32.QuatIdent()})
			}
			continue
		}
		switch sel {
		case 0:
			// A frame.
			dt := 0.05
			if op&0x10 != 0 {
				dt = float64(src.byte()) / 255 * 0.1
			}
			if op&0x20 != 0 && op&0x40 != 0 && src.byte()%16 == 0 {
				// The server jumps: re-anchor, forgetBeyond.
				if op&0x80 != 0 {
					base += 5000
				} else {
					base -= min(base-10, 600)
				}
			}
			for _, s := range sides {
				s.r.Push(pending...)
				s.r.Frame(dt)
			}
			pending = pending[:0]
			frames++
			sameWorkersState(t, sides[0].r, sides[1].r, frames)
			continue
		case 2:
			// The game removes a remote entity between frames.
			for _, s := range sides {
				if e, ok := s.r.Pipe.Lookup(id); ok && s.r.World.Alive(e) {
					s.r.World.RemoveEntity(e)
				}
			}
			continue
		case 3:
			if o.predictor {
				for _, s := range sides {
					_, _ = s.pred.Spawn(&s.r.World, id, player{X: 1})
				}
				continue
			}
			fallthrough
		case 4, 5, 6, 7, 8:
			stepT := uint32(src.byte() % 4)
			if op&0x80 != 0 {
				last[idx] -= min(stepT, last[idx])
			} else if op&0x40 == 0 {
				last[idx] = min(max(last[idx]+1+stepT, base-3), base+3)
			}
			m = systems.Message{NetID: id, Tick: last[idx], Pos: mgl32.Vec3{float32(src.byte()), 1, 2}, Rot: mgl32.QuatIdent(), HasVelocity: op&0x20 != 0, Vel: mgl32.Vec3{1, 0, 0}, State: uint16(op >> 4)}
			if op&0x10 != 0 {
				m.Rot = mgl32.Quat{}
			}
		case 9:
			m = systems.Message{Kind: systems.Complete, Tick: base - 4 + uint32(src.byte()%8)}
		case 10, 11:
			kinds := [...]systems.Kind{systems.Spawn, systems.Despawn, systems.Teleport, systems.Despawn}
			m = systems.Message{Kind: kinds[int(src.byte())%len(kinds)], NetID: id, Tick: base - 4 + uint32(src.byte()%8), Rot: mgl32.QuatIdent(), Pos: mgl32.Vec3{3, 3, 3}}
		case 12:
			// Ticks far from the stream's.
			ticks := [...]uint32{0, 1, base + 10, base + 40, base + 1000, math.MaxUint32, math.MaxUint32 - 1, base - 900}
			m = systems.Message{Kind: systems.Kind(src.byte() % 4), NetID: id, Tick: ticks[int(src.byte())%len(ticks)], Rot: mgl32.QuatIdent()}
		case 13:
			// Bad numbers.
			bad := [...]float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 2e9, -2e9, 1e9, 0}
			m = systems.Message{NetID: id, Tick: last[idx] + 1, Rot: mgl32.QuatIdent()}
			m.Pos[src.byte()%3] = bad[int(src.byte())%len(bad)]
			if op&0x40 != 0 {
				m.Rot = mgl32.Quat{W: 2, V: mgl32.Vec3{0, 0, 0}} // not unit: normalised by the general path
			}
			if op&0x80 != 0 {
				m.Vel[1], m.HasVelocity = bad[int(src.byte())%len(bad)], true
			}
		case 14:
			// A duplicate of the entity's newest, or many.
			m = systems.Message{NetID: id, Tick: last[idx], Pos: mgl32.Vec3{0, 1, 2}, Rot: mgl32.QuatIdent()}
			for range src.byte() % 4 {
				pending = append(pending, m)
			}
		default:
			m = systems.Message{Kind: systems.Kind(src.byte()), NetID: id, Tick: base}
		}
		pending = append(pending, m)
	}
	for _, s := range sides {
		s.r.Push(pending...)
		s.r.Frame(1.0 / 60)
	}
	sameWorkersState(t, sides[0].r, sides[1].r, frames+1)
}

// sameWorkersState fails t unless the two pipelines agree (see
// sameStateOf) after frame, for every NetID the driver uses.
func sameWorkersState(t *testing.T, a, b *rig, frame int) {
	t.Helper()
	sameStateOf(t, a, b, slices.Values(workersTestIDs), fmt.Sprintf("frame %d: ", frame))
}

// FuzzReceiveWorkers runs driveWorkers on a fuzzer's bytes: whatever the
// stream, storing on several goroutines stores what one goroutine does.
func FuzzReceiveWorkers(f *testing.F) {
	for seed := uint64(1); seed <= 4; seed++ {
		r := rand.New(rand.NewPCG(seed, 9))
		b := make([]byte, 4096)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		k := 2 + int(data[0]%6)
		dense := []int{0, 3, 16, 1 << 20}[data[1]%4]
		src := &fuzzBytes{data: data[2:]}
		driveWorkers(t, src, k, min(len(data), 400), driveOpts{predictor: data[1]&4 != 0, denseIDs: dense})
	})
}

// fuzzBytes is a byteSource reading a fuzzer's bytes, then zeros.
type fuzzBytes struct{ data []byte }

func (s *fuzzBytes) byte() byte {
	if len(s.data) == 0 {
		return 0
	}
	b := s.data[0]
	s.data = s.data[1:]
	return b
}

package systems_test

import (
	"encoding/binary"
	"iter"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

// FuzzReceive feeds the pipeline an arbitrary stream of messages and frame
// times decoded from bytes (any float bit pattern, any kind, ticks around a
// moving base) and checks after every frame: no panic, every message counted
// once, no non-finite value in any Render, render time never decreasing,
// occupancy consistent with the entities present.
func FuzzReceive(f *testing.F) {
	f.Add([]byte{1, 2, 3, 0, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 200})
	f.Add([]byte("\x01\x05\x10\x00\x00\xc0\x7f\x00\x00\x80\x7f\x00\x10\x00\x03\x05\x00\x02\x05\x11"))
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := nsecs.DefaultConfig()
		cfg.Receive.MaxEntities = 6
		cfg.InboxCapacity = 64
		r := newRig(t, cfg)
		renders := generic.NewFilter1[components.Render]().With(generic.T[components.Remote]())
		pushed := 0
		base := uint32(1000)
		prevRT := math.Inf(-1)
		var anchors uint64
		rd := reader{data: data}
		for ops := 0; ops < 400 && !rd.done(); ops++ {
			op := rd.byte()
			if op%5 == 0 {
				dt := float64(rd.byte()) / 255 * 0.2
				switch op % 3 {
				case 1:
					dt = 0
				case 2:
					dt *= 30 // long frames: suspends
				}
				base += uint32(dt * 20)
				r.Frame(dt)
				checkFrame(t, r, renders, pushed, &prevRT, &anchors)
				continue
			}
			m := systems.Message{
				Kind:        systems.Kind(op % 6),
				NetID:       components.NetID(rd.byte() % 9),
				Tick:        uint32(int64(base) + int64(int8(rd.byte()))),
				HasVelocity: op&0x40 != 0,
				Epoch:       rd.byte() % 3,
				State:       uint16(rd.byte()),
			}
			m.Pos = mgl32.Vec3{rd.float(), rd.float(), rd.float()}
			if m.HasVelocity {
				m.Vel = mgl32.Vec3{rd.float(), rd.float(), rd.float()}
			}
			if op&0x80 != 0 {
				m.Rot = mgl32.Quat{W: rd.float(), V: mgl32.Vec3{rd.float(), rd.float(), rd.float()}}
			}
			r.Pipe.Inbox().Push(m)
			pushed++
		}
		r.Frame(1.0 / 60)
		checkFrame(t, r, renders, pushed, &prevRT, &anchors)
	})
}

func checkFrame(t *testing.T, r *rig, renders *generic.Filter1[components.Render], pushed int, prevRT *float64, anchors *uint64) {
	t.Helper()
	r.CheckCounted(pushed)
	if clock := r.Pipe.Clock(); clock.Synced() {
		rt := r.RenderTick()
		// The one documented exception: re-anchoring away from an absurd
		// newest tick (the fuzzer sends ticks seconds apart).
		if math.IsNaN(rt) || rt < *prevRT && clock.Reanchors() == *anchors {
			t.Fatalf("render time went from %v to %v", *prevRT, rt)
		}
		*prevRT, *anchors = rt, clock.Reanchors()
	}
	q := renders.Query(&r.World)
	n := q.Count()
	for q.Next() {
		rd := q.Get()
		for _, v := range [...]float32{rd.Pos[0], rd.Pos[1], rd.Pos[2], rd.Rot.W, rd.Rot.V[0], rd.Rot.V[1], rd.Rot.V[2]} {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				q.Close()
				t.Fatalf("non-finite render %+v", *rd)
			}
		}
	}
	m := r.Pipe.Metrics()
	total := 0
	for _, c := range m.Occupancy {
		if c < 0 {
			t.Fatalf("negative occupancy %v", m.Occupancy)
		}
		total += c
	}
	if total != n || m.Entities != n {
		t.Fatalf("occupancy counts %d entities, metrics %d, world %d", total, m.Entities, n)
	}
}

// reader decodes fuzz bytes, yielding zeros when they run out.
type reader struct {
	data []byte
	pos  int
}

func (r *reader) done() bool { return r.pos >= len(r.data) }

func (r *reader) byte() byte {
	if r.pos >= len(r.data) {
		return 0
	}
	b := r.data[r.pos]
	r.pos++
	return b
}

// float reads either a small exact value (common case) or raw float bits
// (NaN, Inf, huge).
func (r *reader) float() float32 {
	b := r.byte()
	if b&0x80 == 0 {
		return float32(int8(b<<1)) / 4
	}
	var buf [4]byte
	for i := range buf {
		buf[i] = r.byte()
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(buf[:]))
}

// FuzzCommonPath checks Receive's shortcut for the common message (a
// plain Snapshot of a live entity, newer than all its samples) against its
// general path, and Receive on several goroutines against one: three
// pipelines, one with the shortcut, one without, and one storing every
// frame's messages on 2 or 3 goroutines, are fed the same stream (mostly
// sane snapshots, with Complete markers, lifecycle messages, late and
// repeated ticks and garbage mixed in), and after every frame their
// metrics, render times, and every entity's span, ring, Render and
// Correction must be identical.
func FuzzCommonPath(f *testing.F) {
	f.Add([]byte{1, 1, 2, 3, 4, 1, 2, 0, 9, 2, 3, 1, 5, 0, 9, 3, 0, 9, 1, 1, 1})
	f.Add([]byte("\x01\x00\x00\x10\x02\x01\x00\x20\x03\x02\x01\x30\x07\x10\x01\x00\x00\x40\x04\x05\x07\x20\x06\x02\x00\x11\x12\x00\x20"))
	seed := make([]byte, 1, 800)
	for i := range 150 {
		seed = append(seed, byte(1+i%3), byte(i%6), byte(i%2), byte(i*7), byte(i%60))
		if i%6 == 5 {
			seed = append(seed, 0, 40)
		}
	}
	f.Add(seed)
	// Bursts: more samples of one entity in a frame than its ring holds.
	burst := []byte{1}
	for i := range 120 {
		burst = append(burst, 1, byte(i/40), 0, byte(i), byte(i%50))
		if i%30 == 29 {
			burst = append(burst, 0, 10)
		}
	}
	f.Add(burst)
	// Snapshots without a rotation (the identity).
	f.Add([]byte{0, 0x21, 1, 0, 0, 0, 0x21, 1, 0, 0, 0, 0, 20, 0x21, 1, 0, 0, 0, 0, 20, 0x21, 1, 0, 0, 0, 0, 20})
	// A Complete marker between two samples of an entity.
	f.Add([]byte{0, 1, 0, 0, 0, 0, 0, 20, 4, 2, 1, 0, 2, 0, 0, 0, 20, 4, 5, 1, 0, 2, 0, 0, 0, 20})
	f.Fuzz(commonPath)
}

// TestCommonPathRandom runs commonPath on random streams, so that every
// test run (not only fuzzing, which makes slow progress on this target)
// covers the game's own changes to the world between the frames.
func TestCommonPathRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for range 300 {
		data := make([]byte, 600)
		for k := range data {
			data[k] = byte(rng.Uint32())
		}
		commonPath(t, data)
		if t.Failed() {
			t.Logf("stream: %x", data)
			return
		}
	}
}

// TestCommonPathAcrossGrowth: an archetype that runs out of room moves
// every entity's components to larger arrays. A frame that spawns
// hundreds of entities, with samples of older entities in between, makes
// the remote archetype grow several times while the shortcut stores
// samples; they must land where the general way puts them, not in the
// arrays the archetype left. The same with the game's OnSpawn adding a
// component of its own to some (two archetypes growing).
func TestCommonPathAcrossGrowth(t *testing.T) {
	for _, own := range []bool{false, true} {
		cfg := nsecs.DefaultConfig()
		if own {
			cfg.Receive.OnSpawn = func(w *ecs.World, e ecs.Entity, id components.NetID) {
				if id%3 == 0 {
					w.Add(e, ecs.ComponentID[ownTag](w))
				}
			}
		}
		a, b := newRig(t, cfg), newRig(t, cfg)
		generalOnly(b)
		const n, first = 1100, 1100
		for _, r := range []*rig{a, b} {
			r.Push(snap(first, 1000, 0))
			r.Frame(1.0 / 60)
			for id := components.NetID(1); id < n; id++ {
				// A new entity, then newer samples of an older one and
				// of the first.
				r.Push(snap(id, 1000, float32(id)), snap(max(id/2, 1), 1001+uint32(id%2), float32(id)), snap(first, 1001+uint32(id)*8/n, float32(-int(id))))
			}
			r.Frame(1.0 / 60)
		}
		sameStateN(t, a, b, n+1)
		// Every sample of the first entity but the first of each tick
		// replaced the one before.
		if ring := a.Ring(first); ring.Newest().Tick != 1008 || ring.Newest().Pos[0] != -(n-1) || a.Pipe.Metrics().Replaced == 0 {
			t.Fatalf("own components %v: the first entity's newest sample is %+v, want tick 1008 at x %d", own, *ring.Newest(), -(n - 1))
		}
	}
}

// commonPath feeds the stream data describes to three pipelines, one
// storing every message the general way, one with the shortcut and one on
// several goroutines, and fails t unless they stay in the same state.
func commonPath(t *testing.T, data []byte) {
	rd := reader{data: data}
	cfg := nsecs.DefaultConfig()
	setup := rd.byte()
	if setup&1 != 0 {
		// Drawn far behind: rings fill up, and new samples evict the
		// ones the span is built from.
		cfg = cfgAt(20, 24)
	}
	if setup&4 != 0 {
		cfg.Receive.DenseIDs = 3 // NetIDs 3 to 5 in the index's map
	}
	cfg.Receive.MaxEntities = 5
	if setup&8 != 0 {
		// The game gives some new entities a component of its own:
		// remote entities in two archetypes.
		cfg.Receive.OnSpawn = func(w *ecs.World, e ecs.Entity, id components.NetID) {
			if id%2 == 1 {
				w.Add(e, ecs.ComponentID[ownTag](w))
			}
		}
	}
	a, b := newRig(t, cfg), newRig(t, cfg)
	generalOnly(b)
	cfg.Receive.Workers, cfg.Receive.ParallelMin = 2+int(setup>>1&1), 1
	c := newRig(t, cfg)
	defer c.Pipe.Finalize()
	base := uint32(1000)
	var last [6]uint32
	for ops := 0; ops < 500 && !rd.done(); ops++ {
		op := rd.byte()
		var m systems.Message
		switch op % 8 {
		case 0:
			dt := float64(rd.byte()) / 255 * 0.1
			base += uint32(dt * 20)
			a.Frame(dt)
			b.Frame(dt)
			c.Frame(dt)
			sameState(t, a, b)
			sameState(t, a, c)
			continue
		case 1, 2, 3:
			// A sane snapshot: newer than the entity's last (or, with
			// the top bit, a little older), a unit rotation.
			id := rd.byte() % 6
			step := uint32(rd.byte() % 3)
			if op&0x80 != 0 {
				last[id] -= min(step, last[id])
			} else {
				last[id] = max(last[id]+1+step, base-3)
			}
			angle := float64(rd.byte()) / 40
			sin, cos := math.Sincos(angle)
			m = systems.Message{
				NetID:       components.NetID(id),
				Tick:        last[id],
				Pos:         mgl32.Vec3{rd.float(), 0.5, float32(id)},
				Rot:         mgl32.Quat{W: float32(cos), V: mgl32.Vec3{0, float32(sin), 0}},
				HasVelocity: op&0x40 != 0,
				Vel:         mgl32.Vec3{1, 0, 0},
				State:       uint16(op >> 5),
			}
			if op&0x20 != 0 {
				m.Rot = mgl32.Quat{} // never set: the identity
			}
		case 4:
			m = systems.Message{Kind: systems.Complete, Tick: base - 3 + uint32(rd.byte()%6)}
		case 5, 6:
			// Lifecycle and teleports, around the stream's tick.
			kinds := [...]systems.Kind{systems.Spawn, systems.Despawn, systems.Teleport}
			m = systems.Message{
				Kind:  kinds[int(rd.byte())%len(kinds)],
				NetID: components.NetID(rd.byte() % 6),
				Tick:  base - 4 + uint32(rd.byte()%8),
				Rot:   mgl32.QuatIdent(),
			}
		default:
			if op&0x80 != 0 {
				// The game changes the world between frames.
				act := rd.byte()
				for _, r := range []*rig{a, b, c} {
					gameChange(r, components.NetID(act%6), act/6%3)
				}
				continue
			}
			// Garbage: any kind, any numbers.
			m = systems.Message{
				Kind:  systems.Kind(rd.byte() % 6),
				NetID: components.NetID(rd.byte() % 6),
				Tick:  uint32(int64(base) + int64(int8(rd.byte()))),
				Pos:   mgl32.Vec3{rd.float(), rd.float(), rd.float()},
				Vel:   mgl32.Vec3{rd.float(), rd.float(), rd.float()},
				Rot:   mgl32.Quat{W: rd.float(), V: mgl32.Vec3{rd.float(), rd.float(), rd.float()}},
			}
		}
		a.Pipe.Inbox().Push(m)
		b.Pipe.Inbox().Push(m)
		c.Pipe.Inbox().Push(m)
	}
	a.Frame(1.0 / 60)
	b.Frame(1.0 / 60)
	c.Frame(1.0 / 60)
	sameState(t, a, b)
	sameState(t, a, c)
}

// ownTag is a component of the game's own.
type ownTag struct{}

// gameChange makes a change to the world that a game may make to the
// remote entity of id: remove it itself (0: the last entity of its
// archetype moves into its row), or add (1) or remove (2) a component of
// its own (it moves to another archetype).
func gameChange(r *rig, id components.NetID, what byte) {
	e, ok := r.Pipe.Lookup(id)
	if !ok {
		return
	}
	tag := ecs.ComponentID[ownTag](&r.World)
	switch has := r.World.Has(e, tag); {
	case what == 0:
		r.World.RemoveEntity(e)
	case what == 1 && !has:
		r.World.Add(e, tag)
	case what == 2 && has:
		r.World.Remove(e, tag)
	}
}

// The shortcut takes a sample newer than the ring's newest, which a span
// built from the ring cannot be newer than. Dropping the ring's newest
// samples (a new timeline) can leave the span beyond the ring's newest
// sample until Interpolate rebuilds it; a sample then arriving between
// the two is older than the span, and must be refused as stale on either
// path. No fuzzed stream changes the timeline, so this test does.
func TestCommonPathAfterTrim(t *testing.T) {
	a, b := newRig(t, nsecs.DefaultConfig()), newRig(t, nsecs.DefaultConfig())
	receives := map[*rig]*systems.Receive{a: a.Receive(), b: b.Receive()}
	generalOnly(b)
	for tick := uint32(1000); tick < 1060; tick++ {
		for _, r := range []*rig{a, b} {
			r.Push(snap(1, tick, float32(tick)))
			for range 3 {
				r.Frame(1.0 / 60)
			}
		}
	}
	sameState(t, a, b)
	spans := generic.NewMap1[components.Span](&a.World)
	from := spans.Get(a.Entity(1)).From
	horizon := from - 4
	stale := a.Pipe.Metrics().Rejected[systems.RejectStale]
	for _, r := range []*rig{a, b} {
		systems.ForgetBeyond(receives[r], &r.World, float64(horizon))
		r.Push(snap(1, horizon+2, 0))
		r.Frame(1.0 / 60)
	}
	sameState(t, a, b)
	if got := a.Pipe.Metrics().Rejected[systems.RejectStale] - stale; got != 1 {
		t.Fatalf("a sample between the trimmed ring (newest %d) and the span (from %d): %d refused as stale, want 1",
			horizon, from, got)
	}
}

// sameState fails t unless the two pipelines are in the same state (see
// sameStateOf) for NetIDs 0 to 5.
func sameState(t *testing.T, a, b *rig) {
	t.Helper()
	sameStateN(t, a, b, 6)
}

// sameStateN is sameState for NetIDs 0 to n-1.
func sameStateN(t *testing.T, a, b *rig, n int) {
	t.Helper()
	sameStateOf(t, a, b, func(yield func(components.NetID) bool) {
		for id := range components.NetID(n) {
			if !yield(id) {
				return
			}
		}
	}, "")
}

// sameStateOf fails t unless the two pipelines are in the same state:
// their metrics, render times and entity counts, and for the NetIDs ids
// the entity, its span, ring samples, Render and Correction; and no span
// of b keeps SpanHeld (which Receive clears in the frame that sets it).
// where starts every failure message.
func sameStateOf(t *testing.T, a, b *rig, ids iter.Seq[components.NetID], where string) {
	t.Helper()
	if ma, mb := *a.Pipe.Metrics(), *b.Pipe.Metrics(); ma != mb {
		t.Fatalf("%smetrics differ:\n%+v\n%+v", where, ma, mb)
	}
	if ra, rb := a.RenderTick(), b.RenderTick(); ra != rb && !(math.IsNaN(ra) && math.IsNaN(rb)) {
		t.Fatalf("%srender ticks differ: %v, %v", where, ra, rb)
	}
	if na, nb := a.World.Stats().Entities.Used, b.World.Stats().Entities.Used; na != nb {
		t.Fatalf("%s%d entities, %d", where, na, nb)
	}
	spanID := ecs.ComponentID[components.Span](&a.World)
	spanIDb := ecs.ComponentID[components.Span](&b.World)
	for id := range ids {
		ea, okA := a.Pipe.Lookup(id)
		eb, okB := b.Pipe.Lookup(id)
		if okA != okB {
			t.Fatalf("%sNetID %d: known %v, %v", where, id, okA, okB)
		}
		if !okA {
			continue
		}
		ha, hb := a.World.Has(ea, spanID), b.World.Has(eb, spanIDb)
		if ha != hb {
			t.Fatalf("%sNetID %d: has span %v, %v", where, id, ha, hb)
		}
		if ha {
			sa, sb := *(*components.Span)(a.World.Get(ea, spanID)), *(*components.Span)(b.World.Get(eb, spanIDb))
			if sa != sb {
				t.Fatalf("%sNetID %d: spans differ:\n%+v\n%+v", where, id, sa, sb)
			}
			ringA, _ := systems.RingOf(&a.World, ea)
			ringB, _ := systems.RingOf(&b.World, eb)
			for i := range ringA.Len() {
				if *ringA.At(i) != *ringB.At(i) {
					t.Fatalf("%sNetID %d: sample %d differs:\n%+v\n%+v", where, id, i, *ringA.At(i), *ringB.At(i))
				}
			}
		}
		if ra, rb := a.RenderOf(ea), b.RenderOf(eb); ra != rb {
			t.Fatalf("%sNetID %d: renders differ:\n%+v\n%+v", where, id, ra, rb)
		}
		if ca, cb := a.Correction(id), b.Correction(id); ca != cb {
			t.Fatalf("%sNetID %d: corrections differ:\n%+v\n%+v", where, id, ca, cb)
		}
	}
	q := generic.NewFilter1[components.Span]().Query(&b.World)
	for q.Next() {
		if q.Get().Flags&components.SpanHeld != 0 {
			q.Close()
			t.Fatalf("%sa span keeps SpanHeld", where)
		}
	}
}

package server

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/wire"
)

// rewindServer is a session with history, one client and a target
// (NetID 1, a 0.5 sphere) moving along x at 1 unit a tick: at tick t it is
// at x = t.
func rewindServer(t testing.TB, ticks uint32, window time.Duration) *Session {
	t.Helper()
	s := newServer(t, SessionConfig{History: &HistoryConfig{Window: window}})
	s.Connect(1)
	for tick := uint32(1); tick <= ticks; tick++ {
		s.BeginTick(tick)
		if err := s.SetEntity(wire.Entity{NetID: 1, Pos: mgl32.Vec3{float32(tick), 0, 0}}); err != nil {
			t.Fatal(err)
		}
		if tick == 1 && !s.SetShape(1, Shape{Kind: Sphere, Radius: 0.5}) {
			t.Fatal("SetShape")
		}
	}
	return s
}

// shoot casts a ray along +y from x, below the target's path.
func shoot(s *Session, r *Rewind, x float32) (Hit, bool) {
	return s.Raycast(r, mgl32.Vec3{x, -10, 0}, mgl32.Vec3{0, 1, 0}, 100, 0)
}

// A shot is judged where the client drew the target: at its render time,
// between recorded ticks, not where the target is now.
func TestRewindRaycast(t *testing.T) {
	s := rewindServer(t, 20, 0)
	drawn := wire.Drawn{Time: wire.DrawnTime(15.5)}
	r, err := s.Rewind(1, &drawn)
	if err != nil || r.Tick != 15.5 || r.Clamped {
		t.Fatalf("rewind %+v %v", r, err)
	}
	hit, ok := shoot(s, &r, 15.5)
	if !ok || hit.NetID != 1 || math.Abs(float64(hit.Distance)-9.5) > 1e-3 {
		t.Fatalf("at the drawn position: %+v %v", hit, ok)
	}
	if _, ok := shoot(s, &r, 20); ok {
		t.Fatal("hit where the target is now, not where it was drawn")
	}
	now := Rewind{Tick: 20}
	if _, ok := shoot(s, &now, 20); !ok {
		t.Fatal("no hit at the present position for the present time")
	}
	// An entity drawn later (sent less often) is judged at its own time.
	drawn.Late = []wire.Late{{NetID: 1, Behind: 3 * 256}}
	r, _ = s.Rewind(1, &drawn)
	if _, ok := shoot(s, &r, 12.5); !ok {
		t.Fatal("a late entity was not judged at its own time")
	}
	if _, ok := shoot(s, &r, 15.5); ok {
		t.Fatal("a late entity was judged at the render time")
	}
	// Pose says where the shot was judged: the late entity's own time.
	if pos, rot, ok := s.Pose(&r, 1); !ok || pos != (mgl32.Vec3{12.5, 0, 0}) || rot != mgl32.QuatIdent() {
		t.Fatalf("pose %v %v %v", pos, rot, ok)
	}
	if _, _, ok := s.Pose(&r, 2); ok {
		t.Fatal("a pose for an entity the world does not hold")
	}
	// The shooter is not its own target.
	if _, ok := s.Raycast(&now, mgl32.Vec3{20, -10, 0}, mgl32.Vec3{0, 1, 0}, 100, 1); ok {
		t.Fatal("hit the entity ignored")
	}
}

// The server trusts a drawn time only so far: older than the round trip
// and the longest delay allow, or in the future, it is clamped and
// counted.
func TestRewindBoundedTrust(t *testing.T) {
	s := rewindServer(t, 60, 2*time.Second) // a window longer than trust allows
	s.mu.Lock()
	s.clients[1].stats.RTT, s.clients[1].stats.HasRTT = 100, true
	s.mu.Unlock()
	// 100 ms round trip + 900 ms delay at 20 Hz: 20 ticks, plus one.
	for _, c := range []struct {
		claim, want float64
		clamped     bool
	}{
		{50, 50, false}, {39.5, 39.5, false}, {10, 39, true}, {61, 60, true},
	} {
		drawn := wire.Drawn{Time: wire.DrawnTime(c.claim)}
		r, _ := s.Rewind(1, &drawn)
		if r.Tick != c.want || r.Clamped != c.clamped {
			t.Errorf("claimed %v: judged at %v (clamped %v), want %v (%v)", c.claim, r.Tick, r.Clamped, c.want, c.clamped)
		}
	}
	drawn := wire.Drawn{Time: wire.DrawnTime(50), Late: []wire.Late{{NetID: 1, Behind: 40 * 256}}}
	r, _ := s.Rewind(1, &drawn)
	if r.Late()[0].Behind != 11*256 || !r.Clamped {
		t.Fatalf("late entity claimed 40 ticks behind: %+v", r.Late())
	}
	if st, _ := s.Stats(1); st.DrawnClamped != 3 {
		t.Fatalf("%d clamped, want 3", st.DrawnClamped)
	}
	if _, err := newServer(t, SessionConfig{}).Rewind(1, &drawn); err == nil {
		t.Fatal("Rewind without history")
	}
}

// An entity the client drew between samples more than a tick apart is
// judged on the same straight line, not on its true path in between;
// a span the server cannot allow is dropped and counted.
func TestRewindSpan(t *testing.T) {
	s := newServer(t, SessionConfig{History: &HistoryConfig{}})
	s.Connect(1)
	for tick := uint32(1); tick <= 16; tick++ {
		s.BeginTick(tick)
		y := float32(0)
		if tick == 12 {
			y = 3 // a detour the client never saw: it had ticks 10 and 14
		}
		s.SetEntity(wire.Entity{NetID: 1, Pos: mgl32.Vec3{float32(tick), y, 0}})
		if tick == 1 {
			s.SetShape(1, Shape{Kind: Sphere, Radius: 0.5})
		}
	}
	from := func(x, y float32) mgl32.Vec3 { return mgl32.Vec3{x, y, 10} }
	down := mgl32.Vec3{0, 0, -1}

	// Drawn at 12, one tick behind a render time of 13, between 10 and 14.
	drawn := wire.Drawn{Time: wire.DrawnTime(13), Late: []wire.Late{{NetID: 1, Behind: 256, Span: 4, Back: 2}}}
	r, _ := s.Rewind(1, &drawn)
	if _, ok := s.Raycast(&r, from(12, 0), down, 20, 0); !ok || r.Clamped {
		t.Fatalf("not struck where the client drew it (clamped %v)", r.Clamped)
	}
	if _, ok := s.Raycast(&r, from(12, 3), down, 20, 0); ok {
		t.Fatal("struck on the path the client did not draw")
	}
	// Without the span, the record of tick 12 decides.
	drawn.Late[0].Span, drawn.Late[0].Back = 0, 0
	r, _ = s.Rewind(1, &drawn)
	if pos, _, _ := s.Pose(&r, 1); pos != (mgl32.Vec3{12, 3, 0}) {
		t.Fatalf("pose without a span %v", pos)
	}
	// A span reaching past the current tick is dropped.
	drawn.Late[0] = wire.Late{NetID: 1, Behind: 256, Span: 8, Back: 2}
	r, _ = s.Rewind(1, &drawn)
	if !r.Clamped || r.Late()[0].Span != 0 {
		t.Fatalf("a span into the future: %+v clamped %v", r.Late(), r.Clamped)
	}
	if st, _ := s.Stats(1); st.DrawnClamped != 1 {
		t.Fatalf("%d clamped, want 1", st.DrawnClamped)
	}
}

// Capsules and boxes, rotated, are struck where they are.
func TestRaycastShapes(t *testing.T) {
	s := newServer(t, SessionConfig{History: &HistoryConfig{}})
	s.BeginTick(1)
	quarter := mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{0, 0, 1}) // x → y
	s.SetEntity(wire.Entity{NetID: 1, Pos: mgl32.Vec3{0, 0, 0}, Rot: quarter})
	s.SetEntity(wire.Entity{NetID: 2, Pos: mgl32.Vec3{10, 0, 0}, Rot: quarter})
	s.SetShape(1, Shape{Kind: Capsule, Radius: 0.5, Half: 2, Axis: mgl32.Vec3{1, 0, 0}}) // rotated: along y
	s.SetShape(2, Shape{Kind: Box, Extents: mgl32.Vec3{3, 1, 1}})                        // rotated: long along y
	r := Rewind{Tick: 1}
	for _, c := range []struct {
		origin, dir mgl32.Vec3
		id          uint32
		dist        float32
		hit         bool
	}{
		{mgl32.Vec3{-5, 2, 0}, mgl32.Vec3{1, 0, 0}, 1, 4.5, true},  // the capsule's side, near its end
		{mgl32.Vec3{0, 10, 0}, mgl32.Vec3{0, -1, 0}, 1, 7.5, true}, // its rounded end
		{mgl32.Vec3{-5, 3.5, 0}, mgl32.Vec3{1, 0, 0}, 0, 0, false}, // past its end, and above the box
		{mgl32.Vec3{10, -10, 0}, mgl32.Vec3{0, 1, 0}, 2, 7, true},  // the box's end
		{mgl32.Vec3{7, 2.5, 0}, mgl32.Vec3{1, 0, 0}, 2, 2, true},   // its side
		{mgl32.Vec3{7, 3.5, 0}, mgl32.Vec3{1, 0, 0}, 0, 0, false},  // above it
		{mgl32.Vec3{0, 0, 0}, mgl32.Vec3{1, 0, 0}, 1, 0, true},     // from inside
	} {
		hit, ok := s.Raycast(&r, c.origin, c.dir, 100, 0)
		if ok != c.hit || (ok && (hit.NetID != c.id || math.Abs(float64(hit.Distance-c.dist)) > 1e-3)) {
			t.Errorf("ray from %v along %v: %+v %v, want %d at %v (%v)", c.origin, c.dir, hit, ok, c.id, c.dist, c.hit)
		}
	}
	// An unbounded ray is the whole world's length, never NaN.
	if hit, ok := s.Raycast(&r, mgl32.Vec3{-5, 2, 0}, mgl32.Vec3{1, 0, 0}, float32(math.Inf(1)), 0); !ok || hit.NetID != 1 || math.Abs(float64(hit.Distance-4.5)) > 1e-3 {
		t.Errorf("unbounded ray: %+v %v, want 1 at 4.5", hit, ok)
	}
	if _, ok := s.Raycast(&r, mgl32.Vec3{-5, 2, 0}, mgl32.Vec3{1, 0, 0}, float32(math.NaN()), 0); ok {
		t.Error("a ray of NaN length hit")
	}
	got := s.Overlap(&r, mgl32.Vec3{5, 0, 0}, 4.2, 0, nil)
	if !slices.Equal(got, []uint32{2}) {
		t.Fatalf("overlap %v, want the box only", got)
	}
	got = s.Overlap(&r, mgl32.Vec3{5, 0, 0}, 5, 0, got[:0])
	slices.Sort(got)
	if !slices.Equal(got, []uint32{1, 2}) {
		t.Fatalf("overlap %v, want both", got)
	}
}

// With interest management and MaxSpeed, ray casts look at the cells near
// the ray only, and find what every-slot casts find.
func TestRaycastGridMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	mk := func(grid bool) *Session {
		cfg := SessionConfig{History: &HistoryConfig{MaxSpeed: 10}}
		if grid {
			cfg.Interest = &InterestConfig{CellSize: 8}
		}
		return newServer(t, cfg)
	}
	a, b := mk(false), mk(true)
	type mover struct{ p, v mgl32.Vec3 }
	movers := make([]mover, 800)
	for i := range movers {
		movers[i] = mover{mgl32.Vec3{rng.Float32() * 200, rng.Float32() * 200, 0},
			mgl32.Vec3{rng.Float32()*1 - 0.5, rng.Float32()*1 - 0.5, 0}}
	}
	for tick := uint32(1); tick <= 30; tick++ {
		for _, s := range []*Session{a, b} {
			s.BeginTick(tick)
			for i, m := range movers {
				s.SetEntity(wire.Entity{NetID: uint32(i + 1), Pos: m.p.Add(m.v.Mul(float32(tick)))})
				if tick == 1 {
					s.SetShape(uint32(i+1), Shape{Kind: Sphere, Radius: 1})
				}
			}
		}
	}
	for range 300 {
		r := Rewind{Tick: 12 + rng.Float64()*17}
		o := mgl32.Vec3{rng.Float32() * 200, rng.Float32() * 200, 0}
		d := mgl32.Vec3{rng.Float32()*2 - 1, rng.Float32()*2 - 1, 0}
		ha, oka := a.Raycast(&r, o, d, 50, 0)
		hb, okb := b.Raycast(&r, o, d, 50, 0)
		if oka != okb || ha.NetID != hb.NetID {
			t.Fatalf("brute force %+v %v, grid %+v %v", ha, oka, hb, okb)
		}
	}
}

// History keeps no more than its window, and forgets despawned entities.
func TestHistoryWindow(t *testing.T) {
	s := rewindServer(t, 100, 0)
	r := Rewind{Tick: 50}
	if _, ok := shoot(s, &r, 50); ok {
		t.Fatal("a pose older than the window was kept")
	}
	r.Tick = 81
	if _, ok := shoot(s, &r, 81); !ok {
		t.Fatal("a pose within the window was lost")
	}
	s.Despawn(1)
	if _, ok := shoot(s, &r, 81); ok {
		t.Fatal("a despawned entity was struck")
	}
	if s.SetShape(1, Shape{Kind: Sphere, Radius: 1}) || s.SetShape(2, Shape{Kind: Sphere, Radius: -1}) {
		t.Fatal("SetShape of a gone entity, or of a bad shape")
	}
}

// A client that acknowledges each packet 60 packets late, with that
// packet's send time, claims a round trip of a second on a 5 ms link, to
// be let rewind further than its own delay. Acknowledging no tick, it is
// measured no round trip at all; acknowledging recent ticks, it is held
// to the time since the tick it acknowledged, and its claim of having
// drawn 110 ticks ago is clamped, as an honest client's is.
// Acknowledging ticks 30 old, the oldest it can pick out of the last
// Wire.History (32), it is measured no more than their age, and takes
// its deltas against them.
func TestForgedRoundTripWidensNoRewind(t *testing.T) {
	const rate = 60
	for _, acks := range []string{"no tick", "recent ticks", "ticks 30 old"} {
		s := newServer(t, SessionConfig{TickRate: rate, History: &HistoryConfig{Window: 3 * time.Second}})
		for id := ClientID(1); id <= 2; id++ {
			if err := s.Connect(id); err != nil {
				t.Fatal(err)
			}
			if err := s.Assign(id, uint32(id)); err != nil {
				t.Fatal(err)
			}
		}
		sent := map[uint16]uint32{}
		var seq [3]uint16
		now := func(tick uint32) uint32 { return tick * 1000 / rate }
		for tick := uint32(1); tick <= 300; tick++ {
			if err := s.BeginTick(tick); err != nil {
				t.Fatal(err)
			}
			s.SetEntity(wire.Entity{NetID: 1})
			s.SetEntity(wire.Entity{NetID: 2})
			for id := ClientID(1); id <= 2; id++ {
				packets, err := s.Snapshot(id, now(tick), nil)
				if err != nil {
					t.Fatal(err)
				}
				newest, received := wire.Header{}, false
				for _, p := range packets {
					h, _, err := wire.ParseHeader(p)
					if err != nil {
						t.Fatal(err)
					}
					if id == 2 {
						sent[h.Seq] = h.Sent
					}
					newest, received = h, true
				}
				in := wire.InputPacket{FirstSeq: tick, Inputs: [][]byte{{1}}}
				switch {
				case id == 1 || acks == "recent ticks":
					in.AckedTick, in.HasAckedTick = tick, received
				case acks == "ticks 30 old" && tick > 30:
					in.AckedTick, in.HasAckedTick = tick-30, true
				}
				h := wire.Header{Seq: seq[id], Sent: now(tick), HasAck: received, Ack: newest.Seq, HasEcho: received, Echo: newest.Sent}
				if id == 2 && received && newest.Seq >= 60 {
					h.Ack, h.Echo = newest.Seq-60, sent[newest.Seq-60]
				}
				seq[id]++
				b, err := wire.AppendInput(nil, &h, &in, nil)
				if err != nil {
					t.Fatal(err)
				}
				if err := s.Receive(id, b, now(tick)+5); err != nil { // a 5 ms round trip
					t.Fatal(err)
				}
			}
		}
		for id := ClientID(1); id <= 2; id++ {
			st, _ := s.Stats(id)
			r, err := s.Rewind(id, &wire.Drawn{Time: (300 - 110) << 8}) // drawn 110 ticks ago, it says
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("client %d (the other acknowledges %s): RTT %d ms (measured %v), rewinds %.1f ticks, clamped %v", id, acks, st.RTT, st.HasRTT, 300-r.Tick, r.Clamped)
			if acks == "ticks 30 old" && id == 2 {
				if !st.HasRTT || st.RTT > 31*1000/rate || st.FullSnapshots > 32 { // full until its first acknowledgement, at tick 31
					t.Errorf("acknowledging ticks 30 old: RTT %d ms (measured %v), %d full snapshots; want at most the ticks' age, %d ms, and deltas", st.RTT, st.HasRTT, st.FullSnapshots, 31*1000/rate)
				}
				continue
			}
			if !r.Clamped || 300-r.Tick > 60 {
				t.Errorf("client %d rewinds %.1f ticks (clamped %v) on a 5 ms link", id, 300-r.Tick, r.Clamped)
			}
			if st.HasRTT && st.RTT > 20 {
				t.Errorf("client %d is measured a round trip of %d ms on a 5 ms link", id, st.RTT)
			}
		}
	}
}

// A client that acknowledges no tick for 40 s fills the server's ring of
// sent ticks with full snapshots a second apart; acknowledging the one
// sent 9.5 s before, and echoing its packet, it would be measured a round
// trip of 9.5 s, and with it be let rewind that far and be sent full
// snapshots every tick for as long. A tick older than Wire.History ticks
// measures nothing, and however long a round trip, full snapshots go
// every tick for a second at most.
func TestStaleAcknowledgementMeasuresNoRoundTrip(t *testing.T) {
	const rate = 20
	c := newHandClient(t, SessionConfig{TickRate: rate})
	for range 40 * rate {
		c.step(20, func(now uint32) { c.send(wire.Header{}, wire.InputPacket{}, now) })
	}
	var old handPacket
	for _, l := range c.log {
		if c.now()-l.at <= 9600 {
			old = l
			break
		}
	}
	c.step(20, func(now uint32) {
		c.send(wire.Header{HasAck: true, Ack: old.seq, HasEcho: true, Echo: old.at}, wire.InputPacket{AckedTick: old.tick, HasAckedTick: true}, now)
	})
	if st, _ := c.s.Stats(1); st.HasRTT {
		t.Errorf("acknowledging tick %d, sent %d ms before, measured a round trip of %d ms", old.tick, c.now()-old.at, st.RTT)
	}
	// Deltas for 5 s, then a resync and nothing acknowledged for 10 s.
	for range 5 * rate {
		c.step(20, func(now uint32) { c.send(wire.Header{}, wire.InputPacket{AckedTick: c.tick, HasAckedTick: true}, now) })
	}
	c.send(wire.Header{}, wire.InputPacket{Resync: true}, c.now())
	fulls := 0
	for range 10 * rate {
		if c.step(20, func(now uint32) { c.send(wire.Header{}, wire.InputPacket{}, now) }) {
			fulls++
		}
	}
	if fulls > 35 {
		t.Errorf("after a resync, %d full snapshots in %d ticks; want at most 35", fulls, 10*rate)
	}
}

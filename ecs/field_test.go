package ecs_test

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/client"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/wire"
)

// The custom fields of the end-to-end tests: a health that drains, an aim
// angle that keeps turning across ±π, a team switched at its tick, and a
// size held past the newest sample.
type (
	Health float32
	Aim    float32
	Team   float32
	Size   float32
)

const aimStep = 2 * math.Pi / 4096

var fieldSpecs = []wire.FieldSpec{
	{Min: 0, Max: 100, Precision: 0.01},
	{Min: -math.Pi, Max: math.Pi, Precision: aimStep, Wrap: true},
	{Min: 0, Max: 15, Precision: 1},
	{Min: 0, Max: 10, Precision: 0.001},
}

// The server's truth at tick t, for entity k (1 or 2).
func healthAt(k int, t float64) float64 { return 90 - 0.25*t - float64(k) }
func aimAt(k int, t float64) float64 {
	return math.Remainder(2.9+0.05*t+float64(k), 2*math.Pi)
}
func teamAt(k int, t uint32) float32  { return float32((t/7 + uint32(k)) % 16) }
func sizeAt(k int, t float64) float64 { return 2 + 0.02*t + float64(k) }

// fieldRig is a server session, a client session and a pipeline with the
// four fields, delivering each tick's packets at once.
type fieldRig struct {
	t      *testing.T
	r      *rig
	srv    *server.Session
	cli    *client.Session
	tick   uint32
	outage bool // packets are lost
	pkts   [][]byte

	health generic.Map1[Health]
	aim    generic.Map1[Aim]
	team   generic.Map1[Team]
	size   generic.Map1[Size]
}

func newFieldRig(t *testing.T) *fieldRig {
	t.Helper()
	f := &fieldRig{t: t, r: newRig(t, cfgAt(20, 3))}
	p := f.r.Pipe
	w := wire.Config{Quantizer: wire.Quantizer{Fields: fieldSpecs}}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := nsecs.AddField(p, systems.FieldConfig[Health]{Index: 0, Blend: systems.Linear, Min: 0, Max: 100, Extrapolate: true})
	must(err)
	_, err = nsecs.AddField(p, systems.FieldConfig[Aim]{Index: 1, Blend: systems.Angle, Min: -math.Pi, Max: math.Pi, Extrapolate: true})
	must(err)
	_, err = nsecs.AddField(p, systems.FieldConfig[Team]{Index: 2, Blend: systems.Discrete})
	must(err)
	_, err = nsecs.AddField(p, systems.FieldConfig[Size]{Index: 3, Blend: systems.Linear})
	must(err)
	f.srv, err = server.NewSession(server.SessionConfig{Wire: w})
	must(err)
	must(f.srv.Connect(1))
	f.cli, err = client.NewSession(client.SessionConfig{Wire: w, Inbox: p.Inbox(), Fields: p.FieldInbox()})
	must(err)
	world := &f.r.World
	f.health, f.aim = generic.NewMap1[Health](world), generic.NewMap1[Aim](world)
	f.team, f.size = generic.NewMap1[Team](world), generic.NewMap1[Size](world)
	return f
}

// serverTick runs the next server tick: the client's input packet
// (acknowledging what it holds, so that snapshots are deltas), the
// entities' states, and the snapshot to the client.
func (f *fieldRig) serverTick() {
	f.tick++
	ms := f.tick * 50
	in, err := f.cli.InputPacket(ms, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	if !f.outage {
		_ = f.srv.Receive(1, in, ms)
	}
	if err := f.srv.BeginTick(f.tick); err != nil {
		f.t.Fatal(err)
	}
	tt := float64(f.tick)
	for k := 1; k <= 2; k++ {
		e := wire.Entity{NetID: uint32(k), Pos: mgl32.Vec3{float32(tt) * 0.1, float32(k), 0}}
		e.Fields = [wire.MaxFields]float32{float32(healthAt(k, tt)), float32(aimAt(k, tt)), teamAt(k, f.tick), float32(sizeAt(k, tt))}
		if err := f.srv.SetEntity(e); err != nil {
			f.t.Fatal(err)
		}
	}
	f.pkts, err = f.srv.Snapshot(1, ms, f.pkts[:0])
	if err != nil {
		f.t.Fatal(err)
	}
	if f.outage {
		return
	}
	for _, pk := range f.pkts {
		if err := f.cli.Receive(pk, ms); err != nil {
			f.t.Fatal(err)
		}
	}
}

// run runs frames at 60 fps for seconds, a server tick every 50 ms, and
// calls check after every frame.
func (f *fieldRig) run(seconds float64, check func(frame int)) {
	frames := int(seconds * 60)
	for i := 0; i < frames; i++ {
		for float64(f.tick+1)/20 <= float64(f.r.Pipe.Metrics().Frames+1)/60 {
			f.serverTick()
		}
		f.r.Frame(1.0 / 60)
		if check != nil {
			check(i)
		}
	}
}

// entity returns the pipeline's entity k, its span and render.
func (f *fieldRig) entity(k int) (ecs.Entity, *components.Span, components.Render) {
	e := f.r.Entity(components.NetID(k))
	spans := generic.NewMap1[components.Span](&f.r.World)
	return e, spans.Get(e), f.r.RenderOf(e)
}

func shortDiff(a, b float64) float64 { return math.Remainder(a-b, 2*math.Pi) }

// TestFieldsEndToEnd: four fields through server.Session, client.Session
// and the pipeline: the drawn health is the server's at the render time
// within its quantisation, the aim too and without a jump where it wraps
// at ±π, the team switches at its sample's tick, and the records that
// changed no field cost no more than without fields.
func TestFieldsEndToEnd(t *testing.T) {
	f := newFieldRig(t)
	checked, wraps := 0, 0
	prevAim := map[int]float64{}
	f.run(8, func(frame int) {
		if frame < 30 {
			return
		}
		for k := 1; k <= 2; k++ {
			e, span, render := f.entity(k)
			if render.Flags&components.Visible == 0 || span.Mode != components.SpanLerp {
				t.Fatalf("frame %d entity %d: not a visible lerp (mode %v flags %v)", frame, k, span.Mode, render.Flags)
			}
			rt := f.r.RenderTick() - float64(span.Lag)
			if h := float64(*f.health.Get(e)); math.Abs(h-healthAt(k, rt)) > 0.005+1e-4 {
				t.Fatalf("frame %d entity %d: health %v, truth %v at tick %.3f", frame, k, h, healthAt(k, rt), rt)
			}
			a := float64(*f.aim.Get(e))
			if d := shortDiff(a, aimAt(k, rt)); math.Abs(d) > aimStep/2+1e-4 {
				t.Fatalf("frame %d entity %d: aim %v, truth %v at tick %.3f (off %v)", frame, k, a, aimAt(k, rt), rt, d)
			}
			if a < -math.Pi || a >= math.Pi {
				t.Fatalf("aim %v drawn outside [-π, π)", a)
			}
			if p, ok := prevAim[k]; ok {
				// 0.05 rad per tick, 1/3 tick per frame
				if d := math.Abs(shortDiff(a, p)); d > 0.05/3*1.2 {
					t.Fatalf("frame %d entity %d: aim jumped %v (from %v to %v)", frame, k, d, p, a)
				}
				if math.Abs(a-p) > math.Pi {
					wraps++
				}
			}
			prevAim[k] = a
			if got, want := *f.team.Get(e), Team(teamAt(k, uint32(math.Floor(rt)))); got != want {
				t.Fatalf("frame %d entity %d: team %v at tick %.3f, want %v (switched at its tick)", frame, k, got, rt, want)
			}
			checked++
		}
	})
	if wraps < 2 {
		t.Errorf("the aim wrapped %d times, want at least 2 (the test must cross ±π)", wraps)
	}
	m := f.r.Pipe.Metrics()
	if m.FieldsAccepted == 0 || m.FieldsRejected != ([systems.NumRejectReasons]uint64{}) {
		t.Errorf("fields accepted %d, rejected %v", m.FieldsAccepted, m.FieldsRejected)
	}
	st, _ := f.srv.Stats(1)
	t.Logf("%d entity-frames checked, aim wrapped %d times; fields accepted %d; client: %+v; server: %d bytes", checked, wraps, m.FieldsAccepted, f.cli.Stats().Ticks, st.BytesSent)
}

// TestFieldsExtrapolation: when the packets stop, a field with
// Extrapolate follows the pipeline's policy (Coast: along the slope of
// its last two values, fading out at the limit, then holding), and one
// without holds the newest value.
func TestFieldsExtrapolation(t *testing.T) {
	f := newFieldRig(t)
	f.run(3, nil)
	f.outage = true
	last := f.tick
	var h0 float64
	past := 0
	f.run(1, func(frame int) {
		e, span, render := f.entity(1)
		if span.Mode != components.SpanPast {
			return
		}
		rt := f.r.RenderTick() - float64(span.Lag)
		h := float64(*f.health.Get(e))
		size := float64(*f.size.Get(e))
		if want := float32(sizeAt(1, float64(last))); math.Abs(size-float64(want)) > 0.0006 {
			t.Fatalf("size %v past the newest sample, want %v held", size, want)
		}
		newest := healthAt(1, float64(last))
		ahead := (rt - float64(last)) / 20
		switch {
		case render.Flags&components.Extrapolated != 0 && ahead > 0.02:
			// Coast: short of the truth, past the newest value.
			if !(h < newest-1e-3 && h > healthAt(1, rt)-1e-3) {
				t.Fatalf("%.3f s past: health %v, want between %v (newest) and %v (truth)", ahead, h, newest, healthAt(1, rt))
			}
			past++
		case ahead > 0.3:
			if h0 == 0 {
				h0 = h
			}
			if h != h0 || h >= newest {
				t.Fatalf("%.3f s past, beyond the limit: health %v, want held at %v below %v", ahead, h, h0, newest)
			}
		}
	})
	if past == 0 || h0 == 0 {
		t.Fatalf("extrapolated %d frames, held at %v: the outage did not show both", past, h0)
	}
}

// TestFieldsRefused: values that are not finite, outside the field's
// range, for an entity that never comes or for NetID 0 are refused and
// counted; the others are stored; a Func field blends with the game's
// function.
func TestFieldsRefused(t *testing.T) {
	r := newRig(t, cfgAt(20, 2))
	p := r.Pipe
	type Gauge float32
	type Mix float32
	if _, err := nsecs.AddField(p, systems.FieldConfig[Gauge]{Index: 0, Min: 0, Max: 10}); err != nil {
		t.Fatal(err)
	}
	// Func: ease in (t squared).
	ease := func(a, b Mix, t float32) Mix { return a + (b-a)*Mix(t*t) }
	if _, err := nsecs.AddField(p, systems.FieldConfig[Mix]{Index: 1, Blend: systems.Func, Func: ease}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []systems.FieldConfig[Gauge]{{Index: 4}, {Blend: systems.Func}, {Blend: systems.Angle}, {Min: 1, Max: 0}} {
		if _, err := nsecs.AddField(p, bad); err == nil {
			t.Errorf("config %+v accepted", bad)
		}
	}
	in := p.FieldInbox()
	nan := float32(math.NaN())
	for tick := uint32(1); tick <= 4; tick++ {
		r.Push(snap(1, tick, float32(tick)))
		in.Push(systems.FieldMessage{NetID: 1, Tick: tick, Values: [systems.MaxFields]float32{float32(tick), float32(tick)}})
	}
	in.Push(systems.FieldMessage{NetID: 1, Tick: 5, Values: [systems.MaxFields]float32{nan, 5}})
	in.Push(systems.FieldMessage{NetID: 1, Tick: 6, Values: [systems.MaxFields]float32{11, float32(math.Inf(-1))}})
	in.Push(systems.FieldMessage{NetID: 9, Tick: 4}) // no such entity
	in.Push(systems.FieldMessage{NetID: 0, Tick: 4}) // names no entity
	for range 6 {
		r.Frame(1.0 / 60)
	}
	m := p.Metrics()
	want := [systems.NumRejectReasons]uint64{}
	want[systems.RejectNonFinite] = 2 // the gauge's NaN, the mix's -Inf
	want[systems.RejectInvalid] = 1   // the gauge's 11
	want[systems.RejectUnknown] = 1   // NetID 9, after waiting for it
	want[systems.RejectNetID] = 1     // NetID 0, at once
	if m.FieldsRejected != want || m.FieldsAccepted != 2*4+1 {
		t.Fatalf("accepted %d, rejected %v; want 9, %v", m.FieldsAccepted, m.FieldsRejected, want)
	}
	// The render time, 2 ticks behind tick 4, lies between ticks 1 and 3:
	// the mix is eased between its samples.
	e := r.Entity(1)
	spans := generic.NewMap1[components.Span](&r.World)
	span := spans.Get(e)
	rt := r.RenderTick() - float64(span.Lag)
	mixes := generic.NewMap1[Mix](&r.World)
	mix := float64(*mixes.Get(e))
	f := rt - float64(span.From)
	if want := float64(span.From) + f*f; span.Mode != components.SpanLerp || math.Abs(mix-want) > 1e-4 {
		t.Fatalf("mix %v at render tick %.3f (mode %v), want %v", mix, rt, span.Mode, want)
	}
}

// TestFieldsNoAllocs: a frame with fields allocates nothing once the
// entities have theirs. MemStats counts the whole process's allocations,
// the runtime's own included (a blocked goroutine's first sudog, say), so
// a stretch of 60 frames is measured up to three times: an allocation of
// the frame's shows in every one.
func TestFieldsNoAllocs(t *testing.T) {
	f := newFieldRig(t)
	f.run(2, nil)
	// The collector's workers allocate too: measure with it stopped.
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var allocs []uint64
	for range 3 {
		var before, after runtime.MemStats
		var n uint64
		for i := 0; i < 60; i++ {
			if i%3 == 0 {
				f.serverTick() // the sessions' work is not the pipeline's
			}
			runtime.ReadMemStats(&before)
			f.r.Frame(1.0 / 60)
			runtime.ReadMemStats(&after)
			n += after.Mallocs - before.Mallocs
		}
		if n == 0 {
			return
		}
		allocs = append(allocs, n)
	}
	t.Fatalf("allocations in three stretches of 60 frames: %v", allocs)
}

// TestFieldInboxConcurrent: transports push field values from their own
// goroutines while frames run (run with -race).
func TestFieldInboxConcurrent(t *testing.T) {
	r := newRig(t, cfgAt(20, 2))
	type Gauge float32
	if _, err := nsecs.AddField(r.Pipe, systems.FieldConfig[Gauge]{Index: 0}); err != nil {
		t.Fatal(err)
	}
	in := r.Pipe.FieldInbox()
	done := make(chan struct{})
	for g := range 2 {
		go func() {
			defer func() { done <- struct{}{} }()
			batch := make([]systems.FieldMessage, 8)
			for tick := uint32(1); tick <= 50; tick++ {
				for i := range batch {
					batch[i] = systems.FieldMessage{NetID: components.NetID(1 + g), Tick: tick, Values: [systems.MaxFields]float32{float32(i)}}
				}
				in.PushBatch(batch)
			}
		}()
	}
	for tick := uint32(1); tick <= 50; tick++ {
		r.Push(snap(1, tick, 0), snap(2, tick, 0))
		r.Frame(1.0 / 60)
	}
	<-done
	<-done
	for range 5 {
		r.Frame(1.0 / 60)
	}
	m := r.Pipe.Metrics()
	counted := m.FieldsAccepted
	for _, n := range m.FieldsRejected {
		counted += n
	}
	if counted != 2*50*8 {
		t.Fatalf("%d field values counted of %d pushed (accepted %d, rejected %v)", counted, 2*50*8, m.FieldsAccepted, m.FieldsRejected)
	}
}

// TestVecField: a colour carried in three field values is drawn per
// component at the render time, between the samples the position uses;
// a message with a component out of range is refused and counted.
func TestVecField(t *testing.T) {
	type Tint [3]float32
	r := newRig(t, cfgAt(20, 2))
	if _, err := nsecs.AddVecField(r.Pipe, systems.VecFieldConfig[Tint]{Index: 2}); err == nil {
		t.Fatal("a [3]float32 from index 2 accepted")
	}
	if _, err := nsecs.AddVecField(r.Pipe, systems.VecFieldConfig[Tint]{Index: 1, Min: 0, Max: 1}); err != nil {
		t.Fatal(err)
	}
	truth := func(tick float64) Tint { return Tint{float32(tick / 40), 1 - float32(tick/40), 0.5} }
	in := r.Pipe.FieldInbox()
	tints := generic.NewMap1[Tint](&r.World)
	spans := generic.NewMap1[components.Span](&r.World)
	checked := 0
	for f := 0; f < 90; f++ {
		if f%3 == 0 {
			tick := uint32(f/3 + 1)
			r.Push(snap(1, tick, float32(tick)))
			c := truth(float64(tick))
			in.Push(systems.FieldMessage{NetID: 1, Tick: tick, Values: [systems.MaxFields]float32{99, c[0], c[1], c[2]}})
		}
		r.Frame(1.0 / 60)
		e, ok := r.Pipe.Lookup(1)
		if !ok || tints.Get(e) == nil {
			continue
		}
		span := spans.Get(e)
		if span.Mode != components.SpanLerp {
			continue
		}
		got, want := *tints.Get(e), truth(r.RenderTick()-float64(span.Lag))
		for k := range got {
			if math.Abs(float64(got[k]-want[k])) > 1e-5 {
				t.Fatalf("frame %d: tint %v, want %v", f, got, want)
			}
		}
		checked++
	}
	if checked < 60 {
		t.Fatalf("%d frames checked", checked)
	}
	in.Push(systems.FieldMessage{NetID: 1, Tick: 40, Values: [systems.MaxFields]float32{0, 0.5, 1.5, 0}})
	r.Push(snap(1, 40, 40))
	r.Frame(1.0 / 60)
	if m := r.Pipe.Metrics(); m.FieldsRejected[systems.RejectInvalid] != 1 {
		t.Fatalf("rejected %v, want one out of range", m.FieldsRejected)
	}
}

// TestFieldDeclaredOnce: a refused declaration leaves the pipeline
// without the field machinery, and a second declaration of a component
// or of a field value (a vector's overlapping one's included) is refused
// without adding a system; each ran two systems drawing the same thing.
func TestFieldDeclaredOnce(t *testing.T) {
	type Gauge float32
	type Other float32
	type Pair [2]float32
	r := newRig(t, cfgAt(20, 2))
	p := r.Pipe
	before := len(p.Systems())
	if _, err := nsecs.AddField(p, systems.FieldConfig[Gauge]{Index: systems.MaxFields}); err == nil {
		t.Fatal("Index beyond the field values accepted")
	}
	if p.FieldInbox() != nil || len(p.Systems()) != before {
		t.Fatalf("a refused AddField left the inbox %v and %d systems, want none and %d", p.FieldInbox(), len(p.Systems()), before)
	}
	if _, err := nsecs.AddField(p, systems.FieldConfig[Gauge]{Index: 1}); err != nil {
		t.Fatal(err)
	}
	n := len(p.Systems())
	if _, err := nsecs.AddField(p, systems.FieldConfig[Gauge]{Index: 2}); err == nil {
		t.Error("the same component declared twice accepted")
	}
	if _, err := nsecs.AddField(p, systems.FieldConfig[Other]{Index: 1}); err == nil {
		t.Error("field value 1 declared twice accepted")
	}
	if _, err := nsecs.AddVecField(p, systems.VecFieldConfig[Pair]{Index: 0}); err == nil {
		t.Error("a vector over values 0..1 accepted beside a field of value 1")
	}
	if len(p.Systems()) != n {
		t.Fatalf("%d systems after refused declarations, want %d", len(p.Systems()), n)
	}
	if _, err := nsecs.AddVecField(p, systems.VecFieldConfig[Pair]{Index: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := nsecs.AddField(p, systems.FieldConfig[Other]{Index: 0}); err != nil {
		t.Fatal(err)
	}
	if len(p.Systems()) != n+2 {
		t.Fatalf("%d systems, want %d", len(p.Systems()), n+2)
	}
}

package systems_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

type (
	fuzzLinear   float32
	fuzzAngle    float32
	fuzzDiscrete float32
	fuzzFree     float32
)

// FuzzFields feeds a pipeline with four custom fields (a Linear one in
// 0..100 and an unbounded one, both extrapolating, an Angle in [-π, π),
// a Discrete one) an
// arbitrary stream of snapshots, field messages (any float bit pattern,
// any NetID and tick) and frame times, and checks after every frame: no
// panic, the position pipeline's counts as in FuzzReceive, every field
// value accepted or refused at most once per field, and every drawn
// field finite, the bounded one within [0, 100], the angle within its
// period.
func FuzzFields(f *testing.F) {
	f.Add([]byte{1, 2, 3, 0, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 200, 3, 1, 5, 0x80, 0, 0, 0xc0, 0x7f, 7, 8})
	f.Add([]byte("\x03\x01\x05\x20\x40\x01\x02\x05\x03\x01\x06\x22\x42\x01\x0a\x05\x0a\x03\x01\x07\x24\x44\x01\x0f"))
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := nsecs.DefaultConfig()
		cfg.Receive.MaxEntities = 6
		cfg.InboxCapacity = 64
		r := newRig(t, cfg)
		p := r.Pipe
		if _, err := nsecs.AddField(p, systems.FieldConfig[fuzzLinear]{Index: 0, Min: 0, Max: 100, Extrapolate: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := nsecs.AddField(p, systems.FieldConfig[fuzzAngle]{Index: 1, Blend: systems.Angle, Min: -math.Pi, Max: math.Pi, Extrapolate: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := nsecs.AddField(p, systems.FieldConfig[fuzzDiscrete]{Index: 2, Blend: systems.Discrete}); err != nil {
			t.Fatal(err)
		}
		if _, err := nsecs.AddField(p, systems.FieldConfig[fuzzFree]{Index: 3, Extrapolate: true}); err != nil {
			t.Fatal(err)
		}
		renders := generic.NewFilter1[components.Render]().With(generic.T[components.Remote]())
		lin := generic.NewFilter1[fuzzLinear]()
		ang := generic.NewFilter1[fuzzAngle]()
		dis := generic.NewFilter1[fuzzDiscrete]()
		free := generic.NewFilter1[fuzzFree]()
		pushed, fields := 0, 0
		base := uint32(1000)
		prevRT := math.Inf(-1)
		var anchors uint64
		rd := reader{data: data}
		frame := func(dt float64) {
			r.Frame(dt)
			checkFrame(t, r, renders, pushed, &prevRT, &anchors)
			m := p.Metrics()
			counted := m.FieldsAccepted
			for _, n := range m.FieldsRejected {
				counted += n
			}
			if counted > uint64(4*fields) {
				t.Fatalf("%d field values counted for %d messages of 4 fields", counted, fields)
			}
			qf := free.Query(&r.World)
			for qf.Next() {
				if v := float64(*qf.Get()); math.IsNaN(v) || math.IsInf(v, 0) {
					qf.Close()
					t.Fatalf("unbounded linear field drawn %v", v)
				}
			}
			q := lin.Query(&r.World)
			for q.Next() {
				if v := float64(*q.Get()); !(v >= 0 && v <= 100) {
					q.Close()
					t.Fatalf("linear field of [0, 100] drawn %v", v)
				}
			}
			qa := ang.Query(&r.World)
			for qa.Next() {
				if v := float64(*qa.Get()); !(v >= -math.Pi && v <= math.Pi) {
					qa.Close()
					t.Fatalf("angle drawn %v", v)
				}
			}
			qd := dis.Query(&r.World)
			for qd.Next() {
				if v := float64(*qd.Get()); math.IsNaN(v) || math.IsInf(v, 0) {
					qd.Close()
					t.Fatalf("discrete field drawn %v", v)
				}
			}
		}
		for ops := 0; ops < 400 && !rd.done(); ops++ {
			op := rd.byte()
			id := components.NetID(rd.byte() % 9)
			tick := uint32(int64(base) + int64(int8(rd.byte())))
			switch op % 4 {
			case 0:
				dt := float64(rd.byte()) / 255 * 0.2
				base += uint32(dt * 20)
				frame(dt)
			case 1, 2:
				kind := systems.Snapshot
				if op&0x40 != 0 {
					kind = systems.Kind(op >> 4 % 6)
				}
				p.Inbox().Push(systems.Message{Kind: kind, NetID: id, Tick: tick, Pos: mgl32.Vec3{rd.float(), 0, 0}})
				pushed++
			case 3:
				p.FieldInbox().Push(systems.FieldMessage{NetID: id, Tick: tick, Values: [systems.MaxFields]float32{rd.float() * 10, rd.float(), rd.float(), rd.float()}})
				fields++
			}
		}
		frame(1.0 / 60)
	})
}

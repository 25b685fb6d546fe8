package systems_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
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

package systems_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

// fuzzMaxEntities is the entity cap of the stream fuzzer: more than its
// garbage prefix can spawn, so that the sane tail always has room.
const fuzzMaxEntities = 512

// FuzzHostileStream feeds the pipeline a fuzzed prefix of messages and
// frame times (garbage ticks near the sane stream and far from it, every
// kind, NaN and huge numbers, absurd dt), then a sane 20 Hz stream, and
// asserts the guarantees: no panic, no NaN in Render, Correction or
// Metrics, entities within the cap, every message counted once, and the
// sane stream drawn right within two seconds. An odd base tick runs
// Receive on two goroutines in every frame.
//
// The input is a 4-byte base tick for the sane stream followed by 16-byte
// operations (at most 128).
func FuzzHostileStream(f *testing.F) {
	seed := func(base uint32, ops ...[16]byte) []byte {
		b := binary.LittleEndian.AppendUint32(nil, base)
		for _, op := range ops {
			b = append(b, op[:]...)
		}
		return b
	}
	msg := func(kind, id, mode byte, tick uint32, x float32) [16]byte {
		var op [16]byte
		op[0], op[1], op[2], op[3] = 0, kind, id, mode
		binary.LittleEndian.PutUint32(op[4:], tick)
		binary.LittleEndian.PutUint32(op[8:], math.Float32bits(x))
		return op
	}
	frame := func(dt byte) [16]byte { return [16]byte{1, dt} }
	f.Add(seed(5000))
	f.Add(seed(5000, msg(0, 1, 0, math.MaxUint32-5, 1), frame(1)))
	f.Add(seed(0, msg(0, 1, 0, 50_000, 1), frame(1), msg(2, 2, 0, 60_000, 0), frame(3)))
	f.Add(seed(100, msg(1, 1, 1, 40, 7), msg(3, 2, 1, 20, 1e9), frame(1), msg(2, 3, 1, 30, 0), frame(5)))
	f.Add(seed(math.MaxUint32-20_000, msg(0, 1, 2, 0, float32(math.NaN())), frame(4), frame(6), msg(0, 2, 3, 7, 1)))
	f.Add(seed(7, msg(0, 1, 0, 7, 1), frame(1), msg(0, 1, 1, 1_000_000, 2), frame(1), msg(0, 1, 1, 1_000_001, 2), frame(1)))

	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 4 {
			return
		}
		base := binary.LittleEndian.Uint32(data) % (math.MaxUint32 - 100_000)
		data = data[4:]
		cfg := nsecs.DefaultConfig()
		cfg.Receive.MaxEntities = fuzzMaxEntities
		if base&1 != 0 {
			// Receive on two goroutines, every frame.
			cfg.Receive.Workers, cfg.Receive.ParallelMin = 2, 1
		}
		r := newRig(t, cfg)
		defer r.Pipe.Finalize()
		pushed := 0
		for k := 0; k+16 <= len(data) && k < 128*16; k += 16 {
			op := data[k : k+16]
			if op[0]&1 == 0 {
				r.Push(fuzzMessage(op, base))
				pushed++
				continue
			}
			r.Frame(fuzzDt(op[1]))
			checkFinite(t, r)
			if n := liveEntities(&r.World); n > fuzzMaxEntities {
				t.Fatalf("%d entities alive, cap %d", n, fuzzMaxEntities)
			}
		}
		r.Frame(1.0 / saneFPS)
		checkFinite(t, r)
		r.CheckCounted(pushed)

		s := newSane(base, 1, 2, 3)
		s.recovers(t, r)
		r.CheckCounted(pushed + s.sent)
		if n := liveEntities(&r.World); n > fuzzMaxEntities {
			t.Fatalf("%d entities alive, cap %d", n, fuzzMaxEntities)
		}
	})
}

// fuzzMessage decodes a 16-byte operation into a message: kind, NetID (0 to
// 7, so it meets the sane stream's 1 to 3), a tick that is absolute,
// relative to the sane stream's base, near the end of the tick range or
// near zero, a position x from raw float bits, and a rotation and velocity
// that may be garbage.
func fuzzMessage(op []byte, base uint32) systems.Message {
	m := systems.Message{
		Kind:  systems.Kind(op[1] % 6), // 4 and 5 are not kinds
		NetID: components.NetID(op[2] % 8),
		State: uint16(op[15]),
		Epoch: op[14] % 3,
	}
	v := binary.LittleEndian.Uint32(op[4:])
	switch op[3] % 4 {
	case 0:
		m.Tick = v
	case 1:
		m.Tick = base + uint32(int32(int16(v)))
	case 2:
		m.Tick = math.MaxUint32 - v%64
	default:
		m.Tick = v % 64
	}
	x := math.Float32frombits(binary.LittleEndian.Uint32(op[8:]))
	m.Pos = mgl32.Vec3{x, float32(op[12]), 0}
	switch op[13] % 5 {
	case 0: // none: the identity
	case 1:
		m.Rot = mgl32.QuatIdent()
	case 2:
		m.Rot = mgl32.Quat{W: float32(math.NaN())}
	case 3:
		m.Rot = mgl32.Quat{W: 1e-30, V: mgl32.Vec3{1e-30, 0, 0}}
	default:
		m.Rot = mgl32.Quat{W: 3, V: mgl32.Vec3{x, 1, 2}}
	}
	if op[13]&0x80 != 0 {
		m.HasVelocity = true
		m.Vel = mgl32.Vec3{x, -x, 1}
	}
	return m
}

// fuzzDt decodes a frame time, sane or absurd.
func fuzzDt(b byte) float64 {
	return [...]float64{0, 1.0 / 60, -1, math.NaN(), math.Inf(1), 1e307, 0.5, 5}[b%8]
}

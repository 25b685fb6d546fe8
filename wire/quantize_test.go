package wire

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// The quantisation error is at most half a step, plus the float32 rounding
// of the result.
func TestQuantizeErrorBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, step := range []float32{1.0 / 256, 1.0 / 1024, 0.01, 0.5} {
		q := Quantizer{PosStep: step, VelStep: step * 2}
		for range 20000 {
			e := Entity{Flags: HasVelocity}
			for i := range 3 {
				e.Pos[i] = float32(rng.NormFloat64() * 1000)
				e.Vel[i] = float32(rng.NormFloat64() * 30)
			}
			r, err := q.Record(e)
			if err != nil {
				t.Fatal(err)
			}
			back := q.Entity(r)
			for i := range 3 {
				bound := float64(step)/2 + math.Abs(float64(e.Pos[i]))*0x1p-23
				if d := math.Abs(float64(back.Pos[i] - e.Pos[i])); d > bound {
					t.Fatalf("step %v: pos %v → %v, error %g > %g", step, e.Pos[i], back.Pos[i], d, bound)
				}
				bound = float64(step) + math.Abs(float64(e.Vel[i]))*0x1p-23
				if d := math.Abs(float64(back.Vel[i] - e.Vel[i])); d > bound {
					t.Fatalf("step %v: vel %v → %v, error %g > %g", step, e.Vel[i], back.Vel[i], d, bound)
				}
			}
		}
	}
}

func TestQuantizeRange(t *testing.T) {
	q := DefaultQuantizer()
	nan := float32(math.NaN())
	for _, c := range []struct {
		e     Entity
		field string
	}{
		{Entity{NetID: 4, Pos: mgl32.Vec3{nan, 0, 0}}, "Pos.X"},
		{Entity{NetID: 4, Pos: mgl32.Vec3{0, 0, float32(math.Inf(-1))}}, "Pos.Z"},
		{Entity{NetID: 4, Pos: mgl32.Vec3{0, 1e8, 0}}, "Pos.Y"}, // 2.56e10 steps
		{Entity{NetID: 4, Flags: HasVelocity, Vel: mgl32.Vec3{0, nan, 0}}, "Vel.Y"},
		{Entity{NetID: 4, Rot: mgl32.Quat{W: nan}}, "rotation"},
	} {
		_, err := q.Record(c.e)
		if !errors.Is(err, ErrRange) || !strings.Contains(err.Error(), c.field) || !strings.Contains(err.Error(), "NetID 4") {
			t.Errorf("%+v: %v, want ErrRange naming %s and the NetID", c.e, err, c.field)
		}
	}
	// Without HasVelocity the velocity is not looked at.
	if _, err := q.Record(Entity{Vel: mgl32.Vec3{nan, 0, 0}}); err != nil {
		t.Errorf("velocity without the flag: %v", err)
	}
}

func TestRecordKeepsStateNotEvents(t *testing.T) {
	q := DefaultQuantizer()
	e := Entity{NetID: 9, State: 513, Epoch: 200, Flags: HasVelocity | Spawn | Teleport, Vel: mgl32.Vec3{1, 2, 3}}
	r, err := q.Record(e)
	if err != nil {
		t.Fatal(err)
	}
	if r.Flags != HasVelocity || r.State != 513 || r.Epoch != 200 || r.NetID != 9 || r.Vel != [3]int32{256, 512, 768} {
		t.Fatalf("record %+v", r)
	}
	back := q.Entity(r)
	if back.Flags != HasVelocity || back.Vel != e.Vel || back.Rot != (mgl32.Quat{W: 1}) {
		t.Fatalf("entity %+v", back)
	}
	r, _ = q.Record(Entity{Vel: mgl32.Vec3{1, 2, 3}})
	if r.Vel != [3]int32{} {
		t.Fatalf("velocity kept without HasVelocity: %v", r.Vel)
	}
	if z := q.Zero(5); z.NetID != 5 || z.Rot != q.identity() || z.Pos != [3]int32{} {
		t.Fatalf("zero record %+v", z)
	}
}

// steps rounds exactly as math.Round does, half away from zero, and
// refuses exactly the values whose rounding is not an int32.
func TestStepsRoundsAsMathRound(t *testing.T) {
	ref := func(v, step float32) (int32, bool) {
		f := math.Round(float64(v) / float64(step))
		if !(f >= math.MinInt32 && f <= math.MaxInt32) {
			return 0, false
		}
		return int32(f), true
	}
	vals := []float32{0, float32(math.Copysign(0, -1)), 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999997, -0.49999997,
		1 << 23, 1<<23 + 1, -(1 << 23), 1 << 24, 1 << 30, 1 << 31, -(1 << 31), 1 << 32, 3e38, -3e38,
		2147483520, -2147483904, // the float32s next to ±2^31, either side of the int32 range
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.SmallestNonzeroFloat32, 1e-38}
	stepsOf := []float32{1, 1.0 / 256, 0.01, 0.001, 3, 1e-9, 1e9, 0.1}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		vals = append(vals, math.Float32frombits(rng.Uint32()), float32(rng.NormFloat64()*1000), float32(rng.IntN(4000)-2000)/2)
	}
	for _, step := range stepsOf {
		for _, v := range vals {
			got, gotOK := steps(v, step)
			want, wantOK := ref(v, step)
			if got != want || gotOK != wantOK {
				t.Fatalf("steps(%v, %v) = %d, %v; math.Round gives %d, %v", v, step, got, gotOK, want, wantOK)
			}
		}
	}
}

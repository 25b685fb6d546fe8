package systems_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/blend"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

// heldRig is a 20 Hz pipeline with entity 1 held still at x = 10 (one
// sample, Hold policy), drawn at its target, so that a correction written
// to it is all that moves the drawing.
func heldRig(t *testing.T, cfg nsecs.Config) *rig {
	t.Helper()
	cfg.Interpolate.Extrapolation = blend.Hold
	r := newRig(t, cfg)
	r.Push(snap(1, 100, 10))
	r.Frame(0)
	if x := r.Render(1).Pos[0]; x != 10 {
		t.Fatalf("held at %v, want 10", x)
	}
	return r
}

// setCorrection writes entity 1's Correction as game code would.
func setCorrection(r *rig, c components.Correction) {
	m := generic.NewMap1[components.Correction](&r.World)
	*m.Get(r.Entity(1)) = c
}

// TestCorrectionDecayIsFrameRateIndependent: a correction closes the same
// fraction per second whatever the frame rate: with half of it closed per
// tick, one tick later half is left after 1, 3 or 7 frames.
func TestCorrectionDecayIsFrameRateIndependent(t *testing.T) {
	for _, frames := range []int{1, 3, 7} {
		r := heldRig(t, cfgAt(20, 0))
		setCorrection(r, components.Correction{Pos: mgl32.Vec3{-8, 0, 0}})
		for i := 0; i < frames; i++ {
			r.Frame(1.0 / 20 / float64(frames))
		}
		if x := r.Render(1).Pos[0]; math.Abs(float64(x)-6) > 1e-4 {
			t.Fatalf("%d frames per tick: drawn at %v after one tick, want 10 - 8/2 = 6", frames, x)
		}
		if c := r.Correction(1); math.Abs(float64(c.Pos[0])+4) > 1e-4 {
			t.Fatalf("%d frames per tick: correction %v after one tick, want -4", frames, c.Pos)
		}
	}
}

// TestCorrectionPerTickFraction: PerTick sets the fraction of the
// correction closed every tick.
func TestCorrectionPerTickFraction(t *testing.T) {
	for _, perTick := range []float64{0.25, 0.5, 0.9} {
		cfg := cfgAt(20, 0)
		cfg.Smooth.PerTick = perTick
		r := heldRig(t, cfg)
		setCorrection(r, components.Correction{Pos: mgl32.Vec3{0, 10, 0}})
		r.Frame(1.0 / 20)
		want := 10 * (1 - perTick)
		if y := r.Render(1).Pos[1]; math.Abs(float64(y)-want) > 1e-4 {
			t.Fatalf("PerTick %v: y = %v after one tick, want %v", perTick, y, want)
		}
	}
}

// TestCorrectionOfOneTickDrawsTarget: PerTick 1 closes the whole gap at
// once.
func TestCorrectionOfOneTickDrawsTarget(t *testing.T) {
	cfg := cfgAt(20, 0)
	cfg.Smooth.PerTick = 1
	r := heldRig(t, cfg)
	setCorrection(r, components.Correction{Pos: mgl32.Vec3{5, 5, 5}})
	r.Frame(1.0 / 60)
	if got := r.Render(1).Pos; got != (mgl32.Vec3{10, 0, 0}) {
		t.Fatalf("drawn at %v, want the target (10, 0, 0)", got)
	}
	if c := r.Correction(1); !c.IsZero() {
		t.Fatalf("correction %+v left", c)
	}
}

// TestRotationCorrectionDecays: a rotation offset decays by angle at the
// same rate as a position offset: a 90° offset is 45° one tick later.
func TestRotationCorrectionDecays(t *testing.T) {
	r := heldRig(t, cfgAt(20, 0))
	quarter := blend.QuatFromAngle(math.Pi / 2)
	ident := mgl32.QuatIdent()
	setCorrection(r, components.Correction{Rot: blend.Offset(&quarter, &ident)})
	for i := 0; i < 3; i++ {
		r.Frame(1.0 / 60)
	}
	rot := r.Render(1).Rot
	if deg := float64(blend.AngleOf(&rot)) * 180 / math.Pi; math.Abs(deg-45) > 1e-3 {
		t.Fatalf("drawn at %v° one tick after a 90° offset, want 45°", deg)
	}
}

// TestCorrectionClearedBelowEpsilon: a decaying correction ends exactly:
// once it is below the epsilons it is cleared and the target is drawn as
// it is.
func TestCorrectionClearedBelowEpsilon(t *testing.T) {
	r := heldRig(t, cfgAt(20, 0))
	quarter := blend.QuatFromAngle(math.Pi / 2)
	ident := mgl32.QuatIdent()
	setCorrection(r, components.Correction{Pos: mgl32.Vec3{3, -4, 0}, Rot: blend.Offset(&quarter, &ident)})
	prev := float32(5)
	for i := 0; i < 60; i++ {
		r.Frame(1.0 / 60)
		d := r.Render(1).Pos.Sub(mgl32.Vec3{10, 0, 0}).Len()
		if d > prev {
			t.Fatalf("frame %d: %v from the target after %v: the correction grew", i, d, prev)
		}
		prev = d
	}
	if c := r.Correction(1); !c.IsZero() {
		t.Fatalf("correction %+v left after 20 ticks", c)
	}
	if got := r.Render(1); got.Pos != (mgl32.Vec3{10, 0, 0}) || got.Rot != mgl32.QuatIdent() {
		t.Fatalf("drawn at %v %v, want exactly the target", got.Pos, got.Rot)
	}
}

// TestSmoothDecay reports the fraction of a correction left after a time,
// in the pipeline's tick rate.
func TestSmoothDecay(t *testing.T) {
	r := newRig(t, cfgAt(20, 0))
	r.Pipe.Initialize()
	var smooth *systems.Smooth
	for _, s := range r.Pipe.Systems() {
		if sm, ok := s.(*systems.Smooth); ok {
			smooth = sm
		}
	}
	if smooth == nil {
		t.Fatal("no Smooth system in the pipeline")
	}
	for _, tc := range []struct{ dt, want float64 }{{0, 1}, {1.0 / 20, 0.5}, {2.0 / 20, 0.25}, {1.0 / 60, math.Pow(0.5, 1.0/3)}} {
		if got := smooth.Decay(tc.dt); math.Abs(float64(got)-tc.want) > 1e-6 {
			t.Errorf("Decay(%v) = %v, want %v", tc.dt, got, tc.want)
		}
	}
}

func TestRateFromAlpha(t *testing.T) {
	for _, tc := range []struct{ alpha, rate, want float64 }{
		{0.5, 20, 20 * math.Ln2},
		{0.25, 1, -math.Log(0.75)},
		{0, 20, 0},
		{-1, 20, 0},
		{1, 20, math.Inf(1)},
	} {
		if got := systems.RateFromAlpha(tc.alpha, tc.rate); math.Abs(got-tc.want) > 1e-12 && got != tc.want {
			t.Errorf("RateFromAlpha(%v, %v) = %v, want %v", tc.alpha, tc.rate, got, tc.want)
		}
	}
	// One tick at the rate leaves 1 - alpha.
	if left := math.Exp(-systems.RateFromAlpha(0.3, 60) / 60); math.Abs(left-0.7) > 1e-12 {
		t.Fatalf("one tick leaves %v, want 0.7", left)
	}
}

func TestNewSmoothRejectsBadConfig(t *testing.T) {
	for _, cfg := range []systems.SmoothConfig{
		{PerTick: -0.5, Epsilon: 1e-3, RotEpsilon: 1e-4},
		{PerTick: 1.5, Epsilon: 1e-3, RotEpsilon: 1e-4},
		{PerTick: math.NaN(), Epsilon: 1e-3, RotEpsilon: 1e-4},
		{PerTick: 0.5, Epsilon: -1, RotEpsilon: 1e-4},
		{PerTick: 0.5, Epsilon: 1e-3, RotEpsilon: float32(math.NaN())},
	} {
		if _, err := systems.NewSmooth(cfg); err == nil {
			t.Errorf("NewSmooth(%+v) accepted", cfg)
		}
	}
	if _, err := systems.NewSmooth(systems.DefaultSmoothConfig()); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
}

// TestExtrapolationRecoveryIsSmoothed: Coast past a missing sample, then
// the real one arrives: the drawn position must not pop.
func TestExtrapolationRecoveryIsSmoothed(t *testing.T) {
	cfg := cfgAt(20, 1)
	r := newRig(t, cfg)
	const fps = 60.0
	x := func(tick int) float32 { return float32(tick) * 5 } // 100 units/s
	for tick := 0; tick <= 10; tick++ {
		r.Push(snap(1, uint32(tick), x(tick)))
	}
	r.Frame(0) // render 9
	var prev float32
	maxStep := float32(0)
	for f := 0; f < 60; f++ {
		if f == 12 { // ticks 11..13 arrive late, at once
			for tick := 11; tick <= 13; tick++ {
				r.Push(snap(1, uint32(tick), x(tick)))
			}
		}
		r.Frame(1 / fps)
		cur := r.Render(1).Pos[0]
		if f > 0 {
			maxStep = max(maxStep, abs(cur-prev))
		}
		prev = cur
	}
	m := r.Pipe.Metrics()
	if m.Extrapolated == 0 || m.Corrections == 0 {
		t.Fatalf("extrapolated %d, corrections %d: the scenario did not happen", m.Extrapolated, m.Corrections)
	}
	// True motion is 100/60 = 1.67 per frame; recovery from the coast's
	// lag may run faster, but never pop.
	if maxStep > 3*100/fps {
		t.Fatalf("largest per-frame step %v, true motion %v", maxStep, 100/fps)
	}
}

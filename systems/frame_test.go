package systems_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/mlange-42/arche/ecs"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

func TestFrameSetSanitises(t *testing.T) {
	for _, tc := range []struct{ dt, want float64 }{
		{1.0 / 60, 1.0 / 60},
		{0, 0},
		{-1, 0},
		{math.NaN(), 0},
		{math.Inf(-1), 0},
		{math.Inf(1), systems.MaxFrameDt},
		{1e9, systems.MaxFrameDt},
	} {
		var f systems.Frame
		f.Set(tc.dt)
		if f.Dt != tc.want {
			t.Errorf("Set(%v): Dt = %v, want %v", tc.dt, f.Dt, tc.want)
		}
	}
}

// TestFrameTimerFixedStep: with a Step, the FrameTimer sets every frame's
// dt to it; without, the first frame has a dt of zero.
func TestFrameTimerFixedStep(t *testing.T) {
	w := ecs.NewWorld()
	if _, err := nsecs.New(&w, nsecs.DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	frame := ecs.GetResource[systems.Frame](&w)
	fixed := &systems.FrameTimer{Step: 0.02}
	fixed.Initialize(&w)
	for i := 0; i < 3; i++ {
		frame.Dt = -1
		fixed.Update(&w)
		if frame.Dt != 0.02 {
			t.Fatalf("update %d: dt = %v, want the step 0.02", i, frame.Dt)
		}
	}
	fixed.Finalize(&w)

	wall := &systems.FrameTimer{}
	wall.Initialize(&w)
	frame.Dt = -1
	wall.Update(&w)
	if frame.Dt != 0 {
		t.Fatalf("first wall-clock frame: dt = %v, want 0", frame.Dt)
	}
}

// TestSystemsNeedThePipelineResources: a system initialized in a world
// without netsmooth's resources panics with a message naming what is
// missing, instead of failing later on a nil pointer; Spawn, which
// returns errors, returns one.
func TestSystemsNeedThePipelineResources(t *testing.T) {
	receive, _ := systems.NewReceive(systems.DefaultReceiveConfig())
	interpolate, _ := systems.NewInterpolate(systems.DefaultInterpolateConfig())
	smooth, _ := systems.NewSmooth(systems.DefaultSmoothConfig())
	snap, _ := systems.NewSnap(systems.DefaultSnapConfig())
	pred, err := systems.NewPredictor(playerSim, systems.PredictConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]nsecs.System{
		"Receive": receive, "Timeline": systems.NewTimeline(), "Interpolate": interpolate,
		"Smooth": smooth, "Snap": snap, "FrameTimer": &systems.FrameTimer{},
		"Reconcile": pred.Reconcile(), "Predict": pred.Predict(),
	} {
		msg := panicMessage(func() {
			w := ecs.NewWorld()
			s.Initialize(&w)
		})
		if !strings.Contains(msg, "netsmooth: the world has no") {
			t.Errorf("%s on a bare world: panic %q", name, msg)
		}
	}
	fresh, err := systems.NewPredictor(playerSim, systems.PredictConfig{})
	if err != nil {
		t.Fatal(err)
	}
	w := ecs.NewWorld()
	if _, err := fresh.Spawn(&w, 1, player{}); err == nil || !strings.Contains(err.Error(), "without netsmooth's pipeline") {
		t.Errorf("Spawn on a bare world: err = %v", err)
	}
}

// panicMessage runs f and returns what it panicked with, as text ("" if it
// did not panic).
func panicMessage(f func()) (msg string) {
	defer func() {
		if p := recover(); p != nil {
			msg, _ = p.(string)
			if msg == "" {
				msg = "non-string panic"
			}
		}
	}()
	f()
	return ""
}

// TestZeroConfigsAreTheDefaults: every config of package systems, left
// zero, runs as its defaults, and is accepted.
func TestZeroConfigsAreTheDefaults(t *testing.T) {
	for name, c := range map[string]struct{ got, want any }{
		"ReceiveConfig":     {systems.ReceiveConfig{}.WithDefaults(), systems.DefaultReceiveConfig()},
		"InterpolateConfig": {systems.InterpolateConfig{}.WithDefaults(), systems.DefaultInterpolateConfig()},
		"SmoothConfig":      {systems.SmoothConfig{}.WithDefaults(), systems.DefaultSmoothConfig()},
		"SnapConfig":        {systems.SnapConfig{}.WithDefaults(), systems.DefaultSnapConfig()},
		"PredictConfig":     {systems.PredictConfig{}.WithDefaults(), systems.DefaultPredictConfig()},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("a zero %s runs as %+v, want the defaults %+v", name, c.got, c.want)
		}
	}
	if _, err := systems.NewReceive(systems.ReceiveConfig{}); err != nil {
		t.Error(err)
	}
	if _, err := systems.NewInterpolate(systems.InterpolateConfig{}); err != nil {
		t.Error(err)
	}
	if _, err := systems.NewSmooth(systems.SmoothConfig{}); err != nil {
		t.Error(err)
	}
	if _, err := systems.NewSnap(systems.SnapConfig{}); err != nil {
		t.Error(err)
	}
}

package ecs_test

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/netsmooth/netsmooth/blend"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/internal/pipetest"
	"github.com/netsmooth/netsmooth/systems"
)

func TestNewRejectsBadConfigNamingEveryField(t *testing.T) {
	w := ecs.NewWorld()
	cfg := nsecs.DefaultConfig()
	cfg.TickRate = -1
	cfg.Receive.MaxEntities = -1
	cfg.Snap.Distance = float32(math.NaN())
	cfg.Interpolate.ExtrapolationLimit = -1
	_, err := nsecs.New(&w, cfg)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"TickRate", "MaxEntities", "SnapConfig.Distance", "ExtrapolationLimit"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

// A tick's length given for the tick rate (1/60 for 60 Hz) is refused
// with a sentence that says so, rather than drawing nothing right.
func TestNewRefusesATickLengthForTheRate(t *testing.T) {
	w := ecs.NewWorld()
	_, err := nsecs.New(&w, nsecs.Config{TickRate: 1.0 / 60})
	if err == nil || !strings.Contains(err.Error(), "TickRate") || !strings.Contains(err.Error(), "as a tick's length in seconds it would be 60 ticks per second") {
		t.Fatalf("TickRate 1/60: err = %v, want it named as a tick's length of 60 ticks per second", err)
	}
	w = ecs.NewWorld()
	if _, err := nsecs.New(&w, nsecs.Config{TickRate: 1}); err != nil {
		t.Fatalf("TickRate 1 (the slowest accepted): %v", err)
	}
}

// Two slips of set-up return errors instead of panicking: no world for
// New, and a predicted entity spawned in a world other than the
// pipeline's: one without a pipeline, or one with a pipeline of its own.
func TestSetUpSlipsAreErrors(t *testing.T) {
	if _, err := nsecs.New(nil, nsecs.DefaultConfig()); err == nil || !strings.Contains(err.Error(), "nil") {
		t.Errorf("New(nil): err = %v", err)
	}
	w := ecs.NewWorld()
	pipe, err := nsecs.New(&w, nsecs.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	pred, err := nsecs.AddPredictor(pipe, systems.Simulation[float32, int]{
		Step:     func(s float32, in int, dt float64) float32 { return s + float32(in) },
		Position: func(s *float32) mgl32.Vec3 { return mgl32.Vec3{*s, 0, 0} },
	})
	if err != nil {
		t.Fatal(err)
	}
	bare := ecs.NewWorld()
	if _, err := pred.Spawn(&bare, 1, 0); err == nil {
		t.Error("spawned in a world without a pipeline")
	}
	other := ecs.NewWorld()
	if _, err := nsecs.New(&other, nsecs.DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	if _, err := pred.Spawn(&other, 1, 0); err == nil || !strings.Contains(err.Error(), "another world") {
		t.Errorf("spawned in another pipeline's world: err = %v", err)
	}
	if _, err := pred.Spawn(&w, 1, 0); err != nil {
		t.Fatalf("spawn in the pipeline's world: %v", err)
	}
}

func TestNewTwiceOnOneWorld(t *testing.T) {
	w := ecs.NewWorld()
	if _, err := nsecs.New(&w, nsecs.DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	if _, err := nsecs.New(&w, nsecs.DefaultConfig()); !errors.Is(err, nsecs.ErrAlreadyInstalled) {
		t.Fatalf("second pipeline on one world: err = %v", err)
	}
}

// TestSteadyStateFrameDoesNotAllocate: once buffers have grown, a frame
// (receiving a snapshot per entity every third frame, as at 20 Hz snapshots
// and 60 Hz rendering) allocates nothing.
func TestSteadyStateFrameDoesNotAllocate(t *testing.T) {
	r := newRig(t, nsecs.DefaultConfig())
	const n = 500
	batch := make([]systems.Message, n)
	tick := uint32(0)
	frame := 0
	step := func() {
		if frame%3 == 0 {
			for i := range batch {
				batch[i] = systems.Message{NetID: components.NetID(i + 1), Tick: tick, Pos: mgl32.Vec3{float32(tick), float32(i), 0}}
			}
			r.Pipe.Inbox().PushBatch(batch)
			tick++
		}
		r.Frame(1.0 / 60)
		frame++
	}
	for i := 0; i < 300; i++ {
		step()
	}
	if allocs := testing.AllocsPerRun(300, step); allocs != 0 {
		t.Fatalf("steady-state frame allocates %v times", allocs)
	}
	if m := r.Pipe.Metrics(); m.Entities != n || m.RejectedTotal() != 0 {
		t.Fatalf("entities %d, rejected %d", m.Entities, m.RejectedTotal())
	}
}

// TestSystemsInFrameOrder: the pipeline runs its systems in the documented
// order, each prediction pair after the timeline is settled and before the
// remote entities are drawn, and a predictor added after the first frame
// is initialized at once.
func TestSystemsInFrameOrder(t *testing.T) {
	type st struct{ X float32 }
	sim := systems.Simulation[st, int]{
		Step:     func(s st, in int, dt float64) st { return s },
		Position: func(s *st) mgl32.Vec3 { return mgl32.Vec3{s.X, 0, 0} },
	}
	w := ecs.NewWorld()
	pipe, err := nsecs.New(&w, nsecs.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nsecs.AddPredictor(pipe, sim); err != nil {
		t.Fatal(err)
	}
	pipe.Update(0)
	late, err := nsecs.AddPredictor(pipe, systems.Simulation[float32, int]{
		Step:     func(s float32, in int, dt float64) float32 { return s + 1 },
		Position: func(s *float32) mgl32.Vec3 { return mgl32.Vec3{*s, 0, 0} },
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range pipe.Systems() {
		name, _, _ := strings.Cut(fmt.Sprintf("%T", s), "[") // no type arguments
		names = append(names, strings.TrimPrefix(name, "*systems."))
	}
	want := "Receive Timeline Retire Reconcile Predict Reconcile Predict Interpolate Snap Smooth"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("systems in order %q, want %q", got, want)
	}
	// The late predictor's systems work without another Initialize.
	if _, err := late.Spawn(&w, 1, 0); err != nil {
		t.Fatal(err)
	}
	pipe.Update(1.0 / 20)
	if late.Ticks() != 1 {
		t.Fatalf("the late predictor ran %d ticks, want 1", late.Ticks())
	}
}

// SetExtrapolation switches the policy between frames: an entity whose
// stream stopped coasts on under Coast and stands still once switched to
// Hold, and an unknown policy is refused without a change.
func TestSetExtrapolationSwitchesPolicyLive(t *testing.T) {
	r := pipetest.NewRig(t, pipetest.ConfigAt(20, 1))
	for tick := uint32(1); tick <= 4; tick++ {
		r.Push(pipetest.SnapVel(1, tick, float32(tick), 20))
		r.Frame(0.05)
	}
	// Past the newest sample (tick 4, x = 4): Coast moves on.
	r.Frame(0.05)
	r.Frame(0.05)
	coast := r.Render(1).Pos[0]
	if !(coast > 4) {
		t.Fatalf("Coast: x = %v, want beyond the newest sample's 4", coast)
	}
	if err := r.Pipe.SetExtrapolation(blend.Hold); err != nil {
		t.Fatal(err)
	}
	r.Frame(0.05)
	held := r.Render(1).Pos[0]
	r.Frame(0.05)
	if again := r.Render(1).Pos[0]; again != held || r.Render(1).Flags&components.Held == 0 {
		t.Fatalf("Hold: x went %v -> %v (flags %b), want it held still", held, again, r.Render(1).Flags)
	}
	if err := r.Pipe.SetExtrapolation(blend.DampedReturn + 1); err == nil {
		t.Fatal("an unknown policy was accepted")
	}
	if got := r.Pipe.Config().Interpolate.Extrapolation; got != blend.Hold {
		t.Fatalf("policy after a refused change = %v, want Hold", got)
	}
}

// TestZeroConfigWithATickRate: a Config with only its TickRate set is a
// complete configuration, the defaults everywhere else; a zero Config is
// DefaultConfig.
func TestZeroConfigWithATickRate(t *testing.T) {
	w := ecs.NewWorld()
	pipe, err := nsecs.New(&w, nsecs.Config{TickRate: 60})
	if err != nil {
		t.Fatalf("Config{TickRate: 60}: %v", err)
	}
	want := nsecs.DefaultConfig().WithTickRate(60)
	if got := pipe.Config(); !reflect.DeepEqual(got, want) {
		t.Errorf("Config{TickRate: 60} runs as %+v, want %+v", got, want)
	}
	if got := (nsecs.Config{}).WithDefaults(); !reflect.DeepEqual(got, nsecs.DefaultConfig()) {
		t.Errorf("a zero Config runs as %+v, want DefaultConfig %+v", got, nsecs.DefaultConfig())
	}
	if pipe.TickRate() != 60 || pipe.Clock().TickRate() != 60 {
		t.Errorf("tick rates %v (pipeline) and %v (clock), want 60", pipe.TickRate(), pipe.Clock().TickRate())
	}
}

package ecs_test

// Acceptance tests of the whole pipeline: the behaviour a game sees, with
// exact numbers, each under the extrapolation policy it is about. The
// reconciliation of predicted entities is tested beside its system, in
// package systems.

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

// The first tests count in ticks and give velocities per tick: at a tick
// rate of 1 Hz a tick is a second, so the numbers read the same either way.

// TestBracketingSamplesLerpAndClamp: a render tick inside the buffer lerps
// between the bracketing snapshots; outside it clamps to the nearest sample.
func TestBracketingSamplesLerpAndClamp(t *testing.T) {
	for _, tc := range []struct {
		delay, renderTick float64
		want              float32
	}{
		{delay: 1, renderTick: 101, want: 5},  // midpoint
		{delay: 2, renderTick: 100, want: 0},  // on the first sample
		{delay: 3, renderTick: 99, want: 0},   // before the buffer: clamped
		{delay: 0, renderTick: 102, want: 10}, // on the last sample
	} {
		r := newRig(t, cfgAt(1, tc.delay))
		r.Push(snap(1, 100, 0), snap(1, 102, 10))
		r.Frame(0)
		if got := r.RenderTick(); got != tc.renderTick {
			t.Fatalf("render tick = %v, want %v", got, tc.renderTick)
		}
		if got := r.Render(1).Pos[0]; got != tc.want {
			t.Errorf("at render tick %v: x = %v, want %v", tc.renderTick, got, tc.want)
		}
	}
}

// TestLinearExtrapolationPastNewest: once the render clock is past the
// newest sample, velocity carries the entity forward (Linear policy).
func TestLinearExtrapolationPastNewest(t *testing.T) {
	cfg := cfgAt(1, 0)
	cfg.Interpolate.Extrapolation = blend.Linear
	cfg.Interpolate.ExtrapolationLimit = 2
	r := newRig(t, cfg)
	r.Push(snapVel(1, 100, 0, 5), snapVel(1, 101, 5, 5))
	r.Frame(0)
	r.Frame(1) // one tick later
	if got := r.RenderTick(); got != 102 {
		t.Fatalf("render tick = %v, want 102", got)
	}
	got := r.Render(1)
	if got.Pos[0] != 10 {
		t.Fatalf("extrapolated = %v, want 10", got.Pos[0])
	}
	if got.Flags&components.Extrapolated == 0 {
		t.Errorf("flags = %b, want Extrapolated", got.Flags)
	}
}

// TestCorrectionFadesGeometrically: a correction is spread over frames and
// decays geometrically, a quarter of it per tick at any frame rate,
// instead of snapping.
func TestCorrectionFadesGeometrically(t *testing.T) {
	for _, framesPerTick := range []int{1, 4} {
		cfg := cfgAt(1, 0)
		cfg.Smooth.PerTick = 0.25
		cfg.Interpolate.Extrapolation = blend.Hold
		r := newRig(t, cfg)
		r.Push(snap(1, 100, 10)) // the target: x = 10
		r.Frame(0)
		// The entity is drawn at 0 and must move to 10: a correction of -10,
		// written by game code.
		e, _ := r.Pipe.Lookup(1)
		corrs := generic.NewMap1[components.Correction](&r.World)
		corrs.Get(e).Pos = mgl32.Vec3{-10, 0, 0}

		dt := 1 / float64(framesPerTick)
		for i := 0; i < framesPerTick; i++ {
			r.Frame(dt)
		}
		if got := r.Render(1).Pos[0]; math.Abs(float64(got)-2.5) > 1e-5 {
			t.Fatalf("%d frames per tick: after one tick x = %v, want 2.5", framesPerTick, got)
		}
		for i := 0; i < 40*framesPerTick; i++ {
			r.Frame(dt)
		}
		if diff := 10 - r.Render(1).Pos[0]; diff > 0.01 {
			t.Fatalf("%d frames per tick: residual = %v, want ~0", framesPerTick, diff)
		}
	}
}

// The next tests count server time in milliseconds: a tick rate of 1000 Hz.

// TestJitteredTimestampsDrawnContinuously: snapshots every 50 ms with
// ±15 ms of timestamp jitter, sampled every 10 ms, never jump by 30 units
// or more (DampedReturn policy, limit 100 ms).
func TestJitteredTimestampsDrawnContinuously(t *testing.T) {
	cfg := cfgAt(1000, 347) // newest sample at 1347: render starts at 1000
	cfg.Interpolate.Extrapolation = blend.DampedReturn
	cfg.Interpolate.ExtrapolationLimit = 0.1
	r := newRig(t, cfg)
	jitter := []int{0, 12, -8, 5, -15, 10, 0, -3}
	for i, j := range jitter {
		r.Push(snapVel(1, uint32(1000+i*50+j), float32(i*20), 400))
	}
	r.Frame(0)
	if rt := r.RenderTick(); rt != 1000 {
		t.Fatalf("render tick = %v, want 1000", rt)
	}
	prev := r.Render(1).Pos[0]
	maxJump := float32(0)
	for r.RenderTick() < 1300-1e-6 {
		r.Frame(0.010)
		cur := r.Render(1).Pos[0]
		maxJump = max(maxJump, abs(cur-prev))
		prev = cur
	}
	if maxJump >= 30 {
		t.Fatalf("max jump = %v, want < 30", maxJump)
	}
	t.Logf("max jump over 10 ms steps: %.2f units (bound 30)", maxJump)
}

// TestLostStreamDampedReturnBounded: one snapshot and then nothing
// (sustained loss): the extrapolated position stays bounded (peak <= 100,
// about 75) and freezes past the limit (DampedReturn policy, limit 100 ms).
func TestLostStreamDampedReturnBounded(t *testing.T) {
	cfg := cfgAt(1000, 0)
	cfg.Interpolate.Extrapolation = blend.DampedReturn
	cfg.Interpolate.ExtrapolationLimit = 0.1
	r := newRig(t, cfg)
	r.Push(snapVel(1, 1000, 0, 3000))
	r.Frame(0)
	peak := float32(0)
	for r.RenderTick() < 1200-1e-6 {
		r.Frame(0.010)
		peak = max(peak, abs(r.Render(1).Pos[0]))
	}
	if peak > 100 {
		t.Fatalf("peak = %v, want <= 100", peak)
	}
	if math.Abs(float64(peak)-75) > 0.01 {
		t.Errorf("peak = %v, want 0.25*3000*0.1 = 75", peak)
	}
	frozen := r.Render(1).Pos[0]
	r.Frame(3.8) // render tick 5000
	if rt := r.RenderTick(); math.Abs(rt-5000) > 1e-6 {
		t.Fatalf("render tick = %v, want 5000", rt)
	}
	if later := r.Render(1).Pos[0]; math.Abs(float64(later-frozen)) > 1e-5 {
		t.Fatalf("later = %v, frozen = %v: not frozen", later, frozen)
	}
}

// TestLostStreamCoastBounded runs the same lost stream under the default
// Coast policy: bounded by v*limit/2, never moving backwards, then frozen.
func TestLostStreamCoastBounded(t *testing.T) {
	cfg := cfgAt(1000, 0)
	cfg.Interpolate.ExtrapolationLimit = 0.1
	r := newRig(t, cfg)
	r.Push(snapVel(1, 1000, 0, 3000))
	r.Frame(0)
	prev := float32(0)
	for r.RenderTick() < 1200-1e-6 {
		r.Frame(0.010)
		x := r.Render(1).Pos[0]
		if x < prev {
			t.Fatalf("moved backwards: %v after %v", x, prev)
		}
		if x > 150+1e-3 {
			t.Fatalf("x = %v beyond the bound 3000*0.1/2 = 150", x)
		}
		prev = x
	}
	if math.Abs(float64(prev)-150) > 1e-3 {
		t.Fatalf("frozen at %v, want 150", prev)
	}
}

// TestRenderTimeFromEstimatedServerTime: server time estimated at 2.16 s,
// delay 0.12 s, render at 2.04 s between 4.0 m @ 2.00 s and 5.0 m @ 2.10 s
// gives 4.4 m. Ticks are 10 ms (100 Hz). The arrival order does not matter.
func TestRenderTimeFromEstimatedServerTime(t *testing.T) {
	for _, order := range [][]uint32{{200, 210}, {210, 200}} {
		r := newRig(t, cfgAt(100, 12))
		for _, tick := range order {
			x := float32(4)
			if tick == 210 {
				x = 5
			}
			r.Push(snap(1, tick, x))
		}
		r.Frame(0)    // the 2.10 s sample has just arrived
		r.Frame(0.06) // 60 ms later
		if st := r.Pipe.Clock().ServerTick(); math.Abs(st-216) > 1e-9 {
			t.Fatalf("server time = %v ticks, want 216", st)
		}
		if rt := r.RenderTick(); math.Abs(rt-204) > 1e-9 {
			t.Fatalf("render time = %v ticks, want 204", rt)
		}
		if got := r.Render(1).Pos[0]; math.Abs(float64(got)-4.4) > 1e-5 {
			t.Fatalf("arrival order %v: position = %v, want 4.4", order, got)
		}
	}
}

// Dead reckoning at low send rates: Linear extrapolation from the last two
// samples, capped at 150 ms, with a render clock allowed as far ahead;
// samples more than 400 units apart are a teleport.

func deadReckoningConfig(sendRate float64) nsecs.Config {
	cfg := nsecs.DefaultConfig().WithTickRate(sendRate)
	cfg.Clock.Delay = ticksDelay(2) // two send intervals
	cfg.Interpolate.Extrapolation = blend.Linear
	cfg.Interpolate.ExtrapolationLimit = 0.150
	cfg.Clock.MaxAhead = 0.150
	cfg.Interpolate.TeleportDistance = 400
	cfg.Snap.Distance = 400
	return cfg
}

// circle is the true path of the dead-reckoning tests: radius 200,
// 200 units/s.
func circle(t float64) mgl32.Vec3 {
	return mgl32.Vec3{float32(200 * math.Cos(t)), float32(200 * math.Sin(t)), 0}
}

// TestFluidAtLowSendRates: at 10 and 15 Hz sends over a 50 ms link,
// rendering at 60 Hz, the entity moves every frame by the true distance of
// that frame (within 5%), with no underruns.
func TestFluidAtLowSendRates(t *testing.T) {
	for _, rate := range []float64{10, 15} {
		r := newRig(t, deadReckoningConfig(rate))
		const fps, latency = 60.0, 0.050
		var prev mgl32.Vec3
		sent := 0
		for f := 0; f < 10*fps; f++ {
			now := float64(f) / fps
			for float64(sent)/rate+latency <= now {
				p := circle(float64(sent) / rate)
				r.Push(systems.Message{NetID: 1, Tick: uint32(sent), Pos: p})
				sent++
			}
			r.Frame(1 / fps)
			if f < fps { // a second of warm-up
				continue
			}
			cur := r.Render(1).Pos
			if f > fps {
				step := float64(cur.Sub(prev).Len())
				want := 200.0 / fps
				if math.Abs(step-want) > 0.05*want {
					t.Fatalf("%v Hz, frame %d: moved %.3f, true motion %.3f", rate, f, step, want)
				}
			}
			prev = cur
		}
		if m := r.Pipe.Metrics(); m.UnderrunFrames != 0 {
			t.Fatalf("%v Hz: %d underrun frames", rate, m.UnderrunFrames)
		}
	}
}

// TestLossExtrapolatesUpToCap: when snapshots stop, dead reckoning from the
// last two samples keeps the entity moving at its speed until 150 ms past
// the newest sample, then holds.
func TestLossExtrapolatesUpToCap(t *testing.T) {
	r := newRig(t, deadReckoningConfig(10))
	const fps = 60.0
	for tick := 0; tick <= 20; tick++ {
		r.Push(systems.Message{NetID: 1, Tick: uint32(tick), Pos: mgl32.Vec3{float32(tick) * 10, 0, 0}}) // 100 units/s
	}
	r.Frame(0) // render tick 18
	var xs []float32
	var ahead []float64
	for f := 0; f < 40; f++ {
		r.Frame(1 / fps)
		xs = append(xs, r.Render(1).Pos[0])
		ahead = append(ahead, (r.RenderTick()-20)/10)
	}
	for i := 1; i < len(xs); i++ {
		step := xs[i] - xs[i-1]
		switch {
		case ahead[i] <= 0.150-1e-9:
			if math.Abs(float64(step)-100/fps) > 1e-3 {
				t.Fatalf("frame %d (%.0f ms ahead): moved %v, want %v", i, ahead[i]*1000, step, 100/fps)
			}
		case ahead[i-1] >= 0.150:
			if step != 0 {
				t.Fatalf("frame %d (%.0f ms ahead): moved %v after the cap", i, ahead[i]*1000, step)
			}
		}
	}
	if want := float32(200 + 100*0.150); math.Abs(float64(xs[len(xs)-1]-want)) > 1e-3 {
		t.Fatalf("held at %v, want %v", xs[len(xs)-1], want)
	}
}

// TestTeleportDrawnAsOneCut: a jump of 1000 units between two samples (no
// teleport message), or a Teleport message, is drawn as one cut at the new
// sample's tick, not a slide through the space between. Across the cut the
// old sample is held until the new one's tick, so the cut also covers that
// interval's motion.
func TestTeleportDrawnAsOneCut(t *testing.T) {
	for _, tc := range []struct {
		name string
		jump float32
		kind systems.Kind
	}{
		{"unflagged 1000 units", 1000, systems.Snapshot},
		{"teleport message 50 units", 50, systems.Teleport},
	} {
		r := newRig(t, deadReckoningConfig(10))
		const fps = 60.0
		pos := func(tick int) float32 {
			x := float32(tick) * 10
			if tick >= 30 {
				x += tc.jump
			}
			return x
		}
		big := 0
		var prev float32
		for f := 0; f < 6*fps; f++ {
			if f%6 == 0 {
				tick := f / 6
				kind := systems.Snapshot
				if tick == 30 {
					kind = tc.kind
				}
				r.Push(systems.Message{Kind: kind, NetID: 1, Tick: uint32(tick), Pos: mgl32.Vec3{pos(tick), 0, 0}})
			}
			r.Frame(1 / fps)
			x := r.Render(1).Pos[0]
			if f > 0 {
				if step := abs(x - prev); step > 3*100/fps {
					big++
					if math.Abs(float64(step-tc.jump)) > 10+2*100/fps {
						t.Fatalf("%s: frame %d jumped %v, want the whole %v at once", tc.name, f, step, tc.jump)
					}
				}
			}
			prev = x
		}
		if big != 1 {
			t.Fatalf("%s: %d large steps, want exactly one cut", tc.name, big)
		}
		if m := r.Pipe.Metrics(); m.Teleports != 1 {
			t.Fatalf("%s: %d teleports counted, want 1", tc.name, m.Teleports)
		}
	}
}

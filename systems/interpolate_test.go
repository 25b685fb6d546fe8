package systems_test

import (
	"math"
	"testing"

	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/blend"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

func TestLateSampleInsideSpanRefinesPathWithoutPop(t *testing.T) {
	// Path: x = tick, except tick 12 which is at 20 (a bump). Tick 12 is
	// late; until it arrives the span lerps 11 -> 13.
	r := newRig(t, cfgAt(20, 13.5))
	r.Push(snap(1, 10, 10), snap(1, 11, 11))
	for tick := uint32(13); tick <= 25; tick++ {
		r.Push(snap(1, tick, float32(tick)))
	}
	r.Frame(0) // render 11.5: 11.5 on the 11->13 lerp
	before := r.Render(1).Pos[0]
	r.Push(snap(1, 12, 20))
	r.Frame(0.25 / 20) // render 11.75: the refined path says 17.75
	after := r.Render(1).Pos[0]
	m := r.Pipe.Metrics()
	if m.Corrections != 1 || m.Accepted != 16 {
		t.Fatalf("corrections = %d, accepted = %d; want 1 and 16", m.Corrections, m.Accepted)
	}
	if math.Abs(m.CorrectionDistance-6) > 1e-4 {
		t.Fatalf("correction distance = %v, want 6", m.CorrectionDistance)
	}
	// The jump (11.75 -> 17.75) is smoothed, not drawn at once: the first
	// frame closes half of it in the half tick... at most.
	if after-before > 3.5 {
		t.Fatalf("drawn jumped from %v to %v", before, after)
	}
	for r.RenderTick() < 21.75-1e-9 {
		r.Frame(0.25 / 20)
	}
	// Ten ticks later the correction has decayed to 6/2^10.
	if x := r.Render(1).Pos[0]; math.Abs(float64(x)-21.75) > 0.01 {
		t.Fatalf("x = %v, want 21.75 once the correction has decayed", x)
	}
}

func TestEpochChangeHoldsThenSwitches(t *testing.T) {
	// Samples 0..4 in epoch 0 at x = tick; from tick 5 the entity is
	// re-attached elsewhere (epoch 1, x = 100 + tick).
	r := newRig(t, cfgAt(20, 6))
	for tick := uint32(0); tick < 10; tick++ {
		m := snap(1, tick, float32(tick))
		if tick >= 5 {
			m.Epoch = 1
			m.Pos[0] = 100 + float32(tick)
		}
		r.Push(m)
	}
	r.Frame(0) // render tick 3
	for r.RenderTick() < 6 {
		rt := r.RenderTick()
		x := r.Render(1).Pos[0]
		switch {
		case rt < 4:
			if math.Abs(float64(x)-rt) > 1e-4 {
				t.Fatalf("render %v: x = %v, want %v (lerp in the old epoch)", rt, x, rt)
			}
		case rt < 5:
			if x != 4 {
				t.Fatalf("render %v: x = %v, want 4 held across the epoch change", rt, x)
			}
		default:
			if math.Abs(float64(x)-(100+rt)) > 1e-3 {
				t.Fatalf("render %v: x = %v, want %v (new epoch)", rt, x, 100+rt)
			}
		}
		r.Frame(0.2 / 20)
	}
	m := r.Pipe.Metrics()
	if m.Teleports != 1 || m.Snaps != 1 {
		t.Fatalf("teleports = %d, snaps = %d; want 1 and 1", m.Teleports, m.Snaps)
	}
	if first := r.Ring(1).At(0).Tick; first != 5 {
		t.Fatalf("oldest sample after the teleport = %d, want 5 (older dropped)", first)
	}
}

func TestDiscreteStateSwitchesAtNewerTick(t *testing.T) {
	r := newRig(t, cfgAt(20, 3))
	for tick := uint32(0); tick < 6; tick++ {
		m := snap(1, tick, float32(tick))
		m.State = uint16(tick * 10)
		r.Push(m)
	}
	r.Frame(0) // render 2
	for r.RenderTick() < 4 {
		rt := r.RenderTick()
		want := uint16(math.Floor(rt+1e-9)) * 10
		if got := r.Render(1).State; got != want {
			t.Fatalf("render %v: state %d, want %d", rt, got, want)
		}
		r.Frame(0.25 / 20)
	}
}

func TestRotationTakesShortestPath(t *testing.T) {
	r := newRig(t, cfgAt(20, 1.5))
	deg := float32(math.Pi / 180)
	a := snap(1, 0, 0)
	a.Rot = blend.QuatFromAngle(170 * deg)
	b := snap(1, 1, 0)
	b.Rot = blend.QuatFromAngle(-170 * deg)
	c := snap(1, 2, 0)
	c.Rot = b.Rot
	r.Push(a, b, c)
	r.Frame(0) // render 0.5
	rot := r.Render(1).Rot
	got := blend.AngleOf(&rot) / deg
	if math.Abs(math.Abs(float64(got))-180) > 0.01 {
		t.Fatalf("halfway from 170° to -170°: %v°, want ±180° (the short way)", got)
	}
}

func TestHiddenBeforeSpawnTick(t *testing.T) {
	r := newRig(t, cfgAt(20, 2))
	r.Push(snap(1, 10, 0), snap(1, 11, 1))
	r.Frame(0) // render 9: before the spawn sample
	if f := r.Render(1).Flags; f&components.Visible != 0 {
		t.Fatalf("visible before its spawn tick (flags %b)", f)
	}
	r.Frame(1.0 / 20)
	if f := r.Render(1).Flags; f&components.Visible == 0 {
		t.Fatalf("not visible at its spawn tick (flags %b)", f)
	}
}

// TestNoCorrectionAcrossClockJump: after a hidden suspend the clock jumps;
// the old drawing is no reference and must not turn into a correction.
func TestNoCorrectionAcrossClockJump(t *testing.T) {
	cfg := nsecs.DefaultConfig() // clamped clock, as shipped
	r := newRig(t, cfg)
	for tick := uint32(1000); tick <= 1100; tick++ {
		x := float32(tick) * 0.3
		if tick > 1050 {
			x = 1050 * 0.3 // stops at tick 1050
		}
		r.Push(snap(1, tick, x))
		for f := 0; f < 3; f++ {
			r.Frame(1.0 / 60)
		}
	}
	before := r.Pipe.Metrics().Corrections
	// A suspend hidden by a clamped dt: the server moved on 40 ticks. Its
	// snapshots look future-dated until the clock has seen enough of them
	// to re-anchor (three frames), then flow again.
	r.Frame(0.1)
	for tick := uint32(1141); tick <= 1160; tick++ {
		r.Push(snap(1, tick, 1050*0.3))
		for f := 0; f < 3; f++ {
			r.Frame(1.0 / 60)
		}
	}
	m := r.Pipe.Metrics()
	if m.ClockResets == 0 {
		t.Fatal("the scenario did not jump the clock")
	}
	if m.Corrections != before {
		t.Fatalf("%d corrections across the jump (max %.2f)", m.Corrections-before, m.MaxCorrection)
	}
}

// TestVelocityFromLastTwoSamples: a snapshot without a velocity is
// extrapolated along the slope from the sample before it; across a
// discontinuity there is no slope and the entity stays on its newest
// sample.
func TestVelocityFromLastTwoSamples(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind systems.Kind
		want float32
		flag components.RenderFlags
	}{
		{"slope", systems.Snapshot, 3, components.Extrapolated},
		{"after a teleport", systems.Teleport, 2, components.Visible},
	} {
		cfg := cfgAt(20, 0)
		cfg.Interpolate.Extrapolation = blend.Linear
		r := newRig(t, cfg)
		second := snap(1, 1, 2)
		second.Kind = tc.kind
		r.Push(snap(1, 0, 0), second)
		r.Frame(0)
		r.Frame(0.5 / 20) // half a tick past the newest sample
		got := r.Render(1)
		if got.Pos[0] != tc.want || got.Flags&tc.flag == 0 {
			t.Fatalf("%s: x = %v (flags %b), want %v (flag %b)", tc.name, got.Pos[0], got.Flags, tc.want, tc.flag)
		}
	}
}

// TestHoldPolicyCountsUnderruns: under Hold the entity stays on its newest
// sample past it, and every such frame counts as an underrun.
func TestHoldPolicyCountsUnderruns(t *testing.T) {
	cfg := cfgAt(20, 0)
	cfg.Interpolate.Extrapolation = blend.Hold
	r := newRig(t, cfg)
	r.Push(snapVel(1, 0, 0, 100), snapVel(1, 1, 5, 100))
	r.Frame(0) // render 1: on the newest sample, already holding
	for i := 0; i < 4; i++ {
		r.Frame(1.0 / 60)
		if got := r.Render(1); got.Pos[0] != 5 || got.Flags&components.Held == 0 || got.Flags&components.Extrapolated != 0 {
			t.Fatalf("frame %d: x = %v, flags %b; want 5 held", i, got.Pos[0], got.Flags)
		}
	}
	m := r.Pipe.Metrics()
	if m.Held != 5 || m.Extrapolated != 0 || m.UnderrunFrames != 5 || m.FrameHeld != 1 {
		t.Fatalf("held %d, extrapolated %d, underrun frames %d, held last frame %d; want 5, 0, 5, 1", m.Held, m.Extrapolated, m.UnderrunFrames, m.FrameHeld)
	}
	if m.AheadMin != 0 || m.AheadMax != 0 {
		t.Fatalf("samples ahead %d..%d while past the newest, want 0", m.AheadMin, m.AheadMax)
	}
}

// TestSamplesAheadMetrics: the metrics count, over the entities drawn, how
// many samples lie ahead of the render time.
func TestSamplesAheadMetrics(t *testing.T) {
	r := newRig(t, cfgAt(20, 3))
	for tick := uint32(0); tick <= 10; tick++ {
		r.Push(snap(1, tick, 0))
	}
	for tick := uint32(6); tick <= 8; tick++ {
		r.Push(snap(2, tick, 0))
	}
	r.Frame(0) // render 7.5: entity 1 has 8, 9, 10 ahead, entity 2 has 8
	m := r.Pipe.Metrics()
	if m.AheadMin != 1 || m.AheadMax != 3 || m.AheadMean != 2 {
		t.Fatalf("ahead min %d mean %v max %d; want 1, 2, 3", m.AheadMin, m.AheadMean, m.AheadMax)
	}
}

func TestNewInterpolateRejectsBadConfig(t *testing.T) {
	nan := float32(math.NaN())
	for _, mutate := range []func(*systems.InterpolateConfig){
		func(c *systems.InterpolateConfig) { c.Extrapolation = blend.DampedReturn + 1 },
		func(c *systems.InterpolateConfig) { c.ExtrapolationLimit = -0.1 },
		func(c *systems.InterpolateConfig) { c.ExtrapolationLimit = math.Inf(1) },
		func(c *systems.InterpolateConfig) { c.TeleportDistance = nan },
		func(c *systems.InterpolateConfig) { c.MinCorrection = -1 },
		func(c *systems.InterpolateConfig) { c.MinCorrection = float32(math.Inf(1)) },
	} {
		cfg := systems.DefaultInterpolateConfig()
		mutate(&cfg)
		if _, err := systems.NewInterpolate(cfg); err == nil {
			t.Errorf("NewInterpolate(%+v) accepted", cfg)
		}
	}
	if _, err := systems.NewInterpolate(systems.DefaultInterpolateConfig()); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
}

// TestCompleteMarkerDrawsStill: an entity a Complete marker did not name is
// unchanged: it is drawn still up to the marker's tick (neither
// extrapolated nor counted as an underrun), held after it, and when it
// moves again the motion starts at the marker, not spread over the time it
// stood still.
func TestCompleteMarkerDrawsStill(t *testing.T) {
	r := newRig(t, cfgAt(20, 2))
	r.Push(snapVel(1, 10, 1, 20), snapVel(1, 11, 2, 20)) // moving at 20 units/s (1 per tick)
	for tick := uint32(12); tick <= 20; tick++ {
		r.Push(systems.Message{Kind: systems.Complete, Tick: tick})
	}
	r.Frame(0) // clock at 20, render at 18: past the newest sample (11)
	if d := r.Render(1); d.Pos[0] != 2 || d.Flags != components.Visible {
		t.Fatalf("at render tick %.1f: x=%v flags %b; want still at 2, visible only", r.RenderTick(), d.Pos[0], d.Flags)
	}
	if m := r.Pipe.Metrics(); m.FrameExtrapolated+m.FrameHeld != 0 {
		t.Fatalf("%d extrapolated, %d held: an unchanged entity is no underrun", m.FrameExtrapolated, m.FrameHeld)
	}
	r.Frame(4.0 / 20) // render at 22: past the marker, nothing known
	if d := r.Render(1); d.Pos[0] != 2 || d.Flags&components.Held == 0 {
		t.Fatalf("past the marker: x=%v flags %b; want held at 2", d.Pos[0], d.Flags)
	}
	// It moves again: 3 units by tick 23.
	r2 := newRig(t, cfgAt(20, 2))
	r2.Push(snapVel(1, 10, 1, 20), snapVel(1, 11, 2, 20))
	for tick := uint32(12); tick <= 20; tick++ {
		r2.Push(systems.Message{Kind: systems.Complete, Tick: tick})
	}
	r2.Push(snap(1, 23, 5))
	r2.Frame(0) // render at 21: a third of the way from the still copy at 20 to 23
	if got := ringTicks(r2.Ring(1)); len(got) != 4 || got[2] != 20 || got[3] != 23 {
		t.Fatalf("ring ticks %v, want a still copy at 20 before 23", got)
	}
	if x := r2.Render(1).Pos[0]; math.Abs(float64(x)-3) > 1e-5 {
		t.Fatalf("x = %v at render tick 21, want 3 (still at 2 until 20, then 1 unit per tick)", x)
	}
	r2.CheckCounted(12)
}

// TestEntitySentLessOftenIsDrawnLater: an entity sent every 4 ticks among
// entities sent every tick is drawn 3 ticks later than them, with samples
// on both sides, while the others keep no lag.
func TestEntitySentLessOftenIsDrawnLater(t *testing.T) {
	r := newRig(t, cfgAt(20, 1.5))
	spans := generic.NewMap1[components.Span](&r.World)
	under := 0
	for tick := uint32(100); tick < 200; tick++ {
		r.Push(snap(1, tick, float32(tick)))
		if tick%4 == 0 {
			r.Push(snap(2, tick, float32(tick)))
		}
		for f := 0; f < 3; f++ {
			r.Frame(1.0 / 60)
			if tick > 150 && r.Render(2).Flags&(components.Extrapolated|components.Held) != 0 {
				under++
			}
		}
	}
	fast, slow := spans.Get(r.Entity(1)), spans.Get(r.Entity(2))
	if fast.Lag != 0 || math.Abs(float64(slow.Lag)-3) > 0.1 || math.Abs(float64(slow.Interval)-4) > 0.1 {
		t.Fatalf("lags %v and %v (interval %v); want 0 and 3 (interval 4)", fast.Lag, slow.Lag, slow.Interval)
	}
	if under != 0 {
		t.Fatalf("the entity sent every 4 ticks ran out of samples in %d frames", under)
	}
	// It is drawn where it was 3 ticks before the others.
	if d := r.Render(1).Pos[0] - r.Render(2).Pos[0]; math.Abs(float64(d)-3) > 0.1 {
		t.Fatalf("drawn %v units behind the entity sent every tick, want 3", d)
	}
}

// TestLostSamplesAreNoSlowerRate: an entity sent every tick that loses
// pairs and single samples, three ticks in seven, keeps its measured
// interval of one tick, while an entity that then really is sent every 3
// ticks gets its interval and lag.
func TestLostSamplesAreNoSlowerRate(t *testing.T) {
	r := newRig(t, cfgAt(20, 1.5))
	spans := generic.NewMap1[components.Span](&r.World)
	for tick := uint32(98); tick < 300; tick++ {
		r.Push(snap(1, tick, float32(tick)))
		if k := tick % 7; tick < 200 && (k == 0 || k == 1 || k == 4 || k == 5) || tick >= 200 && tick%3 == 0 {
			r.Push(snap(2, tick, float32(tick)))
		}
		for f := 0; f < 3; f++ {
			r.Frame(1.0 / 60)
		}
		if tick == 199 {
			lossy := spans.Get(r.Entity(2))
			if lossy.Interval > 1.1 {
				t.Fatalf("entity losing samples: interval %v, want 1", lossy.Interval)
			}
		}
	}
	slow := spans.Get(r.Entity(2))
	if math.Abs(float64(slow.Interval)-3) > 0.1 || math.Abs(float64(slow.Lag)-2) > 0.1 {
		t.Fatalf("entity sent every 3 ticks: interval %v, lag %v; want 3 and 2", slow.Interval, slow.Lag)
	}
}

// TestExtrapolationDeficitIsTakenUpAsLag: an entity moving one unit per
// tick loses three samples that another entity's packets bring, and is
// extrapolated (Coast eases it toward a stop); when its samples return it
// continues from where it is drawn, a little later than the others, and
// catches up gently, instead of sprinting to close the distance Coast
// fell behind.
func TestExtrapolationDeficitIsTakenUpAsLag(t *testing.T) {
	r := newRig(t, cfgAt(20, 1.5))
	spans := generic.NewMap1[components.Span](&r.World)
	const perFrame = 1.0 / 3 // true motion per frame: one unit a tick, three frames a tick
	var prev float32
	maxRatio, maxLag, extrapolated := 0.0, float32(0), false
	for tick := uint32(100); tick < 160; tick++ {
		if tick < 120 || tick > 122 {
			r.Push(snap(1, tick, float32(tick)))
		}
		r.Push(snap(2, tick, 0))
		for f := 0; f < 3; f++ {
			r.Frame(1.0 / 60)
			d := r.Render(1)
			extrapolated = extrapolated || d.Flags&components.Extrapolated != 0
			if tick > 105 {
				maxRatio = max(maxRatio, float64(d.Pos[0]-prev)/perFrame)
			}
			prev = d.Pos[0]
			maxLag = max(maxLag, spans.Get(r.Entity(1)).Lag)
		}
	}
	if !extrapolated || maxLag < 0.3 {
		t.Fatalf("extrapolated %v, largest lag %v ticks; want extrapolation and a lag of about 0.6", extrapolated, maxLag)
	}
	if maxRatio > 1.2 {
		t.Fatalf("largest frame's motion %.2f× the true motion, want at most 1.2", maxRatio)
	}
	if lag := spans.Get(r.Entity(1)).Lag; lag != 0 {
		t.Fatalf("lag %v ticks after 1.8 s, want 0", lag)
	}
}

package systems_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/systems"
)

// lateBump runs entity 1 along x = tick (ticks 10..25, tick 12 missing) and
// then lets tick 12 arrive late, bump units off the path, while the render
// time is inside the span it refines: the drawn target jumps by
// 0.75 × (bump+1) - 0.75 at once. It returns the target after the jump.
func lateBump(r *rig, bump float32) float32 {
	r.T.Helper()
	r.Push(snap(1, 10, 10), snap(1, 11, 11))
	for tick := uint32(13); tick <= 25; tick++ {
		r.Push(snap(1, tick, float32(tick)))
	}
	r.Frame(0) // render 11.5, on the 11 -> 13 lerp
	r.Push(snap(1, 12, 12+bump))
	r.Frame(0.25 / 20) // render 11.75: the target is now 11 + 0.75 × (1 + bump)
	return 11 + 0.75*(1+bump)
}

// TestCorrectionBeyondSnapDistanceDrawsTarget: a target jump longer than
// the snap distance is not glided over: the entity is drawn at its new
// target at once, flagged Snapped, and its correction dropped; a shorter
// one is smoothed.
func TestCorrectionBeyondSnapDistanceDrawsTarget(t *testing.T) {
	for _, tc := range []struct {
		name    string
		bump    float32
		snapped bool
	}{
		{"jump of 22.5 beyond 20", 30, true},
		{"jump of 15 within 20", 20, false},
	} {
		r := newRig(t, cfgAt(20, 13.5)) // snap distance 20
		target := lateBump(r, tc.bump)
		got := r.Render(1)
		m := r.Pipe.Metrics()
		if m.Corrections != 1 {
			t.Fatalf("%s: %d corrections, want 1", tc.name, m.Corrections)
		}
		if tc.snapped {
			if got.Pos[0] != target || got.Flags&components.Snapped == 0 || m.Snaps != 1 {
				t.Fatalf("%s: drawn at %v (flags %b, snaps %d), want snapped to %v", tc.name, got.Pos[0], got.Flags, m.Snaps, target)
			}
			if c := r.Correction(1); !c.IsZero() {
				t.Fatalf("%s: correction %+v kept after the snap", tc.name, c)
			}
			continue
		}
		if got.Flags&components.Snapped != 0 || m.Snaps != 0 {
			t.Fatalf("%s: snapped (flags %b, snaps %d)", tc.name, got.Flags, m.Snaps)
		}
		if !(got.Pos[0] < target-5) {
			t.Fatalf("%s: drawn at %v, want well short of the target %v (smoothed)", tc.name, got.Pos[0], target)
		}
	}
}

// TestSnapNegativeDistanceNeverSnaps: a negative Distance turns distance
// snapping off: even a jump of hundreds of units is smoothed.
func TestSnapNegativeDistanceNeverSnaps(t *testing.T) {
	cfg := cfgAt(20, 13.5)
	cfg.Snap.Distance = -1
	r := newRig(t, cfg)
	target := lateBump(r, 300) // below the teleport distance of 400
	got := r.Render(1)
	if got.Flags&components.Snapped != 0 || r.Pipe.Metrics().Snaps != 0 {
		t.Fatalf("snapped with snapping off (flags %b)", got.Flags)
	}
	if !(got.Pos[0] < target-100) {
		t.Fatalf("drawn at %v, want well short of the target %v (smoothed)", got.Pos[0], target)
	}
}

// TestGameCorrectionBeyondSnapDistanceSnapped: a correction written by
// game code is snapped like the pipeline's own.
func TestGameCorrectionBeyondSnapDistanceSnapped(t *testing.T) {
	r := heldRig(t, cfgAt(20, 0))
	setCorrection(r, components.Correction{Pos: mgl32.Vec3{0, 0, 25}})
	r.Frame(1.0 / 60)
	got := r.Render(1)
	if got.Pos != (mgl32.Vec3{10, 0, 0}) || got.Flags&components.Snapped == 0 {
		t.Fatalf("drawn at %v (flags %b), want snapped to the target (10, 0, 0)", got.Pos, got.Flags)
	}
	if c := r.Correction(1); !c.IsZero() || r.Pipe.Metrics().Snaps != 1 {
		t.Fatalf("correction %+v, snaps %d", c, r.Pipe.Metrics().Snaps)
	}
}

// TestTeleportDrawnAtTargetDroppingOldSamples: the frame the render time
// crosses a Teleport, the entity is drawn exactly at its new target even
// with a correction still being smoothed, and the samples from before the
// teleport are dropped.
func TestTeleportDrawnAtTargetDroppingOldSamples(t *testing.T) {
	// x = tick up to tick 12; at tick 13 the entity teleports 50 units
	// ahead and goes on from there. Tick 12 arrives late and off the path,
	// so a correction is being smoothed when the teleport comes.
	r := newRig(t, cfgAt(20, 13.5))
	r.Push(snap(1, 10, 10), snap(1, 11, 11))
	r.Push(systems.Message{Kind: systems.Teleport, NetID: 1, Tick: 13, Pos: mgl32.Vec3{63, 0, 0}})
	for tick := uint32(14); tick <= 25; tick++ {
		r.Push(snap(1, tick, 50+float32(tick)))
	}
	r.Frame(0) // render 11.5: held at 11 until the teleport's tick
	if x := r.Render(1).Pos[0]; x != 11 {
		t.Fatalf("drawn at %v before the teleport, want 11 held", x)
	}
	r.Push(snap(1, 12, 20))
	r.Frame(0.25 / 20) // render 11.75: the target moves to 17.75
	if m := r.Pipe.Metrics(); m.Corrections != 1 || m.Snaps != 0 {
		t.Fatalf("corrections %d, snaps %d; want a correction being smoothed", m.Corrections, m.Snaps)
	}
	crossed := false
	for r.RenderTick() < 14 {
		before := r.RenderTick()
		corr := r.Correction(1)
		r.Frame(0.25 / 20)
		got, rt := r.Render(1), r.RenderTick()
		switch {
		case rt < 13 && got.Flags&(components.Snapped|components.Teleported) != 0:
			t.Fatalf("render %v: flags %b before the teleport", rt, got.Flags)
		case before < 13 && rt >= 13:
			crossed = true
			if corr.IsZero() {
				t.Fatal("no correction left to drop when the teleport came")
			}
			want := float32(50 + rt)
			if got.Flags&components.Teleported == 0 || got.Flags&components.Snapped == 0 {
				t.Fatalf("render %v: flags %b, want Teleported and Snapped", rt, got.Flags)
			}
			if math.Abs(float64(got.Pos[0]-want)) > 1e-4 {
				t.Fatalf("render %v: drawn at %v, want the target %v exactly", rt, got.Pos[0], want)
			}
			if c := r.Correction(1); !c.IsZero() {
				t.Fatalf("correction %+v survived the teleport", c)
			}
			if first := r.Ring(1).At(0).Tick; first != 13 {
				t.Fatalf("oldest sample after the teleport: tick %d, want 13", first)
			}
		}
	}
	if !crossed {
		t.Fatal("the render time never crossed the teleport")
	}
	if m := r.Pipe.Metrics(); m.Teleports != 1 || m.Snaps != 1 {
		t.Fatalf("teleports %d, snaps %d; want 1 and 1", m.Teleports, m.Snaps)
	}
}

func TestNewSnapRejectsBadConfig(t *testing.T) {
	for _, d := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		if _, err := systems.NewSnap(systems.SnapConfig{Distance: d}); err == nil {
			t.Errorf("NewSnap accepted distance %v", d)
		}
	}
	if _, err := systems.NewSnap(systems.DefaultSnapConfig()); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
}

package systems_test

import (
	"testing"

	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

type (
	gaugeField float32
	pairField  [2]float32
)

// fieldPipe is a rig at 20 ticks per second, 3 ticks of delay, with a
// Linear field of 0..100 at index 0 and a vector of 0..100 at 1 and 2,
// both extrapolating.
func fieldPipe(t *testing.T) *rig {
	t.Helper()
	r := newRig(t, cfgAt(20, 3))
	if _, err := nsecs.AddField(r.Pipe, systems.FieldConfig[gaugeField]{Index: 0, Min: 0, Max: 100, Extrapolate: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := nsecs.AddVecField(r.Pipe, systems.VecFieldConfig[pairField]{Index: 1, Min: 0, Max: 100, Extrapolate: true}); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestFieldGameGaveComponent: a remote entity to which the game gave the
// field's component itself, before its first field value, gets the ring
// beside it and draws into it; adding the component a second time
// panicked.
func TestFieldGameGaveComponent(t *testing.T) {
	r := fieldPipe(t)
	r.Push(snap(1, 1, 0), snap(1, 2, 1))
	r.Frame(1.0 / 60)
	e := r.Entity(1)
	gauges := generic.NewMap1[gaugeField](&r.World)
	pairs := generic.NewMap1[pairField](&r.World)
	gauges.Add(e)
	pairs.Add(e)
	*gauges.Get(e), *pairs.Get(e) = 7, pairField{7, 7}
	for tick := uint32(1); tick <= 2; tick++ {
		r.Pipe.FieldInbox().Push(systems.FieldMessage{NetID: 1, Tick: tick, Values: [systems.MaxFields]float32{50, 50, 50}})
	}
	r.Frame(1.0 / 60)
	if m := r.Pipe.Metrics(); m.FieldsAccepted != 4 {
		t.Fatalf("%d field values accepted, want 4 (2 ticks, 2 fields); rejected %v", m.FieldsAccepted, m.FieldsRejected)
	}
	for range 30 {
		r.Frame(1.0 / 60)
	}
	if g, p := *gauges.Get(e), *pairs.Get(e); g != 50 || p != (pairField{50, 50}) {
		t.Fatalf("drawn %v and %v, want 50 and [50 50]", g, p)
	}
}

// TestFieldExtrapolationBounded: a field rising towards its Max when the
// packets stop is extrapolated up to the Max and no further, where it
// went on along its slope to values the field refuses.
func TestFieldExtrapolationBounded(t *testing.T) {
	r := fieldPipe(t)
	gauges := generic.NewMap1[gaugeField](&r.World)
	pairs := generic.NewMap1[pairField](&r.World)
	spans := generic.NewMap1[components.Span](&r.World)
	var top gaugeField
	var topPair float32
	for tick := uint32(1); tick <= 40; tick++ {
		if tick <= 20 {
			v := float32(tick) * 5 // 5 .. 100
			r.Push(snapVel(1, tick, float32(tick), 20))
			r.Pipe.FieldInbox().Push(systems.FieldMessage{NetID: 1, Tick: tick, Values: [systems.MaxFields]float32{v, v, 100 - v}})
		}
		for range 3 {
			r.Frame(1.0 / 60)
		}
		if tick < 2 {
			continue
		}
		e := r.Entity(1)
		g, p := *gauges.Get(e), *pairs.Get(e)
		if g < 0 || g > 100 || p[0] < 0 || p[0] > 100 || p[1] < 0 || p[1] > 100 {
			t.Fatalf("tick %d: drawn %v and %v, want within [0, 100] (span %+v)", tick, g, p, *spans.Get(e))
		}
		top, topPair = max(top, g), max(topPair, p[0])
	}
	if top != 100 || topPair != 100 {
		t.Fatalf("drawn at most %v and %v, want 100 reached", top, topPair)
	}
}

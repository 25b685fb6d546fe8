package systems_test

import (
	"testing"

	"github.com/mlange-42/arche/generic"
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

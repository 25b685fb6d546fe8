package systems

import (
	"testing"

	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
)

// TestSharedResourceAddedOnce: the first system that needs one of the
// systems' own resources adds it, and every later one gets the same.
func TestSharedResourceAddedOnce(t *testing.T) {
	w := ecs.NewWorld()
	res := generic.NewResource[despawnSchedule](&w)
	if res.Has() {
		t.Fatal("a new world already holds a despawn schedule")
	}
	first := sharedResource[despawnSchedule](&w)
	first.detached = 3
	second := sharedResource[despawnSchedule](&w)
	if first != second || second.detached != 3 {
		t.Fatalf("second call returned %p (detached %d), want the first, %p (detached 3)", second, second.detached, first)
	}
	if got := res.Get(); got != first {
		t.Fatalf("the world holds %p, want the resource handed out, %p", got, first)
	}
}

package systems

import (
	"reflect"
	"testing"

	"github.com/mlange-42/arche/ecs"
)

// With the arche version netsmooth is built with, Interpolate finds where
// a query's archetypes end: it draws runs of entities, not one at a time.
func TestArchetypeBoundsFound(t *testing.T) {
	if b := archetypeBounds(); !b.ok {
		t.Fatal("the archetype bounds of arche's Query were not found: Interpolate fetches every entity's components one by one")
	}
}

// The probe tells the query's archetype bounds from any other pair of its
// fields: offsets that point elsewhere are refused.
func TestQueryBoundsAgreeRefusesOtherFields(t *testing.T) {
	typ := reflect.TypeFor[ecs.Query]()
	offset := func(name string) uintptr {
		f, ok := typ.FieldByName(name)
		if !ok {
			t.Fatalf("arche's Query has no field %s", name)
		}
		return f.Offset
	}
	index, last := offset("entityIndex"), offset("entityIndexMax")
	if !queryBoundsAgree(queryBounds{index: index, max: last, ok: true}) {
		t.Fatal("the real bounds were refused")
	}
	for name, b := range map[string]queryBounds{
		"swapped":             {index: last, max: index, ok: true},
		"count for the last":  {index: index, max: offset("count"), ok: true},
		"archIndex for index": {index: offset("archIndex"), max: last, ok: true},
		"index for both":      {index: index, max: index, ok: true},
	} {
		if queryBoundsAgree(b) {
			t.Errorf("%s: accepted", name)
		}
	}
}

package systems

import (
	"reflect"
	"testing"

	"github.com/mlange-42/arche/ecs"
)

// With the arche version netsmooth is built with, Receive finds the
// entity column of an archetype: the shortcut finds an entity's row with
// one compare, not through the world's entity tables.
func TestEntityColumnFound(t *testing.T) {
	if o := entityColumns(); !o.ok {
		t.Fatal("the entity column of arche's archetypes was not found: Receive's shortcut declines every message")
	}
}

// The probe tells the entity column from the other pointer of the access
// helper: an offset that points elsewhere is refused.
func TestEntityColumnAgreesRefusesOtherFields(t *testing.T) {
	access, ok := reflect.TypeFor[ecs.Query]().FieldByName("access")
	if !ok {
		t.Fatal("arche's Query has no field access")
	}
	offset := func(name string) uintptr {
		f, ok := access.Type.Elem().FieldByName(name)
		if !ok {
			t.Fatalf("arche's archetypeAccess has no field %s", name)
		}
		return f.Offset
	}
	if !entityColumnAgrees(entityColumnOffsets{access: access.Offset, entities: offset("entityPointer"), ok: true}) {
		t.Fatal("the real entity column was refused")
	}
	if entityColumnAgrees(entityColumnOffsets{access: access.Offset, entities: offset("basePointer"), ok: true}) {
		t.Fatal("the column layouts were taken for the entity column")
	}
}

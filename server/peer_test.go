package server

import (
	"reflect"
	"testing"

	"github.com/netsmooth/netsmooth/wire"
)

// TestSameTellsEveryFieldApart checks that a table's record differs from
// one that changes any single field of wire.Record, element by element:
// same compares the fields one by one, and a field added to the record
// must be added to it.
func TestSameTellsEveryFieldApart(t *testing.T) {
	base := wire.Record{NetID: 7, Pos: [3]int32{1, 2, 3}, Vel: [3]int32{4, 5, 6}, Rot: 99, State: 3, Epoch: 2, Flags: wire.HasVelocity, Fields: [wire.MaxFields]int32{1, 2}}
	table := sentTick{recs: []sentRec{{rec: base}}}
	if !table.same(0, &base) {
		t.Fatal("same(record, itself) = false")
	}
	typ := reflect.TypeOf(base)
	changed := 0
	for f := range typ.NumField() {
		field := typ.Field(f)
		elems := 1
		if field.Type.Kind() == reflect.Array {
			elems = field.Type.Len()
		}
		for e := range elems {
			r := base
			v := reflect.ValueOf(&r).Elem().Field(f)
			if field.Type.Kind() == reflect.Array {
				v = v.Index(e)
			}
			switch v.Kind() {
			case reflect.Int32:
				v.SetInt(v.Int() + 1)
			case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
				v.SetUint(v.Uint() ^ 1)
			default:
				t.Fatalf("field %s has kind %v: teach this test (and same) about it", field.Name, v.Kind())
			}
			if table.same(0, &r) {
				t.Errorf("same reports a record whose %s[%d] differs as the same", field.Name, e)
			}
			changed++
		}
	}
	// Rot, Pos (3), Vel (3), NetID, State, Epoch, Flags, Fields (4).
	if want := 11 + wire.MaxFields; changed != want {
		t.Errorf("changed %d elements, want the record's %d", changed, want)
	}
}

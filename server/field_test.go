package server

import (
	"errors"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/wire"
)

// TestSetField: custom fields set with the entity or on their own reach
// the client; a value the FieldSpec refuses changes nothing; a field set
// to its value again costs nothing.
func TestSetField(t *testing.T) {
	wcfg := wire.Config{Quantizer: wire.Quantizer{Fields: []wire.FieldSpec{{Min: 0, Max: 100, Precision: 0.5}}}}
	s := newServer(t, SessionConfig{Wire: wcfg})
	if err := s.Connect(1); err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t, wcfg)
	s.BeginTick(1)
	nan := float32(math.NaN())
	for _, v := range []float32{nan, -1, 101} {
		if err := s.SetEntity(wire.Entity{NetID: 1, Fields: [wire.MaxFields]float32{v}}); !errors.Is(err, wire.ErrRange) {
			t.Errorf("SetEntity with field %v: %v, want ErrRange", v, err)
		}
	}
	if err := s.SetEntity(wire.Entity{NetID: 1, Pos: mgl32.Vec3{1, 0, 0}, Fields: [wire.MaxFields]float32{80}}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetField(2, 0, 5); !errors.Is(err, ErrEntity) {
		t.Errorf("SetField of an absent entity: %v", err)
	}
	for _, bad := range []struct {
		i int
		v float32
	}{{1, 5}, {-1, 5}, {0, nan}, {0, 100.5}} {
		if err := s.SetField(1, bad.i, bad.v); !errors.Is(err, wire.ErrRange) {
			t.Errorf("SetField(1, %d, %v): %v, want ErrRange", bad.i, bad.v, err)
		}
	}
	send := func(tick uint32) int {
		pk, err := s.Snapshot(1, tick*50, nil)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, p := range pk {
			c.receive(p, tick*50)
			n += len(p)
		}
		if len(c.errs) > 0 {
			t.Fatal(c.errs)
		}
		s.Receive(1, c.ack(t, tick*50+10), tick*50+20)
		return n
	}
	send(1)
	if got := c.entities[0].Fields[0]; got != 80 {
		t.Fatalf("health %v, want 80", got)
	}
	s.BeginTick(2)
	if err := s.SetField(1, 0, 62.5); err != nil {
		t.Fatal(err)
	}
	changed := send(2)
	if len(c.entities) != 1 || c.entities[0].Fields[0] != 62.5 || c.entities[0].Pos[0] != 1 {
		t.Fatalf("after SetField: %+v", c.entities)
	}
	s.BeginTick(3)
	if err := s.SetField(1, 0, 62.5); err != nil {
		t.Fatal(err)
	}
	same := send(3)
	if len(c.entities) != 0 {
		t.Fatalf("an unchanged field was sent: %+v", c.entities)
	}
	// gap 1, mask 2, field mask 1, difference 1
	if changed-same != 5 {
		t.Errorf("a snapshot with one changed field is %d bytes, without %d: want 5 more", changed, same)
	}
}

// TestSetFieldAfterSetEntity: SetEntity replaces every declared field,
// so a game that sets a field on its own calls SetField after SetEntity
// in each tick it hands the motion over: the field set after it keeps its
// value, one set before it is replaced by the entity's.
func TestSetFieldAfterSetEntity(t *testing.T) {
	wcfg := wire.Config{Quantizer: wire.Quantizer{Fields: []wire.FieldSpec{{Min: 0, Max: 100, Precision: 0.5}}}}
	s := newServer(t, SessionConfig{Wire: wcfg})
	if err := s.Connect(1); err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t, wcfg)
	send := func(tick uint32) wire.Entity {
		t.Helper()
		pk, err := s.Snapshot(1, tick*50, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pk {
			c.receive(p, tick*50)
		}
		if len(c.errs) > 0 || len(c.entities) != 1 {
			t.Fatalf("tick %d: errors %v, entities %+v; want one entity", tick, c.errs, c.entities)
		}
		s.Receive(1, c.ack(t, tick*50+10), tick*50+20)
		return c.entities[0]
	}
	s.BeginTick(1)
	if err := s.SetEntity(wire.Entity{NetID: 1, Pos: mgl32.Vec3{1, 0, 0}}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetField(1, 0, 40); err != nil {
		t.Fatal(err)
	}
	if e := send(1); e.Pos[0] != 1 || e.Fields[0] != 40 {
		t.Fatalf("SetField after SetEntity: pos %v health %v, want 1 and 40", e.Pos[0], e.Fields[0])
	}
	s.BeginTick(2)
	if err := s.SetField(1, 0, 30); err != nil {
		t.Fatal(err)
	}
	if err := s.SetEntity(wire.Entity{NetID: 1, Pos: mgl32.Vec3{2, 0, 0}, Fields: [wire.MaxFields]float32{25}}); err != nil {
		t.Fatal(err)
	}
	if e := send(2); e.Pos[0] != 2 || e.Fields[0] != 25 {
		t.Fatalf("SetField before SetEntity: pos %v health %v, want 2 and the entity's 25", e.Pos[0], e.Fields[0])
	}
}

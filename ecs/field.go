package ecs

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/mlange-42/arche/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

// fieldSet is a pipeline's custom field machinery, made by the first
// AddField: the field inbox (a world resource) and the system that
// drains it.
type fieldSet struct {
	inbox   *systems.FieldInbox
	receive *systems.FieldReceive
	n       int
	// types are the components declared so far, values the bit mask of
	// the FieldMessage.Values they read: a second declaration of either
	// is refused.
	types  []ecs.ID
	values uint8
}

// AddField declares a custom field of the remote entities, drawn as the
// component T (type Scale float32, type Health float32, type Aim
// float32): the pipeline buffers the values the transport pushes into
// [Pipeline.FieldInbox] (client.Session does, given SessionConfig.Fields)
// beside each entity's samples, and each frame, after Interpolate, draws T
// at the render time and between the samples the entity's position used.
// The game reads T like any component, on the world's goroutine after
// Update; an entity gets T with its first field value.
//
// Call it before the first Update, once per field type: a component T or
// a FieldMessage value (cfg.Index) an earlier AddField or AddVecField
// declared is refused, as is a configuration systems.FieldConfig.Validate
// refuses, and a refused call adds nothing to the pipeline. The first call
// adds the field inbox and its drain (systems.FieldReceive) after
// Interpolate; each call adds a systems.Field after them. Entities and
// games without fields cost nothing: the position path is unchanged.
func AddField[T ~float32](p *Pipeline, cfg systems.FieldConfig[T]) (*systems.Field[T], error) {
	if p.initialized {
		return nil, fmt.Errorf("ecs: AddField after the pipeline's first Update: declare every field between New and the first Update")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	id := ecs.ComponentID[T](p.world)
	if err := p.checkFieldDeclared("AddField", id, cfg.Index, 1); err != nil {
		return nil, err
	}
	p.addFieldSet()
	f, err := systems.NewField(cfg, p.fields.inbox, p.interpolate)
	if err != nil {
		return nil, err
	}
	p.addFieldSystem(f, id, cfg.Index, 1)
	return f, nil
}

// insertAfter inserts s into the frame order right after the system at.
func (p *Pipeline) insertAfter(at, s System) {
	i := slices.Index(p.ordered, at)
	p.ordered = slices.Insert(p.ordered, i+1, s)
}

// FieldInbox is where transports push custom field values, from any
// goroutine; nil until the first [AddField].
func (p *Pipeline) FieldInbox() *systems.FieldInbox {
	if p.fields == nil {
		return nil
	}
	return p.fields.inbox
}

// AddVecField declares a vector custom field, drawn as the component T
// (type Tint [4]float32, type Offset [2]float32), carried in len(T)
// consecutive field values from cfg.Index: [AddField] for vectors, refused
// likewise when T or one of those values is declared already.
func AddVecField[T systems.Vec](p *Pipeline, cfg systems.VecFieldConfig[T]) (*systems.VecField[T], error) {
	if p.initialized {
		return nil, fmt.Errorf("ecs: AddVecField after the pipeline's first Update: declare every field between New and the first Update")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var zero T
	id := ecs.ComponentID[T](p.world)
	if err := p.checkFieldDeclared("AddVecField", id, cfg.Index, len(zero)); err != nil {
		return nil, err
	}
	p.addFieldSet()
	f, err := systems.NewVecField(cfg, p.fields.inbox, p.interpolate)
	if err != nil {
		return nil, err
	}
	p.addFieldSystem(f, id, cfg.Index, len(zero))
	return f, nil
}

// addFieldSet adds the field inbox and its drain, once.
func (p *Pipeline) addFieldSet() {
	if p.fields == nil {
		in := systems.NewFieldInbox(p.cfg.InboxCapacity)
		p.fields = &fieldSet{inbox: in, receive: systems.NewFieldReceive(in)}
		p.insertAfter(p.interpolate, p.fields.receive)
	}
}

// fieldMask returns the bit mask of n field values from index.
func fieldMask(index, n int) uint8 { return uint8((1<<n - 1) << index) }

// checkFieldDeclared refuses a field whose component id, or one of the n
// field values from index, an earlier field declared: two systems would
// draw the same component, or the same wire value twice.
func (p *Pipeline) checkFieldDeclared(call string, id ecs.ID, index, n int) error {
	if p.fields == nil {
		return nil
	}
	if slices.Contains(p.fields.types, id) {
		return fmt.Errorf("ecs: %s: the component is declared as a field already", call)
	}
	if used := p.fields.values & fieldMask(index, n); used != 0 {
		return fmt.Errorf("ecs: %s: FieldMessage.Values %d..%d: value %d is declared by another field already", call, index, index+n-1, bits.TrailingZeros8(used))
	}
	return nil
}

// addFieldSystem adds a field's system after the drain and the fields
// added before: they run in the order declared. It records the field's
// component id and its n values from index.
func (p *Pipeline) addFieldSystem(f System, id ecs.ID, index, n int) {
	i := slices.Index(p.ordered, System(p.fields.receive))
	p.ordered = slices.Insert(p.ordered, i+1+p.fields.n, f)
	p.fields.n++
	p.fields.types = append(p.fields.types, id)
	p.fields.values |= fieldMask(index, n)
}

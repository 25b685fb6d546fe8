package ecs

import (
	"fmt"
	"slices"

	"github.com/netsmooth/netsmooth/systems"
)

// fieldSet is a pipeline's custom field machinery, made by the first
// AddField: the field inbox (a world resource) and the system that
// drains it.
type fieldSet struct {
	inbox   *systems.FieldInbox
	receive *systems.FieldReceive
	n       int
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
// Call it before the first Update, once per field type. The first call
// adds the field inbox and its drain (systems.FieldReceive) after
// Interpolate; each call adds a systems.Field after them. Entities and
// games without fields cost nothing: the position path is unchanged.
func AddField[T ~float32](p *Pipeline, cfg systems.FieldConfig[T]) (*systems.Field[T], error) {
	if p.initialized {
		return nil, fmt.Errorf("ecs: AddField after the pipeline's first Update")
	}
	p.addFieldSet()
	f, err := systems.NewField(cfg, p.fields.inbox, p.interpolate)
	if err != nil {
		return nil, err
	}
	p.addFieldSystem(f)
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
// consecutive field values from cfg.Index: [AddField] for vectors.
func AddVecField[T systems.Vec](p *Pipeline, cfg systems.VecFieldConfig[T]) (*systems.VecField[T], error) {
	if p.initialized {
		return nil, fmt.Errorf("ecs: AddVecField after the pipeline's first Update")
	}
	p.addFieldSet()
	f, err := systems.NewVecField(cfg, p.fields.inbox, p.interpolate)
	if err != nil {
		return nil, err
	}
	p.addFieldSystem(f)
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

// addFieldSystem adds a field's system after the drain and the fields
// added before: they run in the order declared.
func (p *Pipeline) addFieldSystem(f System) {
	i := slices.Index(p.ordered, System(p.fields.receive))
	p.ordered = slices.Insert(p.ordered, i+1+p.fields.n, f)
	p.fields.n++
}

package perf

import (
	"testing"
	"time"

	"github.com/mlange-42/arche/ecs"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

// Four custom field components of the fields benchmark.
type (
	benchField0 float32
	benchField1 float32
	benchField2 float32
	benchField3 float32
)

// FieldCounts are the numbers of custom float fields the fields
// benchmark runs.
var FieldCounts = []int{0, 1, 2, 4}

// addFields declares k linear float fields (at most 4) on p.
func addFields(p *nsecs.Pipeline, k int) error {
	var err error
	for i := 0; i < k && err == nil; i++ {
		switch i {
		case 0:
			_, err = nsecs.AddField(p, systems.FieldConfig[benchField0]{Index: 0, Extrapolate: true})
		case 1:
			_, err = nsecs.AddField(p, systems.FieldConfig[benchField1]{Index: 1, Extrapolate: true})
		case 2:
			_, err = nsecs.AddField(p, systems.FieldConfig[benchField2]{Index: 2, Extrapolate: true})
		case 3:
			_, err = nsecs.AddField(p, systems.FieldConfig[benchField3]{Index: 3, Extrapolate: true})
		}
	}
	return err
}

// fieldRun is the steady scenario with k custom fields: every entity's
// snapshot comes with a field message whose values change every tick.
type fieldRun struct {
	world  ecs.World
	pipe   *nsecs.Pipeline
	sys    []nsecs.System
	fields []bool // whether sys[i] is one of the field systems
	frame  *systems.Frame
	stream *Stream
	fmsgs  []systems.FieldMessage
	frames int
}

func newFieldRun(n, k int) (*fieldRun, error) {
	r := &fieldRun{stream: NewStream(n), world: ecs.NewWorld()}
	cfg := nsecs.DefaultConfig()
	cfg.Receive.MaxEntities = max(cfg.Receive.MaxEntities, n)
	cfg.InboxCapacity = max(cfg.InboxCapacity, 2*n)
	p, err := nsecs.New(&r.world, cfg)
	if err != nil {
		return nil, err
	}
	if err := addFields(p, k); err != nil {
		return nil, err
	}
	p.Initialize()
	r.pipe, r.sys = p, p.Systems()
	for _, s := range r.sys {
		switch s.(type) {
		case *systems.FieldReceive, *systems.Field[benchField0], *systems.Field[benchField1], *systems.Field[benchField2], *systems.Field[benchField3]:
			r.fields = append(r.fields, true)
		default:
			r.fields = append(r.fields, false)
		}
	}
	r.frame = ecs.GetResource[systems.Frame](&r.world)
	for range 30 * FramesPerTick {
		r.step(nil)
	}
	return r, nil
}

// step runs one frame; with b set, the timer runs around the systems
// only, and it returns the field systems' share of the frame.
func (r *fieldRun) step(b *testing.B) (fieldTime time.Duration) {
	if r.frames%FramesPerTick == 0 {
		msgs := r.stream.Tick()
		if in := r.pipe.FieldInbox(); in != nil {
			r.fmsgs = r.fmsgs[:0]
			for i := range msgs {
				m := &msgs[i]
				x := m.Pos[0]
				r.fmsgs = append(r.fmsgs, systems.FieldMessage{NetID: m.NetID, Tick: m.Tick, Values: [systems.MaxFields]float32{x, x * 0.5, x + 1, 2 * x}})
			}
			in.PushBatch(r.fmsgs)
		}
		r.pipe.Inbox().PushBatch(msgs)
	}
	r.frames++
	r.frame.Dt = 1.0 / FPS
	if b != nil {
		b.StartTimer()
	}
	for i, s := range r.sys {
		if b != nil && r.fields[i] {
			t0 := time.Now()
			s.Update(&r.world)
			fieldTime += time.Since(t0)
			continue
		}
		s.Update(&r.world)
	}
	if b != nil {
		b.StopTimer()
	}
	return fieldTime
}

// Fields measures whole frames of the steady scenario (20 Hz snapshots of
// every one of n entities, 60 frames a second) with k custom float fields
// whose values change every tick: ns/entity is the frame per entity, and
// ns/entity-field the field systems' share (buffering and drawing) per
// entity and field, the cost of each extra float field. Making the
// snapshots and field messages is not timed.
func Fields(b *testing.B, n, k int) {
	r, err := newFieldRun(n, k)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(r.pipe.Finalize)
	var fields time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	b.StopTimer()
	for range b.N {
		fields += r.step(b)
	}
	perEntity(b, n)
	if k > 0 {
		b.ReportMetric(float64(fields.Nanoseconds())/float64(b.N)/float64(n*k), "ns/entity-field")
	}
}

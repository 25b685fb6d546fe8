package systems_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/mlange-42/arche/ecs"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

// Four custom field components for the benchmark.
type (
	benchF0 float32
	benchF1 float32
	benchF2 float32
	benchF3 float32
)

// addBenchFields declares k linear float fields (at most 4).
func addBenchFields(tb testing.TB, p *nsecs.Pipeline, k int) {
	tb.Helper()
	var err error
	for i := range k {
		switch i {
		case 0:
			_, err = nsecs.AddField(p, systems.FieldConfig[benchF0]{Index: 0, Extrapolate: true})
		case 1:
			_, err = nsecs.AddField(p, systems.FieldConfig[benchF1]{Index: 1, Extrapolate: true})
		case 2:
			_, err = nsecs.AddField(p, systems.FieldConfig[benchF2]{Index: 2, Extrapolate: true})
		case 3:
			_, err = nsecs.AddField(p, systems.FieldConfig[benchF3]{Index: 3, Extrapolate: true})
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
}

// fieldSteady is the steady scenario with k custom fields: every entity's
// snapshot comes with a FieldMessage whose values change every tick.
type fieldSteady struct {
	world  ecs.World
	pipe   *nsecs.Pipeline
	sys    []nsecs.System
	fields map[nsecs.System]bool
	frame  *systems.Frame
	stream *stream
	fmsgs  []systems.FieldMessage
	frames int
}

func newFieldSteady(tb testing.TB, n, k int) *fieldSteady {
	tb.Helper()
	st := &fieldSteady{stream: newStream(n), world: ecs.NewWorld(), fields: map[nsecs.System]bool{}}
	p, err := nsecs.New(&st.world, streamConfig(n))
	if err != nil {
		tb.Fatal(err)
	}
	addBenchFields(tb, p, k)
	p.Initialize()
	st.pipe, st.sys = p, p.Systems()
	for _, s := range st.sys {
		switch s.(type) {
		case *systems.FieldReceive, *systems.Field[benchF0], *systems.Field[benchF1], *systems.Field[benchF2], *systems.Field[benchF3]:
			st.fields[s] = true
		}
	}
	st.frame = ecs.GetResource[systems.Frame](&st.world)
	for f := 0; f < 30*framesPerTick; f++ {
		st.step(nil)
	}
	return st
}

// step runs one frame; with b set, the timer runs around the systems only,
// and the field systems' share is added to fieldTime.
func (st *fieldSteady) step(b *testing.B) (fieldTime time.Duration) {
	if st.frames%framesPerTick == 0 {
		msgs := st.stream.Tick()
		if in := st.pipe.FieldInbox(); in != nil {
			st.fmsgs = st.fmsgs[:0]
			for i := range msgs {
				m := &msgs[i]
				x := m.Pos[0]
				st.fmsgs = append(st.fmsgs, systems.FieldMessage{NetID: m.NetID, Tick: m.Tick, Values: [systems.MaxFields]float32{x, x * 0.5, x + 1, 2 * x}})
			}
			in.PushBatch(st.fmsgs)
		}
		st.pipe.Inbox().PushBatch(msgs)
	}
	st.frames++
	st.frame.Dt = 1.0 / streamFPS
	if b != nil {
		b.StartTimer()
	}
	for _, s := range st.sys {
		if b != nil && st.fields[s] {
			t0 := time.Now()
			s.Update(&st.world)
			fieldTime += time.Since(t0)
			continue
		}
		s.Update(&st.world)
	}
	if b != nil {
		b.StopTimer()
	}
	return fieldTime
}

// BenchmarkFields measures whole frames of the steady scenario (20 Hz
// snapshots of every entity, 60 Hz frames) with 0 to 4 custom float
// fields, every value changing every tick: ns/entity is the frame per
// entity, ns/entity-field the field systems' share (buffering and
// drawing) per entity and field, the cost of each extra float field.
func BenchmarkFields(b *testing.B) {
	for _, n := range []int{100_000} {
		for _, k := range []int{0, 1, 2, 4} {
			b.Run(fmt.Sprintf("entities=%d/fields=%d", n, k), func(b *testing.B) {
				st := newFieldSteady(b, n, k)
				var fields time.Duration
				timeOps(b, n, func() { fields += st.step(b) })
				if k > 0 {
					b.ReportMetric(float64(fields.Nanoseconds())/float64(b.N)/float64(n*k), "ns/entity-field")
				}
			})
		}
	}
}

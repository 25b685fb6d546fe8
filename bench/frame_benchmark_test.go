package bench

import (
	"fmt"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
)

// steadyFrames builds a pipeline with n remote entities and returns a step
// function that runs one 60 Hz frame, pushing one 20 Hz snapshot per entity
// every third frame, as a transport would.
func steadyFrames(b *testing.B, n int) func() {
	b.Helper()
	w := ecs.NewWorld()
	cfg := nsecs.DefaultConfig()
	cfg.Receive.MaxEntities = max(cfg.Receive.MaxEntities, n)
	p, err := nsecs.New(&w, cfg)
	if err != nil {
		b.Fatal(err)
	}
	batch := make([]nsecs.Message, n)
	tick, frame := uint32(0), 0
	step := func() {
		if frame%3 == 0 {
			for i := range batch {
				batch[i] = nsecs.Message{NetID: components.NetID(i + 1), Tick: tick, Pos: mgl32.Vec3{float32(tick), float32(i), 0}}
			}
			p.Inbox().PushBatch(batch)
			tick++
		}
		p.Update(1.0 / 60)
		frame++
	}
	for i := 0; i < 60; i++ { // fill the rings
		step()
	}
	return step
}

// BenchmarkFrame is the whole frame (Receive, Interpolate, Smooth, Snap)
// averaged over the three frames of a snapshot interval.
func BenchmarkFrame(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("entities=%d", n), func(b *testing.B) {
			step := steadyFrames(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				step()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/entity")
		})
	}
}

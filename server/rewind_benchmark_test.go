package server

import (
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/wire"
)

// BenchmarkRewindRaycast is one shot judged with lag compensation: the
// rewind of a client's drawn time and a ray cast against 10,000 shaped
// entities moving at up to 5 units/s, recorded at 20 Hz for 1 s: with
// every slot looked at, and with the grid of interest management and
// MaxSpeed. It also reports the history's memory per entity.
func BenchmarkRewindRaycast(b *testing.B) {
	for _, grid := range []bool{false, true} {
		name := "every-slot"
		cfg := SessionConfig{History: &HistoryConfig{}}
		if grid {
			name = "grid"
			cfg.Interest = &InterestConfig{CellSize: 16}
			cfg.History.MaxSpeed = 5
		}
		b.Run(name, func(b *testing.B) {
			s := newServer(b, cfg)
			s.Connect(1)
			rng := rand.New(rand.NewPCG(1, 1))
			const n = 10_000
			pos := make([]mgl32.Vec3, n)
			vel := make([]mgl32.Vec3, n)
			for i := range n {
				pos[i] = mgl32.Vec3{rng.Float32() * 1000, rng.Float32() * 1000, 0}
				vel[i] = mgl32.Vec3{rng.Float32()*0.5 - 0.25, rng.Float32()*0.5 - 0.25, 0}
			}
			for tick := uint32(1); tick <= 40; tick++ {
				s.BeginTick(tick)
				for i := range n {
					s.SetEntity(wire.Entity{NetID: uint32(i + 1), Pos: pos[i].Add(vel[i].Mul(float32(tick)))})
					if tick == 1 {
						s.SetShape(uint32(i+1), Shape{Kind: Capsule, Radius: 0.5, Half: 0.5})
					}
				}
			}
			drawn := wire.Drawn{Time: wire.DrawnTime(36.4), Late: []wire.Late{{NetID: 77, Behind: 512}}}
			k := 0
			b.ReportAllocs()
			for b.Loop() {
				r, err := s.Rewind(1, &drawn)
				if err != nil {
					b.Fatal(err)
				}
				o := pos[k%n].Add(mgl32.Vec3{-20, 0, 0})
				s.Raycast(&r, o, mgl32.Vec3{1, 0.05, 0}, 60, 0)
				k++
			}
			frames := len(s.hist.frames)
			b.ReportMetric(float64(frames*24), "history-B/entity")
		})
	}
}

package pipetest

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/systems"
)

// PredState and PredInput are the predicted benchmarks' game types: a
// position and a velocity, steered by a stick.
type (
	PredState struct{ Pos, Vel mgl32.Vec3 }
	PredInput struct{ X, Y int8 }
)

// PredSim is the predicted benchmarks' simulation: the stick sets the
// velocity, 5 units/s per axis, and the position follows it.
var PredSim = systems.Simulation[PredState, PredInput]{
	Step: func(s PredState, in PredInput, dt float64) PredState {
		s.Vel = mgl32.Vec3{float32(in.X) * 5, float32(in.Y) * 5, 0}
		s.Pos = mgl32.Vec3{s.Pos[0] + s.Vel[0]*float32(dt), s.Pos[1] + s.Vel[1]*float32(dt), s.Pos[2]}
		return s
	},
	Position: func(s *PredState) mgl32.Vec3 { return s.Pos },
}

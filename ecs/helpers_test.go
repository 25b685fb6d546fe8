package ecs_test

import (
	"github.com/netsmooth/netsmooth/internal/pipetest"
)

// The tests drive a pipeline frame by frame with the rig shared with the
// tests of package systems.
type (
	rig        = pipetest.Rig
	ticksDelay = pipetest.TicksDelay
)

var (
	newRig  = pipetest.NewRig
	cfgAt   = pipetest.ConfigAt
	snap    = pipetest.Snap
	snapVel = pipetest.SnapVel
)

func abs(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

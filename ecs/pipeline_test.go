package ecs_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
)

func TestNewRejectsBadConfigNamingEveryField(t *testing.T) {
	w := ecs.NewWorld()
	cfg := nsecs.DefaultConfig()
	cfg.TickRate = -1
	cfg.Receive.MaxEntities = 0
	cfg.Snap.Distance = -3
	cfg.Interpolate.ExtrapolationLimit = -1
	_, err := nsecs.New(&w, cfg)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"TickRate", "MaxEntities", "SnapConfig.Distance", "ExtrapolationLimit"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

func TestNewTwiceOnOneWorld(t *testing.T) {
	w := ecs.NewWorld()
	if _, err := nsecs.New(&w, nsecs.DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	if _, err := nsecs.New(&w, nsecs.DefaultConfig()); !errors.Is(err, nsecs.ErrAlreadyInstalled) {
		t.Fatalf("second pipeline on one world: err = %v", err)
	}
}

// TestSteadyStateFrameDoesNotAllocate: once buffers have grown, a frame
// (receiving a snapshot per entity every third frame, as at 20 Hz snapshots
// and 60 Hz rendering) allocates nothing.
func TestSteadyStateFrameDoesNotAllocate(t *testing.T) {
	r := newRig(t, nsecs.DefaultConfig())
	const n = 500
	batch := make([]nsecs.Message, n)
	tick := uint32(0)
	frame := 0
	step := func() {
		if frame%3 == 0 {
			for i := range batch {
				batch[i] = nsecs.Message{NetID: components.NetID(i + 1), Tick: tick, Pos: mgl32.Vec3{float32(tick), float32(i), 0}}
			}
			r.pipe.Inbox().PushBatch(batch)
			tick++
		}
		r.frame(1.0 / 60)
		frame++
	}
	for i := 0; i < 300; i++ {
		step()
	}
	if allocs := testing.AllocsPerRun(300, step); allocs != 0 {
		t.Fatalf("steady-state frame allocates %v times", allocs)
	}
	if m := r.pipe.Metrics(); m.Entities != n || m.RejectedTotal() != 0 {
		t.Fatalf("entities %d, rejected %d", m.Entities, m.RejectedTotal())
	}
}

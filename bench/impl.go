package bench

import (
	"fmt"

	"github.com/mlange-42/arche/ecs"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

// Impl is one implementation under measurement: netsmooth's pipeline or a
// baseline. Calls are per frame, never per entity.
type Impl interface {
	// Push hands over snapshots received since the last frame.
	Push(msgs []systems.Message)
	// Frame runs one render frame of dt seconds.
	Frame(dt float64)
}

// Implementations by name, as used in benchmark names and the report.
const (
	NetSmooth = "netsmooth"
	FlatName  = "flat"
	NaiveName = "naive"
)

// Pipeline adapts a netsmooth pipeline (with its world) to [Impl].
type Pipeline struct {
	World ecs.World
	Pipe  *nsecs.Pipeline
}

// NewPipeline returns a pipeline with the default config, sized for n
// entities.
func NewPipeline(n int) *Pipeline {
	p := &Pipeline{World: ecs.NewWorld()}
	cfg := nsecs.DefaultConfig()
	cfg.Receive.MaxEntities = max(cfg.Receive.MaxEntities, n)
	cfg.InboxCapacity = max(cfg.InboxCapacity, 2*n)
	pipe, err := nsecs.New(&p.World, cfg)
	if err != nil {
		panic(err)
	}
	pipe.Initialize()
	p.Pipe = pipe
	return p
}

// Push implements [Impl].
func (p *Pipeline) Push(msgs []systems.Message) { p.Pipe.Inbox().PushBatch(msgs) }

// Frame implements [Impl].
func (p *Pipeline) Frame(dt float64) { p.Pipe.Update(dt) }

// New returns the implementation called name, for n entities.
func New(name string, n int) Impl {
	switch name {
	case NetSmooth:
		return NewPipeline(n)
	case FlatName:
		return NewFlat(n)
	case NaiveName:
		return NewNaive()
	}
	panic(fmt.Sprintf("bench: unknown implementation %q", name))
}

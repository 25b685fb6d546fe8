package ecs

import (
	"errors"

	"github.com/mlange-42/arche/ecs"
	"github.com/netsmooth/netsmooth/blend"
	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/internal/clockfeed"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/timeline"
)

// System is the shape shared by netsmooth's systems and arche-model's
// model.System, so they can be added to a Model unchanged.
type System interface {
	Initialize(w *ecs.World)
	Update(w *ecs.World)
	Finalize(w *ecs.World)
}

// ErrAlreadyInstalled is returned by [New] for a world that already has a
// netsmooth pipeline: its resources are per world.
var ErrAlreadyInstalled = errors.New("ecs: the world already has a netsmooth pipeline")

// Pipeline owns netsmooth's resources in one arche world and runs its
// systems in order: Receive, Timeline, Retire, then Reconcile and Predict
// for each [AddPredictor], then Interpolate, Snap, Smooth. Create it with
// [New]; call [Pipeline.Update] once per render frame on the world's
// goroutine. Transports push into [Pipeline.Inbox] from any goroutine.
type Pipeline struct {
	world *ecs.World
	cfg   Config

	inbox   *systems.Inbox
	index   *systems.Index
	clock   *timeline.Clock
	metrics *systems.Metrics
	frame   *systems.Frame

	receive     *systems.Receive
	timeline    *systems.Timeline
	retire      *systems.Retire
	interpolate *systems.Interpolate
	smooth      *systems.Smooth
	snap        *systems.Snap
	ordered     []System
	predictors  int
	fields      *fieldSet // custom fields (AddField), nil without

	initialized bool
}

// newClock makes the clock of a pipeline configured by cfg (its defaults
// filled in): at its tick rate, for rings of components.RingCapacity
// samples.
func newClock(cfg *Config) (*timeline.Clock, error) {
	clock, err := clockfeed.New(cfg.TickRate, components.RingCapacity, cfg.maxAhead(), cfg.Clock)
	if err != nil {
		return nil, err
	}
	return clock.(*timeline.Clock), nil
}

// New validates cfg, adds netsmooth's resources to w and builds the
// systems. It returns an error naming every invalid setting, or if w already
// has a netsmooth pipeline.
func New(w *ecs.World, cfg Config) (*Pipeline, error) {
	if w == nil {
		return nil, errors.New("ecs: New needs the arche world to install the pipeline in, got nil")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if w.Resources().Has(ecs.ResourceID[systems.Metrics](w)) {
		return nil, ErrAlreadyInstalled
	}
	cfg = cfg.WithDefaults()
	clock, err := newClock(&cfg)
	if err != nil {
		return nil, err
	}
	p := &Pipeline{
		world:    w,
		cfg:      cfg,
		inbox:    systems.NewInbox(cfg.InboxCapacity),
		index:    systems.NewIndex(cfg.Receive.DenseIDs, cfg.Receive.Tombstones),
		clock:    clock,
		metrics:  &systems.Metrics{},
		frame:    &systems.Frame{},
		timeline: systems.NewTimeline(),
		retire:   systems.NewRetire(cfg.Receive.OnDespawn),
	}
	if p.receive, err = systems.NewReceive(cfg.Receive); err != nil {
		return nil, err
	}
	if p.interpolate, err = systems.NewInterpolate(cfg.Interpolate); err != nil {
		return nil, err
	}
	if p.smooth, err = systems.NewSmooth(cfg.Smooth); err != nil {
		return nil, err
	}
	if p.snap, err = systems.NewSnap(cfg.Snap); err != nil {
		return nil, err
	}
	ecs.AddResource(w, p.inbox)
	ecs.AddResource(w, p.index)
	ecs.AddResource(w, p.clock)
	ecs.AddResource(w, p.metrics)
	ecs.AddResource(w, p.frame)
	p.ordered = []System{p.receive, p.timeline, p.retire, p.interpolate, p.snap, p.smooth}
	return p, nil
}

// Update runs one render frame of dt seconds: every system in order. The
// first call initializes the systems. A dt that is negative, NaN or
// infinite counts as zero, and one beyond systems.MaxFrameDt as that.
func (p *Pipeline) Update(dt float64) {
	if !p.initialized {
		p.Initialize()
	}
	p.frame.Set(dt)
	for _, s := range p.ordered {
		s.Update(p.world)
	}
}

// Initialize initializes the systems. Update does it on first use; call it
// early to pay the cost up front.
func (p *Pipeline) Initialize() {
	for _, s := range p.ordered {
		s.Initialize(p.world)
	}
	p.initialized = true
}

// Finalize finalizes the systems: it unregisters their cached filters and
// stops Receive's and Interpolate's worker goroutines ([Config.WithWorkers];
// a pipeline dropped without Finalize has them stopped by the garbage
// collector). The pipeline's entities and resources stay in the world.
func (p *Pipeline) Finalize() {
	for _, s := range p.ordered {
		s.Finalize(p.world)
	}
	p.initialized = false
}

// Systems returns the systems in frame order, for running them in an
// arche-model Model (after a [systems.FrameTimer], which sets the dt).
func (p *Pipeline) Systems() []System {
	return append([]System(nil), p.ordered...)
}

// SetExtrapolation changes the extrapolation policy of the remote
// entities from the next frame on (Config.Interpolate.Extrapolation at
// New); an unknown policy is refused. The delay changes the same way,
// through Clock().SetDelayPolicy.
func (p *Pipeline) SetExtrapolation(policy blend.Extrapolation) error {
	if err := p.interpolate.SetExtrapolation(policy); err != nil {
		return err
	}
	p.cfg.Interpolate.Extrapolation = policy
	return nil
}

// Inbox is where transports push messages, from any goroutine.
func (p *Pipeline) Inbox() *systems.Inbox { return p.inbox }

// Metrics is the live metrics resource, updated every frame. Read it on the
// world's goroutine, between frames.
func (p *Pipeline) Metrics() *systems.Metrics { return p.metrics }

// Clock is the render clock resource, to read (the render time, the
// delay, the server's measured tick rate) and to choose the delay policy
// with.
func (p *Pipeline) Clock() *timeline.Clock { return p.clock }

// SetLatency tells the pipeline the one-way network latency from the
// server, in seconds, which the snapshots alone cannot tell: a transport
// that measures it (client.Session.Sync does, from the packets' time
// echoes) hands it over here, on the world's goroutine, as often as it
// likes. It only feeds the presentation delay (Metrics.PresentationDelay,
// timeline.Clock.PresentationDelay). A negative or non-finite value is
// ignored.
func (p *Pipeline) SetLatency(seconds float64) { clockfeed.Of(p.clock).SetLatency(seconds) }

// TickRate is the pipeline's tick rate, Config.TickRate: the server's
// ticks per second.
func (p *Pipeline) TickRate() float64 { return p.cfg.TickRate }

// Lookup returns the live entity standing for the server's NetID id.
func (p *Pipeline) Lookup(id components.NetID) (ecs.Entity, bool) {
	e, ok := p.index.Lookup(id)
	if !ok || !p.world.Alive(e) {
		return ecs.Entity{}, false
	}
	return e, true
}

// Config returns the configuration the pipeline was built with, its
// defaults filled in.
func (p *Pipeline) Config() Config { return p.cfg }

// World returns the world the pipeline runs in.
func (p *Pipeline) World() *ecs.World { return p.world }

// Package budgetscene measures motion under a bandwidth budget end to end:
// a server session with interest management and a per-client budget sends
// thousands of relevant moving entities to a client pipeline over a
// simulated link, and every frame the client draws is checked against the
// truth: the largest per-frame move over the true one (max jump), moves
// against the true direction (backward frames), and how often near and
// far entities were sent. The scorecard prints its table and the tests
// hold it to its bounds.
package budgetscene

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/client"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/wire"
)

// The scene's constants.
const (
	TickRate = 20
	// Speed is every entity's speed along its circle, units a second.
	Speed   = 5.0
	frameDt = time.Second / 60
	warmup  = 3 * time.Second
	// Near and Far bound the groups reported: entities whose circle's
	// centre is within Near of the viewer, and beyond Far.
	Near = 16
	Far  = 120
)

// Config is one run.
type Config struct {
	Name string
	// Entities move on circles whose centres lie uniformly in a disc of
	// Radius around the viewer, all within its view.
	Entities int
	Radius   float32
	// BytesPerSecond is the client's budget (0: none).
	BytesPerSecond int
	// MaxInterval is the budget's longest wait (0: the default, 500 ms).
	MaxInterval time.Duration
	// MaxLag is the client's Interpolate.MaxLag, seconds (0: default).
	MaxLag float64
	// Link is the downstream network (upstream is the same).
	Link     netsim.Config
	Duration time.Duration
	Seed     uint64
}

// Default is the scorecard's scene: 2,000 relevant entities squeezed into
// 256 kbit/s over a 50 ± 10 ms link losing 1%. At about 10 bytes a
// record, sending each entity at least every 500 ms (the budget's
// default MaxInterval) would take 40 kB/s alone, more than the budget:
// the scene lets far entities wait up to 1.5 s, and the client draw them
// up to 1.5 s later (Interpolate.MaxLag) to match.
func Default() Config {
	return Config{
		Name:           "2,000 relevant entities, 256 kbit/s",
		Entities:       2000,
		Radius:         150,
		BytesPerSecond: 32000,
		MaxInterval:    1500 * time.Millisecond,
		MaxLag:         1.5,
		Link:           netsim.Config{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.01},
		Duration:       30 * time.Second,
		Seed:           1,
	}
}

// Group is what the client saw of a group of entities.
type Group struct {
	Entities int
	// EntityFrames counts frames an entity of the group was drawn and
	// measured.
	EntityFrames int
	// MaxJump is the largest per-frame move of a drawn entity over its
	// true per-frame move (1: never faster than the truth).
	MaxJump float64
	// Backward counts entity-frames that moved against the true direction
	// (by more than 5% of a frame's true move).
	Backward int
	// Underrun is the share of entity-frames drawn past the newest data.
	Underrun float64
	// Interval is the mean time between two updates of an entity, in
	// seconds, as the client received them.
	Interval float64
	// Lag is the mean extra delay the client drew the group with, in
	// seconds (components.Span.Lag).
	Lag float64
}

// Result is a run's measurement.
type Result struct {
	Config
	// All, NearGroup and FarGroup: every entity, those near the viewer,
	// those far.
	All, NearGroup, FarGroup Group
	// BytesPerSecond is what the server sent the client, on average after
	// the warm-up; PeakBytesPerSecond the most in any one second.
	BytesPerSecond, PeakBytesPerSecond float64
	// Unbudgeted is what the same world costs without a budget, bytes a
	// second (every change every tick).
	Unbudgeted float64
}

// mover is one entity's circle.
type mover struct {
	centre        mgl32.Vec3
	radius, phase float64
	dir           float64 // +1 counter-clockwise, -1 clockwise
	group         int     // 0 middle, 1 near, 2 far
}

// at returns the entity's position and direction of motion at time t
// (seconds).
func (m *mover) at(t float64) (mgl32.Vec3, mgl32.Vec3) {
	a := m.phase + m.dir*Speed*t/m.radius
	pos := m.centre.Add(mgl32.Vec3{float32(m.radius * math.Cos(a)), float32(m.radius * math.Sin(a)), 0})
	dir := mgl32.Vec3{float32(-m.dir * math.Sin(a)), float32(m.dir * math.Cos(a)), 0}
	return pos, dir
}

// drawn is an entity's previous frame on the client.
type drawn struct {
	pos mgl32.Vec3
	ok  bool
}

// meter gathers one group's figures.
type meter struct {
	Group
	lag, interval float64
	intervals     int
}

func (m *meter) frame(jump float64, back, under bool, lag, interval float32) {
	m.EntityFrames++
	m.MaxJump = max(m.MaxJump, jump)
	if back {
		m.Backward++
	}
	if under {
		m.Underrun++
	}
	m.lag += float64(lag) / TickRate
	if interval > 0 {
		m.interval += float64(interval) / TickRate
		m.intervals++
	}
}

func (m *meter) result() Group {
	g := m.Group
	if g.EntityFrames > 0 {
		g.Underrun /= float64(g.EntityFrames)
		g.Lag = m.lag / float64(g.EntityFrames)
	}
	if m.intervals > 0 {
		g.Interval = m.interval / float64(m.intervals)
	}
	return g
}

// Run measures cfg.
func Run(cfg Config) (Result, error) {
	res := Result{Config: cfg}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0xb0d9e7))
	movers := make([]mover, cfg.Entities)
	for i := range movers {
		r := float64(cfg.Radius) * math.Sqrt(rng.Float64())
		a := 2 * math.Pi * rng.Float64()
		m := &movers[i]
		m.centre = mgl32.Vec3{float32(r * math.Cos(a)), float32(r * math.Sin(a)), 0}
		m.radius = 4 + 6*rng.Float64()
		m.phase = 2 * math.Pi * rng.Float64()
		m.dir = 1
		if rng.IntN(2) == 0 {
			m.dir = -1
		}
		switch {
		case r < Near:
			m.group = 1
		case r > Far:
			m.group = 2
		}
	}
	unbudgeted, err := run(cfg, movers, nil)
	if err != nil {
		return res, err
	}
	res.Unbudgeted = unbudgeted.BytesPerSecond
	measured, err := run(cfg, movers, &res)
	if err != nil {
		return res, err
	}
	return measured, nil
}

// run plays cfg once; with res nil, without a budget and without
// measuring frames.
func run(cfg Config, movers []mover, res *Result) (Result, error) {
	out := Result{}
	if res != nil {
		out = *res
	}
	p := &play{cfg: cfg, movers: movers, measure: res != nil}
	if err := p.setup(); err != nil {
		return out, err
	}
	for now := time.Duration(0); now < cfg.Duration; now += time.Millisecond {
		p.deliver(now)
		if now%(time.Second/TickRate) == 0 {
			if err := p.serverTick(now); err != nil {
				return out, err
			}
			p.sendInput(now)
		}
		if now < p.nextFrame {
			continue
		}
		p.nextFrame += frameDt
		p.cli.FeedLatency(p.pipe)
		p.pipe.Update(frameDt.Seconds())
		if p.measure && now >= warmup {
			p.check()
		}
	}
	secs := (cfg.Duration - warmup).Seconds()
	out.BytesPerSecond = p.sent / secs
	out.PeakBytesPerSecond = p.peak
	if res == nil {
		return out, nil
	}
	out.All, out.NearGroup, out.FarGroup = p.all.result(), p.groups[1].result(), p.groups[2].result()
	return out, nil
}

// The server's and the client's clocks count milliseconds from origins
// of their own.
const srvBase, cliBase = 0xfff00000, 5000

// play is one play of a scene in progress: the server session, the
// client's session and pipeline, the links between them, and what is
// counted and measured.
type play struct {
	cfg    Config
	movers []mover
	// measure is whether the play has a budget and measures the frames
	// the client draws.
	measure bool

	srv     *server.Session
	cli     *client.Session
	world   ecs.World
	pipe    *nsecs.Pipeline
	renders generic.Map1[components.Render]
	spans   generic.Map1[components.Span]
	down    *netsim.Link[[]byte]
	up      *netsim.Link[[]byte]

	tick      uint32
	seq       uint32
	timed     []netsim.Timed[[]byte]
	packets   [][]byte
	buf       []byte
	sent      float64 // bytes after the warm-up
	second    float64 // bytes in the current second
	peak      float64
	nextFrame time.Duration
	draws     []drawn  // each mover's previous frame
	groups    [3]meter // middle, near, far
	all       meter
}

// setup builds the server session with interest management (and, when
// measuring, the budget), the client's session and pipeline, and the
// links, and counts each group's entities.
func (p *play) setup() error {
	scfg := server.SessionConfig{
		TickRate: TickRate,
		Interest: &server.InterestConfig{},
	}
	if p.measure {
		scfg.Budget = server.BudgetConfig{BytesPerSecond: p.cfg.BytesPerSecond, MaxInterval: p.cfg.MaxInterval}
	}
	var err error
	if p.srv, err = server.NewSession(scfg); err != nil {
		return err
	}
	p.srv.Connect(1)
	p.srv.SetView(1, server.View{Radius: p.cfg.Radius + 20})

	p.world = ecs.NewWorld()
	pcfg := nsecs.DefaultConfig().WithTickRate(TickRate)
	if p.cfg.MaxLag > 0 {
		pcfg.Interpolate.MaxLag = p.cfg.MaxLag
	}
	if p.pipe, err = nsecs.New(&p.world, pcfg); err != nil {
		return err
	}
	p.renders = generic.NewMap1[components.Render](&p.world)
	p.spans = generic.NewMap1[components.Span](&p.world)
	if p.cli, err = client.NewSession(client.SessionConfig{Inbox: p.pipe.Inbox(), TickRate: TickRate}); err != nil {
		return err
	}
	if p.down, err = netsim.NewLink[[]byte](p.cfg.Link, p.cfg.Seed*2+1); err != nil {
		return err
	}
	p.up, _ = netsim.NewLink[[]byte](p.cfg.Link, p.cfg.Seed*2+2)

	p.draws = make([]drawn, len(p.movers))
	for i := range p.movers {
		p.groups[p.movers[i].group].Entities++
	}
	p.all.Entities = len(p.movers)
	return nil
}

// deliver hands the client and the server what each link delivers by
// now.
func (p *play) deliver(now time.Duration) {
	p.timed = p.down.DeliverTimed(now, p.timed[:0])
	for _, d := range p.timed {
		p.cli.Receive(d.Msg, uint32(d.At.Milliseconds())+cliBase)
	}
	p.timed = p.up.DeliverTimed(now, p.timed[:0])
	for _, d := range p.timed {
		p.srv.Receive(1, d.Msg, uint32(d.At.Milliseconds())+srvBase)
	}
}

// serverTick moves every entity along its circle, reads the client's
// inputs and sends the tick's snapshot, counting its bytes after the
// warm-up and the busiest second's.
func (p *play) serverTick(now time.Duration) error {
	p.tick++
	p.srv.BeginTick(p.tick)
	t := float64(p.tick) / TickRate
	for i := range p.movers {
		pos, _ := p.movers[i].at(t)
		e := wire.Entity{NetID: uint32(i + 1), Pos: pos, Rot: mgl32.QuatIdent()}
		if err := p.srv.SetEntity(e); err != nil {
			return err
		}
	}
	for {
		in, err := p.srv.NextInput(1, nil)
		if err != nil || in.Status == server.InputEmpty {
			break
		}
	}
	var err error
	if p.packets, err = p.srv.Snapshot(1, uint32(now.Milliseconds())+srvBase, p.packets[:0]); err != nil {
		return err
	}
	for _, b := range p.packets {
		p.down.Send(now, append([]byte(nil), b...))
		if now >= warmup {
			p.sent += float64(len(b))
			p.second += float64(len(b))
		}
	}
	if now%time.Second == 0 {
		p.peak, p.second = max(p.peak, p.second), 0
	}
	return nil
}

// sendInput sends the client's input packet, its acks, once a tick.
func (p *play) sendInput(now time.Duration) {
	p.seq++
	p.cli.QueueInput(p.seq, nil)
	var err error
	if p.buf, err = p.cli.InputPacket(uint32(now.Milliseconds())+cliBase, p.buf[:0]); err == nil {
		p.up.Send(now, append([]byte(nil), p.buf...))
	}
}

// check measures the frame the client just drew against the truth: each
// visible entity's move since its previous frame, over its true move and
// against its true direction at the time the client presented it.
func (p *play) check() {
	clock := p.pipe.Clock()
	speedDt := Speed * frameDt.Seconds()
	for i := range p.movers {
		e, ok := p.pipe.Lookup(components.NetID(i + 1))
		d := &p.draws[i]
		if !ok {
			d.ok = false
			continue
		}
		rd := p.renders.Get(e)
		if rd.Flags&components.Visible == 0 {
			d.ok = false
			continue
		}
		sp := p.spans.Get(e)
		if d.ok {
			presented := (clock.RenderTick() - float64(sp.Lag)) / TickRate
			move := rd.Pos.Sub(d.pos)
			jump := float64(move.Len()) / speedDt
			_, dir := p.movers[i].at(presented)
			back := float64(move.Dot(dir)) < -0.05*speedDt
			under := rd.Flags&components.Extrapolated != 0
			p.groups[p.movers[i].group].frame(jump, back, under, sp.Lag, sp.Interval)
			p.all.frame(jump, back, under, sp.Lag, sp.Interval)
		}
		d.pos, d.ok = rd.Pos, true
	}
}

package arenanet

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/blend"
	"github.com/netsmooth/netsmooth/client"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/timeline"
)

// DelayChoice is one of the interpolation delays the arena offers.
type DelayChoice struct {
	Name   string
	Policy timeline.DelayPolicy
}

// Delays are the choices of the delay key: netsmooth's adaptive delay
// first, then fixed ones.
var Delays = []DelayChoice{
	{"adaptive", timeline.DefaultAdaptiveDelay()},
	{"fixed 50 ms", timeline.FixedDelay(0.05)},
	{"fixed 100 ms", timeline.FixedDelay(0.1)},
	{"fixed 200 ms", timeline.FixedDelay(0.2)},
}

// Policies are the extrapolation choices, in key order.
var Policies = []blend.Extrapolation{blend.Coast, blend.Hold, blend.Linear, blend.DampedReturn}

// Choices of the network keys: one-way latency, jitter, loss.
var (
	Latencies = []time.Duration{0, 25 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond}
	Jitters   = []time.Duration{0, 10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond}
	Losses    = []float64{0, 0.05, 0.1, 0.2, 0.3}
)

// Settings are what the keys change; Client.Apply applies them while the
// client runs.
type Settings struct {
	// Interp draws the remote entities interpolated; off, each is drawn
	// at its newest snapshot, held until the next (no delay, Hold).
	Interp bool
	// Delay and Policy choose the interpolation delay and the
	// extrapolation policy: indexes into Delays and Policies.
	Delay, Policy int
	// Latency, Jitter and Loss choose the simulated network of each
	// direction: indexes into Latencies, Jitters and Losses. Burst adds
	// burst loss (bursts of 8 packets on average, 10% of the time).
	Latency, Jitter, Loss int
	Burst                 bool
	// Trails keeps the trails (Client.Trails); Overlay is for the
	// screen's metrics overlay.
	Trails, Overlay bool
	// Interest asks the server for the client's area only (its interest
	// management, on a server with Rules.View); off, for every entity,
	// to compare. The client's inputs carry the request.
	Interest bool
	// LagComp asks the server to judge the client's shots against what
	// it drew (lag compensation); off, against the server's present, to
	// compare. The client's inputs carry the request.
	LagComp bool
}

// DefaultSettings: interpolation on, adaptive delay, Coast, a 50 ms
// link with ±10 ms of jitter and no loss, trails and overlay shown,
// interest management and lag compensation on.
func DefaultSettings() Settings {
	return Settings{Interp: true, Latency: 2, Jitter: 1, Trails: true, Overlay: true, Interest: true, LagComp: true}
}

// Conditions is the simulated network of each direction.
func (s Settings) Conditions() netsim.Config {
	c := netsim.Config{Latency: Latencies[s.Latency], Jitter: Jitters[s.Jitter], Loss: Losses[s.Loss]}
	if s.Burst {
		// Bursts of 8 packets on average, 10% of the time: a Wi-Fi
		// hiccup every second or so.
		c.Burst, _ = netsim.NewBurst(8, 0.1)
	}
	return c
}

// Network describes the simulated network.
func (s Settings) Network() string {
	b := ""
	if s.Burst {
		b = " +bursts"
	}
	return fmt.Sprintf("%d ms ±%d ms, %.0f%% loss%s", Latencies[s.Latency].Milliseconds(), Jitters[s.Jitter].Milliseconds(), Losses[s.Loss]*100, b)
}

// trailLen is how many frames of path a Trail keeps (2 s at 60 FPS).
const trailLen = 120

// Trail is an entity's recent path: where it truly was (at the render
// time, for bots, whose paths the client knows) and where it was drawn.
type Trail struct {
	truth, drawn [trailLen][2]float32
	n, head      int
	// HasTruth says the true path is known (bots, and the server's state
	// of the client's own player; not other players).
	HasTruth bool
	seen     uint64 // the frame it was last updated
}

// Len is the number of points held.
func (t *Trail) Len() int { return t.n }

func (t *Trail) push(truth, drawn [2]float32) {
	t.truth[t.head], t.drawn[t.head] = truth, drawn
	t.head = (t.head + 1) % trailLen
	t.n = min(t.n+1, trailLen)
}

// At returns the i-th oldest point: the true and the drawn position.
func (t *Trail) At(i int) (truth, drawn [2]float32) {
	j := (t.head - t.n + i + trailLen) % trailLen
	return t.truth[j], t.drawn[j]
}

// ownState is the newest authoritative record of the client's player.
type ownState struct {
	mu    sync.Mutex
	netID components.NetID
	state scenario.Mover
	word  uint16 // the record's State: the shots' verdicts (verdictState)
	ok    bool
}

// Client draws the arena through netsmooth's pipeline: the bots and
// the other players interpolated from the snapshots the link decodes into
// the pipeline's inbox, the client's own player predicted from the
// keyboard and reconciled with the server. It knows nothing of the
// screen: the arena command draws what it holds (EachRemote, Player,
// Trails, Stats).
type Client struct {
	world  ecs.World
	pipe   *nsecs.Pipeline
	pred   *systems.Predictor[scenario.Mover, scenario.Stick]
	link   link
	cmds   generic.Map2[components.InputCommand[scenario.Stick], components.PredictedStatus]
	render generic.Map1[components.Render]
	remote *generic.Filter3[components.NetID, components.Render, components.Span]
	// sizes and healths are the bots' fields as the pipeline draws them
	// (nil for an entity before its first values).
	sizes   generic.Map1[BotSize]
	healths generic.Map1[BotHealth]
	own     *ownState

	me    ecs.Entity
	meID  components.NetID
	set   Settings
	rules Rules
	frame uint64

	sent     []systems.SentInput[scenario.Stick]
	lastSend time.Time
	encode   func(dst []byte, s scenario.Stick) []byte // an input with the switches of the settings

	// cost is netsmooth's time per frame (pipe.Update), smoothed; peak
	// the largest in the last second.
	cost, peak, peakNext time.Duration
	peakAt               time.Time

	paths      map[components.NetID]*Trail
	trailEvery uint32
	// entityFrames sums the remote entities drawn per frame, for the
	// share of them past their newest sample.
	entityFrames uint64

	// Bandwidth, measured over the last second.
	rateAt         time.Time
	rateBase       traffic
	downBps, upBps float64
	// seen is what the client held and received with interest
	// management off ([0]) and on ([1]), measured once the setting had
	// been in force for settleTime (since interestAt).
	seen       [2]Reception
	interestAt time.Time

	shots shooting
}

// settleTime is how long a change of the interest setting takes to show
// fully in what a client holds and receives: the spawns and despawns,
// the first burst of records.
const settleTime = 2 * time.Second

// Reception is what a client held and received under one interest
// setting.
type Reception struct {
	// Entities is the number of remote entities held; Down the bytes
	// received a second (kB/s).
	Entities int
	Down     float64
	// OK says it was measured.
	OK bool
}

// newClient builds the pipeline and the predictor for a world of rules;
// Connect then gives it its link.
func newClient(rules Rules) (*Client, client.SessionConfig, error) {
	c := &Client{world: ecs.NewWorld(), set: DefaultSettings(), rules: rules, own: &ownState{}, paths: map[components.NetID]*Trail{}, trailEvery: 40}
	c.shots.facing, c.shots.sinceShot = mgl32.Vec2{1, 0}, ShotEvery
	c.encode = func(dst []byte, s scenario.Stick) []byte {
		var switches byte
		if !c.set.Interest {
			switches |= inInterestOff
		}
		if !c.set.LagComp {
			switches |= inLagCompOff
		}
		return c.shots.encodeShot(encodeInput(dst, s, switches))
	}
	cfg := nsecs.DefaultConfig() // 20 Hz: TickRate
	cfg.Predict.DeadZone = 0.05
	var err error
	if c.pipe, err = nsecs.New(&c.world, cfg); err != nil {
		return nil, client.SessionConfig{}, err
	}
	if c.pred, err = nsecs.AddPredictor(c.pipe, rules.playerSim()); err != nil {
		return nil, client.SessionConfig{}, err
	}
	// The bots' fields, drawn at the positions' render time: the size
	// extrapolated with the position when it runs past its newest sample
	// (a breath goes on), the health held (a bar does not guess a hit).
	if _, err = nsecs.AddField(c.pipe, systems.FieldConfig[BotSize]{Index: fieldSize, Blend: systems.Linear, Min: 0, Max: maxSize, Extrapolate: true}); err != nil {
		return nil, client.SessionConfig{}, err
	}
	if _, err = nsecs.AddField(c.pipe, systems.FieldConfig[BotHealth]{Index: fieldHealth, Blend: systems.Linear, Min: 0, Max: MaxHealth}); err != nil {
		return nil, client.SessionConfig{}, err
	}
	c.sizes, c.healths = generic.NewMap1[BotSize](&c.world), generic.NewMap1[BotHealth](&c.world)
	c.cmds = generic.NewMap2[components.InputCommand[scenario.Stick], components.PredictedStatus](&c.world)
	c.render = generic.NewMap1[components.Render](&c.world)
	c.remote = generic.NewFilter3[components.NetID, components.Render, components.Span]().With(generic.T[components.Remote]())
	pred, own := c.pred, c.own
	scfg := client.SessionConfig{
		Wire:   arenaWire(),
		Inbox:  c.pipe.Inbox(),
		Fields: c.pipe.FieldInbox(),
		// The server assigns the player (client.Session.NetID); its tick
		// rate comes with its Welcome.
		OnOwn: func(o client.Own) {
			m := moverOf(o.Entity)
			own.mu.Lock()
			own.netID, own.state, own.word, own.ok = components.NetID(o.Entity.NetID), m, o.Entity.State, true
			own.mu.Unlock()
			pred.Inbox().Push(client.Authoritative(o, m))
		},
	}
	return c, scfg, nil
}

// Connect builds a client under the settings set and joins the arena
// server with ticket t (from the server's development backend: its
// addresses, its certificate's hash, a connect token, and the server's
// rules) over tr: QUIC at t.Addr, WebTransport at t.WebTransport, or a
// WebSocket at t.WebSocket. seed seeds the simulated network. It fails
// with the server's refusal (a *transport.CloseError) or the transport's
// error. Cancelling ctx during the handshake abandons it; Close ends the
// connection and must be called once Connect has succeeded.
func Connect(ctx context.Context, set Settings, t Ticket, tr Transport, seed uint64) (*Client, error) {
	if err := t.Rules.Check(); err != nil {
		return nil, fmt.Errorf("%w (the ticket's rules: is the server an arena of this version?)", err)
	}
	c, scfg, err := newClient(t.Rules)
	if err != nil {
		return nil, err
	}
	if c.link, err = dial(ctx, t.Ticket, tr, scfg, set.Conditions(), seed); err != nil {
		return nil, err
	}
	if err := c.Apply(set); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Step runs one frame of dt seconds with the player's stick (netsmooth's
// scenario.Stick: X and Y each -1, 0 or 1, y up): the predicted player
// follows the server's assignment, the pipeline runs (timed), a shot is
// aimed while the trigger is held (SetTrigger), the inputs go out with
// what the client draws, the server's verdicts come in.
func (c *Client) Step(dt float64, stick scenario.Stick) {
	c.frame++
	c.followAssignment()
	c.shots.face(stick)
	if c.meID != 0 {
		cmd, _ := c.cmds.Get(c.me)
		cmd.Input = stick
	}
	c.link.Session().FeedLatency(c.pipe)
	t0 := time.Now()
	c.pipe.Update(dt)
	c.noteCost(time.Since(t0))
	c.entityFrames += uint64(c.pipe.Metrics().Entities)
	c.sent = c.pred.Outbox().Drain(c.sent)
	if len(c.sent) > 0 {
		c.aim()
		_ = client.QueueInputs(c.link.Session(), c.sent, c.encode) // in order by construction
	}
	c.own.mu.Lock()
	word := c.own.word
	c.own.mu.Unlock()
	c.shots.follow(word, time.Now())
	// An input packet per tick's inputs, and an acknowledgement at least
	// every tick when there are none.
	if now := time.Now(); len(c.sent) > 0 || now.Sub(c.lastSend) >= time.Second/TickRate {
		_ = c.link.SendInputs() // counted in the link's Stats
		c.lastSend = now
	}
	c.measureRates()
	if c.set.Trails {
		c.recordTrails()
	}
}

// followAssignment spawns the predicted player when the server assigns
// one (and again if a restarted server assigns another).
func (c *Client) followAssignment() {
	id := c.link.Session().NetID()
	if id == c.meID {
		return
	}
	if c.meID != 0 && c.world.Alive(c.me) {
		c.world.RemoveEntity(c.me)
	}
	c.meID = 0
	if id == 0 {
		return
	}
	start := c.rules.spawnPoint(uint32(id))
	c.own.mu.Lock()
	if c.own.ok && c.own.netID == id {
		start = c.own.state
	}
	c.own.mu.Unlock()
	if e, ok := c.pipe.Lookup(id); ok && c.world.Alive(e) {
		// A restarted server gave us an entity we drew as another
		// player's: it is ours now, predicted, no longer interpolated.
		c.world.RemoveEntity(e)
	}
	e, err := c.pred.Spawn(&c.world, id, start)
	if err != nil {
		return // tried again next frame
	}
	c.me, c.meID = e, id
}

// noteCost keeps netsmooth's frame time: an exponential average and the
// peak of the last second.
func (c *Client) noteCost(d time.Duration) {
	if c.cost == 0 {
		c.cost = d
	}
	c.cost += (d - c.cost) / 16
	c.peakNext = max(c.peakNext, d)
	if now := time.Now(); now.Sub(c.peakAt) >= time.Second {
		c.peak, c.peakNext, c.peakAt = c.peakNext, 0, now
	}
}

// measureRates updates the bandwidth once a second, and what the client
// holds and receives under its interest setting once that has settled.
func (c *Client) measureRates() {
	now := time.Now()
	if c.rateAt.IsZero() {
		c.rateAt, c.rateBase, c.interestAt = now, c.link.Traffic(), now
		return
	}
	if d := now.Sub(c.rateAt).Seconds(); d >= 1 {
		t := c.link.Traffic()
		c.downBps = float64(t.down-c.rateBase.down) / d
		c.upBps = float64(t.up-c.rateBase.up) / d
		c.rateAt, c.rateBase = now, t
		if now.Sub(c.interestAt) >= settleTime {
			c.seen[b2i(c.set.Interest)] = Reception{Entities: c.pipe.Metrics().Entities, Down: c.downBps / 1000, OK: true}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// trailed reports whether entity id keeps a Trail: every trailEvery-th
// bot, and every player.
func (c *Client) trailed(id uint32) bool { return id > PlayerBase || id%c.trailEvery == 7%c.trailEvery }

// SetTrailEvery makes every n-th bot keep a trail (default 40; n >= 1).
func (c *Client) SetTrailEvery(n uint32) { c.trailEvery = max(1, n) }

// recordTrails adds this frame's points to the trails, and forgets the
// trails of entities gone.
func (c *Client) recordTrails() {
	rt := c.pipe.Metrics().RenderTick
	q := c.remote.Query(&c.world)
	for q.Next() {
		id, r, span := q.Get()
		if r.Flags&components.Visible == 0 || !c.trailed(uint32(*id)) {
			continue
		}
		t := c.paths[*id]
		if t == nil {
			t = &Trail{}
			c.paths[*id] = t
		}
		drawn := [2]float32{r.Pos[0], r.Pos[1]}
		truth := drawn
		if uint32(*id) <= PlayerBase {
			p, _, _ := c.rules.BotAt(int(*id)-1, rt-float64(span.Lag))
			truth, t.HasTruth = [2]float32{p[0], p[1]}, true
		}
		t.push(truth, drawn)
		t.seen = c.frame
	}
	if c.meID != 0 {
		r := c.render.Get(c.me)
		t := c.paths[c.meID]
		if t == nil {
			t = &Trail{}
			c.paths[c.meID] = t
		}
		c.own.mu.Lock()
		auth := c.own.state.Pos
		c.own.mu.Unlock()
		t.push([2]float32{auth[0], auth[1]}, [2]float32{r.Pos[0], r.Pos[1]})
		t.HasTruth, t.seen = true, c.frame
	}
	for id, t := range c.paths {
		if t.seen != c.frame {
			delete(c.paths, id)
		}
	}
}

// Apply makes the settings take effect: the delay and extrapolation
// (interpolation off draws the newest snapshot: no delay, held between
// snapshots), the simulated network, and the interest setting (asked of
// the server with the next input).
func (c *Client) Apply(s Settings) error {
	prev := c.set
	c.set = s
	if s.Interest != prev.Interest {
		c.interestAt = time.Now()
	}
	if !s.Trails {
		clear(c.paths)
	}
	if s.Interp {
		c.pipe.Clock().SetDelayPolicy(Delays[s.Delay].Policy)
		if err := c.pipe.SetExtrapolation(Policies[s.Policy]); err != nil {
			return err
		}
	} else {
		c.pipe.Clock().SetDelayPolicy(timeline.FixedDelay(0))
		if err := c.pipe.SetExtrapolation(blend.Hold); err != nil {
			return err
		}
	}
	if s.Latency != prev.Latency || s.Jitter != prev.Jitter || s.Loss != prev.Loss || s.Burst != prev.Burst {
		return c.link.SetConditions(s.Conditions())
	}
	return nil
}

// Stats is what the overlay shows.
type Stats struct {
	// Entities is the number of remote entities held.
	Entities int
	// Delay is the interpolation delay; Present how old what is drawn
	// is, latency included (ms).
	Delay, Present float64
	// UnderrunPct is the share of frames in which some entity ran past
	// its newest sample, PastNewestPct the share of entity-frames that
	// did (extrapolated or held); Extrapolated the entities past it now.
	UnderrunPct, PastNewestPct float64
	Extrapolated               int
	// Corrections counts the corrections smoothed; PredErr is the last
	// reconciliation's error (units); HardCuts and Snaps the jumps drawn
	// as such.
	Corrections     uint64
	PredErr         float64
	HardCuts, Snaps uint64
	// RTT is the round trip (ms, NaN before it is known).
	RTT float64
	// Down and Up are the bandwidth (kB/s), measured over the last
	// second (Down: every packet received, to compare with
	// Rules.Budget); LostDown and LostUp the packets the simulated
	// network dropped.
	Down, Up         float64
	LostDown, LostUp uint64
	// Cost is netsmooth's time per frame (pipe.Update), smoothed; Peak
	// the longest in the last second.
	Cost, Peak time.Duration
	// NetID is the client's player, 0 until the server assigns one.
	NetID components.NetID
	// Via is what carries the packets.
	Via Transport
	// Rules are the server's: the world, the view radius, the budget.
	Rules Rules
	// Interest says the client asks for its area only (Settings.Interest);
	// Other is what it held and received the last time it asked the
	// other way, if it did (to compare).
	Interest bool
	Other    Reception
	// Err is why the connection ended, nil while it works: a
	// *transport.CloseError with the server's reason when it kicked the
	// client or shut down (see Disconnected).
	Err error
}

// Stats gathers the overlay's numbers.
func (c *Client) Stats() Stats {
	m := c.pipe.Metrics()
	s := Stats{
		Entities:     m.Entities,
		Delay:        m.Delay * 1000,
		Present:      m.PresentationDelay * 1000,
		Extrapolated: m.FrameExtrapolated + m.FrameHeld,
		Corrections:  m.Corrections,
		PredErr:      m.PredictionError,
		HardCuts:     m.HardCuts,
		Snaps:        m.Snaps,
		RTT:          math.NaN(),
		Down:         c.downBps / 1000,
		Up:           c.upBps / 1000,
		Cost:         c.cost,
		Peak:         c.peak,
		NetID:        c.meID,
		Via:          c.link.via,
		Err:          c.link.Err(),
		Rules:        c.rules,
		Interest:     c.set.Interest,
		Other:        c.seen[b2i(!c.set.Interest)],
	}
	if m.Frames > 0 {
		s.UnderrunPct = 100 * float64(m.UnderrunFrames) / float64(m.Frames)
	}
	if c.entityFrames > 0 {
		s.PastNewestPct = 100 * float64(m.Extrapolated+m.Held) / float64(c.entityFrames)
	}
	if rtt, ok := c.link.Session().RTT(); ok {
		s.RTT = rtt
	}
	t := c.link.Traffic()
	s.LostDown, s.LostUp = t.lostDown, t.lostUp
	return s
}

// Settings returns the settings in force.
func (c *Client) Settings() Settings { return c.set }

// EachRemote calls f with every remote entity drawn this frame (bots and
// other players): its NetID, what to draw, and how it looks (a bot's size
// and health, drawn from the server's fields).
func (c *Client) EachRemote(f func(id uint32, r *components.Render, look Look)) {
	q := c.remote.Query(&c.world)
	for q.Next() {
		id, r, _ := q.Get()
		if r.Flags&components.Visible != 0 {
			f(uint32(*id), r, c.look(q.Entity()))
		}
	}
}

// look is entity e's size and health as drawn this frame, their defaults
// until the server's first values.
func (c *Client) look(e ecs.Entity) Look {
	l := Look{Size: 1, Health: MaxHealth}
	if s := c.sizes.Get(e); s != nil {
		l.Size = float32(*s)
	}
	if h := c.healths.Get(e); h != nil {
		l.Health = float32(*h)
	}
	return l
}

// Player returns the client's own player: where it is drawn (predicted)
// and the server's newest state of it; ok is false before the server
// assigns it.
func (c *Client) Player() (drawn components.Render, server mgl32.Vec2, ok bool) {
	if c.meID == 0 || !c.world.Alive(c.me) {
		return components.Render{}, mgl32.Vec2{}, false
	}
	c.own.mu.Lock()
	server = c.own.state.Pos
	c.own.mu.Unlock()
	return *c.render.Get(c.me), server, true
}

// Trails returns the trails (while Settings().Trails), by NetID; they
// change at every Step.
func (c *Client) Trails() map[components.NetID]*Trail { return c.paths }

// Err returns why the connection ended, nil while it works (see
// Stats.Err).
func (c *Client) Err() error { return c.link.Err() }

// Close ends the link.
func (c *Client) Close() error { return c.link.Close() }

// Rules returns the server's rules: the world the client draws.
func (c *Client) Rules() Rules { return c.rules }

// RenderTick is the server tick the remote entities are drawn at this
// frame (fractional): where Rules.BotAt finds the bots' true places.
func (c *Client) RenderTick() float64 { return c.pipe.Metrics().RenderTick }

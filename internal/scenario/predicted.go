package scenario

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/systems"
)

// PredictedScenario is a locally predicted player over a two-way link: the
// client predicts from scripted inputs, the server applies them (and now
// and then shoves the player, which the client cannot predict) and sends
// back authoritative states.
type PredictedScenario struct {
	Name     string
	Seconds  float64
	TickRate float64 // simulation rate, Hz (default 60)
	FPS      float64 // render rate (default 60)
	// Link is each direction's network (latency is one-way).
	Link netsim.Config
	// ShoveEvery is how often, in inputs, the server shoves the player.
	ShoveEvery int
	Seed       uint64
}

// Mover is the predicted game state of the scenario: a top-down mover with
// acceleration.
type Mover struct{ Pos, Vel mgl32.Vec2 }

// Stick is its input: a direction.
type Stick struct{ X, Y int8 }

// MoverSpeed is the mover's top speed, units per second.
const MoverSpeed = 6

// StepMover is the deterministic movement shared by client and server.
func StepMover(s Mover, in Stick, dt float64) Mover {
	want := mgl32.Vec2{float32(in.X) * MoverSpeed, float32(in.Y) * MoverSpeed}
	d := want.Sub(s.Vel)
	if l, maxDv := d.Len(), float32(40*dt); l > maxDv {
		d = d.Mul(maxDv / l)
	}
	s.Vel = s.Vel.Add(d)
	s.Pos = s.Pos.Add(s.Vel.Mul(float32(dt)))
	return s
}

// MoverSim is the Simulation of [Mover] and [Stick].
var MoverSim = systems.Simulation[Mover, Stick]{
	Step:     StepMover,
	Position: func(s *Mover) mgl32.Vec3 { return mgl32.Vec3{s.Pos[0], s.Pos[1], 0} },
}

// script is the scorecard player's input at prediction tick n: right,
// up, stand, left, down, stand, a second or two each.
func script(n uint32, rate float64) Stick {
	switch int(float64(n)/rate) % 8 {
	case 0, 1:
		return Stick{X: 1}
	case 2:
		return Stick{Y: 1}
	case 3:
		return Stick{}
	case 4, 5:
		return Stick{X: -1}
	case 6:
		return Stick{Y: -1}
	}
	return Stick{}
}

// PredictedFactory names a client configuration for predicted players.
type PredictedFactory struct {
	Name   string
	Adjust func(*nsecs.Config)
}

// PredictedClients are netsmooth's defaults and, for comparison, the same
// reconciliation drawing every correction at once (no smoothing).
func PredictedClients() []PredictedFactory {
	return []PredictedFactory{
		{Name: "netsmooth"},
		{Name: "no smoothing (snap)", Adjust: func(c *nsecs.Config) { c.Smooth.PerTick = 1 }},
	}
}

func (ps *PredictedScenario) withDefaults() PredictedScenario {
	s := *ps
	if s.TickRate <= 0 {
		s.TickRate = 60
	}
	if s.FPS <= 0 {
		s.FPS = 60
	}
	if s.ShoveEvery <= 0 {
		s.ShoveEvery = 150
	}
	return s
}

// RunPredicted plays ps with the client configuration f and measures the
// drawn local player against the server's authoritative trajectory at the
// (fractional) tick the client draws.
func RunPredicted(psIn PredictedScenario, f PredictedFactory) Result {
	ps := psIn.withDefaults()
	cfg := nsecs.DefaultConfig().WithTickRate(ps.TickRate)
	cfg.Predict.DeadZone = 0.01
	cfg.Predict.HardCutDistance = 3
	cfg.Snap.Distance = 3
	if f.Adjust != nil {
		f.Adjust(&cfg)
	}
	const id = 1
	player, err := NewPlayer(cfg, id, func(n uint64) Stick { return script(uint32(n), ps.TickRate) })
	if err != nil {
		panic(err)
	}
	up, err := netsim.NewLink[[]systems.SentInput[Stick]](ps.Link, ps.Seed)
	if err != nil {
		panic(err)
	}
	down, err := netsim.NewLink[systems.Authoritative[Mover]](ps.Link, ps.Seed+1)
	if err != nil {
		panic(err)
	}
	server := &replayServer{ps: &ps, id: id, up: up, rng: rand.New(rand.NewPCG(ps.Seed, 11)),
		history: []Mover{{}}, received: map[uint32]Stick{}}
	meter := &playerMeter{player: player, rate: ps.TickRate}
	loop := Loop[systems.Authoritative[Mover]]{
		FPS:       ps.FPS,
		Link:      down,
		Server:    server,
		Transport: &playerTransport{player: player, up: &Uplink{Link: up, Pred: player.Pred, Newest: func(int) int { return 8 }}},
		Client:    player,
		Meter:     meter,
	}
	loop.Run(ps.Seconds)
	res := Result{Scenario: ps.Name, Client: f.Name, Recovery: math.NaN(), Frames: meter.frames}
	compareTrajectory(&res, meter, server.history, 1/ps.FPS)
	return res
}

// Player is a locally predicted [Mover] on netsmooth's pipeline, as a
// [Client]: every frame first sets the player's input from Script (by the
// prediction tick about to run), then runs the pipeline.
type Player struct {
	*NetSmooth
	Pred   *systems.Predictor[Mover, Stick]
	Entity ecs.Entity
	Script func(tick uint64) Stick

	comps generic.Map3[components.InputCommand[Stick], components.PredictedStatus, components.Render]
}

// NewPlayer builds a pipeline from cfg with prediction of [MoverSim] and
// spawns the player as NetID id, at rest at the origin.
func NewPlayer(cfg nsecs.Config, id components.NetID, script func(tick uint64) Stick) (*Player, error) {
	c, err := NewNetSmooth(cfg)
	if err != nil {
		return nil, err
	}
	p := &Player{NetSmooth: c, Script: script}
	if p.Pred, err = nsecs.AddPredictor(p.Pipeline(), MoverSim); err != nil {
		return nil, err
	}
	if p.Entity, err = p.Pred.Spawn(p.World(), id, Mover{}); err != nil {
		return nil, err
	}
	p.comps = generic.NewMap3[components.InputCommand[Stick], components.PredictedStatus, components.Render](p.World())
	return p, nil
}

// Frame implements [Client].
func (p *Player) Frame(dt float64) {
	cmd, st, _ := p.comps.Get(p.Entity)
	cmd.Input = p.Script(st.Ticks)
	p.NetSmooth.Frame(dt)
}

// Status returns the player's prediction status.
func (p *Player) Status() *components.PredictedStatus {
	_, st, _ := p.comps.Get(p.Entity)
	return st
}

// Drawn returns where the player is drawn.
func (p *Player) Drawn() mgl32.Vec3 {
	_, _, r := p.comps.Get(p.Entity)
	return r.Pos
}

// Uplink sends a predicted player's inputs to the server after each frame
// that produced some: a packet of the newest unacknowledged inputs, so that
// a lost packet's inputs travel again in the next.
type Uplink struct {
	Link *netsim.Link[[]systems.SentInput[Stick]]
	Pred *systems.Predictor[Mover, Stick]
	// Newest returns how many of the newest unacknowledged inputs a packet
	// carries, given how many the frame produced.
	Newest func(produced int) int

	unacked, sent []systems.SentInput[Stick]
}

// Send drains the frame's inputs, forgets those acknowledged up to ack and
// sends a packet at now if the frame produced inputs.
func (u *Uplink) Send(now time.Duration, ack uint32) {
	u.sent = u.Pred.Outbox().Drain(u.sent)
	u.unacked = append(u.unacked, u.sent...)
	u.unacked = slices.DeleteFunc(u.unacked, func(in systems.SentInput[Stick]) bool { return in.Seq <= ack })
	if len(u.sent) > 0 {
		from := max(0, len(u.unacked)-u.Newest(len(u.sent)))
		u.Link.Send(now, slices.Clone(u.unacked[from:]))
	}
}

// replayServer applies the player's inputs in sequence as they arrive,
// shoves the player every ShoveEvery inputs, and sends back its
// authoritative state every tick. history[s] is the state after input s.
type replayServer struct {
	ps       *PredictedScenario
	id       components.NetID
	up       *netsim.Link[[]systems.SentInput[Stick]]
	rng      *rand.Rand
	clock    float64
	history  []Mover
	received map[uint32]Stick
	ups      [][]systems.SentInput[Stick]
}

// Serve implements [Server].
func (s *replayServer) Serve(f Instant, dst []systems.Authoritative[Mover]) []systems.Authoritative[Mover] {
	tickDt := 1 / s.ps.TickRate
	for ; s.clock <= f.T; s.clock += tickDt {
		s.ups = s.up.Deliver(f.Now, s.ups[:0])
		for _, p := range s.ups {
			for _, in := range p {
				if int(in.Seq) >= len(s.history) {
					s.received[in.Seq] = in.Input
				}
			}
		}
		for {
			in, ok := s.received[uint32(len(s.history))]
			if !ok {
				break
			}
			delete(s.received, uint32(len(s.history)))
			st := StepMover(s.history[len(s.history)-1], in, tickDt)
			if len(s.history)%s.ps.ShoveEvery == 0 {
				st.Vel = st.Vel.Add(mgl32.Vec2{float32(s.rng.Float64()*6 - 3), float32(s.rng.Float64()*6 - 3)})
			}
			s.history = append(s.history, st)
		}
		ack := uint32(len(s.history) - 1)
		dst = append(dst, systems.Authoritative[Mover]{NetID: s.id, Tick: ack, Ack: ack, State: s.history[ack]})
	}
	return dst
}

// playerTransport pushes the authoritative states that arrived to the
// player's predictor and sends its inputs up after each frame.
type playerTransport struct {
	player *Player
	up     *Uplink
}

// Arrive implements [Transport].
func (t *playerTransport) Arrive(_ Instant, states []systems.Authoritative[Mover]) {
	for _, a := range states {
		t.player.Pred.Inbox().Push(a)
	}
}

// Depart implements [Transport].
func (t *playerTransport) Depart(f Instant) { t.up.Send(f.Now, t.player.Status().LastAck) }

// playerMeter records, every frame, the fractional input sequence the
// player is drawn at (between inputs NextSeq-2 and NextSeq-1), where, and
// how far behind its newest tick.
type playerMeter struct {
	player  *Player
	rate    float64
	frames  int
	drawnAt []float64
	drawn   []mgl32.Vec3
	delays  []float64
}

// Measure implements [Meter].
func (m *playerMeter) Measure(Instant) {
	st := m.player.Status()
	at := float64(st.NextSeq) - 2 + float64(m.player.Pred.Alpha())
	m.drawnAt = append(m.drawnAt, at)
	m.drawn = append(m.drawn, m.player.Drawn())
	m.delays = append(m.delays, (float64(st.NextSeq-1)-at)/m.rate)
	m.frames++
}

// compareTrajectory measures what m recorded against the server's
// trajectory (history[s]: the state after input s), where the server has
// simulated that far, into res.
func compareTrajectory(res *Result, m *playerMeter, history []Mover, frameDt float64) {
	truthAt := func(at float64) (mgl32.Vec2, bool) {
		s := int(math.Floor(at))
		if s < 0 || s+1 >= len(history) {
			return mgl32.Vec2{}, false
		}
		a, b := history[s].Pos, history[s+1].Pos
		return a.Add(b.Sub(a).Mul(float32(at - float64(s)))), true
	}
	speedDt := MoverSpeed * frameDt
	var sumSq float64
	for i, at := range m.drawnAt {
		truth, ok := truthAt(at)
		if !ok {
			continue
		}
		pos := mgl32.Vec2{m.drawn[i][0], m.drawn[i][1]}
		d := float64(pos.Sub(truth).Len())
		sumSq += d * d
		res.Max = math.Max(res.Max, d)
		res.EntityFrames++
		tr := &res.Trace
		tr.Time = append(tr.Time, float64(i)*frameDt)
		tr.DrawnT = append(tr.DrawnT, float64(i)*frameDt)
		tr.DrawnX = append(tr.DrawnX, float64(pos[0]))
		tr.DrawnY = append(tr.DrawnY, float64(pos[1]))
		tr.TruthX = append(tr.TruthX, float64(truth[0]))
		tr.TruthY = append(tr.TruthY, float64(truth[1]))
		if i == 0 {
			continue
		}
		move := float64(m.drawn[i].Sub(m.drawn[i-1]).Len())
		res.MaxJump = math.Max(res.MaxJump, move/speedDt)
		if prevTruth, ok := truthAt(m.drawnAt[i-1]); ok {
			tv := truth.Sub(prevTruth)
			dv := mgl32.Vec2{m.drawn[i][0] - m.drawn[i-1][0], m.drawn[i][1] - m.drawn[i-1][1]}
			if tv.Len() > 0.2*float32(speedDt) && tv.Dot(dv) < 0 {
				res.Backward++
			}
		}
	}
	if res.EntityFrames > 0 {
		res.RMS = math.Sqrt(sumSq / float64(res.EntityFrames))
	}
	res.MeanDelay, res.P99Delay = meanAndP99(m.delays)
}

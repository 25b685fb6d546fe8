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
var MoverSim = nsecs.Simulation[Mover, Stick]{
	Step:     StepMover,
	Position: func(s *Mover) mgl32.Vec3 { return mgl32.Vec3{s.Pos[0], s.Pos[1], 0} },
}

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
		{Name: "no smoothing (snap)", Adjust: func(c *nsecs.Config) { c.Smooth.Rate = math.Inf(1) }},
	}
}

type inputPacket []nsecs.SentInput[Stick]

// RunPredicted plays ps with the client configuration f and measures the
// drawn local player against the server's authoritative trajectory at the
// (fractional) tick the client draws.
func RunPredicted(ps PredictedScenario, f PredictedFactory) Result {
	if ps.TickRate <= 0 {
		ps.TickRate = 60
	}
	if ps.FPS <= 0 {
		ps.FPS = 60
	}
	if ps.ShoveEvery <= 0 {
		ps.ShoveEvery = 150
	}
	cfg := nsecs.DefaultConfig().WithTickRate(ps.TickRate)
	cfg.Predict.DeadZone = 0.01
	cfg.Predict.HardCutDistance = 3
	cfg.Snap.Distance = 3
	if f.Adjust != nil {
		f.Adjust(&cfg)
	}
	world := ecs.NewWorld()
	pipe, err := nsecs.New(&world, cfg)
	if err != nil {
		panic(err)
	}
	pred, err := nsecs.AddPrediction(pipe, MoverSim)
	if err != nil {
		panic(err)
	}
	const id = 1
	me, _ := pred.Spawn(&world, id, Mover{})
	comps := generic.NewMap3[components.InputCommand[Stick], components.Prediction, components.Render](&world)
	up, err := netsim.NewLink[inputPacket](ps.Link, ps.Seed)
	if err != nil {
		panic(err)
	}
	down, err := netsim.NewLink[nsecs.Authoritative[Mover]](ps.Link, ps.Seed+1)
	if err != nil {
		panic(err)
	}
	rng := rand.New(rand.NewPCG(ps.Seed, 11))
	res := Result{Scenario: ps.Name, Client: f.Name, Recovery: math.NaN()}

	// Server: the authoritative state after each applied input seq.
	history := []Mover{{}} // history[s] = state after input s
	received := map[uint32]Stick{}
	tickDt := 1 / ps.TickRate
	frameDt := 1 / ps.FPS
	var (
		serverClock float64
		unacked     []nsecs.SentInput[Stick]
		sent        []nsecs.SentInput[Stick]
		ups         []inputPacket
		downs       []nsecs.Authoritative[Mover]
		drawnAt     []float64 // fractional seq drawn each frame
		drawn       []mgl32.Vec3
		delays      []float64
	)
	for fr := 0; fr < int(ps.Seconds*ps.FPS); fr++ {
		t := float64(fr) * frameDt
		now := time.Duration(t * float64(time.Second))
		// Server ticks: apply inputs in sequence as they arrive.
		for ; serverClock <= t; serverClock += tickDt {
			ups = up.Deliver(now, ups[:0])
			for _, p := range ups {
				for _, in := range p {
					if int(in.Seq) >= len(history) {
						received[in.Seq] = in.Input
					}
				}
			}
			for {
				in, ok := received[uint32(len(history))]
				if !ok {
					break
				}
				delete(received, uint32(len(history)))
				s := StepMover(history[len(history)-1], in, tickDt)
				if len(history)%ps.ShoveEvery == 0 {
					s.Vel = s.Vel.Add(mgl32.Vec2{float32(rng.Float64()*6 - 3), float32(rng.Float64()*6 - 3)})
				}
				history = append(history, s)
			}
			ack := uint32(len(history) - 1)
			down.Send(now, nsecs.Authoritative[Mover]{NetID: id, Tick: ack, Ack: ack, State: history[ack]})
		}
		downs = down.Deliver(now, downs[:0])
		for _, a := range downs {
			pred.Inbox().Push(a)
		}
		cmd, p, _ := comps.Get(me)
		cmd.Input = script(uint32(p.Ticks), ps.TickRate)
		pipe.Update(frameDt)
		_, p, r := comps.Get(me)
		sent = pred.Outbox().Drain(sent)
		unacked = append(unacked, sent...)
		unacked = slices.DeleteFunc(unacked, func(in nsecs.SentInput[Stick]) bool { return in.Seq <= p.LastAck })
		if len(sent) > 0 {
			up.Send(now, inputPacket(slices.Clone(unacked[max(0, len(unacked)-8):])))
		}
		// The client draws between inputs NextSeq-2 and NextSeq-1.
		at := float64(p.NextSeq) - 2 + float64(pred.Alpha())
		drawnAt = append(drawnAt, at)
		drawn = append(drawn, r.Pos)
		delays = append(delays, (float64(p.NextSeq-1)-at)/ps.TickRate)
		res.Frames++
	}
	// Compare with the server's trajectory, where it has simulated that far.
	speedDt := MoverSpeed * frameDt
	var sumSq float64
	for i, at := range drawnAt {
		s := int(math.Floor(at))
		if s < 0 || s+1 >= len(history) {
			continue
		}
		a, b := history[s].Pos, history[s+1].Pos
		f := float32(at - float64(s))
		truth := a.Add(b.Sub(a).Mul(f))
		pos := mgl32.Vec2{drawn[i][0], drawn[i][1]}
		d := float64(pos.Sub(truth).Len())
		sumSq += d * d
		res.Max = math.Max(res.Max, d)
		res.EntityFrames++
		res.Trace.Time = append(res.Trace.Time, float64(i)*frameDt)
		res.Trace.DrawnT = append(res.Trace.DrawnT, float64(i)*frameDt)
		res.Trace.DrawnX = append(res.Trace.DrawnX, float64(pos[0]))
		res.Trace.DrawnY = append(res.Trace.DrawnY, float64(pos[1]))
		res.Trace.TruthX = append(res.Trace.TruthX, float64(truth[0]))
		res.Trace.TruthY = append(res.Trace.TruthY, float64(truth[1]))
		if i > 0 {
			move := float64(drawn[i].Sub(drawn[i-1]).Len())
			res.MaxJump = math.Max(res.MaxJump, move/speedDt)
			s0 := int(math.Floor(drawnAt[i-1]))
			if s0 >= 0 && s0+1 < len(history) {
				prevTruth := history[s0].Pos.Add(history[s0+1].Pos.Sub(history[s0].Pos).Mul(float32(drawnAt[i-1] - float64(s0))))
				tv := truth.Sub(prevTruth)
				dv := mgl32.Vec2{drawn[i][0] - drawn[i-1][0], drawn[i][1] - drawn[i-1][1]}
				if tv.Len() > 0.2*float32(speedDt) && tv.Dot(dv) < 0 {
					res.Backward++
				}
			}
		}
	}
	if res.EntityFrames > 0 {
		res.RMS = math.Sqrt(sumSq / float64(res.EntityFrames))
	}
	res.MeanDelay, res.P99Delay = meanAndP99(delays)
	return res
}

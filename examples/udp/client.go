package main

import (
	"context"
	"math"
	"time"

	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/session"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/transport"
)

// gameClient renders the server's world through netsmooth's pipeline,
// headless, and predicts its player: remote entities are interpolated
// from the snapshots the transport decodes into the pipeline's inbox, the
// player is stepped from the script's inputs and reconciled with the
// authoritative states the transport hands it.
type gameClient struct {
	o      *options
	world  ecs.World
	pipe   *nsecs.Pipeline
	pred   *systems.Predictor[scenario.Mover, scenario.Stick]
	me     ecs.Entity
	cmds   generic.Map2[components.InputCommand[scenario.Stick], components.PredictedStatus]
	remote *generic.Filter3[components.NetID, components.Render, components.Span]
	cli    *transport.Client
	moving int

	sent     []systems.SentInput[scenario.Stick]
	lastSend time.Time
	frames   []frameSample
}

// frameSample is one frame's error of the drawn entities against their
// true paths, at the tick each is drawn at.
type frameSample struct {
	at    time.Time
	sumSq float64 // squared distances, summed over the entities drawn
	max   float64
	n     int
}

func (f frameSample) rms() float64 {
	if f.n == 0 {
		return math.NaN()
	}
	return math.Sqrt(f.sumSq / float64(f.n))
}

// startClient builds the pipeline and the predictor and dials addr (with
// the uplink impairment, if any).
func startClient(ctx context.Context, o *options, addr string) (*gameClient, error) {
	c := &gameClient{o: o, world: ecs.NewWorld(), moving: int(o.moving * float64(o.entities))}
	cfg := nsecs.DefaultConfig() // 20 Hz, tickRate
	cfg.Predict.DeadZone = 0.05
	var err error
	if c.pipe, err = nsecs.New(&c.world, cfg); err != nil {
		return nil, err
	}
	if c.pred, err = nsecs.AddPredictor(c.pipe, scenario.MoverSim); err != nil {
		return nil, err
	}
	if c.me, err = c.pred.Spawn(&c.world, components.NetID(o.player), scenario.Mover{}); err != nil {
		return nil, err
	}
	c.cmds = generic.NewMap2[components.InputCommand[scenario.Stick], components.PredictedStatus](&c.world)
	c.remote = generic.NewFilter3[components.NetID, components.Render, components.Span]().With(generic.T[components.Remote]())
	pred := c.pred
	c.cli, err = transport.Dial(ctx, transport.ClientConfig{
		Addr: addr,
		Session: session.ClientConfig{
			Inbox:    c.pipe.Inbox(),
			NetID:    components.NetID(o.player),
			TickRate: tickRate,
			NoDelta:  o.full,
			OnOwn: func(own session.Own) {
				pred.Inbox().Push(session.Authoritative(own, moverOf(own.Entity)))
			},
		},
		Impair: o.impairment(),
		Seed:   o.seed + 1,
	})
	return c, err
}

// run renders at o.fps until ctx is done or d has passed, then closes the
// transport and runs a last frame, so that everything received is
// counted.
func (c *gameClient) run(ctx context.Context, d time.Duration) {
	t := time.NewTicker(time.Duration(float64(time.Second) / c.o.fps))
	defer t.Stop()
	end := time.After(d)
	last := time.Now()
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-end:
			break loop
		case now := <-t.C:
			c.frame(now.Sub(last).Seconds())
			last = now
		}
	}
	c.cli.Close()
	c.pipe.Update(0)
}

// frame runs one render frame: the player's input, the pipeline, the
// inputs out, the error measured.
func (c *gameClient) frame(dt float64) {
	cmd, st := c.cmds.Get(c.me)
	cmd.Input = script(st.Ticks)
	c.cli.Session().FeedLatency(c.pipe)
	c.pipe.Update(dt)
	c.sent = c.pred.Outbox().Drain(c.sent)
	if len(c.sent) > 0 {
		_ = session.QueueInputs(c.cli.Session(), c.sent, encodeStick) // in order by construction
	}
	// An input packet per tick's inputs, and an acknowledgement at least
	// every tick when there are none.
	if now := time.Now(); len(c.sent) > 0 || now.Sub(c.lastSend) >= time.Second/tickRate {
		_ = c.cli.SendInputs() // counted in the transport's stats
		c.lastSend = now
	}
	c.measure()
}

// measure records how far the drawn entities are from their true paths
// at the tick each is drawn at.
func (c *gameClient) measure() {
	f := frameSample{at: time.Now()}
	rt := c.pipe.Metrics().RenderTick
	q := c.remote.Query(&c.world)
	for q.Next() {
		id, r, span := q.Get()
		if r.Flags&components.Visible == 0 || *id == 0 || int(*id) > c.o.entities {
			continue
		}
		want, _ := pathPos(int(*id)-1, rt-float64(span.Lag), c.moving)
		d := float64(r.Pos.Sub(want).Len())
		f.sumSq += d * d
		f.max = max(f.max, d)
		f.n++
	}
	c.frames = append(c.frames, f)
}

// drawnError returns the RMS and largest error over the frames from
// `from` on.
func (c *gameClient) drawnError(from time.Time) (rms, maxErr float64, n int) {
	var sum float64
	for _, f := range c.frames {
		if f.at.Before(from) || f.n == 0 {
			continue
		}
		sum += f.sumSq
		maxErr = max(maxErr, f.max)
		n += f.n
	}
	if n == 0 {
		return math.NaN(), math.NaN(), 0
	}
	return math.Sqrt(sum / float64(n)), maxErr, n
}

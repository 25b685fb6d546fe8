package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"time"

	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	"github.com/netsmooth/netsmooth/client"
	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/internal/devauth"
	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/transport"
	"github.com/netsmooth/netsmooth/wire"
)

// idleTimeout is how long the client waits without a packet from the
// server before it takes the connection for lost (a server that crashed
// says nothing) and reconnects: the server sends 20 snapshots a second.
const idleTimeout = 3 * time.Second

// backoff paces reconnection: the first attempt at once, then waits
// doubling from 100 ms up to a second between attempts; a connection
// that lasted less than a second counts as a failed attempt.
var backoff = client.Backoff{Min: 100 * time.Millisecond, Max: time.Second, Jitter: 0.25}

// ticketFunc gets a ticket to join the server: from the development
// backend in this process (-role both), or from its ticket endpoint over
// HTTP (-role client).
type ticketFunc func(ctx context.Context) (devauth.Ticket, error)

// fetchTickets gets tickets from the ticket endpoint url.
func fetchTickets(url string) ticketFunc {
	return func(ctx context.Context) (devauth.Ticket, error) {
		t, err := devauth.Fetch(ctx, url)
		http.DefaultClient.CloseIdleConnections() // one ticket per connection: keep nothing open
		if err != nil {
			return t, fmt.Errorf("no ticket from %s (is a server running? go run ./examples/netplay -role server): %w", url, err)
		}
		return t, nil
	}
}

// gameClient renders the server's world through netsmooth's pipeline,
// headless, and predicts its player: remote entities are interpolated
// from the snapshots the client session decodes into the pipeline's
// inbox; the player, once the server has assigned it, is stepped from the
// script's inputs and reconciled with the authoritative states the
// session hands it. When the server goes away (it shut down, or fell
// silent) the client fetches a new ticket and connects again, with a
// fresh session feeding the same pipeline; when the server kicks it, it
// stops.
type gameClient struct {
	o       *options
	log     io.Writer
	tickets ticketFunc
	world   ecs.World
	pipe    *nsecs.Pipeline
	pred    *systems.Predictor[scenario.Mover, scenario.Stick]
	cmds    generic.Map2[components.InputCommand[scenario.Stick], components.PredictedStatus]
	remote  *generic.Filter3[components.NetID, components.Render, components.Span]
	moving  int

	cli       *client.Client     // the connection; nil between connections
	conns     []*client.Client   // every connection made, the current one last
	ends      []connEnd          // how the connections that ended ended
	redial    *redial            // a reconnection under way
	reconnect client.Reconnector // its waits carried over connections that do not last
	over      error              // why the client stopped for good (kicked), nil if it did not
	lostAtEnd bool               // the run ended while reconnecting
	despawned uint64             // Despawn messages the client pushed itself

	me    ecs.Entity // the predicted player, valid with hasMe
	meID  components.NetID
	hasMe bool

	sent     []systems.SentInput[scenario.Stick]
	lastSend time.Time
	frames   []frameSample
}

// connEnd is how a connection ended.
type connEnd struct {
	at     time.Time
	reason wire.Reason
	err    error
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

// startClient builds the pipeline and the predictor, gets a ticket and
// connects (with the uplink impairment, if any). Connection events are
// written to log.
func startClient(ctx context.Context, o *options, tickets ticketFunc, log io.Writer) (*gameClient, error) {
	c := &gameClient{o: o, log: log, tickets: tickets, world: ecs.NewWorld(), moving: int(o.moving * float64(o.entities)),
		reconnect: client.Reconnector{Backoff: backoff}}
	cfg := nsecs.DefaultConfig() // 20 Hz, tickRate
	cfg.Predict.DeadZone = 0.05
	var err error
	if c.pipe, err = nsecs.New(&c.world, cfg); err != nil {
		return nil, err
	}
	if c.pred, err = nsecs.AddPredictor(c.pipe, scenario.MoverSim); err != nil {
		return nil, err
	}
	c.cmds = generic.NewMap2[components.InputCommand[scenario.Stick], components.PredictedStatus](&c.world)
	c.remote = generic.NewFilter3[components.NetID, components.Render, components.Span]().With(generic.T[components.Remote]())
	cli, err := c.dial(ctx, 0)
	if err != nil {
		return nil, err
	}
	c.adopt(cli)
	return c, nil
}

// dial gets a ticket and connects with it; n numbers the connection.
// It runs on the frame loop's goroutine for the first connection and on a
// redial's for the others: it touches nothing of the client that the
// frame loop changes.
func (c *gameClient) dial(ctx context.Context, n int) (*client.Client, error) {
	t, err := c.tickets(ctx)
	if err != nil {
		return nil, err
	}
	tok, err := t.RawToken()
	if err != nil {
		return nil, err
	}
	hash, err := t.Hash()
	if err != nil {
		return nil, err
	}
	pred := c.pred
	return client.Dial(ctx, t.Addr, client.Config{
		Token:     tok,
		Spectator: c.o.spectate,
		Transport: transport.DialConfig{CertHashes: [][32]byte{hash}, IdleTimeout: idleTimeout},
		Session: client.SessionConfig{
			Inbox:   c.pipe.Inbox(),
			NoDelta: c.o.full,
			OnOwn: func(own client.Own) {
				pred.Inbox().Push(client.Authoritative(own, moverOf(own.Entity)))
			},
		},
		Impair: c.o.impairment(),
		Seed:   transport.SeedFor(c.o.seed, uint64(n)+1),
	})
}

// adopt makes cli the connection.
func (c *gameClient) adopt(cli *client.Client) {
	c.cli = cli
	c.conns = append(c.conns, cli)
	w := cli.Welcome()
	role := "a player"
	if w.Spectator {
		role = "a spectator"
	}
	fmt.Fprintf(c.log, "client: joined as %s (%v)\n", role, cli)
}

// run renders at o.fps until ctx is done or the server kicks the client,
// then closes the connection and runs a last frame, so that everything
// received is counted.
func (c *gameClient) run(ctx context.Context) {
	t := time.NewTicker(time.Duration(float64(time.Second) / c.o.fps))
	defer t.Stop()
	last := time.Now()
	for c.over == nil {
		select {
		case <-ctx.Done():
			c.close()
			return
		case now := <-t.C:
			c.frame(ctx, now.Sub(last).Seconds())
			last = now
		}
	}
	c.close()
}

// close stops a reconnection under way and leaves the server.
func (c *gameClient) close() {
	if c.redial != nil {
		c.lostAtEnd = true
		c.redial.stop()
		c.redial = nil
	}
	if c.cli != nil {
		c.cli.Close()
	}
	c.pipe.Update(0)
}

// frame runs one render frame: the connection watched, the player's
// input, the pipeline, the inputs out, the error measured.
func (c *gameClient) frame(ctx context.Context, dt float64) {
	c.watch(ctx)
	c.follow()
	if c.hasMe {
		cmd, st := c.cmds.Get(c.me)
		cmd.Input = script(st.Ticks)
	}
	if c.cli != nil {
		c.cli.Session().FeedLatency(c.pipe)
	}
	c.pipe.Update(dt)
	c.sent = c.pred.Outbox().Drain(c.sent)
	if c.cli != nil {
		if len(c.sent) > 0 {
			_ = client.QueueInputs(c.cli.Session(), c.sent, encodeStick) // in order by construction
		}
		// An input packet per tick's inputs, and an acknowledgement at
		// least every tick when there are none (a spectator's).
		if now := time.Now(); len(c.sent) > 0 || now.Sub(c.lastSend) >= time.Second/tickRate {
			_ = c.cli.SendInputs() // counted in the session's stats
			c.lastSend = now
		}
	}
	c.measure()
}

// watch notices the end of the connection, and the end of a
// reconnection.
func (c *gameClient) watch(ctx context.Context) {
	if ctx.Err() != nil {
		return // leaving anyway
	}
	if c.cli != nil {
		select {
		case <-c.cli.Done():
			c.lost(ctx)
		default:
		}
		return
	}
	if c.redial == nil {
		return
	}
	select {
	case <-c.redial.done:
	default:
		return
	}
	r := c.redial
	c.redial = nil
	if r.cli == nil {
		return // ctx is done
	}
	c.adopt(r.cli)
	fmt.Fprintf(c.log, "client: reconnected %v after the disconnection (%d attempts)\n",
		time.Since(c.ends[len(c.ends)-1].at).Round(time.Millisecond), r.tries)
}

// lost takes the end of the connection: the player's entity goes, the
// other players are despawned (the next server may not have them), and,
// unless the server kicked the client, it connects again with a new
// ticket.
func (c *gameClient) lost(ctx context.Context) {
	err := c.cli.Err()
	end := connEnd{at: time.Now(), reason: reasonOf(err), err: err}
	c.ends = append(c.ends, end)
	c.despawnPlayers()
	c.cli = nil
	c.follow()
	c.sent = c.pred.Outbox().Drain(c.sent) // inputs of the player that went
	var ce *transport.CloseError
	why := err.Error()
	if errors.As(err, &ce) {
		why = describeEnd(ce.Reason, ce.Message)
	}
	if !client.Retryable(err) {
		c.over = err
		fmt.Fprintf(c.log, "client: disconnected by the server: %s\n", why)
		return
	}
	fmt.Fprintf(c.log, "client: disconnected: %s; reconnecting with a new ticket\n", why)
	c.redial = startRedial(ctx, c, len(c.conns))
}

// despawnPlayers despawns the other players the client draws, at the
// newest tick it estimates the server reached: they belong to the server
// that went away.
func (c *gameClient) despawnPlayers() {
	st, ok := c.cli.ServerTick()
	if !ok {
		st = c.pipe.Metrics().RenderTick
	}
	tick := uint32(math.Ceil(st))
	var msgs []systems.Message
	q := c.remote.Query(&c.world)
	for q.Next() {
		id, _, _ := q.Get()
		if isPlayer(uint32(*id)) {
			msgs = append(msgs, systems.Message{Kind: systems.Despawn, NetID: *id, Tick: tick})
		}
	}
	if len(msgs) > 0 {
		c.pipe.Inbox().PushBatch(msgs)
		c.despawned += uint64(len(msgs))
	}
}

// follow keeps the predicted player in step with the server's
// assignment: spawned once the server has named the client's entity,
// removed when the connection ends, moved when the server assigns
// another.
func (c *gameClient) follow() {
	var id components.NetID
	if c.cli != nil {
		id = c.cli.Session().NetID()
	}
	if c.hasMe && id == c.meID {
		return
	}
	if c.hasMe {
		c.world.RemoveEntity(c.me)
		c.hasMe = false
	}
	if id == 0 {
		return
	}
	e, err := c.pred.Spawn(&c.world, id, scenario.Mover{})
	if err != nil {
		return // the NetID is still a despawning remote entity's: next frame
	}
	c.me, c.meID, c.hasMe = e, id, true
	fmt.Fprintf(c.log, "client: the server gave this client's player NetID %d\n", id)
}

// redial reconnects in the background, so that frames go on meanwhile.
type redial struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when the attempts end
	cli    *client.Client
	tries  int
}

// startRedial gets a new ticket and connects, again and again with a
// growing backoff, until it succeeds, ctx is done, or the server says
// trying again cannot help.
func startRedial(ctx context.Context, c *gameClient, n int) *redial {
	ctx, cancel := context.WithCancel(ctx)
	r := &redial{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.cli, r.tries, _ = c.reconnect.Reconnect(ctx, func(ctx context.Context, _ int) (*client.Client, error) {
			return c.dial(ctx, n)
		})
	}()
	return r
}

// stop ends the attempts and closes a connection made too late.
func (r *redial) stop() {
	r.cancel()
	<-r.done
	if r.cli != nil {
		r.cli.Close()
	}
}

// reasonOf returns the reason a connection ended with, ReasonNone when
// none was given.
func reasonOf(err error) wire.Reason {
	var ce *transport.CloseError
	if errors.As(err, &ce) {
		return ce.Reason
	}
	return wire.ReasonNone
}

// describeEnd says why a connection ended, for people.
func describeEnd(reason wire.Reason, msg string) string {
	if msg == "" {
		return reason.String()
	}
	return fmt.Sprintf("%v (%s)", reason, msg)
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

// stalled returns the longest time between two frames: 1/fps, unless
// the machine did not give the client its CPU in time.
func (c *gameClient) stalled() time.Duration {
	var gap time.Duration
	for i := 1; i < len(c.frames); i++ {
		gap = max(gap, c.frames[i].at.Sub(c.frames[i-1].at))
	}
	return gap
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

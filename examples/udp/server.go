package main

import (
	"context"
	"sync"
	"time"

	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/session"
	"github.com/netsmooth/netsmooth/transport"
	"github.com/netsmooth/netsmooth/wire"
)

// gameServer simulates the world at tickRate on a UDP transport: the
// entities on their paths, and for every client its player, stepped once
// per input it sends, with the movement the client predicts with.
type gameServer struct {
	srv     *transport.Server
	q       wire.Quantizer
	moving  int
	total   int
	tick    uint32
	players map[session.ClientID]*serverPlayer
	ids     []session.ClientID

	mu        sync.Mutex
	firstSent time.Time // when the first snapshot went to a client
}

// serverPlayer is a client's player on the server.
type serverPlayer struct {
	state scenario.Mover
	last  scenario.Stick
	netID uint32 // set once the client named it
}

// startServer listens on addr (with the downlink impairment, if any).
func startServer(ctx context.Context, o *options, addr string) (*gameServer, error) {
	cfg := transport.ServerConfig{Addr: addr, Impair: o.impairment(), Seed: o.seed}
	srv, err := transport.Listen(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &gameServer{srv: srv, q: wire.DefaultQuantizer(), total: o.entities,
		moving: int(o.moving * float64(o.entities)), players: map[session.ClientID]*serverPlayer{}}, nil
}

// run ticks at tickRate until ctx is done, then closes the server.
func (g *gameServer) run(ctx context.Context) error {
	defer g.srv.Close()
	t := time.NewTicker(time.Second / tickRate)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if err := g.step(); err != nil {
			return err
		}
	}
}

// step runs one tick: inputs, players, the world, snapshots.
func (g *gameServer) step() error {
	sess := g.srv.Session()
	g.ids = g.srv.Clients(g.ids[:0])
	for _, id := range g.ids {
		p := g.players[id]
		if p == nil {
			p = &serverPlayer{}
			g.players[id] = p
		}
		g.applyInputs(id, p)
	}
	g.tick++
	if err := sess.BeginTick(g.tick); err != nil {
		return err
	}
	g.dropGone(sess)
	for k := range g.total {
		if k >= g.moving && g.tick > 1 {
			break // still entities are set once
		}
		if err := sess.SetEntity(entityAt(k, g.tick, g.moving)); err != nil {
			return err
		}
	}
	for _, id := range g.ids {
		// Each client's player is the NetID its input packets name.
		// A server trusts no client: a NetID of a world entity or of
		// another client's player is not given to it.
		st, ok := sess.Stats(id)
		if !ok || st.NetID <= uint32(g.total) || g.claimed(id, st.NetID) {
			continue
		}
		p := g.players[id]
		if p.netID != 0 && p.netID != st.NetID {
			sess.Despawn(p.netID) // the client switched players
		}
		p.netID = st.NetID
		e := playerEntity(p.state)
		e.NetID = st.NetID
		if err := sess.SetEntity(e); err != nil {
			return err
		}
	}
	if err := g.srv.SendSnapshots(); err != nil {
		return err
	}
	if len(g.ids) > 0 {
		g.mu.Lock()
		if g.firstSent.IsZero() {
			g.firstSent = time.Now()
		}
		g.mu.Unlock()
	}
	return nil
}

// claimed reports whether a client other than id already plays netID.
func (g *gameServer) claimed(id session.ClientID, netID uint32) bool {
	for other, p := range g.players {
		if other != id && p.netID == netID {
			return true
		}
	}
	return false
}

// dropGone despawns the players of the clients disconnected.
func (g *gameServer) dropGone(sess *session.Server) {
	for id, p := range g.players {
		if !sess.Connected(id) {
			if p.netID != 0 {
				sess.Despawn(p.netID)
			}
			delete(g.players, id)
		}
	}
}

// applyInputs steps a client's player once per input that arrived, in
// sequence: a lost one repeats the previous input.
func (g *gameServer) applyInputs(id session.ClientID, p *serverPlayer) {
	var buf [8]byte
	for {
		in, err := g.srv.Session().NextInput(id, buf[:0])
		if err != nil || in.Status == session.InputEmpty {
			return
		}
		if in.Status == session.InputReady {
			p.last = decodeStick(in.Payload)
		}
		p.state = quantized(g.q, scenario.StepMover(p.state, p.last, 1.0/tickRate))
	}
}

// firstSnapshot returns when the server first sent a snapshot.
func (g *gameServer) firstSnapshot() time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.firstSent
}

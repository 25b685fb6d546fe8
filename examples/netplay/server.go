package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/netsmooth/netsmooth/internal/devauth"
	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/wire"
)

// gameServer simulates the world at tickRate on a server.Server: the
// entities on their paths, and for every player that joins an entity of
// its own (NetID playerBase + its ClientID, the server's choice), stepped
// once per input the session hands out, with the movement the client
// predicts with. Spectators get the world and no entity.
type gameServer struct {
	srv     *server.Server
	auth    *devauth.Backend
	log     io.Writer
	q       wire.Quantizer
	moving  int
	total   int
	tick    uint32
	players map[server.ClientID]*serverPlayer // changed under mu
	events  []server.Event
	input   []byte
	ids     []server.ClientID

	mu        sync.Mutex
	firstSent time.Time     // when the first snapshot went to a client
	ticks     int           // ticks run
	sendTime  time.Duration // spent in SendSnapshots, over ticks
	maxSend   time.Duration
	// longestGap is the longest time between two ticks: 50 ms, unless
	// the machine did not give the server its CPU in time.
	longestGap time.Duration
	// traffic holds every connected client's latest session counters,
	// gone adds up those of the clients that left: the server's totals.
	traffic map[server.ClientID]server.ClientStats
	gone    traffic
}

// traffic counts the snapshot and input packets of the clients.
type traffic struct {
	packetsSent, bytesSent, packetsReceived, bytesReceived uint64
}

func (t *traffic) add(st server.ClientStats) {
	t.packetsSent += st.PacketsSent
	t.bytesSent += st.BytesSent
	t.packetsReceived += st.PacketsReceived
	t.bytesReceived += st.BytesReceived
}

// serverPlayer is a client's player on the server.
type serverPlayer struct {
	netID uint32
	state scenario.Mover
	last  scenario.Stick
}

// startServer listens on addr (with the downlink impairment, if any),
// admitting the clients with a token from auth. Joins and leaves are
// written to log.
func startServer(ctx context.Context, o *options, addr string, auth *devauth.Backend, log io.Writer) (*gameServer, error) {
	srv, err := server.Listen(ctx, serverConfig(o, addr, auth))
	if err != nil {
		return nil, err
	}
	return newGameServer(srv, o, auth, log), nil
}

// serverConfig is the server's configuration for o.
func serverConfig(o *options, addr string, auth *devauth.Backend) server.Config {
	return server.Config{
		Addr:     addr,
		Tokens:   auth.Tokens(),
		TickRate: tickRate,
		Impair:   o.impairment(),
		Seed:     o.seed,
		// -full measures full snapshots: the clients acknowledge nothing.
		Session: server.SessionConfig{AllowNoDelta: o.full},
	}
}

// newGameServer runs the game on srv, whose tokens auth issues.
func newGameServer(srv *server.Server, o *options, auth *devauth.Backend, log io.Writer) *gameServer {
	return &gameServer{srv: srv, auth: auth, log: log, q: wire.DefaultQuantizer(), total: o.entities,
		moving: int(o.moving * float64(o.entities)), players: map[server.ClientID]*serverPlayer{},
		traffic: map[server.ClientID]server.ClientStats{}}
}

// run ticks at tickRate until ctx is done, then closes the server, which
// tells every client it is shutting down.
func (g *gameServer) run(ctx context.Context) error {
	defer func() {
		g.srv.Close()
		g.events = g.srv.Events(g.events[:0])
		for _, ev := range g.events {
			if ev.Kind == server.Leave {
				fmt.Fprintf(g.log, "server: client %d left: %v\n", ev.Client, describeEnd(ev.Reason, ev.Message))
			}
		}
	}()
	t := time.NewTicker(time.Second / tickRate)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return nil
		case now := <-t.C:
			g.mu.Lock()
			g.longestGap = max(g.longestGap, now.Sub(last))
			g.mu.Unlock()
			last = now
		}
		if err := g.step(); err != nil {
			return err
		}
	}
}

// step runs one tick: joins and leaves, inputs, the world, snapshots.
func (g *gameServer) step() error {
	sess := g.srv.Session()
	if err := g.admit(sess); err != nil {
		return err
	}
	for id, p := range g.players {
		g.applyInputs(sess, id, p)
	}
	g.tick++
	if err := sess.BeginTick(g.tick); err != nil {
		return err
	}
	for k := range g.total {
		if k >= g.moving && g.tick > 1 {
			break // still entities are set once
		}
		if err := sess.SetEntity(entityAt(k, g.tick, g.moving)); err != nil {
			return err
		}
	}
	for _, p := range g.players {
		if err := sess.SetEntity(playerEntity(p.netID, p.state)); err != nil {
			return err
		}
	}
	start := time.Now()
	err := g.srv.SendSnapshots()
	took := time.Since(start)
	g.ids = g.srv.Clients(g.ids[:0])
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, id := range g.ids {
		if st, ok := sess.Stats(id); ok {
			g.traffic[id] = st
		}
	}
	g.ticks++
	g.sendTime += took
	g.maxSend = max(g.maxSend, took)
	if g.firstSent.IsZero() && g.srv.Stats().Clients > 0 {
		g.firstSent = time.Now()
	}
	return err
}

// admit takes the joins and leaves since the last tick: a player that
// joins gets an entity of its own, which goes when it leaves.
func (g *gameServer) admit(sess *server.Session) error {
	g.events = g.srv.Events(g.events[:0])
	for _, ev := range g.events {
		switch ev.Kind {
		case server.Join:
			role := "player"
			if ev.Info.Spectator {
				role = "spectator"
			} else {
				p := &serverPlayer{netID: playerBase + uint32(ev.Client)}
				if err := sess.Assign(ev.Client, p.netID); err != nil {
					return err
				}
				g.mu.Lock()
				g.players[ev.Client] = p
				g.mu.Unlock()
				role = fmt.Sprintf("player, NetID %d", p.netID)
			}
			fmt.Fprintf(g.log, "server: client %d joined over %v from %v (backend player %d; %s)\n",
				ev.Client, ev.Info.Kind, ev.Info.Addr, ev.Info.Player, role)
		case server.Leave:
			// A client's counters go with it: what they were a tick ago
			// goes into the totals (a workaround: server.Stats has none).
			g.mu.Lock()
			g.gone.add(g.traffic[ev.Client])
			delete(g.traffic, ev.Client)
			if p, ok := g.players[ev.Client]; ok {
				sess.Despawn(p.netID)
				delete(g.players, ev.Client)
			}
			g.mu.Unlock()
			fmt.Fprintf(g.log, "server: client %d left: %v\n", ev.Client, describeEnd(ev.Reason, ev.Message))
		}
	}
	return nil
}

// applyInputs steps a player once per input the session hands out, in
// sequence: a lost one repeats the previous input. The session paces
// them (one per tick, with a bounded catch-up), so a client sending more
// inputs than ticks pass moves no faster.
func (g *gameServer) applyInputs(sess *server.Session, id server.ClientID, p *serverPlayer) {
	for {
		in, err := sess.NextInput(id, g.input[:0])
		if err != nil || in.Status == server.InputEmpty {
			return
		}
		if in.Status == server.InputReady {
			g.input = in.Payload
			p.last = decodeStick(in.Payload)
		}
		p.state = quantized(g.q, scenario.StepMover(p.state, p.last, 1.0/tickRate))
	}
}

// base describes the server for its tickets: the address the tokens
// name and clients dial, its endpoints and certificate hash.
func (g *gameServer) base() devauth.Ticket {
	addr := g.srv.Addr()
	if addr.Addr().IsUnspecified() {
		// Listening on every interface: the tokens name the loopback
		// address (see server.Config.Tokens).
		addr = netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), addr.Port())
	}
	return devauth.Ticket{
		Addr:         addr.String(),
		WebTransport: g.srv.WebTransportURL(addr.Addr().String()),
		CertHash:     devauth.HashString(g.srv.CertHash()),
	}
}

// ticket issues a ticket to join this server: what -role both gives its
// own client, and what the ticket endpoint serves in -role server.
func (g *gameServer) ticket(_ context.Context) (devauth.Ticket, error) {
	return g.auth.Ticket(g.base(), false)
}

// stalled returns the longest time between two ticks.
func (g *gameServer) stalled() time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.longestGap
}

// assigned returns the players' NetIDs, by client.
func (g *gameServer) assigned() map[server.ClientID]uint32 {
	g.mu.Lock()
	defer g.mu.Unlock()
	m := make(map[server.ClientID]uint32, len(g.players))
	for id, p := range g.players {
		m[id] = p.netID
	}
	return m
}

// firstSnapshot returns when the server first sent a snapshot.
func (g *gameServer) firstSnapshot() time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.firstSent
}

// tickStats returns the ticks run and the time spent in SendSnapshots,
// on average and at most.
func (g *gameServer) tickStats() (ticks int, mean, most time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ticks > 0 {
		mean = g.sendTime / time.Duration(g.ticks)
	}
	return g.ticks, mean, g.maxSend
}

// totals returns the snapshot and input packets of every client, the
// connected ones' as of the last tick.
func (g *gameServer) totals() traffic {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.gone
	for _, st := range g.traffic {
		t.add(st)
	}
	return t
}

// ticketServer serves development tickets for g over HTTP on addr, a
// loopback address: anyone who can reach it can join. It stops when ctx
// is done; wait for it with the returned function.
func ticketServer(ctx context.Context, addr string, g *gameServer) (url string, wait func(), err error) {
	if err := loopbackOnly(addr); err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /ticket", g.auth.Handler(g.base))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	hs.SetKeepAlivesEnabled(false) // nothing lingers once a ticket is served
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = hs.Serve(ln) // returns when closed
	}()
	stop := context.AfterFunc(ctx, func() { hs.Close() })
	wait = func() {
		<-done
		stop()
	}
	return "http://" + ln.Addr().String() + "/ticket", wait, nil
}

// loopbackOnly refuses a ticket endpoint address that is not a loopback
// one: the development backend hands a token to whoever asks.
func loopbackOnly(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-ticket-addr %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip, err := netip.ParseAddr(host); err != nil || !ip.IsLoopback() {
		return fmt.Errorf("-ticket-addr %q: the development ticket endpoint serves loopback only (it gives a token to anyone who asks)", addr)
	}
	return nil
}

//go:build !js

package arenanet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"syscall"
	"time"

	"github.com/coder/websocket"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/internal/devauth"
	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/transport"
	"github.com/netsmooth/netsmooth/wire"
)

// Server simulates the arena at TickRate under its Rules: the bots on
// their paths and one player per client, stepped once per input the
// session hands out (at most one a tick on average, however many a
// client sends). With Rules.View, each client is sent only the entities
// around its player (server.InterestConfig; a client can ask for every
// entity, to compare, and a spectator, which has no player, gets every
// entity), and with Rules.Budget at most that many bytes a second, by
// priority (server.BudgetConfig).
//
// It is a server.Server: desktop clients connect over QUIC and browsers
// over WebTransport, both on one UDP port, and browsers without
// WebTransport over a WebSocket on the HTTP server, which also serves
// the page and the development backend's tickets (TicketPath). Every
// client needs a ticket's connect token, whatever carries it. The
// server, not the client, picks each client's player: it assigns a new
// NetID when the client joins (server.Session.Assign) and despawns it
// when it leaves.
type Server struct {
	srv   *server.Server
	auth  *devauth.Backend
	web   *http.Server
	webL  net.Listener
	page  *Page
	q     wire.Quantizer
	rules Rules
	// spawn is where a new player starts (Rules.spawnPoint; tests put
	// players where they want).
	spawn func(netID uint32) scenario.Mover

	tick     uint32
	nextID   uint32
	shaped   bool // the bots have their hit shapes
	health   botHealth
	events   []server.Event
	clientMu sync.Mutex // guards players for Players()
	players  map[server.ClientID]*serverPlayer
	done     chan struct{} // closed when a Serve'd server has stopped

	wsMu     sync.Mutex
	wsConns  map[*wsConn]struct{} // the WebSockets being served
	wsClosed bool
	wsWG     sync.WaitGroup
}

// serverPlayer is a client's player on the server.
type serverPlayer struct {
	netID    uint32
	state    scenario.Mover
	last     scenario.Stick
	switches byte    // the newest input's (inInterestOff, inLagCompOff)
	moved    float32 // distance travelled, for tests
	// sinceShot counts the inputs since the last shot judged (up to
	// ShotEvery); shots, lastShot and lastHit are its shots' counts and
	// newest verdict (the State its client reads).
	sinceShot int
	shots     ShotCounts
	lastShot  uint8
	lastHit   bool
}

// PlayerInfo is what Players reports of a player.
type PlayerInfo struct {
	// NetID is the player's entity, assigned by the server.
	NetID uint32
	// Client is the player's connection on the server.
	Client server.ClientID
	// Via is what carries its packets (QUIC, WebTransport or message:
	// the WebSocket).
	Via transport.Kind
	// State is its position and velocity now.
	State scenario.Mover
	// Moved is the distance it has travelled since it joined, in units.
	Moved float32
	// Interest says interest management is on for its client: its client
	// has not asked for every entity (key N). On a server without it
	// (Rules.View 0) it tells only what the client asks.
	Interest bool
	// LagComp says its client's shots are judged against what it drew
	// (lag compensation); off (key C), against the present.
	LagComp bool
	// Shots are its shots' counts: judged, confirmed, refused.
	Shots ShotCounts
}

// StartServer listens for QUIC and WebTransport clients on udpAddr and,
// unless httpAddr is empty, serves the tickets and the WebSocket on
// httpAddr, where page (if not nil) serves the browser version; Run then
// runs it. The server simulates the world of rules, and tells its
// clients the rules in their tickets.
func StartServer(ctx context.Context, rules Rules, udpAddr, httpAddr string, page *Page) (*Server, error) {
	if err := rules.Check(); err != nil {
		return nil, err
	}
	auth, err := devauth.New()
	if err != nil {
		return nil, err
	}
	srv, err := server.Listen(ctx, server.Config{Addr: udpAddr, Tokens: auth.Tokens(), TickRate: TickRate,
		Session: sessionConfig(rules)})
	if err != nil {
		return nil, err
	}
	s := &Server{srv: srv, auth: auth, q: wire.DefaultQuantizer(), rules: rules, spawn: rules.spawnPoint, page: page, health: newBotHealth(rules.Bots),
		players: map[server.ClientID]*serverPlayer{}, wsConns: map[*wsConn]struct{}{}}
	if httpAddr != "" {
		if s.webL, err = net.Listen("tcp", httpAddr); err != nil {
			srv.Close()
			return nil, fmt.Errorf("HTTP: %w", err)
		}
		mux := http.NewServeMux()
		mux.HandleFunc("/ws", s.serveWS)
		mux.HandleFunc(TicketPath, s.serveTicket)
		if page != nil {
			page.register(mux)
		}
		s.web = &http.Server{Handler: boundWrites(mux), ReadHeaderTimeout: httpIdle, IdleTimeout: httpIdle}
		go func() {
			if err := s.web.Serve(s.webL); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Printf("arena: HTTP server: %v", err)
			}
		}()
	}
	return s, nil
}

// httpIdle is how long the HTTP server waits for a request's header, and
// for the next request on a connection kept alive: a browser opens
// another connection when it needs one, and a client that holds
// connections open without asking for anything holds none for long.
const httpIdle = 5 * time.Second

// responseWrite is how long a response may take to be written (the wasm
// module, a few megabytes, on a slow link): a client that never reads
// does not hold its connection and handler longer.
const responseWrite = 2 * time.Minute

// boundWrites gives every response but the WebSocket's responseWrite to
// be written. The WebSocket, once upgraded, bounds each of its own
// writes.
func boundWrites(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/ws" {
			_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(responseWrite))
		}
		h.ServeHTTP(w, r)
	})
}

// Addr is where desktop clients connect over QUIC (and browsers over
// WebTransport): the UDP address the server listens on.
func (s *Server) Addr() string { return s.srv.Addr().String() }

// WebAddr is where the browser version, the tickets and the WebSocket
// are served, "" without an HTTP server.
func (s *Server) WebAddr() string {
	if s.webL == nil {
		return ""
	}
	return s.webL.Addr().String()
}

// TicketURL is where clients get their tickets, "" without an HTTP
// server.
func (s *Server) TicketURL() string {
	if s.webL == nil {
		return ""
	}
	return "http://" + s.WebAddr() + TicketPath
}

// sessionConfig is the session of a server under rules: with
// rules.View, interest management in cells of a quarter of the view
// radius (as server.InterestConfig advises); with rules.Budget, each
// client's budget by priority (by distance from its player, the
// default); the bots' history for lag compensation (shotHistory); the
// bots' fields on the wire (arenaWire).
func sessionConfig(rules Rules) server.SessionConfig {
	cfg := server.SessionConfig{Wire: arenaWire(), MaxClients: 64, Budget: server.BudgetConfig{BytesPerSecond: rules.Budget}, History: shotHistory()}
	if rules.View > 0 {
		cfg.Interest = &server.InterestConfig{CellSize: max(4, rules.View/4)}
	}
	return cfg
}

// Rules returns the rules the server plays by.
func (s *Server) Rules() Rules { return s.rules }

// Ticket issues a ticket for this server, as the ticket endpoint does:
// for a client in the same process.
func (s *Server) Ticket(spectator bool) (Ticket, error) {
	t, err := s.auth.Ticket(s.ticketBase(), spectator)
	if err != nil {
		return Ticket{}, err
	}
	return Ticket{Ticket: t, Rules: s.rules}, nil
}

// serveTicket hands out a ticket, JSON, as the development backend's
// handler does (?spectator=1 asks for a spectator's), with the rules.
func (s *Server) serveTicket(w http.ResponseWriter, r *http.Request) {
	t, err := s.Ticket(r.URL.Query().Get("spectator") == "1")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(t) // a client gone meanwhile
}

// ticketBase describes the server for a ticket: its address (a loopback
// one when it listens on every interface: its connect tokens name
// those), its WebTransport URL, its WebSocket and its certificate's hash.
func (s *Server) ticketBase() devauth.Ticket {
	ap := s.srv.Addr()
	host := ap.Addr()
	if host.IsUnspecified() {
		host = netip.IPv6Loopback()
		if ap.Addr().Is4() {
			host = netip.AddrFrom4([4]byte{127, 0, 0, 1})
		}
	}
	t := devauth.Ticket{
		Addr:         netip.AddrPortFrom(host, ap.Port()).String(),
		WebTransport: s.srv.WebTransportURL(host.String()),
		CertHash:     devauth.HashString(s.srv.CertHash()),
	}
	if s.webL != nil {
		t.WebSocket = "ws://" + s.WebAddr() + "/ws"
	}
	return t
}

// serveWS upgrades a request to a WebSocket and serves it as a client
// (after its Hello with a token, as over QUIC) until either side closes.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil) // same-origin only: the page this server serves
	if err != nil {
		return
	}
	c.SetReadLimit(readLimit(s.srv.Session().Config().Wire))
	var remote net.Addr
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		remote = net.TCPAddrFromAddrPort(ap)
	}
	mc := newWSConn(c, remote)
	s.wsMu.Lock()
	if s.wsClosed {
		s.wsMu.Unlock()
		mc.Close()
		return
	}
	s.wsConns[mc] = struct{}{}
	s.wsWG.Add(1)
	s.wsMu.Unlock()
	defer func() {
		s.wsMu.Lock()
		delete(s.wsConns, mc)
		s.wsMu.Unlock()
		s.wsWG.Done()
	}()
	_ = s.srv.ServeConn(mc) // a refusal is the client's to hear, and counted in the server's Stats
}

// Players returns the players on the server now, in no order.
func (s *Server) Players() []PlayerInfo {
	s.clientMu.Lock()
	defer s.clientMu.Unlock()
	out := make([]PlayerInfo, 0, len(s.players))
	for id, p := range s.players {
		info, _ := s.srv.Client(id)
		out = append(out, PlayerInfo{NetID: p.netID, Client: id, Via: info.Kind, State: p.state, Moved: p.moved,
			Interest: p.switches&inInterestOff == 0, LagComp: p.switches&inLagCompOff == 0, Shots: p.shots})
	}
	return out
}

// Kick disconnects a player's client, telling it why.
func (s *Server) Kick(id server.ClientID, msg string) error { return s.srv.Kick(id, msg) }

// Run ticks at TickRate until ctx is done, then closes everything.
func (s *Server) Run(ctx context.Context) error {
	defer s.close()
	t := time.NewTicker(time.Second / TickRate)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if err := s.step(); err != nil {
			return err
		}
	}
}

// close stops the HTTP server, tells every client the server is shutting
// down, and waits for the WebSockets' handlers.
func (s *Server) close() {
	if s.web != nil {
		s.web.Close() // the page and the tickets; the WebSockets are hijacked, the server.Server's
	}
	s.srv.Close()
	s.wsMu.Lock()
	s.wsClosed = true
	for mc := range s.wsConns {
		mc.Close() // those still saying hello
	}
	s.wsMu.Unlock()
	s.wsWG.Wait()
}

// step runs one tick: the bots (their health healing), players joining
// and leaving, inputs (and the shots they carry, judged against the bots
// of this tick and the history: a confirmed one hurts its bot, which
// shows from the next tick), each client's view from its player,
// snapshots to every client.
func (s *Server) step() error {
	sess := s.srv.Session()
	s.events = s.srv.Events(s.events[:0])
	s.tick++
	if err := sess.BeginTick(s.tick); err != nil {
		return err
	}
	s.health.heal()
	for k := range s.rules.Bots {
		if err := sess.SetEntity(s.rules.botEntity(k, s.tick, s.health[k])); err != nil {
			return err
		}
	}
	if !s.shaped {
		// The bots' hit shapes, once: they live as long as the server.
		for k := range s.rules.Bots {
			sess.SetShape(uint32(k+1), botShape)
		}
		s.shaped = true
	}
	s.clientMu.Lock()
	for _, ev := range s.events {
		s.handle(ev)
	}
	for id, p := range s.players {
		s.applyInputs(id, p)
		e := playerEntity(p.netID, p.state)
		e.State = p.verdicts()
		if err := sess.SetEntity(e); err != nil {
			s.clientMu.Unlock()
			return err
		}
		// The client looks from its player: it receives its area (and,
		// under a budget, the nearest entities most often). A client
		// gone meanwhile fails; its Leave comes next tick.
		_ = sess.SetView(id, server.View{Pos: mgl32.Vec3{p.state.Pos[0], p.state.Pos[1], 0}, Radius: s.viewRadius()})
	}
	s.clientMu.Unlock()
	return s.srv.SendSnapshots()
}

// viewRadius is the radius of the players' views: Rules.View, or without
// interest management the whole world (the view then only ranks the
// entities for the budget, by distance).
func (s *Server) viewRadius() float32 {
	if s.rules.View > 0 {
		return s.rules.View
	}
	return s.rules.W + s.rules.H
}

// handle gives a client that joined a player (spectators get none: they
// have no view, and see every entity), and despawns the player of one
// that left.
func (s *Server) handle(ev server.Event) {
	switch ev.Kind {
	case server.Join:
		if ev.Info.Spectator {
			_ = s.srv.Session().SetInterest(ev.Client, false) // gone already: its Leave follows
			return
		}
		s.nextID++
		p := &serverPlayer{netID: PlayerBase + s.nextID, sinceShot: ShotEvery}
		p.state = quantized(s.q, p.netID, s.spawn(p.netID))
		if err := s.srv.Session().Assign(ev.Client, p.netID); err != nil {
			return // gone already: its Leave follows
		}
		s.players[ev.Client] = p
	case server.Leave:
		if p, ok := s.players[ev.Client]; ok {
			s.srv.Session().Despawn(p.netID)
			delete(s.players, ev.Client)
		}
	}
}

// applyInputs steps a client's player once per input the session hands
// out, in sequence: a lost one repeats the previous input. The session
// hands out one a tick, two when the client is catching up
// (server.SessionConfig.MaxCatchUp): sending more does not move a player
// faster. An input whose switches ask for interest management off (or
// back on) turns it so for the client. A shot an input carries is judged
// from where that input leaves the player (shoot).
func (s *Server) applyInputs(id server.ClientID, p *serverPlayer) {
	var buf [inputSize + shotSize]byte
	for {
		in, err := s.srv.Session().NextInput(id, buf[:0])
		if err != nil || in.Status == server.InputEmpty {
			return
		}
		if in.Status == server.InputReady {
			var switches byte
			p.last, switches, _ = decodeInput(in.Payload) // a malformed input is no input: the player stops
			if off := switches & inInterestOff; off != p.switches&inInterestOff {
				if s.srv.Session().SetInterest(id, off == 0) != nil {
					return // gone: its Leave follows
				}
			}
			p.switches = switches
		}
		next := quantized(s.q, p.netID, s.rules.stepPlayer(p.state, p.last, 1.0/TickRate))
		p.moved += next.Pos.Sub(p.state.Pos).Len()
		p.state = next
		if in.Status == server.InputReady {
			var drawn *wire.Drawn
			if in.HasDrawn {
				drawn = &in.Drawn
			}
			s.shoot(id, p, in.Payload, drawn)
		} else {
			p.sinceShot = min(p.sinceShot+1, ShotEvery) // a lost input is a tick too
		}
	}
}

// ServeConfig configures Serve.
type ServeConfig struct {
	// Rules are the world the server simulates (DefaultRules, say).
	Rules Rules
	// Addr is the UDP address desktop clients (QUIC) and browsers
	// (WebTransport) connect to.
	Addr string
	// HTTPAddr is where the browser version, its WebSocket and the
	// tickets are served ("" for none: then only clients in the same
	// process can get a ticket).
	HTTPAddr string
	// Wasm is a prebuilt arena.wasm to serve ("" builds one).
	Wasm string
}

// Serve starts the server and, with cfg.HTTPAddr, the build of the
// browser version, and runs them until ctx ends; logf tells the user
// where to connect. It returns once the server listens; Wait blocks until
// it has stopped. (StartServer and Run do the same without the build and
// the messages, for tests and programs that serve their own page.)
func Serve(ctx context.Context, cfg ServeConfig, logf func(format string, args ...any)) (*Server, error) {
	var page *Page
	if cfg.HTTPAddr != "" {
		var err error
		if page, err = NewPage(cfg.Wasm); err != nil {
			return nil, err
		}
	}
	srv, err := StartServer(ctx, cfg.Rules, cfg.Addr, cfg.HTTPAddr, page)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			err = fmt.Errorf("%w (is another arena running? choose other addresses with -addr and -http)", err)
		}
		return nil, err
	}
	join := ""
	if srv.TicketURL() != "" {
		join = fmt.Sprintf("; another player: go run ./examples/arena -join %s", srv.Addr())
		if TicketURLFor(srv.Addr()) != srv.TicketURL() {
			join += " -ticket " + srv.TicketURL()
		}
	}
	logf("arena: server on %s (QUIC, WebTransport): %v%s", srv.Addr(), cfg.Rules, join)
	var building sync.WaitGroup
	if page != nil {
		logf("arena: building the browser version for http://%s (a minute at most the first time)", srv.WebAddr())
		building.Add(1)
		go func() {
			defer building.Done()
			page.Build(ctx)
			if err := page.Wait(ctx); err != nil {
				if ctx.Err() == nil {
					logf("%v", err)
				}
				return
			}
			logf("arena: browser version ready: http://%s (every tab is a player)", srv.WebAddr())
		}()
	}
	srv.done = make(chan struct{})
	go func() {
		defer close(srv.done)
		if err := srv.Run(ctx); err != nil {
			logf("arena: server: %v", err)
		}
		building.Wait()
	}()
	return srv, nil
}

// Wait blocks until a server started by Serve has stopped (its context
// ended): sockets closed, the browser build ended.
func (s *Server) Wait() {
	if s.done != nil {
		<-s.done
	}
}

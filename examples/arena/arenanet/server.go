//go:build !js

package arenanet

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"

	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/session"
	"github.com/netsmooth/netsmooth/transport"
	"github.com/netsmooth/netsmooth/wire"
)

// Server simulates the arena at TickRate: the bots on their paths
// and one player per client, stepped once per input the client sends.
// Desktop clients connect over UDP (a transport.Server), browser clients
// over WebSocket (a wsHub on the HTTP server that also serves the page);
// both share one session.Server, so every client sees every player. The
// server, not the client, picks each client's player: it assigns a new
// NetID when the client connects (session.Server.Assign).
type Server struct {
	udp  *transport.Server
	sess *session.Server
	ws   *wsHub
	web  *http.Server
	webL net.Listener
	page *Page
	q    wire.Quantizer
	bots int

	tick     uint32
	nextID   uint32
	ids      []session.ClientID
	wsIDs    []session.ClientID
	clientMu sync.Mutex // guards players for Players()
	players  map[session.ClientID]*serverPlayer
	done     chan struct{} // closed when a Serve'd server has stopped
}

// serverPlayer is a client's player on the server.
type serverPlayer struct {
	netID uint32
	state scenario.Mover
	last  scenario.Stick
	moved float32 // distance travelled, for tests
}

// PlayerInfo is what Players reports of a player.
type PlayerInfo struct {
	// NetID is the player's entity, assigned by the server.
	NetID uint32
	// State is its position and velocity now.
	State scenario.Mover
	// Moved is the distance it has travelled since it joined, in units.
	Moved float32
}

// StartServer listens for UDP clients on udpAddr and, unless httpAddr is
// empty, for WebSocket clients on httpAddr, where page (if not nil)
// serves the browser version; Run then runs it. The server simulates
// bots bots.
func StartServer(ctx context.Context, bots int, udpAddr, httpAddr string, page *Page) (*Server, error) {
	udp, err := transport.Listen(ctx, transport.ServerConfig{Addr: udpAddr, Session: session.Config{MaxClients: 64}})
	if err != nil {
		return nil, err
	}
	s := &Server{udp: udp, sess: udp.Session(), q: wire.DefaultQuantizer(), bots: bots,
		players: map[session.ClientID]*serverPlayer{}, page: page}
	s.ws = newWSHub(s.sess, udp.Now)
	if httpAddr != "" {
		if s.webL, err = net.Listen("tcp", httpAddr); err != nil {
			udp.Close()
			return nil, fmt.Errorf("HTTP: %w", err)
		}
		mux := http.NewServeMux()
		mux.Handle("/ws", s.ws)
		if page != nil {
			page.register(mux)
		}
		s.web = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		go func() {
			if err := s.web.Serve(s.webL); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Printf("arena: HTTP server: %v", err)
			}
		}()
	}
	return s, nil
}

// UDPAddr is where desktop clients connect.
func (s *Server) UDPAddr() string { return s.udp.Addr().String() }

// WebAddr is where the browser build is served, "" without one.
func (s *Server) WebAddr() string {
	if s.webL == nil {
		return ""
	}
	return s.webL.Addr().String()
}

// Players returns the players on the server now, in no order.
func (s *Server) Players() []PlayerInfo {
	s.clientMu.Lock()
	defer s.clientMu.Unlock()
	out := make([]PlayerInfo, 0, len(s.players))
	for _, p := range s.players {
		out = append(out, PlayerInfo{NetID: p.netID, State: p.state, Moved: p.moved})
	}
	return out
}

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

func (s *Server) close() {
	if s.web != nil {
		s.web.Close()
	}
	s.ws.close()
	s.udp.Close()
}

// step runs one tick: players joining and leaving, inputs, the world,
// snapshots to every client.
func (s *Server) step() error {
	s.ids = s.udp.Clients(s.ids[:0])
	s.wsIDs = s.ws.clients(s.wsIDs[:0])
	s.ids = append(s.ids, s.wsIDs...)
	s.tick++
	if err := s.sess.BeginTick(s.tick); err != nil {
		return err
	}
	s.clientMu.Lock()
	s.dropGone()
	for _, id := range s.ids {
		p := s.players[id]
		if p == nil {
			s.nextID++
			p = &serverPlayer{netID: PlayerBase + s.nextID}
			p.state = quantized(s.q, p.netID, spawnPoint(p.netID))
			if err := s.sess.Assign(id, p.netID); err != nil {
				continue // disconnected meanwhile
			}
			s.players[id] = p
		}
		s.applyInputs(id, p)
		if err := s.sess.SetEntity(playerEntity(p.netID, p.state)); err != nil {
			s.clientMu.Unlock()
			return err
		}
	}
	s.clientMu.Unlock()
	for k := range s.bots {
		if err := s.sess.SetEntity(botEntity(k, s.tick)); err != nil {
			return err
		}
	}
	if err := s.udp.SendSnapshots(); err != nil {
		return err
	}
	return s.ws.sendSnapshots(s.wsIDs)
}

// dropGone despawns the players of the clients that left.
func (s *Server) dropGone() {
	for id, p := range s.players {
		if !s.sess.Connected(id) {
			s.sess.Despawn(p.netID)
			delete(s.players, id)
		}
	}
}

// applyInputs steps a client's player once per input that arrived, in
// sequence: a lost one repeats the previous input.
func (s *Server) applyInputs(id session.ClientID, p *serverPlayer) {
	var buf [8]byte
	for {
		in, err := s.sess.NextInput(id, buf[:0])
		if err != nil || in.Status == session.InputEmpty {
			return
		}
		if in.Status == session.InputReady {
			p.last = decodeStick(in.Payload)
		}
		next := quantized(s.q, p.netID, stepPlayer(p.state, p.last, 1.0/TickRate))
		p.moved += next.Pos.Sub(p.state.Pos).Len()
		p.state = next
	}
}

// ServeConfig configures Serve.
type ServeConfig struct {
	// Bots is the number of bots the server simulates.
	Bots int
	// UDPAddr is where desktop clients connect.
	UDPAddr string
	// HTTPAddr is where the browser version and its WebSocket are served
	// ("" for none).
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
	srv, err := StartServer(ctx, cfg.Bots, cfg.UDPAddr, cfg.HTTPAddr, page)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			err = fmt.Errorf("%w (is another arena running? choose other addresses with -addr and -http)", err)
		}
		return nil, err
	}
	logf("arena: server on udp://%s with %d bots; another player: go run ./examples/arena -join %s", srv.UDPAddr(), cfg.Bots, srv.UDPAddr())
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

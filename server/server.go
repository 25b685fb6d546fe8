//go:build !js

package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/netsmooth/netsmooth/internal/limits"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/token"
	"github.com/netsmooth/netsmooth/transport"
	"github.com/netsmooth/netsmooth/wire"
)

// DefaultIdle is how long a client may send nothing before a [Server]
// disconnects it, by default.
const DefaultIdle = 10 * time.Second

// Config configures a [Server]. The zero value of every field but Tokens
// means its default.
type Config struct {
	// Addr is the UDP address to serve QUIC and WebTransport on (default
	// 127.0.0.1 on a port the system picks). Serve other interfaces on
	// purpose.
	Addr string
	// PacketConn, if set, is the socket to serve on instead of Addr; the
	// Server closes it.
	PacketConn net.PacketConn
	// Certificate is the TLS certificate. Nil makes a self-signed one,
	// which clients accept by its hash ([Server.CertHash]): development
	// with no setup. In production, one from a public CA
	// (transport.LoadCertificate).
	Certificate *tls.Certificate
	// Tokens configures the check of the connect token in every client's
	// Hello: the backend's public keys (required: a server admits no one
	// without a valid token issued for it), the game's ProtocolID, and
	// this server's public addresses as tokens name them (default: the
	// address it listens on, right for development and for a server with
	// a public address of its own; behind NAT or a load balancer, the
	// public one). See package token.
	Tokens token.VerifierConfig
	// TickRate is the server's simulation rate in ticks per second
	// (default 20; 1 to 1e6), told to every client in its Welcome.
	TickRate float64
	// Session configures the protocol state: the codec, MaxClients, input
	// pacing, the send Filter.
	Session SessionConfig
	// WebTransportPath, NoWebTransport and CheckOrigin configure the
	// browsers' WebTransport endpoint (see transport.ListenConfig).
	WebTransportPath string
	NoWebTransport   bool
	CheckOrigin      func(*http.Request) bool
	// HelloTimeout, MaxPending and Retry bound the connections being set
	// up (see transport.ListenConfig); MaxPending bounds WebSocket
	// handshakes too.
	HelloTimeout time.Duration
	MaxPending   int
	Retry        transport.RetryPolicy
	// Idle disconnects a client that sent nothing for this long (default
	// DefaultIdle), with ReasonTimeout.
	Idle time.Duration
	// AllowDuplicates lets one player (the token's ClientID) hold several
	// connections at once. By default a new connection of a player
	// replaces the old one, which is closed with ReasonKicked.
	AllowDuplicates bool
	// Impair, if set, sends every packet to every client through an
	// impairment (a netsim link on the wall clock, seeded from Seed and
	// the client's ID): a bad network for demos and tests. SetImpair
	// changes it at run time.
	Impair *netsim.Config
	Seed   uint64
}

// Server is a dedicated game server's network end: a transport.Listener
// for native clients (QUIC) and browsers (WebTransport) on one UDP
// socket, a WebSocket fallback through [Server.ServeConn], connect tokens
// checked before anything is sent, and the [Session] that keeps every
// client's protocol state. Clients join and leave as [Event]s; the game
// assigns players their entities, steps them with the inputs the
// Session paces, and calls SendSnapshots every tick.
//
// Its methods are safe for concurrent use. A Server does not import the
// client pipeline (nor arche): a dedicated server binary links the codec,
// the transport and the standard library.
type Server struct {
	cfg    Config
	sess   *Session
	ln     *transport.Listener
	tokens *token.Verifier
	start  time.Time
	ctx    context.Context
	stop   context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	clients  map[ClientID]*member
	byPlayer map[uint64]ClientID
	// welcoming is the place of each player whose connection has a place
	// but is not a member yet (its Welcome under way); ousted, the places
	// a newer connection of the same player took meanwhile, which join
	// then refuses.
	welcoming map[uint64]ClientID
	ousted    map[ClientID]bool
	nextID    ClientID
	events    []Event
	gone      transport.ConnStats // the departed clients' connections, summed
	impair    *netsim.Config
	stats     Stats
	members   []*member // SendSnapshots' scratch
	packets   [][]byte  // SendSnapshots' scratch

	wsPending chan struct{} // a place per WebSocket handshake under way
	closeOnce sync.Once

	// closers are the connections' Closes under way, on goroutines of
	// their own; closersDone says Close has waited for them (later
	// closes run on the caller's goroutine). Both under mu.
	closers     sync.WaitGroup
	closersDone bool
}

// member is a connected client.
type member struct {
	id     ClientID
	info   ClientInfo
	conn   transport.Conn
	send   *transport.Path
	heard  atomic.Int64 // unix nanoseconds of the last packet
	closed atomic.Bool  // Close or Kick asked for; the reader reports the leave
	// final is its statistics when a new connection of its player took
	// its place: written before the place goes (the session's lock orders
	// it), read by the leave that finds the place gone.
	final ClientStats
}

// ClientInfo is what the server knows of a connected client.
type ClientInfo struct {
	// Player is the token's ClientID: who the backend says the player is.
	Player uint64
	// UserData and PrivateData are the token's (private data decrypted).
	UserData, PrivateData []byte
	// Spectator says the client watches only (it asked to, or its token
	// allows nothing else).
	Spectator bool
	// Kind says what carries the connection; Addr is the client's address.
	Kind transport.Kind
	Addr net.Addr
	// Joined is when the client was admitted.
	Joined time.Time
}

// Stats are a Server's counters.
type Stats struct {
	// Clients is the number connected now.
	Clients int
	// Joins and Leaves count clients admitted and gone.
	Joins, Leaves uint64
	// BadTokens counts connections refused because their token did not
	// verify (ReasonBadToken); Full those refused because MaxClients were
	// connected (ReasonFull); Busy WebSockets refused because MaxPending
	// handshakes were under way (ReasonBusy).
	BadTokens, Full, Busy uint64
	// EventsDropped counts events dropped because more than MaxEvents
	// were waiting for Events.
	EventsDropped uint64
	// Traffic sums every client connection's counters, the departed
	// clients' included: what the server sent and received in its
	// sessions' packets.
	Traffic transport.ConnStats
	// Listener is the QUIC listener's: connections being set up, refused
	// as busy, timed out before their Hello.
	Listener transport.ListenerStats
}

// Listen starts a server for cfg. Cancelling ctx closes it, as Close does.
func Listen(ctx context.Context, cfg Config) (*Server, error) {
	if len(cfg.Tokens.Keys) == 0 {
		return nil, errors.New("server: Config.Tokens.Keys is empty: a server needs the backend's public keys to admit anyone (see package token)")
	}
	if cfg.TickRate == 0 {
		cfg.TickRate = DefaultTickRate
	}
	if err := limits.CheckTickRate(cfg.TickRate); err != nil {
		return nil, configErr("TickRate: %v (or 0 for %d)", err, DefaultTickRate)
	}
	if cfg.Idle == 0 {
		cfg.Idle = DefaultIdle
	}
	if cfg.Idle < 0 {
		return nil, configErr("Idle = %v, want positive (or 0 for %v)", cfg.Idle, DefaultIdle)
	}
	if cfg.MaxPending == 0 {
		cfg.MaxPending = transport.DefaultMaxPending
	}
	if cfg.Impair != nil {
		if err := cfg.Impair.Validate(); err != nil {
			return nil, err
		}
	}
	switch {
	case cfg.Session.TickRate == 0:
		cfg.Session.TickRate = cfg.TickRate
	case cfg.Session.TickRate != cfg.TickRate:
		return nil, configErr("Session.TickRate %v differs from TickRate %v: leave it zero", cfg.Session.TickRate, cfg.TickRate)
	}
	sess, err := NewSession(cfg.Session)
	if err != nil {
		return nil, err
	}
	ln, err := transport.Listen(context.Background(), transport.ListenConfig{
		Addr: cfg.Addr, PacketConn: cfg.PacketConn, Certificate: cfg.Certificate,
		WebTransportPath: cfg.WebTransportPath, NoWebTransport: cfg.NoWebTransport, CheckOrigin: cfg.CheckOrigin,
		HelloTimeout: cfg.HelloTimeout, MaxPending: cfg.MaxPending, IdleTimeout: cfg.Idle, Retry: cfg.Retry,
	})
	if err != nil {
		return nil, err
	}
	if len(cfg.Tokens.Addrs) == 0 {
		cfg.Tokens.Addrs = listenNames(ln.Addr())
	}
	tokens, err := token.NewVerifier(cfg.Tokens)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("server: %w", err)
	}
	s := &Server{cfg: cfg, sess: sess, ln: ln, tokens: tokens, start: time.Now(), clients: map[ClientID]*member{},
		byPlayer: map[uint64]ClientID{}, welcoming: map[uint64]ClientID{}, ousted: map[ClientID]bool{}, nextID: 1, impair: cfg.Impair, wsPending: make(chan struct{}, cfg.MaxPending)}
	s.ctx, s.stop = context.WithCancel(context.Background())
	s.wg.Add(1)
	go s.acceptLoop()
	context.AfterFunc(ctx, func() { s.Close() })
	return s, nil
}

// Session returns the protocol state: the game sets the world on it
// (BeginTick, SetEntity, Despawn), assigns players their entities
// (Assign) and takes their inputs (NextInput).
func (s *Server) Session() *Session { return s.sess }

// Addr returns the UDP address the server listens on.
func (s *Server) Addr() netip.AddrPort { return s.ln.Addr() }

// CertHash returns the SHA-256 hash of the server's certificate, for
// clients that accept a self-signed one by its hash.
func (s *Server) CertHash() [32]byte { return s.ln.CertHash() }

// WebTransportURL returns the URL browsers connect to, for the host name
// or address they reach the server by.
func (s *Server) WebTransportURL(host string) string { return s.ln.WebTransportURL(host) }

// TickRate returns the server's tick rate.
func (s *Server) TickRate() float64 { return s.cfg.TickRate }

// Now returns the server's clock in ms, the time since Listen: the clock
// of the packets' timing fields.
func (s *Server) Now() uint32 { return uint32(time.Since(s.start).Milliseconds()) }

// acceptLoop admits or refuses the QUIC and WebTransport connections.
func (s *Server) acceptLoop() {
	defer s.wg.Done()
	for {
		in, err := s.ln.Accept(s.ctx)
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if m := s.admit(in); m != nil {
				s.read(m)
			}
		}()
	}
}

// ServeConn admits a client over mc, a message connection (a WebSocket:
// the fallback for browsers without WebTransport) with the same connect
// tokens, and serves it until the connection ends; it returns nil then,
// or why the client was not admitted. Call it from the handler that
// accepted the WebSocket.
func (s *Server) ServeConn(mc transport.MessageConn) error {
	select {
	case s.wsPending <- struct{}{}:
	default:
		mc.Close()
		s.count(func(st *Stats) { st.Busy++ })
		return fmt.Errorf("server: %d WebSocket handshakes under way (MaxPending)", cap(s.wsPending))
	}
	in, err := transport.NewIncoming(mc, s.cfg.HelloTimeout)
	if err != nil {
		<-s.wsPending
		return err
	}
	m := s.admit(in)
	<-s.wsPending
	if m == nil {
		return errors.New("server: connection refused")
	}
	s.read(m)
	return nil
}

// admit checks an incoming connection's token and room, and accepts it as
// a new member, or refuses it; nil when refused.
func (s *Server) admit(in *transport.Incoming) *member {
	h := in.Hello()
	now := time.Now()
	// The signature is checked outside the lock; the token is recorded
	// as used only once the client has a place (seat).
	t, err := s.tokens.Check(h.Token, now)
	if err != nil {
		s.count(func(st *Stats) { st.BadTokens++ })
		in.Refuse(wire.ReasonBadToken, err.Error())
		return nil
	}
	spectator := h.Spectator || t.Spectator
	s.mu.Lock()
	id, displaced, refusal := s.seat(&t, spectator, now)
	s.mu.Unlock()
	if refusal != nil {
		in.Refuse(refusal.Reason, refusal.Message)
		if displaced != nil { // its place is gone: it cannot stay
			s.closeMember(displaced, wire.ReasonKicked, "replaced by a new connection of the same player")
		}
		return nil
	}
	conn, err := in.Accept(wire.Welcome{ClientID: uint32(id), TickRate: s.cfg.TickRate, Spectator: spectator})
	if err != nil {
		s.mu.Lock()
		s.unwelcome(id, t.ClientID)
		s.mu.Unlock()
		s.sess.Disconnect(id)
		if displaced != nil { // its place is gone: it cannot stay
			s.closeMember(displaced, wire.ReasonKicked, "replaced by a new connection of the same player")
		}
		return nil
	}
	m := &member{id: id, conn: conn, info: ClientInfo{Player: t.ClientID, UserData: t.UserData, PrivateData: t.PrivateData,
		Spectator: spectator, Kind: in.Kind(), Addr: in.RemoteAddr(), Joined: time.Now()}}
	m.heard.Store(time.Now().UnixNano())
	m.send = transport.NewPath(transport.SeedFor(s.cfg.Seed, uint64(id)), func(b []byte) { conn.WritePacket(b) })
	if refusal := s.join(m); refusal != nil {
		m.send.Close()
		conn.Close(refusal.Reason, refusal.Message)
		s.sess.Disconnect(id)
		return nil
	}
	return m
}

// seat gives the client of token t a place in the session and records t
// as used, or says why not. The caller holds s.mu. A player coming back
// to a full server takes the place of its older connection: of a member
// (displaced, closed when the new one joins, or at once if it cannot), or
// of one whose Welcome is still under way (which join then refuses). A
// token is recorded only once its client has a place, so that a client
// refused as full may present it again.
func (s *Server) seat(t *token.Token, spectator bool, now time.Time) (id ClientID, displaced *member, refusal *wire.Close) {
	if s.ctx.Err() != nil {
		return 0, nil, &wire.Close{Reason: wire.ReasonShutdown, Message: "the server is shutting down"}
	}
	id = s.nextID
	connect := func() error {
		if spectator {
			return s.sess.ConnectSpectator(id)
		}
		return s.sess.Connect(id)
	}
	full := connect() != nil
	// The place a player's older connection holds, as a member (old) or
	// with its Welcome under way (held).
	var old *member
	held, holds := ClientID(0), false
	if full && !s.cfg.AllowDuplicates {
		if prev, ok := s.byPlayer[t.ClientID]; ok {
			old = s.clients[prev]
		}
		if old == nil {
			held, holds = s.welcoming[t.ClientID]
		}
	}
	if full && old == nil && !holds {
		s.stats.Full++
		return 0, nil, &wire.Close{Reason: wire.ReasonFull, Message: "the server is full"}
	}
	if err := s.tokens.Record(*t, now); err != nil {
		if !full {
			s.sess.Disconnect(id)
		}
		s.stats.BadTokens++
		return 0, nil, &wire.Close{Reason: wire.ReasonBadToken, Message: err.Error()}
	}
	if full {
		if old != nil {
			// The old connection's place, its statistics kept for its Leave.
			old.final, _ = s.sess.Stats(old.id)
			s.sess.Disconnect(old.id)
		} else {
			// Not a member yet: join refuses it when its Welcome is out.
			s.sess.Disconnect(held)
			s.ousted[held] = true
		}
		if connect() != nil { // cannot happen: a place was just freed, under s.mu
			s.stats.Full++
			return 0, old, &wire.Close{Reason: wire.ReasonFull, Message: "the server is full"}
		}
	}
	if !s.cfg.AllowDuplicates {
		s.welcoming[t.ClientID] = id
	}
	s.nextID++
	return id, old, nil
}

// unwelcome forgets that place id of player is being welcomed: it
// joined, or its Welcome failed. The caller holds s.mu.
func (s *Server) unwelcome(id ClientID, player uint64) {
	if s.welcoming[player] == id {
		delete(s.welcoming, player)
	}
	delete(s.ousted, id)
}

// join registers m, replacing an older connection of the same player
// unless duplicates are allowed, and reports the join. It refuses m, with
// the Close to send it, once Close has begun (Close closes the members it
// finds, and m would be left out) or when a newer connection of its
// player took its place while its Welcome was under way.
func (s *Server) join(m *member) *wire.Close {
	s.mu.Lock()
	ousted := s.ousted[m.id]
	s.unwelcome(m.id, m.info.Player)
	switch {
	case s.ctx.Err() != nil:
		s.mu.Unlock()
		return &wire.Close{Reason: wire.ReasonShutdown, Message: "the server is shutting down"}
	case ousted:
		s.mu.Unlock()
		return &wire.Close{Reason: wire.ReasonKicked, Message: "replaced by a new connection of the same player"}
	}
	var old *member
	if !s.cfg.AllowDuplicates {
		if prev, ok := s.byPlayer[m.info.Player]; ok {
			old = s.clients[prev]
		}
		s.byPlayer[m.info.Player] = m.id
	}
	if s.impair != nil {
		m.send.Set(s.impair)
	}
	s.clients[m.id] = m
	s.stats.Joins++
	s.event(Event{Kind: Join, Client: m.id, Info: m.info})
	s.mu.Unlock()
	if old != nil {
		s.closeMember(old, wire.ReasonKicked, "replaced by a new connection of the same player")
	}
	return nil
}

// read hands m's packets to the session until its connection ends, then
// reports the leave.
func (s *Server) read(m *member) {
	for {
		b, err := m.conn.ReadPacket()
		if err != nil {
			s.leave(m, err)
			return
		}
		m.heard.Store(time.Now().UnixNano())
		s.sess.Receive(m.id, b, s.Now()) // refused packets are counted by the session
	}
}

// leave removes m and reports why it left.
func (s *Server) leave(m *member, err error) {
	var ce *transport.CloseError
	ev := Event{Kind: Leave, Client: m.id, Info: m.info, Reason: wire.ReasonNone, Message: err.Error()}
	if errors.As(err, &ce) {
		ev.Reason, ev.Message = ce.Reason, ce.Message
		if ce.Claimed && ce.Reason != wire.ReasonLeft && ce.Reason != wire.ReasonProtocol {
			// The client's word: leaving is all a client can do, whatever
			// it calls it (a timeout or a kick is the server's to see).
			ev.Reason, ev.Message = wire.ReasonLeft, claimed(ce)
		}
	}
	m.conn.Close(wire.ReasonNone, "") // no-op if closed already
	m.send.Close()
	var held bool
	if ev.Stats, held = s.sess.Stats(m.id); !held {
		ev.Stats = m.final // replaced on a full server: its place went first
	}
	ev.Conn = m.conn.Stats()
	s.sess.Disconnect(m.id)
	s.mu.Lock()
	s.gone.Add(ev.Conn)
	delete(s.clients, m.id)
	if s.byPlayer[m.info.Player] == m.id {
		delete(s.byPlayer, m.info.Player)
	}
	s.stats.Leaves++
	s.event(ev)
	s.mu.Unlock()
}

// claimed is the message of a leave whose reason the client gave and the
// server reports as ReasonLeft: the reason and text it gave.
func claimed(ce *transport.CloseError) string {
	if ce.Message == "" {
		return fmt.Sprintf("the client closed the connection, giving %v", ce.Reason)
	}
	return fmt.Sprintf("the client closed the connection, giving %v: %s", ce.Reason, ce.Message)
}

// event holds ev for Events, dropping the oldest beyond MaxEvents. The
// caller holds s.mu.
func (s *Server) event(ev Event) {
	if len(s.events) >= MaxEvents {
		n := copy(s.events, s.events[1:])
		s.events = s.events[:n]
		s.stats.EventsDropped++
	}
	s.events = append(s.events, ev)
}

// closeMember closes m's connection with reason; its reader reports the
// leave. The close runs on a goroutine of its own: closing a connection
// may wait for its peer (a send under way to a client that acknowledges
// nothing, a WebSocket's closing handshake), and the caller is the game's
// tick.
func (s *Server) closeMember(m *member, reason wire.Reason, msg string) {
	if !m.closed.CompareAndSwap(false, true) {
		return
	}
	s.mu.Lock()
	async := !s.closersDone
	if async {
		s.closers.Add(1)
	}
	s.mu.Unlock()
	if !async {
		m.conn.Close(reason, msg)
		return
	}
	go func() {
		defer s.closers.Done()
		m.conn.Close(reason, msg)
	}()
}

// Kick disconnects client id, telling it why (ReasonKicked and msg). The
// leave is reported as an Event. It fails with ErrUnknownClient for a
// client not connected; a client is connected from its Join event on
// (its Welcome may reach it a moment before).
func (s *Server) Kick(id ClientID, msg string) error {
	s.mu.Lock()
	m := s.clients[id]
	s.mu.Unlock()
	if m == nil {
		return fmt.Errorf("%w: %d (Kick)", ErrUnknownClient, id)
	}
	s.closeMember(m, wire.ReasonKicked, msg)
	return nil
}

// Events appends the joins and leaves since the last call to dst, oldest
// first. Call it once per tick: a joined client gets a player (Assign)
// and a leave frees its entity. A client's Join always comes before its
// Leave.
func (s *Server) Events(dst []Event) []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	dst = append(dst, s.events...)
	clear(s.events)
	s.events = s.events[:0]
	return dst
}

// Clients appends the connected clients, in ID order, to dst.
func (s *Server) Clients(dst []ClientID) []ClientID {
	s.mu.Lock()
	n := len(dst)
	for id := range s.clients {
		dst = append(dst, id)
	}
	s.mu.Unlock()
	slices.Sort(dst[n:])
	return dst
}

// Client returns what the server knows of a connected client.
func (s *Server) Client(id ClientID) (ClientInfo, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.clients[id]
	if !ok {
		return ClientInfo{}, false
	}
	return m.info, true
}

// ConnStats returns the counters of a client's connection.
func (s *Server) ConnStats(id ClientID) (transport.ConnStats, bool) {
	s.mu.Lock()
	m, ok := s.clients[id]
	s.mu.Unlock()
	if !ok {
		return transport.ConnStats{}, false
	}
	return m.conn.Stats(), true
}

// SendSnapshots sends every connected client its snapshot of the current
// tick (Session.Snapshot), after disconnecting the clients silent for
// longer than Idle. Call it once per tick, after setting the world, from
// one goroutine. Sending never waits for the network. It returns the
// first session error, after trying every client.
func (s *Server) SendSnapshots() error {
	now := s.Now()
	deadline := time.Now().Add(-s.cfg.Idle).UnixNano()
	s.mu.Lock()
	members := s.members[:0]
	for _, m := range s.clients {
		members = append(members, m)
	}
	s.members = members
	s.mu.Unlock()
	var first error
	for _, m := range members {
		if m.heard.Load() < deadline {
			s.closeMember(m, wire.ReasonTimeout, fmt.Sprintf("nothing received for %v", s.cfg.Idle))
			continue
		}
		packets, err := s.sess.Snapshot(m.id, now, s.packets[:0])
		s.packets = packets
		if err != nil {
			if first == nil && !errors.Is(err, ErrUnknownClient) {
				first = err
			}
			continue
		}
		for _, b := range packets {
			m.send.Send(b)
		}
	}
	clear(members)
	return first
}

// SetImpair changes the impairment of the packets sent to every client,
// connected now or later, to cfg, or with nil removes it. An invalid cfg
// changes nothing.
func (s *Server) SetImpair(cfg *netsim.Config) error {
	if cfg != nil {
		if err := cfg.Validate(); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.impair = cfg
	for _, m := range s.clients {
		if err := m.send.Set(cfg); err != nil {
			return err
		}
	}
	return nil
}

// Stats returns the server's counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	st := s.stats
	st.Clients = len(s.clients)
	st.Traffic = s.gone
	for _, m := range s.clients {
		st.Traffic.Add(m.conn.Stats())
	}
	s.mu.Unlock()
	st.Listener = s.ln.Stats()
	return st
}

func (s *Server) count(f func(*Stats)) {
	s.mu.Lock()
	f(&s.stats)
	s.mu.Unlock()
}

// Close tells every client the server is shutting down, waits (up to a
// second) for their connections to end, closes the listener and the
// socket, and waits for the server's goroutines. Only the first call
// does anything.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.stop()
		members := make([]*member, 0, len(s.clients))
		for _, m := range s.clients {
			members = append(members, m)
		}
		s.mu.Unlock()
		for _, m := range members {
			s.closeMember(m, wire.ReasonShutdown, "the server is shutting down")
		}
		// Let the connections end as they were told before the listener
		// goes, which ends what is left at once, without a reason: a
		// WebTransport session closes a moment after its Close datagram.
		for deadline := time.Now().Add(time.Second); s.Stats().Clients > 0 && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		err = s.ln.Close()
		s.wg.Wait()
		s.mu.Lock()
		s.closersDone = true
		s.mu.Unlock()
		s.closers.Wait()
	})
	return err
}

// listenNames returns the addresses a token may name for a server
// listening on addr: addr itself, or, when it listens on every interface,
// its loopback names (a public address must then be configured).
func listenNames(addr netip.AddrPort) []string {
	if !addr.Addr().IsUnspecified() {
		return []string{addr.String()}
	}
	port := fmt.Sprint(addr.Port())
	return []string{net.JoinHostPort("127.0.0.1", port), net.JoinHostPort("::1", port), net.JoinHostPort("localhost", port)}
}

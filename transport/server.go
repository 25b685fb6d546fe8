package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/session"
	"github.com/netsmooth/netsmooth/wire"
)

// DefaultAddr is where a Server listens by default: the loopback
// interface, on a port the system picks.
const DefaultAddr = "127.0.0.1:0"

// DefaultIdle is how long a client may stay silent before a Server
// disconnects it.
const DefaultIdle = 10 * time.Second

// ServerConfig configures a [Server].
type ServerConfig struct {
	// Addr is the UDP address to listen on (default DefaultAddr). Listen
	// on another interface only on purpose.
	Addr string
	// Session configures the session.Server. Its MaxClients bounds the
	// clients connected at once; packets from further addresses are
	// dropped and counted (ServerStats.Refused).
	Session session.Config
	// Idle disconnects a client silent for this long (default
	// DefaultIdle), freeing its place.
	Idle time.Duration
	// Impair, if set, sends every packet the server sends through an
	// [Impairment] with this configuration and Seed, on the wall clock
	// (see the package documentation). SetImpair changes it at run time.
	Impair *netsim.Config
	// Seed seeds Impair's random decisions.
	Seed uint64
}

// ServerStats are a [Server]'s counters at the socket.
type ServerStats struct {
	// Clients is the number of clients connected.
	Clients int
	// Connects and Disconnects count clients connected and disconnected
	// (idle); Refused counts packets from new addresses turned away
	// because MaxClients were connected; Stray counts packets from new
	// addresses that were not input packets.
	Connects, Disconnects, Refused, Stray uint64
	// PacketsReceived and BytesReceived count the datagrams read;
	// BadPackets those the session refused.
	PacketsReceived, BytesReceived, BadPackets uint64
	// PacketsSent and BytesSent count the datagrams handed to the
	// network (after Impair's losses, with its duplicates).
	PacketsSent, BytesSent uint64
	// ReadErrors and WriteErrors count socket errors.
	ReadErrors, WriteErrors uint64
	// Link is what Impair did: zero if never set, and counting on while
	// switched off (SetImpair(nil)), without the packets that then passed
	// through.
	Link netsim.Stats
}

// Server is a game server's UDP endpoint: one socket, one session.Server,
// and a session client for each address that sends a valid input packet,
// up to the session's MaxClients. A goroutine reads the socket and hands
// each packet to the session; the game's tick goroutine calls
// SendSnapshots after each tick. Close stops everything.
type Server struct {
	endpoint
	udp   *net.UDPConn
	sess  *session.Server
	cfg   ServerConfig
	wcfg  wire.Config
	start time.Time

	mu      sync.Mutex
	byAddr  map[netip.AddrPort]*peer
	nextID  session.ClientID
	stats   ServerStats
	peers   []*peer  // SendSnapshots' scratch
	packets [][]byte // SendSnapshots' scratch
}

// peer is a connected client.
type peer struct {
	id    session.ClientID
	addr  netip.AddrPort
	heard time.Time
}

// Listen opens a UDP server for cfg and starts reading. Cancelling ctx
// closes it, as Close does.
func Listen(ctx context.Context, cfg ServerConfig) (*Server, error) {
	sess, err := session.NewServer(cfg.Session)
	if err != nil {
		return nil, err
	}
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if cfg.Idle == 0 {
		cfg.Idle = DefaultIdle
	}
	if cfg.Idle < 0 {
		return nil, fmt.Errorf("transport: Idle = %v, want positive (or 0 for %v)", cfg.Idle, DefaultIdle)
	}
	addr, err := net.ResolveUDPAddr("udp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("transport: %w", err)
	}
	conn, err := net.ListenUDP("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("transport: %w", err)
	}
	_ = conn.SetReadBuffer(1 << 20) // best effort: room for a few ticks of snapshots
	s := &Server{endpoint: endpoint{conn: conn}, udp: conn, sess: sess, cfg: cfg, wcfg: sess.Config().Wire, start: time.Now(),
		byAddr: make(map[netip.AddrPort]*peer), nextID: 1}
	s.send.init(cfg.Seed, s.start, s.write)
	if err := s.run(ctx, cfg.Impair, nil, s.read); err != nil {
		return nil, err
	}
	return s, nil
}

// SetImpair changes the impairment of the packets the server sends from
// now on to cfg, or with nil removes it: packets then go straight to the
// socket. It is safe to call while SendSnapshots runs, from any goroutine.
// It works as [Client.SetImpair] does, with the windows counting from
// Listen.
func (s *Server) SetImpair(cfg *netsim.Config) error { return s.send.set(cfg) }

// Addr returns the address the server listens on.
func (s *Server) Addr() netip.AddrPort { return s.udp.LocalAddr().(*net.UDPAddr).AddrPort() }

// Session returns the session: the game sets the world on it
// (BeginTick, SetEntity, Despawn) and takes each client's inputs
// (NextInput).
func (s *Server) Session() *session.Server { return s.sess }

// Now returns the server's clock in ms, the time since Listen: the clock
// of the packets' timing fields.
func (s *Server) Now() uint32 { return uint32(time.Since(s.start).Milliseconds()) }

// Clients appends the connected clients, in ID order, to dst.
func (s *Server) Clients(dst []session.ClientID) []session.ClientID {
	s.mu.Lock()
	n := len(dst)
	for _, p := range s.byAddr {
		dst = append(dst, p.id)
	}
	s.mu.Unlock()
	slices.Sort(dst[n:])
	return dst
}

// Stats returns the server's counters.
func (s *Server) Stats() ServerStats {
	s.mu.Lock()
	st := s.stats
	st.Clients = len(s.byAddr)
	s.mu.Unlock()
	st.Link = s.send.stats()
	return st
}

// read is the receiving goroutine: it ends when the socket is closed.
func (s *Server) read() {
	buf := make([]byte, s.wcfg.MaxPacket+1) // one more: oversized packets are refused, not cut
	var probe wire.InputPacket
	for {
		n, addr, err := s.udp.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			s.count(func(st *ServerStats) { st.ReadErrors++ })
			time.Sleep(time.Millisecond) // no busy loop on a persistent error
			continue
		}
		s.receive(buf[:n], addr.Addr().Unmap(), addr.Port(), &probe)
	}
}

func (s *Server) count(f func(*ServerStats)) {
	s.mu.Lock()
	f(&s.stats)
	s.mu.Unlock()
}

// receive hands a packet from addr to its client's session, connecting
// the address first if it is new and sent a valid input packet.
func (s *Server) receive(b []byte, ip netip.Addr, port uint16, probe *wire.InputPacket) {
	addr := netip.AddrPortFrom(ip, port)
	now := s.Now()
	s.mu.Lock()
	s.stats.PacketsReceived++
	s.stats.BytesReceived += uint64(len(b))
	p := s.byAddr[addr]
	if p == nil {
		if _, err := wire.DecodeInput(b, probe, &s.wcfg); err != nil {
			s.stats.Stray++
			s.mu.Unlock()
			return
		}
		id := s.nextID
		if err := s.sess.Connect(id); err != nil {
			s.stats.Refused++
			s.mu.Unlock()
			return
		}
		s.nextID++
		p = &peer{id: id, addr: addr}
		s.byAddr[addr] = p
		s.stats.Connects++
	}
	p.heard = time.Now()
	id := p.id
	s.mu.Unlock()
	if err := s.sess.Receive(id, b, now); err != nil {
		s.count(func(st *ServerStats) { st.BadPackets++ })
	}
}

// SendSnapshots sends every connected client its snapshot of the current
// tick (session.Server.Snapshot), after disconnecting the clients silent
// for longer than Idle. Call it once per tick, after setting the world,
// from one goroutine. It returns the first session error, after trying
// every client.
func (s *Server) SendSnapshots() error {
	now := s.Now()
	s.mu.Lock()
	peers := s.peers[:0]
	for addr, p := range s.byAddr {
		if time.Since(p.heard) > s.cfg.Idle {
			delete(s.byAddr, addr)
			s.sess.Disconnect(p.id)
			s.stats.Disconnects++
			continue
		}
		peers = append(peers, p)
	}
	s.peers = peers
	s.mu.Unlock()
	var first error
	for _, p := range peers {
		packets, err := s.sess.Snapshot(p.id, now, s.packets[:0])
		s.packets = packets
		if err != nil {
			if first == nil && !errors.Is(err, session.ErrUnknownClient) {
				first = err
			}
			continue
		}
		for _, b := range packets {
			s.send.send(b, p.addr)
		}
	}
	clear(peers)
	return first
}

// write sends one datagram and counts it.
func (s *Server) write(b []byte, to netip.AddrPort) {
	_, err := s.udp.WriteToUDPAddrPort(b, to)
	s.mu.Lock()
	if err != nil {
		s.stats.WriteErrors++
	} else {
		s.stats.PacketsSent++
		s.stats.BytesSent += uint64(len(b))
	}
	s.mu.Unlock()
}

// Close closes the socket and stops the server's goroutines, waiting for
// them. Packets held by Impair are dropped. Only the first call does
// anything.
func (s *Server) Close() error { return s.close() }

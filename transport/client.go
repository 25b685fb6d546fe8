package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/session"
)

// ClientConfig configures a [Client].
type ClientConfig struct {
	// Addr is the server's UDP address, "127.0.0.1:7777" say. Required by
	// Dial; NewClient, given its connection, ignores it.
	Addr string
	// Session configures the session.Client: the pipeline's inbox, the
	// controlled NetID and where its authoritative states go (OnOwn,
	// called on the goroutine that hands packets to the session: the
	// reading goroutine, or ImpairReceive's; never on two at once), the
	// codec configuration (the server's).
	Session session.ClientConfig
	// Impair, if set, sends every packet the client sends through an
	// [Impairment] with this configuration and Seed, on the wall clock
	// (see the package documentation). SetImpair changes it at run time.
	Impair *netsim.Config
	// ImpairReceive, if set, passes every packet the client reads through
	// an [Impairment] with this configuration before the session sees it,
	// so that a client can model a bad downlink by itself, whatever the
	// server does. Its seed is derived from Seed. SetImpairReceive changes
	// it at run time.
	ImpairReceive *netsim.Config
	// Seed seeds Impair's random decisions, and ImpairReceive's.
	Seed uint64
}

// ClientStats are a [Client]'s counters at the connection; the session's
// are in Session().Stats().
type ClientStats struct {
	// PacketsSent and BytesSent count the packets handed to the connection
	// (after Impair's losses, with its duplicates).
	PacketsSent, BytesSent uint64
	// PacketsReceived and BytesReceived count the packets read from the
	// connection, before ImpairReceive; the session counts those it was
	// handed (Session().Stats()).
	PacketsReceived, BytesReceived uint64
	// BadPackets counts the packets the session refused.
	BadPackets uint64
	// ReadErrors counts the read errors reading went on after
	// (ErrTemporary: a connected UDP socket reports "connection refused"
	// while no server listens); WriteErrors counts every failed write.
	ReadErrors, WriteErrors uint64
	// Link is what Impair did to the packets sent, and LinkReceive what
	// ImpairReceive did to the packets read: zero if never set, and
	// counting on while switched off (SetImpair(nil)), without the packets
	// that then passed through.
	Link, LinkReceive netsim.Stats
}

// Client is a game client's end of the connection to the server: a
// connection (a UDP socket from [Dial], any [Conn] from [NewClient]), a
// session.Client, and a goroutine that reads the connection and hands
// every packet to the session (through ImpairReceive, if set), which
// pushes the entities into the pipeline's inbox. The game sends its inputs
// with SendInputs. Close stops everything.
type Client struct {
	endpoint
	conn  Conn
	udp   *net.UDPConn // nil unless Dial made the connection
	sess  *session.Client
	start time.Time

	errMu sync.Mutex
	err   error // why the connection ended, guarded by errMu

	sendMu sync.Mutex
	buf    []byte

	// recvMu serialises the session's Receive calls, so that OnOwn is
	// never called on two goroutines at once, even while SetImpairReceive
	// switches between the reading goroutine and ImpairReceive's.
	recvMu sync.Mutex

	mu    sync.Mutex
	stats ClientStats
}

// receiveSeedMix is mixed into ClientConfig.Seed for ImpairReceive, so
// that the two directions' decisions differ.
const receiveSeedMix = 0x7265636569766521 // "receive!"

// receiveSeed derives ImpairReceive's seed from seed, with SplitMix64's
// finaliser: a fixed function, so that Seed alone reproduces both.
func receiveSeed(seed uint64) uint64 {
	z := seed ^ receiveSeedMix
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Dial connects a UDP socket to cfg.Addr and starts reading. Nothing is
// sent until SendInputs: the server learns of the client from its first
// input packet. Cancelling ctx closes the client, as Close does.
func Dial(ctx context.Context, cfg ClientConfig) (*Client, error) {
	sess, err := session.NewClient(cfg.Session)
	if err != nil {
		return nil, err
	}
	addr, err := net.ResolveUDPAddr("udp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("transport: %w", err)
	}
	conn, err := net.DialUDP("udp", nil, addr)
	if err != nil {
		return nil, fmt.Errorf("transport: %w", err)
	}
	_ = conn.SetReadBuffer(1 << 20) // best effort: room for a few ticks of snapshots
	// One byte more than the largest packet: oversized packets are
	// refused, not cut.
	uc := &udpConn{UDPConn: conn, buf: make([]byte, sess.Config().Wire.MaxPacket+1)}
	return start(ctx, cfg, sess, uc, conn)
}

// NewClient runs a Client over conn, a connection to the server made by
// the game (a WebSocket, say; see [Conn]), and starts reading it. The
// Client owns conn from then on: Close closes it, as NewClient does when
// it returns an error. cfg.Addr is not used. Cancelling ctx closes the
// client, as Close does.
func NewClient(ctx context.Context, conn Conn, cfg ClientConfig) (*Client, error) {
	sess, err := session.NewClient(cfg.Session)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return start(ctx, cfg, sess, conn, nil)
}

// start runs a Client over conn.
func start(ctx context.Context, cfg ClientConfig, sess *session.Client, conn Conn, udp *net.UDPConn) (*Client, error) {
	c := &Client{endpoint: endpoint{conn: conn}, conn: conn, udp: udp, sess: sess, start: time.Now()}
	c.send.init(cfg.Seed, c.start, func(b []byte, _ netip.AddrPort) { c.write(b) })
	c.recv.init(receiveSeed(cfg.Seed), c.start, func(b []byte, _ netip.AddrPort) { c.receive(b) })
	if err := c.run(ctx, cfg.Impair, cfg.ImpairReceive, c.read); err != nil {
		return nil, err
	}
	return c, nil
}

// SetImpair changes the impairment of the packets the client sends from
// now on to cfg, or with nil removes it: packets then go straight to the
// connection. It is safe to call while SendInputs runs, from any
// goroutine.
//
// The client keeps one [Impairment] for its sends, created by the first
// configuration (at Dial or NewClient, or here) with Seed: a new cfg
// applies to it as [Impairment.SetConfig] describes (its random streams,
// burst state and counters carry on; packets it holds keep their delivery
// times, also after SetImpair(nil)). Its Outages and Suspends windows
// count from Dial or NewClient.
// An invalid cfg returns its error and changes nothing; after Close,
// SetImpair returns an error wrapping net.ErrClosed.
func (c *Client) SetImpair(cfg *netsim.Config) error { return c.send.set(cfg) }

// SetImpairReceive is [Client.SetImpair] for ImpairReceive: it changes the
// impairment of the packets the client reads from now on, before the
// session sees them, or with nil removes it.
func (c *Client) SetImpairReceive(cfg *netsim.Config) error { return c.recv.set(cfg) }

// Session returns the session: its estimates (Sync, ServerTick), its
// counters, and QueueInput for the inputs SendInputs sends.
func (c *Client) Session() *session.Client { return c.sess }

// Now returns the client's clock in ms, the time since Dial or NewClient:
// the clock of the packets' timing fields, and of ServerTick's argument.
func (c *Client) Now() uint32 { return uint32(time.Since(c.start).Milliseconds()) }

// LocalAddr returns the client's UDP address; the zero AddrPort for a
// connection from NewClient.
func (c *Client) LocalAddr() netip.AddrPort {
	if c.udp == nil {
		return netip.AddrPort{}
	}
	return c.udp.LocalAddr().(*net.UDPAddr).AddrPort()
}

// Err returns why the connection ended, if it ended before Close (a
// WebSocket closed by the server, say, or by its own library on an error),
// and nil while it works. A UDP socket has no connection to lose: a silent
// server shows as no new snapshots.
func (c *Client) Err() error {
	c.errMu.Lock()
	defer c.errMu.Unlock()
	return c.err
}

// ServerTick estimates the server's tick now (see
// session.Client.ServerTick).
func (c *Client) ServerTick() (float64, bool) { return c.sess.ServerTick(c.Now()) }

// SendInputs sends an input packet: the queued inputs not yet
// acknowledged, and the acknowledgement of the newest tick received
// (session.Client.InputPacket). Send one per tick at least, with or
// without new inputs. Safe for concurrent use.
func (c *Client) SendInputs() error {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	b, err := c.sess.InputPacket(c.Now(), c.buf[:0])
	c.buf = b
	if err != nil {
		return err
	}
	c.send.send(b, netip.AddrPort{})
	return nil
}

// write sends one packet and counts it.
func (c *Client) write(b []byte) {
	err := c.conn.WritePacket(b)
	c.mu.Lock()
	if err != nil {
		c.stats.WriteErrors++
	} else {
		c.stats.PacketsSent++
		c.stats.BytesSent += uint64(len(b))
	}
	c.mu.Unlock()
}

// read is the receiving goroutine: it ends with the connection.
func (c *Client) read() {
	for {
		b, err := c.conn.ReadPacket()
		if err != nil {
			if errors.Is(err, ErrTemporary) && !c.closing.Load() {
				c.count(func(st *ClientStats) { st.ReadErrors++ })
				time.Sleep(time.Millisecond) // no busy loop on a persistent error
				continue
			}
			if !c.closing.Load() {
				c.errMu.Lock()
				c.err = fmt.Errorf("transport: connection lost: %w", err)
				c.errMu.Unlock()
			}
			return
		}
		c.mu.Lock()
		c.stats.PacketsReceived++
		c.stats.BytesReceived += uint64(len(b))
		c.mu.Unlock()
		c.recv.send(b, netip.AddrPort{})
	}
}

// receive hands one packet to the session, at the time it does so: after
// ImpairReceive's delay, if set.
func (c *Client) receive(b []byte) {
	c.recvMu.Lock()
	err := c.sess.Receive(b, c.Now())
	c.recvMu.Unlock()
	if err != nil {
		c.count(func(st *ClientStats) { st.BadPackets++ })
	}
}

func (c *Client) count(f func(*ClientStats)) {
	c.mu.Lock()
	f(&c.stats)
	c.mu.Unlock()
}

// Stats returns the client's counters.
func (c *Client) Stats() ClientStats {
	c.mu.Lock()
	st := c.stats
	c.mu.Unlock()
	st.Link = c.send.stats()
	st.LinkReceive = c.recv.stats()
	return st
}

// Close closes the connection and stops the client's goroutines, waiting
// for them. Packets held by Impair and ImpairReceive are dropped. Only the
// first call does anything.
func (c *Client) Close() error { return c.close() }

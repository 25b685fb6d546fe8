package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/netsmooth/netsmooth/internal/limits"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/transport"
	"github.com/netsmooth/netsmooth/wire"
)

// Config configures a [Client].
type Config struct {
	// Token is the connect token the game's backend issued for this
	// server (see package token). Required.
	Token []byte
	// Spectator asks to watch only: snapshots, no entity, no inputs.
	Spectator bool
	// Transport checks the server's certificate (by hash for a
	// development server, else by chain) and bounds the handshake.
	Transport transport.DialConfig
	// Session configures the protocol state: the pipeline's inbox, where
	// the controlled entity's records go (OnOwn), the codec. Its TickRate,
	// left zero, is the server's, from its Welcome.
	Session SessionConfig
	// Impair, if set, sends every packet the client sends through an
	// impairment (a netsim link on the wall clock) with Seed; ImpairReceive
	// passes every packet it receives through one before the session sees
	// it: a bad network for demos and tests, either way. SetImpair and
	// SetImpairReceive change them at run time.
	Impair, ImpairReceive *netsim.Config
	Seed                  uint64
}

// Client is a game client's connection to the server: the transport's
// connection (QUIC natively, WebTransport in a browser, or a WebSocket),
// the client [Session], and a goroutine that hands every packet it reads
// to the session, which pushes the entities into the pipeline's inbox.
// The game sends its inputs with SendInputs and learns that the
// connection ended, and why, from Done and Err. Close stops everything.
type Client struct {
	conn    transport.Conn
	sess    *Session
	welcome wire.Welcome
	start   time.Time
	send    *transport.Path
	recv    *transport.Path

	sendMu sync.Mutex
	buf    []byte

	// recvMu serialises the session's Receive calls, so that OnOwn is
	// never called on two goroutines at once, even while
	// SetImpairReceive switches between the reading goroutine and the
	// impairment's.
	recvMu sync.Mutex

	done      chan struct{}
	errMu     sync.Mutex
	err       error
	closeOnce sync.Once

	// The silence watchdog: heard is when the last packet arrived (unix
	// ns); watch fires idle after it until unwatched. Both under errMu.
	heard     atomic.Int64
	idle      time.Duration
	watch     *time.Timer
	unwatched bool
}

// Handshake connects a client over mc, a message connection the game
// opened to the server's WebSocket endpoint: the fallback for browsers
// without WebTransport. It sends the token, and returns once the server
// has welcomed the client, or with the server's refusal (a
// *transport.CloseError), or with an error wrapping transport.ErrTimeout.
func Handshake(ctx context.Context, mc transport.MessageConn, cfg Config) (*Client, error) {
	ctx, cancel := context.WithTimeout(ctx, handshakeTimeout(cfg))
	defer cancel()
	conn, w, err := transport.Handshake(ctx, mc, wire.Hello{Token: cfg.Token, Spectator: cfg.Spectator})
	if err != nil {
		return nil, err
	}
	return New(conn, w, cfg)
}

// DialWebTransport connects to the server's WebTransport endpoint, url
// (https://host:port/path), as Dial does over QUIC. A browser build
// (js/wasm) uses the browser's WebTransport.
func DialWebTransport(ctx context.Context, url string, cfg Config) (*Client, error) {
	conn, w, err := transport.DialWebTransport(ctx, url, wire.Hello{Token: cfg.Token, Spectator: cfg.Spectator}, cfg.Transport)
	if err != nil {
		return nil, err
	}
	return New(conn, w, cfg)
}

func handshakeTimeout(cfg Config) time.Duration {
	if cfg.Transport.Timeout > 0 {
		return cfg.Transport.Timeout
	}
	return transport.DefaultHelloTimeout
}

// New runs a client over conn, a connection the server has welcomed with
// w (made by transport.Dial, DialWebTransport or Handshake), and starts
// reading it. The Client owns conn from then on.
func New(conn transport.Conn, w wire.Welcome, cfg Config) (*Client, error) {
	if cfg.Session.TickRate == 0 {
		if err := limits.CheckTickRate(w.TickRate); err != nil {
			conn.Close(wire.ReasonLeft, "")
			return nil, fmt.Errorf("client: the server's Welcome: tick rate: %w", err)
		}
		cfg.Session.TickRate = w.TickRate
	}
	sess, err := NewSession(cfg.Session)
	if err != nil {
		conn.Close(wire.ReasonLeft, "")
		return nil, err
	}
	c := &Client{conn: conn, sess: sess, welcome: w, start: time.Now(), done: make(chan struct{}), idle: cfg.Transport.IdleTimeout}
	if c.idle <= 0 {
		c.idle = transport.DefaultIdleTimeout
	}
	c.send = transport.NewPath(cfg.Seed, func(b []byte) { conn.WritePacket(b) })
	c.recv = transport.NewPath(transport.SeedFor(cfg.Seed, 1), c.receive)
	for _, set := range []struct {
		p   *transport.Path
		cfg *netsim.Config
	}{{c.send, cfg.Impair}, {c.recv, cfg.ImpairReceive}} {
		if set.cfg == nil {
			continue
		}
		if err := set.p.Set(set.cfg); err != nil {
			c.send.Close()
			c.recv.Close()
			conn.Close(wire.ReasonLeft, "")
			return nil, err
		}
	}
	c.heard.Store(time.Now().UnixNano())
	c.errMu.Lock()
	c.watch = time.AfterFunc(c.idle, c.checkSilence)
	c.errMu.Unlock()
	go c.read()
	return c, nil
}

// read hands every packet to the session (through ImpairReceive) until
// the connection ends.
func (c *Client) read() {
	defer close(c.done)
	for {
		b, err := c.conn.ReadPacket()
		if err != nil {
			c.errMu.Lock()
			c.err = err
			c.unwatch()
			c.errMu.Unlock()
			c.send.Close()
			c.recv.Close()
			return
		}
		c.heard.Store(time.Now().UnixNano())
		c.recv.Send(b)
	}
}

// checkSilence ends the connection with ReasonTimeout once nothing has
// arrived from the server for the idle timeout, and otherwise looks
// again when it would have. QUIC's own idle timeout does not see a
// server that has fallen silent (its stack still acknowledges the
// client's keep-alives), and a message connection has none.
func (c *Client) checkSilence() {
	quiet := time.Since(time.Unix(0, c.heard.Load()))
	c.errMu.Lock()
	silent := !c.unwatched && quiet >= c.idle
	if !c.unwatched && !silent {
		c.watch.Reset(c.idle - quiet)
	}
	c.errMu.Unlock()
	if silent {
		c.conn.Close(wire.ReasonTimeout, fmt.Sprintf("nothing received from the server for %v", quiet.Round(time.Millisecond)))
	}
}

// unwatch stops the watchdog for good. The caller holds errMu.
func (c *Client) unwatch() {
	c.unwatched = true
	c.watch.Stop()
}

// receive hands one packet to the session at the time it does so.
func (c *Client) receive(b []byte) {
	c.recvMu.Lock()
	c.sess.Receive(b, c.Now()) // refused packets are counted by the session
	c.recvMu.Unlock()
}

// Session returns the protocol state: the estimates (Sync, ServerTick),
// the entity the server assigned ([Session.NetID]), the counters, and
// QueueInput for the inputs SendInputs sends.
func (c *Client) Session() *Session { return c.sess }

// Welcome returns the server's Welcome: the client's number, the server's
// tick rate, whether the client is a spectator.
func (c *Client) Welcome() wire.Welcome { return c.welcome }

// Now returns the client's clock in ms, the time since the connection
// was made: the clock of the packets' timing fields.
func (c *Client) Now() uint32 { return uint32(time.Since(c.start).Milliseconds()) }

// ServerTick estimates the server's tick now (see Session.ServerTick).
func (c *Client) ServerTick() (float64, bool) { return c.sess.ServerTick(c.Now()) }

// SendInputs sends an input packet: the queued inputs not yet
// acknowledged, and the acknowledgement of the newest tick received.
// Send one per tick at least, with or without new inputs (a spectator
// sends acknowledgements only). It returns the connection's end, once it
// has ended. Safe for concurrent use.
func (c *Client) SendInputs() error {
	if err := c.Err(); err != nil {
		return err
	}
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	b, err := c.sess.InputPacket(c.Now(), c.buf[:0])
	c.buf = b
	if err != nil {
		return err
	}
	c.send.Send(b)
	return nil
}

// Done is closed when the connection has ended: the server closed it,
// kicked the client or went silent, or Close was called. Err says why.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err returns why the connection ended, nil while it is up: a
// *transport.CloseError with the server's reason (ReasonKicked,
// ReasonShutdown, ReasonTimeout when the server fell silent...) and
// message, or, after Close, the client's own.
func (c *Client) Err() error {
	c.errMu.Lock()
	defer c.errMu.Unlock()
	return c.err
}

// ConnStats are a Client's counters at the connection; the session's are in
// Session().Stats().
type ConnStats struct {
	// Conn is the connection's: packets and bytes each way, packets
	// dropped from a full send queue.
	Conn transport.ConnStats
	// Link is what Impair did to the packets sent, LinkReceive what
	// ImpairReceive did to those received: zero if never set.
	Link, LinkReceive netsim.Stats
}

// Stats returns the connection's counters.
func (c *Client) Stats() ConnStats {
	return ConnStats{Conn: c.conn.Stats(), Link: c.send.Stats(), LinkReceive: c.recv.Stats()}
}

// SetImpair changes the impairment of the packets the client sends from
// now on to cfg, or with nil removes it (see transport.Path.Set).
func (c *Client) SetImpair(cfg *netsim.Config) error { return c.send.Set(cfg) }

// SetImpairReceive changes the impairment of the packets the client
// receives from now on, before the session sees them.
func (c *Client) SetImpairReceive(cfg *netsim.Config) error { return c.recv.Set(cfg) }

// Close leaves the server (telling it so, ReasonLeft), stops the
// client's goroutines and waits for them. Only the first call does
// anything; it returns nil, or the connection's end if it had ended
// before.
func (c *Client) Close() error {
	var err error
	c.closeOnce.Do(func() {
		c.errMu.Lock()
		err = c.err
		c.unwatch()
		c.errMu.Unlock()
		c.conn.Close(wire.ReasonLeft, "")
		<-c.done
		c.send.Close()
		c.recv.Close()
		var ce *transport.CloseError
		if err != nil && errors.As(err, &ce) && !ce.Remote && ce.Reason != wire.ReasonTimeout {
			err = nil // ended by this end, not for the server's silence
		}
	})
	return err
}

// String describes the connection, for logs.
func (c *Client) String() string {
	return fmt.Sprintf("client %d over %v to %v", c.welcome.ClientID, c.conn.Kind(), c.conn.RemoteAddr())
}

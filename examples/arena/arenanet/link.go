package arenanet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/netsmooth/netsmooth/client"
	"github.com/netsmooth/netsmooth/internal/devauth"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/wire"
)

// Transport says what carries a client's packets to the arena server.
type Transport uint8

const (
	// QUIC: QUIC datagrams, the desktop client's way.
	QUIC Transport = iota
	// WebTransport: WebTransport datagrams over HTTP/3 on the server's
	// UDP port, the browser's way (a native client can use it too).
	WebTransport
	// WebSocket: the messages of a WebSocket on the server's HTTP port,
	// the browsers' fallback when WebTransport is missing or blocked.
	WebSocket
)

// String returns the transport's name, as the overlay shows it.
func (t Transport) String() string {
	switch t {
	case QUIC:
		return "QUIC"
	case WebTransport:
		return "WebTransport"
	case WebSocket:
		return "WebSocket"
	}
	return fmt.Sprintf("Transport(%d)", uint8(t))
}

// link is a client's connection to the arena server: a client.Client
// over QUIC, WebTransport or a WebSocket. Every transport puts the same
// simulated network (netsim on the wall clock) on each direction, so the
// arena shows the same conditions whatever carries the packets.
type link struct {
	*client.Client
	via Transport
}

// traffic is a link's byte and loss counts.
type traffic struct {
	down, up         uint64 // bytes received (that the simulated network let through) and sent
	lostDown, lostUp uint64 // packets dropped by the simulated network
}

// clientConfig is the client configuration of a link with ticket t: its
// token, the server's certificate hash, the simulated network cond on
// both directions.
func clientConfig(t devauth.Ticket, cfg client.SessionConfig, cond netsim.Config, seed uint64) (client.Config, error) {
	tok, err := t.RawToken()
	if err != nil {
		return client.Config{}, fmt.Errorf("arena: the ticket's token: %w", err)
	}
	cc := client.Config{Token: tok, Session: cfg, Impair: &cond, ImpairReceive: &cond, Seed: seed}
	if t.CertHash != "" {
		h, err := t.Hash()
		if err != nil {
			return client.Config{}, err
		}
		cc.Transport.CertHashes = [][32]byte{h}
	}
	return cc, nil
}

// dial connects to the server of ticket t over tr.
func dial(ctx context.Context, t devauth.Ticket, tr Transport, cfg client.SessionConfig, cond netsim.Config, seed uint64) (link, error) {
	cc, err := clientConfig(t, cfg, cond, seed)
	if err != nil {
		return link{}, err
	}
	var c *client.Client
	switch tr {
	case QUIC:
		c, err = dialQUIC(ctx, t.Addr, cc)
	case WebTransport:
		if t.WebTransport == "" {
			return link{}, errors.New("arena: the ticket names no WebTransport endpoint")
		}
		c, err = client.DialWebTransport(ctx, t.WebTransport, cc)
	case WebSocket:
		if t.WebSocket == "" {
			return link{}, errors.New("arena: the ticket names no WebSocket endpoint")
		}
		c, err = dialWS(ctx, t.WebSocket, cc)
	default:
		return link{}, fmt.Errorf("arena: unknown %v", tr)
	}
	if err != nil {
		return link{}, err
	}
	return link{Client: c, via: tr}, nil
}

// SetConditions changes the simulated network of both directions.
func (l link) SetConditions(c netsim.Config) error {
	return errors.Join(l.SetImpair(&c), l.SetImpairReceive(&c))
}

// Traffic returns the bytes received and sent on the wire so far, and the
// packets the simulated network dropped each way.
func (l link) Traffic() traffic {
	st := l.Stats()
	return traffic{down: l.Session().Stats().BytesReceived, up: st.Conn.BytesSent, lostDown: st.LinkReceive.Lost, lostUp: st.Link.Lost}
}

// dialWS connects to the arena's WebSocket at url ("ws://host/ws") and
// joins over it.
func dialWS(ctx context.Context, url string, cfg client.Config) (*client.Client, error) {
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	ws, _, err := websocket.Dial(dctx, url, nil)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("arena: %w", err)
	}
	ws.SetReadLimit(readLimit(cfg.Session.Wire))
	return client.Handshake(ctx, newWSConn(ws, nil), cfg)
}

// readLimit is the longest WebSocket message either end accepts: the
// largest packet and a byte more (the session refuses a packet one byte
// too long; a longer message ends the connection), or a control message
// (a Hello and its token).
func readLimit(cfg wire.Config) int64 {
	size := wire.DefaultMaxPacket
	if dec, err := wire.NewDecoder(cfg); err == nil {
		size = dec.Config().MaxPacket
	}
	return int64(max(size+1, wire.MaxControlSize))
}

// wsConn is a WebSocket as a transport.MessageConn: the handshake's
// messages and then the packets, one binary message each. Reads are
// bounded by ctx, which Close cancels to drop a connection whose peer
// does not answer. The client and the server use it alike.
type wsConn struct {
	c       *websocket.Conn
	remote  net.Addr
	ctx     context.Context
	cancel  context.CancelFunc
	reading atomic.Bool // ReadMessage has been called
	closed  atomic.Bool
}

// newWSConn wraps ws, connected to remote (nil if unknown).
func newWSConn(ws *websocket.Conn, remote net.Addr) *wsConn {
	ctx, cancel := context.WithCancel(context.Background())
	return &wsConn{c: ws, remote: remote, ctx: ctx, cancel: cancel}
}

// ReadMessage returns the next binary message.
func (w *wsConn) ReadMessage() ([]byte, error) {
	w.reading.Store(true)
	typ, b, err := w.c.Read(w.ctx)
	if err == nil && typ != websocket.MessageBinary {
		err = errors.New("arena: a text message on the WebSocket")
	}
	return b, err
}

// WriteMessage sends b as one binary message, waiting a second at most.
func (w *wsConn) WriteMessage(b []byte) error {
	ctx, cancel := context.WithTimeout(w.ctx, time.Second)
	defer cancel()
	return w.c.Write(ctx, websocket.MessageBinary, b)
}

// RemoteAddr returns the peer's address, nil if unknown.
func (w *wsConn) RemoteAddr() net.Addr { return w.remote }

// closeWait is how long Close waits for the peer to answer its closure.
const closeWait = time.Second

// Close ends the connection with a normal closure, which ends a blocked
// ReadMessage; a connection the peer closed first is no error. The peer's
// answer is awaited for closeWait at most: a peer that is gone would keep
// a quitting player waiting ten seconds (the WebSocket library's two 5 s
// handshake timeouts). After that, cancelling the reads, which the
// library bounds by their context, drops the connection. A connection
// that was never read from has no read to cancel and nothing to say
// goodbye to: it is dropped at once. Only the first call does anything.
func (w *wsConn) Close() error {
	if w.closed.Swap(true) {
		return nil
	}
	var err error
	if w.reading.Load() {
		drop := time.AfterFunc(closeWait, w.cancel)
		err = w.c.Close(websocket.StatusNormalClosure, "")
		drop.Stop()
	} else {
		err = w.c.CloseNow()
	}
	w.cancel()
	if errors.Is(err, net.ErrClosed) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

package arenanet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/session"
	"github.com/netsmooth/netsmooth/transport"
	"github.com/netsmooth/netsmooth/wire"
)

// link is a client's connection to the arena server: a transport.Client
// over UDP on the desktop, over WebSocket in the browser. Both put the
// same simulated network (netsim on the wall clock) on each direction, so
// the arena shows the same conditions whatever carries the packets.
type link struct{ *transport.Client }

// traffic is a link's byte and loss counts.
type traffic struct {
	down, up         uint64 // bytes received (that the simulated network let through) and sent
	lostDown, lostUp uint64 // packets dropped by the simulated network
}

// clientConfig is the transport configuration of a link: the simulated
// network cond on both directions.
func clientConfig(cfg session.ClientConfig, cond netsim.Config, seed uint64) transport.ClientConfig {
	return transport.ClientConfig{Session: cfg, Impair: &cond, ImpairReceive: &cond, Seed: seed}
}

// SetConditions changes the simulated network of both directions.
func (l link) SetConditions(c netsim.Config) error {
	return errors.Join(l.SetImpair(&c), l.SetImpairReceive(&c))
}

// Traffic returns the bytes received and sent on the wire so far, and the
// packets the simulated network dropped each way.
func (l link) Traffic() traffic {
	st := l.Stats()
	return traffic{down: l.Session().Stats().BytesReceived, up: st.BytesSent, lostDown: st.LinkReceive.Lost, lostUp: st.Link.Lost}
}

// wsConn is a WebSocket as a transport.Conn: the session's packets one
// binary message each. Reads are bounded by ctx, which Close cancels to
// drop a connection whose server does not answer.
type wsConn struct {
	c       *websocket.Conn
	ctx     context.Context
	cancel  context.CancelFunc
	reading *atomic.Bool // ReadPacket has been called
}

// newWSConn wraps ws.
func newWSConn(ws *websocket.Conn) wsConn {
	ctx, cancel := context.WithCancel(context.Background())
	return wsConn{c: ws, ctx: ctx, cancel: cancel, reading: new(atomic.Bool)}
}

func (w wsConn) ReadPacket() ([]byte, error) {
	w.reading.Store(true)
	_, b, err := w.c.Read(w.ctx)
	return b, err
}

func (w wsConn) WritePacket(b []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return w.c.Write(ctx, websocket.MessageBinary, b)
}

// closeWait is how long Close waits for the server to answer its closure.
const closeWait = time.Second

// Close ends the connection with a normal closure, which ends a blocked
// ReadPacket; a connection the server closed first is no error. The
// server's answer is awaited for closeWait at most: a server that is gone
// would keep a quitting player waiting ten seconds (the WebSocket
// library's two 5 s handshake timeouts). After that, cancelling the
// reads, which the library bounds by their context, drops the connection.
// A connection that was never read from (the client failed to start) has
// no read to cancel and nothing to say goodbye to: it is dropped at once.
func (w wsConn) Close() error {
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

// dialWS connects to the arena's WebSocket at url ("ws://host/ws").
func dialWS(ctx context.Context, url string, cfg session.ClientConfig, cond netsim.Config, seed uint64) (link, error) {
	dec, err := wire.NewDecoder(cfg.Wire) // the configuration with its defaults
	if err != nil {
		return link{}, err
	}
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	ws, _, err := websocket.Dial(dctx, url, nil)
	cancel()
	if err != nil {
		return link{}, fmt.Errorf("arena: %w", err)
	}
	// The largest packet and a byte more, as over UDP: the session
	// refuses a packet one byte too long; a longer message ends the
	// connection.
	ws.SetReadLimit(int64(dec.Config().MaxPacket) + 1)
	c, err := transport.NewClient(ctx, newWSConn(ws), clientConfig(cfg, cond, seed))
	if err != nil {
		return link{}, err
	}
	return link{c}, nil
}

package arenanet

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/session"
	"github.com/netsmooth/netsmooth/transport"
)

// link is a client's connection to the arena server: UDP on the desktop
// (udpLink), WebSocket in the browser (wsLink). Both put the same
// simulated network (netsim on the wall clock) on each direction, so the
// arena shows the same conditions whatever carries the packets.
type link interface {
	// Session is the session client decoding the snapshots.
	Session() *session.Client
	// Now is the client's clock in ms, the clock of the packets.
	Now() uint32
	// SendInputs sends an input packet (the queued inputs, the acks).
	SendInputs() error
	// SetConditions changes the simulated network of both directions.
	SetConditions(c netsim.Config) error
	// Traffic returns the bytes received and sent on the wire so far, and
	// the packets the simulated network dropped each way.
	Traffic() traffic
	// Err is why the connection ended, nil while it works (UDP has no
	// connection to lose: a silent server shows as no new snapshots).
	Err() error
	// Close ends the connection.
	Close() error
}

// traffic is a link's byte and loss counts.
type traffic struct {
	down, up         uint64 // bytes received (that the simulated network let through) and sent
	lostDown, lostUp uint64 // packets dropped by the simulated network
}

// wsLink is a link over WebSocket: the session's packets one binary
// message each. A WebSocket is reliable and ordered, so the simulated
// network is what makes it lossy: every message received goes through
// the downlink's impairment before the session sees it, every packet
// sent through the uplink's.
type wsLink struct {
	conn  *websocket.Conn
	sess  *session.Client
	start time.Time
	down  *transport.Impairment
	upl   *transport.Impairment
	ctx   context.Context
	stop  func()
	wg    sync.WaitGroup

	mu      sync.Mutex
	bytes   traffic // up only
	buf     []byte
	readErr error
}

// dialWS connects to the arena's WebSocket at url ("ws://host/ws").
func dialWS(ctx context.Context, url string, cfg session.ClientConfig, cond netsim.Config, seed uint64) (*wsLink, error) {
	sess, err := session.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	conn, _, err := websocket.Dial(dctx, url, nil)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("arena: %w", err)
	}
	conn.SetReadLimit(int64(sess.Config().Wire.MaxPacket) + 1)
	l := &wsLink{conn: conn, sess: sess, start: time.Now()}
	l.ctx, l.stop = context.WithCancel(ctx)
	if l.down, err = transport.NewImpairment(cond, seed, func(b []byte, _ netip.AddrPort) { _ = l.sess.Receive(b, l.Now()) }); err != nil {
		conn.CloseNow()
		return nil, err
	}
	if l.upl, err = transport.NewImpairment(cond, seed+1, func(b []byte, _ netip.AddrPort) { l.write(b) }); err != nil {
		l.down.Close()
		conn.CloseNow()
		return nil, err
	}
	l.wg.Add(1)
	go l.read()
	return l, nil
}

func (l *wsLink) Session() *session.Client { return l.sess }
func (l *wsLink) Now() uint32              { return uint32(time.Since(l.start).Milliseconds()) }

// read hands every message to the downlink's impairment until the
// connection ends.
func (l *wsLink) read() {
	defer l.wg.Done()
	for {
		_, b, err := l.conn.Read(l.ctx)
		if err != nil {
			l.mu.Lock()
			l.readErr = fmt.Errorf("arena: connection lost: %w", err)
			l.mu.Unlock()
			return
		}
		l.down.Send(b, netip.AddrPort{})
	}
}

// write sends one packet; called by the uplink's impairment.
func (l *wsLink) write(b []byte) {
	ctx, cancel := context.WithTimeout(l.ctx, time.Second)
	err := l.conn.Write(ctx, websocket.MessageBinary, b)
	cancel()
	if err == nil {
		l.mu.Lock()
		l.bytes.up += uint64(len(b))
		l.mu.Unlock()
	}
}

func (l *wsLink) SendInputs() error {
	l.mu.Lock()
	b, err := l.sess.InputPacket(l.Now(), l.buf[:0])
	l.buf = b
	l.mu.Unlock()
	if err != nil {
		return err
	}
	l.upl.Send(b, netip.AddrPort{})
	return nil
}

func (l *wsLink) SetConditions(c netsim.Config) error {
	return errors.Join(l.down.SetConfig(c), l.upl.SetConfig(c))
}

func (l *wsLink) Traffic() traffic {
	l.mu.Lock()
	t := l.bytes
	l.mu.Unlock()
	t.down = l.sess.Stats().BytesReceived
	t.lostDown, t.lostUp = l.down.Stats().Lost, l.upl.Stats().Lost
	return t
}

func (l *wsLink) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.readErr
}

// Close ends the connection cleanly: no more inputs, a normal closure
// (which ends the reading goroutine), then the downlink.
func (l *wsLink) Close() error {
	l.upl.Close()
	err := l.conn.Close(websocket.StatusNormalClosure, "")
	l.wg.Wait()
	l.stop()
	l.down.Close()
	return err
}

//go:build !js

package arenanet

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/netsmooth/netsmooth/session"
)

// wsFirstID is the first ClientID the hub gives: far above the UDP
// transport's, which count from 1, so both share one session.Server.
const wsFirstID session.ClientID = 1 << 31

// wsQueue is how many packets may wait for a slow WebSocket; beyond it
// the tick's packets are dropped, as a congested link would drop them.
const wsQueue = 256

// wsIdle disconnects a WebSocket client silent for this long (a client
// sends an input packet every tick), as the UDP transport does; wsMax
// bounds the WebSocket clients, so that silent sockets cannot take every
// place of the shared session.
const (
	wsIdle = 10 * time.Second
	wsMax  = 32
)

// wsHub carries the session's packets over WebSocket: one binary message
// per packet, each way. Every connection is a client of the shared
// session.Server from its upgrade until it closes.
type wsHub struct {
	sess *session.Server
	now  func() uint32

	mu     sync.Mutex
	next   session.ClientID
	conns  map[session.ClientID]*wsPeer
	closed bool
	wg     sync.WaitGroup

	packets [][]byte // sendSnapshots' scratch
}

// wsPeer is one WebSocket client: packets for it wait in out.
type wsPeer struct {
	out    chan []byte
	cancel func() // ends the connection
}

func newWSHub(sess *session.Server, now func() uint32) *wsHub {
	return &wsHub{sess: sess, now: now, next: wsFirstID, conns: map[session.ClientID]*wsPeer{}}
}

// ServeHTTP upgrades a request to a WebSocket and serves it as a client
// until either side closes.
func (h *wsHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil) // same-origin only: the page this server serves
	if err != nil {
		return
	}
	c.SetReadLimit(int64(h.sess.Config().Wire.MaxPacket))
	h.mu.Lock()
	if h.closed || len(h.conns) >= wsMax {
		h.mu.Unlock()
		c.Close(websocket.StatusTryAgainLater, "server closing or full")
		return
	}
	id := h.next
	h.next++
	if err := h.sess.Connect(id); err != nil {
		h.mu.Unlock()
		c.Close(websocket.StatusTryAgainLater, err.Error())
		return
	}
	ctx, cancel := context.WithCancel(context.Background()) // the hub, not the request, ends it
	defer cancel()
	p := &wsPeer{out: make(chan []byte, wsQueue), cancel: cancel}
	h.conns[id] = p
	h.wg.Add(1)
	h.mu.Unlock()
	defer h.wg.Done()

	writing := make(chan struct{})
	go func() {
		defer close(writing)
		h.write(ctx, c, p, cancel)
	}()
	for {
		rctx, done := context.WithTimeout(ctx, wsIdle)
		_, b, err := c.Read(rctx)
		done()
		if err != nil {
			break
		}
		_ = h.sess.Receive(id, b, h.now()) // bad packets are counted in the session's Stats
	}
	cancel()
	<-writing
	h.mu.Lock()
	delete(h.conns, id)
	h.mu.Unlock()
	h.sess.Disconnect(id)
	c.Close(websocket.StatusNormalClosure, "")
}

// write sends the peer's packets until ctx ends.
func (h *wsHub) write(ctx context.Context, c *websocket.Conn, p *wsPeer, cancel func()) {
	for {
		select {
		case <-ctx.Done():
			return
		case b := <-p.out:
			wctx, done := context.WithTimeout(ctx, 2*time.Second)
			err := c.Write(wctx, websocket.MessageBinary, b)
			done()
			if err != nil {
				cancel()
				return
			}
		}
	}
}

// clients appends the connected WebSocket clients, in ID order.
func (h *wsHub) clients(dst []session.ClientID) []session.ClientID {
	h.mu.Lock()
	n := len(dst)
	for id := range h.conns {
		dst = append(dst, id)
	}
	h.mu.Unlock()
	slices.Sort(dst[n:])
	return dst
}

// sendSnapshots queues every WebSocket client's snapshot of the current
// tick.
func (h *wsHub) sendSnapshots(ids []session.ClientID) error {
	now := h.now()
	for _, id := range ids {
		packets, err := h.sess.Snapshot(id, now, h.packets[:0])
		h.packets = packets
		if err != nil {
			continue // disconnected meanwhile
		}
		h.mu.Lock()
		p := h.conns[id]
		h.mu.Unlock()
		if p == nil {
			continue
		}
		for _, b := range packets {
			select {
			case p.out <- append([]byte(nil), b...):
			default: // the socket is backed up: dropped, like a congested link's
			}
		}
	}
	return nil
}

// close refuses new connections and closes the open ones, waiting for
// their handlers.
func (h *wsHub) close() {
	h.mu.Lock()
	h.closed = true
	for _, p := range h.conns {
		p.cancel()
	}
	h.mu.Unlock()
	h.wg.Wait()
}

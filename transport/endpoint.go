package transport

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/netsmooth/netsmooth/netsim"
)

// endpoint is what a Client and a Server share: the connection (closed
// last), the paths its packets take (each optionally impaired), the
// goroutine that reads the connection, and a close that stops everything
// once.
type endpoint struct {
	conn io.Closer
	// send is the path of what the endpoint sends. recv is the path of what
	// a Client reads, before its session sees it (ImpairReceive); a
	// Server's is never configured, and costs nothing.
	send, recv path

	wg        sync.WaitGroup
	closing   atomic.Bool // close was called: read errors from then on are its own
	closeOnce sync.Once
	closeErr  error
	stopMu    sync.Mutex
	stopCtx   func() bool // guarded by stopMu
}

// run configures the paths' impairments (nil: none) and starts the
// reading goroutine. Cancelling ctx closes the endpoint. On error,
// everything started is stopped and the socket closed.
func (e *endpoint) run(ctx context.Context, send, recv *netsim.Config, read func()) error {
	if err := e.send.set(send); err != nil {
		e.conn.Close()
		return err
	}
	if err := e.recv.set(recv); err != nil {
		e.send.close()
		e.conn.Close()
		return err
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		read()
	}()
	stop := context.AfterFunc(ctx, func() { e.close() })
	e.stopMu.Lock()
	e.stopCtx = stop
	e.stopMu.Unlock()
	return nil
}

// close closes the paths' impairments and the socket and waits for the
// goroutines; packets held by the impairments are dropped. Only the first
// call does anything.
func (e *endpoint) close() error {
	e.closing.Store(true)
	e.closeOnce.Do(func() {
		e.stopMu.Lock()
		if e.stopCtx != nil {
			e.stopCtx()
		}
		e.stopMu.Unlock()
		e.send.close()
		e.recv.close()
		e.closeErr = e.conn.Close()
		e.wg.Wait()
	})
	return e.closeErr
}

// path is one direction of an endpoint: it hands packets to deliver,
// either at once or through an Impairment, switchable at run time.
//
// The Impairment is created by the first set with a configuration and
// then kept, while the path passes packets through too, so that its
// counters, random streams and clock carry on, and the packets it holds
// when set(nil) switches it off are still delivered on time.
type path struct {
	deliver func([]byte, netip.AddrPort)
	seed    uint64
	start   time.Time // of the impairment's clock: the endpoint's start

	active atomic.Pointer[Impairment] // nil: pass-through

	mu     sync.Mutex
	imp    *Impairment // guarded by mu; nil until first needed
	closed bool        // guarded by mu
}

// init sets what path hands packets to and its impairment's seed and
// clock. Call it before anything else.
func (p *path) init(seed uint64, start time.Time, deliver func([]byte, netip.AddrPort)) {
	p.seed, p.start, p.deliver = seed, start, deliver
}

// send hands b, for to, to deliver, through the impairment if one is on.
// It may be called concurrently with set.
func (p *path) send(b []byte, to netip.AddrPort) {
	if m := p.active.Load(); m != nil {
		m.Send(b, to)
		return
	}
	p.deliver(b, to)
}

// set impairs the packets sent from now on with cfg, or with nil lets them
// pass; see Client.SetImpair. An invalid cfg changes nothing.
func (p *path) set(cfg *netsim.Config) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.closed:
		return fmt.Errorf("transport: impairment not changed: %w", net.ErrClosed)
	case cfg == nil:
		p.active.Store(nil)
	case p.imp == nil:
		m, err := newImpairment(*cfg, p.seed, p.start, p.deliver)
		if err != nil {
			return err
		}
		p.imp = m
		p.active.Store(m)
	default:
		if err := p.imp.SetConfig(*cfg); err != nil {
			return err
		}
		p.active.Store(p.imp)
	}
	return nil
}

// stats returns what the impairment did, zero if there never was one.
func (p *path) stats() netsim.Stats {
	p.mu.Lock()
	m := p.imp
	p.mu.Unlock()
	if m == nil {
		return netsim.Stats{}
	}
	return m.Stats()
}

// close stops the impairment, if any, and waits for its goroutine;
// further sends through it do nothing, and set fails.
func (p *path) close() {
	p.mu.Lock()
	p.closed = true
	m := p.imp
	p.mu.Unlock()
	if m != nil {
		m.Close()
	}
}

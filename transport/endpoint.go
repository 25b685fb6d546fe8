package transport

import (
	"context"
	"net"
	"net/netip"
	"sync"

	"github.com/netsmooth/netsmooth/netsim"
)

// endpoint is what a Client and a Server share: the socket, the optional
// impairment in front of it, the goroutines that read the socket and
// release the impairment's packets, and a close that stops them once.
type endpoint struct {
	conn  *net.UDPConn
	shape *shaper // nil without Impair

	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
	stopMu    sync.Mutex
	stopCtx   func() bool // guarded by stopMu
}

// run starts the goroutines: read, and with impair set the shaper,
// which releases the packets sent through it with deliver. Cancelling ctx
// closes the endpoint. On error the socket is closed.
func (e *endpoint) run(ctx context.Context, impair *netsim.Config, seed uint64, deliver func([]byte, netip.AddrPort), read func()) error {
	if impair != nil {
		var err error
		if e.shape, err = newShaper(*impair, seed, deliver); err != nil {
			e.conn.Close()
			return err
		}
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			e.shape.run()
		}()
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

// link returns what the impairment did, zero without one.
func (e *endpoint) link() netsim.Stats {
	if e.shape == nil {
		return netsim.Stats{}
	}
	return e.shape.stats()
}

// close closes the socket and waits for the goroutines; packets held by
// the impairment are dropped. Only the first call does anything.
func (e *endpoint) close() error {
	e.closeOnce.Do(func() {
		e.stopMu.Lock()
		if e.stopCtx != nil {
			e.stopCtx()
		}
		e.stopMu.Unlock()
		if e.shape != nil {
			e.shape.stop()
		}
		e.closeErr = e.conn.Close()
		e.wg.Wait()
	})
	return e.closeErr
}

package transport

import (
	"fmt"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/netsmooth/netsmooth/netsim"
)

// Path is one direction of a connection's packets, with an [Impairment]
// that can be switched on, changed and off while packets flow: the
// client and server of packages client and server put one on what they
// send and on what they receive, for tests and demos of a bad network.
//
// The Impairment is created by the first Set with a configuration and
// then kept, also while the path passes packets straight through, so
// that its counters, random streams and clock carry on, and the packets
// it holds when Set(nil) switches it off are still delivered on time.
// Its methods are safe for concurrent use.
type Path struct {
	deliver func([]byte)
	seed    uint64
	start   time.Time // of the impairment's clock

	active atomic.Pointer[Impairment] // nil: pass-through

	mu     sync.Mutex
	imp    *Impairment // guarded by mu; nil until first needed
	closed bool        // guarded by mu
}

// NewPath returns a path that hands every packet to deliver, at once
// until Set configures an impairment. The impairment's random decisions
// derive from seed and its Outages and Suspends windows count from now.
// deliver is called on the sender's goroutine, or on the impairment's
// once one was set, one packet at a time; it must not keep the slice
// when the path passes packets straight through.
func NewPath(seed uint64, deliver func([]byte)) *Path {
	return &Path{deliver: deliver, seed: seed, start: time.Now()}
}

// Send hands b to deliver, through the impairment if one is on.
func (p *Path) Send(b []byte) {
	if m := p.active.Load(); m != nil {
		m.Send(b, netip.AddrPort{})
		return
	}
	p.deliver(b)
}

// Set impairs the packets sent from now on with cfg, or with nil lets
// them pass. An invalid cfg returns its error and changes nothing; after
// Close, Set returns an error wrapping net.ErrClosed.
func (p *Path) Set(cfg *netsim.Config) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.closed:
		return fmt.Errorf("transport: impairment not changed: %w", net.ErrClosed)
	case cfg == nil:
		p.active.Store(nil)
	case p.imp == nil:
		m, err := newImpairment(*cfg, p.seed, p.start, func(b []byte, _ netip.AddrPort) { p.deliver(b) })
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

// Config returns the impairment's configuration, and false when the path
// passes packets straight through.
func (p *Path) Config() (netsim.Config, bool) {
	if m := p.active.Load(); m != nil {
		return m.Config(), true
	}
	return netsim.Config{}, false
}

// Stats returns what the impairment did, zero if there never was one.
func (p *Path) Stats() netsim.Stats {
	p.mu.Lock()
	m := p.imp
	p.mu.Unlock()
	if m == nil {
		return netsim.Stats{}
	}
	return m.Stats()
}

// Close stops the impairment, if any, and waits for its goroutine:
// packets it holds are dropped, further sends through it do nothing, and
// Set fails.
func (p *Path) Close() {
	p.mu.Lock()
	p.closed = true
	m := p.imp
	p.active.Store(nil)
	p.mu.Unlock()
	if m != nil {
		m.Close()
	}
}

// SeedFor derives a seed for one direction or connection from a base
// seed and a number, with SplitMix64's finaliser: a fixed function, so
// that the base seed alone reproduces every path's decisions.
func SeedFor(seed, n uint64) uint64 {
	z := seed ^ (n+1)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

package transport

import (
	"errors"
	"net/netip"
	"sync"
	"time"

	"github.com/netsmooth/netsmooth/netsim"
)

// Impairment applies a [netsim.Link] to real packets on the wall clock, so
// that any transport can be tested or demonstrated over a bad network: a
// [Path] switches one on and off in front of a connection's packets (the
// client's and server's Impair options), and a transport of the game's
// own can put one in front of what it sends or behind what it receives.
//
// [Impairment.Send] puts a copy of the packet into the link at the time
// since the Impairment was created; a goroutine sleeps until the link's
// next delivery time, then hands every packet due to the deliver function.
// Lost packets are never delivered, duplicated ones twice, delayed ones
// when their time comes (within the timer's resolution, about a
// millisecond). The link's virtual time is the time since NewImpairment
// ([Impairment.Now]), so its Outages and Suspends windows count from then.
// The link's decisions follow the seed, but on the wall clock a run is not
// exactly reproducible: packets are sent at slightly different times.
//
// An Impairment uses nothing but a goroutine, a timer and a mutex, so it
// works wherever Go runs, js/wasm included. Its methods are safe for
// concurrent use. Close it to stop its goroutine.
type Impairment struct {
	deliver func(b []byte, to netip.AddrPort)
	start   time.Time

	mu     sync.Mutex
	link   *netsim.Link[heldPacket]
	closed bool

	due       []heldPacket  // run's scratch, filled under mu
	wake      chan struct{} // run re-reads the link's next delivery
	done      chan struct{} // closed by Close
	exited    chan struct{} // closed when run returns
	closeOnce sync.Once
}

// heldPacket is a packet in an Impairment's link: the Impairment's copy of
// its bytes, and its destination.
type heldPacket struct {
	b  []byte
	to netip.AddrPort
}

// NewImpairment returns an Impairment applying cfg, with its random
// decisions derived from seed, that hands each packet to deliver when the
// link delivers it, and starts its goroutine. It returns cfg.Validate's
// error if cfg is invalid, and an error if deliver is nil.
//
// deliver is called on the Impairment's goroutine, one packet at a time,
// with the slice Send copied the packet into: it may keep it, but a
// duplicated packet is delivered twice in the same slice, so it must not
// modify it. deliver must not call Close, which waits for it.
func NewImpairment(cfg netsim.Config, seed uint64, deliver func(b []byte, to netip.AddrPort)) (*Impairment, error) {
	return newImpairment(cfg, seed, time.Now(), deliver)
}

// newImpairment is NewImpairment with the start of the link's virtual
// time given, so that an endpoint's impairments all count their windows
// from the endpoint's start, whenever they are created.
func newImpairment(cfg netsim.Config, seed uint64, start time.Time, deliver func([]byte, netip.AddrPort)) (*Impairment, error) {
	if deliver == nil {
		return nil, errors.New("transport: NewImpairment needs a deliver function")
	}
	link, err := netsim.NewLink[heldPacket](cfg, seed)
	if err != nil {
		return nil, err
	}
	m := &Impairment{
		deliver: deliver,
		start:   start,
		link:    link,
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
		exited:  make(chan struct{}),
	}
	go m.run()
	return m, nil
}

// Send hands a copy of b, for to, to the link, at the current time. The
// copy is Send's only allocation. After Close, Send does nothing.
func (m *Impairment) Send(b []byte, to netip.AddrPort) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	p := heldPacket{b: append(make([]byte, 0, len(b)), b...), to: to}
	m.link.SendSized(time.Since(m.start), p, len(b))
	m.mu.Unlock()
	m.poke()
}

// SetConfig changes the impairment of the packets sent from now on, as
// [netsim.Link.SetConfig] describes: packets held keep their delivery
// times, the random streams and the burst chain's state carry on, and
// Outages and Suspends windows are on the Impairment's clock ([Impairment.Now]).
// It returns cfg.Validate's error, and changes nothing, if cfg is invalid.
func (m *Impairment) SetConfig(cfg netsim.Config) error {
	m.mu.Lock()
	err := m.link.SetConfig(cfg)
	m.mu.Unlock()
	if err == nil {
		m.poke() // new suspend windows may move the next delivery
	}
	return err
}

// Config returns the configuration in force (see [netsim.Link.Config]),
// so that a caller can change one impairment and keep the others.
func (m *Impairment) Config() netsim.Config {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.link.Config()
}

// Now returns the Impairment's clock, the time since it was created: the
// virtual time of its link, on which Outages and Suspends windows lie. An
// outage of 300 ms from now is the window {Now(), Now() + 300ms}.
func (m *Impairment) Now() time.Duration { return time.Since(m.start) }

// Stats returns what the link has done.
func (m *Impairment) Stats() netsim.Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.link.Stats()
}

// Close stops the Impairment's goroutine and waits for it to return: no
// deliver call runs after Close returns. Packets still held are dropped;
// Send does nothing afterwards. Every call waits; only the first stops.
func (m *Impairment) Close() {
	m.closeOnce.Do(func() {
		m.mu.Lock()
		m.closed = true
		m.mu.Unlock()
		close(m.done)
	})
	<-m.exited
}

// poke makes run look at the link again, without blocking.
func (m *Impairment) poke() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// run delivers the packets as they fall due, until Close.
func (m *Impairment) run() {
	defer close(m.exited)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		m.mu.Lock()
		now := time.Since(m.start)
		m.due = m.link.Deliver(now, m.due[:0])
		next, pending := m.link.NextDelivery()
		due := m.due
		m.mu.Unlock()
		for i := range due {
			select {
			case <-m.done:
				return
			default:
			}
			m.deliver(due[i].b, due[i].to)
			due[i] = heldPacket{} // let the GC have the bytes
		}
		if pending {
			timer.Reset(max(next-now, 0))
		}
		select {
		case <-m.done:
			return
		case <-m.wake:
		case <-timer.C:
		}
	}
}

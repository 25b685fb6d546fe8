package transport

import (
	"net/netip"
	"sync"
	"time"

	"github.com/netsmooth/netsmooth/netsim"
)

// shaper applies a netsim.Link to outgoing packets on the wall clock.
// Send puts a copy of the packet into the link at the current time since
// the shaper started; a goroutine sleeps until the link's next delivery
// time, then writes every packet due. Lost packets are never written,
// duplicated ones twice, delayed ones when their time comes (within the
// timer's resolution, about a millisecond). The link's virtual time is
// the time since the shaper started, so its Outages and Suspends windows
// count from then.
type shaper struct {
	mu    sync.Mutex
	link  *netsim.Link[outPacket]
	start time.Time
	due   []outPacket

	write func(b []byte, to netip.AddrPort)
	wake  chan struct{}
	done  chan struct{}
}

// outPacket is a packet held in a shaper's link.
type outPacket struct {
	b  []byte
	to netip.AddrPort
}

func newShaper(cfg netsim.Config, seed uint64, write func([]byte, netip.AddrPort)) (*shaper, error) {
	link, err := netsim.NewLink[outPacket](cfg, seed)
	if err != nil {
		return nil, err
	}
	return &shaper{
		link:  link,
		start: time.Now(),
		write: write,
		wake:  make(chan struct{}, 1),
		done:  make(chan struct{}),
	}, nil
}

// send hands a copy of b, for to, to the link.
func (s *shaper) send(b []byte, to netip.AddrPort) {
	p := outPacket{b: append([]byte(nil), b...), to: to}
	s.mu.Lock()
	s.link.SendSized(time.Since(s.start), p, len(b))
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// run writes the packets as they fall due, until stop.
func (s *shaper) run() {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		s.mu.Lock()
		now := time.Since(s.start)
		s.due = s.link.Deliver(now, s.due[:0])
		next, pending := s.link.NextDelivery()
		due := s.due
		s.mu.Unlock()
		for i := range due {
			s.write(due[i].b, due[i].to)
			due[i] = outPacket{}
		}
		if pending {
			timer.Reset(max(next-now, 0))
		}
		select {
		case <-s.done:
			return
		case <-s.wake:
		case <-timer.C:
		}
	}
}

// stop ends run; packets still held are dropped.
func (s *shaper) stop() { close(s.done) }

// stats returns what the link did.
func (s *shaper) stats() netsim.Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.link.Stats()
}

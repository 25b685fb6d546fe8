package transport

import (
	"sync"
	"sync/atomic"
)

// DefaultQueueLen is how many packets a connection queues for sending
// before it drops the oldest.
const DefaultQueueLen = 64

// sendQueue is a connection's outgoing packets: WritePacket copies each
// into a buffer of its own and queues it without waiting; a goroutine
// hands them to the carrier, which may block (a congested QUIC
// connection, a TCP connection under a WebSocket). A full queue drops its
// oldest packet: a game's newest packets matter most. Buffers are reused,
// so that sending does not allocate in steady state.
type sendQueue struct {
	send func([]byte) error // the carrier's write, on the queue's goroutine

	mu      sync.Mutex
	q       [][]byte // ring of queued packets
	head, n int
	free    [][]byte
	closed  bool
	wake    chan struct{}
	done    chan struct{}

	sent, bytes, dropped atomic.Uint64
	failed               func(error) // called, on the queue's goroutine, when send fails
}

func newSendQueue(n int, send func([]byte) error, failed func(error)) *sendQueue {
	if n <= 0 {
		n = DefaultQueueLen
	}
	s := &sendQueue{send: send, failed: failed, q: make([][]byte, n),
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	go s.run()
	return s
}

// push queues a copy of b and reports false if the queue is closed.
func (s *sendQueue) push(b []byte) bool {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false
	}
	var buf []byte
	if k := len(s.free); k > 0 {
		buf, s.free = s.free[k-1][:0], s.free[:k-1]
	}
	if s.n == len(s.q) {
		// Full: the oldest goes, its buffer reused.
		old := s.q[s.head]
		s.head = (s.head + 1) % len(s.q)
		s.n--
		s.dropped.Add(1)
		if buf == nil {
			buf = old[:0]
		}
	}
	buf = append(buf, b...)
	s.q[(s.head+s.n)%len(s.q)] = buf
	s.n++
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return true
}

// run sends the queued packets until close.
func (s *sendQueue) run() {
	defer close(s.done)
	for {
		s.mu.Lock()
		for s.n == 0 && !s.closed {
			s.mu.Unlock()
			<-s.wake
			s.mu.Lock()
		}
		if s.closed {
			s.mu.Unlock()
			return
		}
		b := s.q[s.head]
		s.q[s.head] = nil
		s.head = (s.head + 1) % len(s.q)
		s.n--
		s.mu.Unlock()
		if err := s.send(b); err != nil {
			s.dropped.Add(1)
			if s.failed != nil {
				s.failed(err)
			}
		} else {
			s.sent.Add(1)
			s.bytes.Add(uint64(len(b)))
		}
		s.mu.Lock()
		if len(s.free) < len(s.q) {
			s.free = append(s.free, b)
		}
		s.mu.Unlock()
	}
}

// close stops the goroutine, dropping what is queued, and waits for it
// (for the send under way to return).
func (s *sendQueue) close() {
	s.stop()
	<-s.done
}

// stop tells the goroutine to stop, dropping what is queued, without
// waiting for the send under way: on a congested connection that send
// returns only once the connection ends.
func (s *sendQueue) stop() {
	s.mu.Lock()
	already := s.closed
	s.closed = true
	s.mu.Unlock()
	if !already {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

//go:build !js

package transport

import (
	"context"
	"net"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/netsmooth/netsmooth/wire"
)

// until runs step every 5 ms until done reports true, failing after 5 s.
func until(t *testing.T, what string, step func(), done func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !done(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		step()
		time.Sleep(5 * time.Millisecond)
	}
}

// listen starts a Listener on loopback, closed at the end of the test.
func listen(t *testing.T, cfg ListenConfig) *Listener {
	t.Helper()
	l, err := Listen(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// serve accepts every Incoming with a Welcome naming its number (from
// 1), or refuses it when refuse says why, and sends the accepted
// connections to the channel it returns.
func serve(t *testing.T, l *Listener, refuse func(*Incoming) *wire.Close) <-chan Conn {
	t.Helper()
	out := make(chan Conn, 100)
	go func() {
		for id := uint32(1); ; id++ {
			in, err := l.Accept(context.Background())
			if err != nil {
				return
			}
			if refuse != nil {
				if c := refuse(in); c != nil {
					in.Refuse(c.Reason, c.Message)
					continue
				}
			}
			c, err := in.Accept(wire.Welcome{ClientID: id, TickRate: 20, Spectator: in.Hello().Spectator})
			if err != nil {
				continue
			}
			out <- c
		}
	}()
	return out
}

// hello is a Hello with a token of the given text.
func hello(token string) wire.Hello { return wire.Hello{Token: []byte(token)} }

// devDial is a DialConfig that trusts l's self-signed certificate.
func devDial(l *Listener) DialConfig { return DialConfig{CertHashes: [][32]byte{l.CertHash()}} }

// pipe is one end of an in-memory MessageConn pair.
type pipe struct {
	in, out chan []byte
	done    chan struct{}
	peer    *pipe
	once    sync.Once
}

func pipePair() (*pipe, *pipe) {
	a2b, b2a := make(chan []byte, 256), make(chan []byte, 256)
	a := &pipe{in: b2a, out: a2b, done: make(chan struct{})}
	b := &pipe{in: a2b, out: b2a, done: make(chan struct{})}
	a.peer, b.peer = b, a
	return a, b
}

func (p *pipe) ReadMessage() ([]byte, error) {
	select {
	case b := <-p.in:
		return b, nil
	case <-p.done:
		return nil, net.ErrClosed
	case <-p.peer.done:
		select {
		case b := <-p.in:
			return b, nil
		default:
			return nil, net.ErrClosed
		}
	}
}

func (p *pipe) WriteMessage(b []byte) error {
	select {
	case <-p.done:
		return net.ErrClosed
	case <-p.peer.done:
		return net.ErrClosed
	case p.out <- append([]byte(nil), b...):
		return nil
	}
}

func (p *pipe) Close() error {
	p.once.Do(func() { close(p.done) })
	return nil
}

func (p *pipe) RemoteAddr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1} }

// goroutines waits up to 2 s for the goroutine count to fall to n and
// returns it.
func goroutines(n int) int {
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if g := runtime.NumGoroutine(); g <= n || time.Now().After(deadline) {
			return g
		}
	}
}

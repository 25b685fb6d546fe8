//go:build !js

package client

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"math"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/transport"
	"github.com/netsmooth/netsmooth/wire"
	"github.com/quic-go/quic-go"
	"go.uber.org/goleak"
)

// The client's connection against a hostile server, or one that fails:
// the handshake, a server that falls silent, that drops every client at
// once, that closes with a message of terminal escapes, that floods.

// testListen starts a transport.Listener on loopback and returns it with a
// client Config that trusts its certificate.
func testListen(t *testing.T, lc transport.ListenConfig) (*transport.Listener, Config) {
	t.Helper()
	l, err := transport.Listen(context.Background(), lc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	cfg := Config{Token: []byte("tok"), Session: SessionConfig{Inbox: systems.NewInbox(0)}}
	cfg.Transport.CertHashes = [][32]byte{l.CertHash()}
	return l, cfg
}

// welcomeOne welcomes the first client to connect to l, as client 1 of
// a 20 Hz server, and sends its connection on the channel it returns.
func welcomeOne(l *transport.Listener) <-chan transport.Conn {
	conns := make(chan transport.Conn, 1)
	go func() {
		in, err := l.Accept(context.Background())
		if err != nil {
			return
		}
		if c, err := in.Accept(wire.Welcome{ClientID: 1, TickRate: 20}); err == nil {
			conns <- c
		}
	}()
	return conns
}

// A server whose QUIC stack is alive but which sends nothing after its
// Welcome (a hung game loop, or a hostile server holding the client): the
// client's keep-alives are acknowledged by the server's QUIC stack, so
// QUIC's idle timeout never fires, and only the client's own watch on
// snapshots can end the wait. It ends the connection with ReasonTimeout
// after IdleTimeout.
func TestClientEndsWhenServerFallsSilent(t *testing.T) {
	l, cfg := testListen(t, transport.ListenConfig{NoWebTransport: true})
	held := welcomeOne(l) // never written to, never closed until the end
	cfg.Transport.IdleTimeout = time.Second
	cli, err := Dial(context.Background(), l.Addr().String(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	sc := <-held
	defer sc.Close(wire.ReasonShutdown, "")
	endsForSilence(t, cli)
}

// endsForSilence sends inputs as a game would, every 50 ms, to a server
// that sends nothing, and checks that cli ends with ReasonTimeout within
// 3 s of an IdleTimeout of 1 s, and that Close then reports why.
func endsForSilence(t *testing.T, cli *Client) {
	t.Helper()
	start := time.Now()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(3 * time.Second)
	for {
		select {
		case <-cli.Done():
			var ce *transport.CloseError
			err := cli.Err()
			t.Logf("the client ended the connection %v after the Welcome: %v", time.Since(start).Round(time.Millisecond), err)
			if !errors.As(err, &ce) || ce.Reason != wire.ReasonTimeout {
				t.Errorf("Err %v, want a CloseError with ReasonTimeout", err)
			}
			if got := cli.Close(); got != err {
				t.Errorf("Close returned %v, want the connection's end %v", got, err)
			}
			return
		case <-tick.C:
			cli.SendInputs()
		case <-deadline:
			st := cli.Session().Stats()
			cli.Close()
			t.Fatalf("a server silent for 3 s (IdleTimeout 1 s): the client is still connected, Err %v, %d packets received",
				cli.Err(), st.PacketsReceived)
		}
	}
}

// A server that welcomes each client and closes the connection at once:
// a game that reconnects each time its connection ends (as
// examples/netplay does) with Reconnect, whose waits start afresh with
// each call and which counts a Welcome as success, dials again at once
// every time, with a new connect token each. A Reconnector counts a
// connection that did not last as a failed attempt.
func TestReconnectorAgainstAServerThatDropsEveryone(t *testing.T) {
	l, cfg := testListen(t, transport.ListenConfig{NoWebTransport: true})
	var admitted atomic.Int64
	go func() {
		for {
			in, err := l.Accept(context.Background())
			if err != nil {
				return
			}
			c, err := in.Accept(wire.Welcome{ClientID: 1, TickRate: 20})
			if err != nil {
				continue
			}
			admitted.Add(1)
			go func() {
				// Drop it once the Welcome has surely arrived (a close in the
				// same instant can overtake the Welcome on the stream).
				time.Sleep(30 * time.Millisecond)
				c.Close(wire.ReasonShutdown, "") // retryable
			}()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	dials := 0
	var rc Reconnector
	for ctx.Err() == nil {
		cli, _, err := rc.Reconnect(ctx, func(ctx context.Context, _ int) (*Client, error) {
			dials++
			return Dial(ctx, l.Addr().String(), cfg)
		})
		if err != nil {
			break
		}
		select {
		case <-cli.Done():
		case <-ctx.Done():
		}
		err = cli.Err()
		cli.Close()
		if err != nil && !Retryable(err) {
			t.Fatalf("not retryable: %v", err)
		}
	}
	t.Logf("in 2 s: %d dials (each a new connect token), %d admissions; DefaultBackoff.Min=%v", dials, admitted.Load(), DefaultBackoff.Min)
	if dials > 20 { // a backoff honoured across drops would allow ~5 in 2 s
		t.Errorf("%d dials in 2 s against a server that drops every client at once: no backoff across connections", dials)
	}
}

// A raw QUIC server of netsmooth's ALPN refuses with a QUIC application
// close whose reason phrase is a kilobyte of terminal escapes and invalid
// UTF-8: the game gets it as a Close message would carry it
// (wire.CloseText: at most 256 bytes of UTF-8, no control characters),
// not as sent.
func TestServerCloseTextMadeSafe(t *testing.T) {
	msg := "\x1b[2J\x1b[31mYOUR ACCOUNT IS BANNED\x1b[0m" + strings.Repeat("\xff\xfe", 500)
	addr, cfg := rawServer(t, func(qc *quic.Conn, st *quic.Stream) {
		st.Read(make([]byte, 64)) // the Hello
		qc.CloseWithError(quic.ApplicationErrorCode(0x4e5300+uint64(wire.ReasonBadToken)), msg)
	})
	_, err := Dial(context.Background(), addr, cfg)
	var ce *transport.CloseError
	if !errors.As(err, &ce) {
		t.Fatalf("want a CloseError, got %v", err)
	}
	t.Logf("refusal: reason %v, message %d bytes, valid UTF-8 %v, has ESC %v", ce.Reason, len(ce.Message), utf8.ValidString(ce.Message), strings.ContainsRune(ce.Message, 0x1b))
	if ce.Reason != wire.ReasonBadToken || len(ce.Message) > wire.MaxCloseMessage || !utf8.ValidString(ce.Message) ||
		strings.ContainsRune(ce.Message, 0x1b) || !strings.Contains(ce.Message, "YOUR ACCOUNT IS BANNED") {
		t.Errorf("the server's close reaches the game as %v, %q", ce.Reason, ce.Message)
	}
}

// Closing a Client ends every goroutine it started, over QUIC and over
// WebTransport, also against a server that keeps flooding it.
func TestCloseLeavesNoGoroutinesUnderAFlood(t *testing.T) {
	for _, wt := range []bool{false, true} {
		name := "QUIC"
		if wt {
			name = "WebTransport"
		}
		t.Run(name, func(t *testing.T) {
			l, cfg := testListen(t, transport.ListenConfig{})
			stop := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				in, err := l.Accept(context.Background())
				if err != nil {
					return
				}
				c, err := in.Accept(wire.Welcome{ClientID: 1, TickRate: 20})
				if err != nil {
					return
				}
				junk := make([]byte, 1100)
				copy(junk, wire.Magic[:])
				for {
					select {
					case <-stop:
						return
					default:
					}
					junk[4]++
					c.WritePacket(junk)
				}
			}()
			before := goleak.IgnoreCurrent()
			var cli *Client
			var err error
			if wt {
				cli, err = DialWebTransport(context.Background(), "https://"+l.Addr().String()+transport.DefaultWebTransportPath, cfg)
			} else {
				cli, err = Dial(context.Background(), l.Addr().String(), cfg)
			}
			if err != nil {
				close(stop)
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond)
			st := cli.Session().Stats()
			t.Logf("received %d packets in 300 ms", st.PacketsReceived)
			t0 := time.Now()
			cli.Close()
			t.Logf("Close took %v", time.Since(t0))
			close(stop)
			<-done
			if err := goleak.Find(before, goleak.IgnoreTopFunction("github.com/quic-go/quic-go.(*Transport).listen"),
				goleak.IgnoreAnyFunction("github.com/netsmooth/netsmooth/transport.(*Listener).acceptLoop")); err != nil {
				t.Errorf("goroutines left after Close: %v", err)
			}
		})
	}
}

// Control messages sent as datagrams mid-stream (a second Welcome, a
// Hello) are refused and counted; the connection stays up.
func TestControlDatagramsMidStreamRefused(t *testing.T) {
	l, cfg := testListen(t, transport.ListenConfig{NoWebTransport: true})
	got := welcomeOne(l)
	cli, err := Dial(context.Background(), l.Addr().String(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	sc := <-got
	defer sc.Close(wire.ReasonShutdown, "")
	w, _ := wire.AppendWelcome(nil, &wire.Welcome{ClientID: 9, TickRate: 1e6, Spectator: true})
	h, _ := wire.AppendHello(nil, &wire.Hello{Token: []byte("x")})
	for range 100 {
		sc.WritePacket(w)
		sc.WritePacket(h)
	}
	time.Sleep(300 * time.Millisecond)
	st := cli.Session().Stats()
	t.Logf("received %d, bad %d, Err %v, Welcome %+v", st.PacketsReceived, st.BadPackets, cli.Err(), cli.Welcome())
	if cli.Err() != nil || st.BadPackets != st.PacketsReceived || cli.Welcome().ClientID != 1 {
		t.Errorf("control datagrams mid-stream: %+v %v", st, cli.Err())
	}
}

// rawServer is a QUIC server of netsmooth's ALPN that runs serve on the
// client's control stream.
func rawServer(t *testing.T, serve func(qc *quic.Conn, st *quic.Stream)) (string, Config) {
	ln, hash := rawListener(t, transport.ALPN, &quic.Config{EnableDatagrams: true})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []*quic.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.CloseWithError(0, "")
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			qc, err := ln.Accept(context.Background())
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, qc)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				st, err := qc.AcceptStream(context.Background())
				if err != nil {
					return
				}
				serve(qc, st)
			}()
		}
	}()
	cfg := Config{Token: []byte("tok"), Session: SessionConfig{Inbox: systems.NewInbox(0)}}
	cfg.Transport.CertHashes = [][32]byte{hash}
	cfg.Transport.Timeout = time.Second
	return ln.Addr().String(), cfg
}

// rawListener listens for QUIC on loopback with a self-signed certificate
// (its hash returned) and the application protocol proto: a server of the
// test's own, written as a hostile one would be.
func rawListener(t *testing.T, proto string, qcfg *quic.Config) (*quic.Listener, [32]byte) {
	t.Helper()
	cert, err := transport.SelfSigned([]string{"127.0.0.1", "localhost"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := quic.ListenAddr("127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{proto}, MinVersion: tls.VersionTLS13}, qcfg)
	if err != nil {
		t.Fatal(err)
	}
	return ln, transport.CertHash(&cert)
}

func welcomeBytes(flags byte, id uint32, rate float64) []byte {
	b := []byte{wire.Magic[0], wire.Magic[1], wire.Version, byte(wire.TypeWelcome), flags}
	b = binary.LittleEndian.AppendUint32(b, id)
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(rate))
}

func frame(b []byte) []byte { return append(binary.BigEndian.AppendUint16(nil, uint16(len(b))), b...) }

// The handshake over QUIC against servers that never answer, dribble,
// claim huge frames or send nonsense: every Dial returns within the
// Timeout (1 s; 3 s allowed for a loaded machine) with an error, or with
// a sane Welcome.
func TestHandshakeHostileAnswers(t *testing.T) {
	cases := []struct {
		name  string
		serve func(qc *quic.Conn, st *quic.Stream)
		ok    bool
	}{
		{"silent", func(qc *quic.Conn, st *quic.Stream) { <-qc.Context().Done() }, false},
		{"dribble", func(qc *quic.Conn, st *quic.Stream) {
			for _, c := range frame(welcomeBytes(0, 1, 20)) {
				select {
				case <-qc.Context().Done():
					return
				case <-time.After(300 * time.Millisecond):
				}
				st.Write([]byte{c})
			}
		}, false},
		{"huge length", func(qc *quic.Conn, st *quic.Stream) { st.Write([]byte{0xff, 0xff}); <-qc.Context().Done() }, false},
		{"NaN rate", func(qc *quic.Conn, st *quic.Stream) { st.Write(frame(welcomeBytes(0, 1, math.NaN()))) }, false},
		{"zero rate", func(qc *quic.Conn, st *quic.Stream) { st.Write(frame(welcomeBytes(0, 1, 0))) }, false},
		{"inf rate", func(qc *quic.Conn, st *quic.Stream) { st.Write(frame(welcomeBytes(0, 1, math.Inf(1)))) }, false},
		{"bad flags", func(qc *quic.Conn, st *quic.Stream) { st.Write(frame(welcomeBytes(0xfe, 1, 20))) }, false},
		{"trailing", func(qc *quic.Conn, st *quic.Stream) { st.Write(frame(append(welcomeBytes(0, 1, 20), 9))) }, false},
		{"hello instead", func(qc *quic.Conn, st *quic.Stream) {
			b, _ := wire.AppendHello(nil, &wire.Hello{Token: []byte("x")})
			st.Write(frame(b))
		}, false},
		{"id 0, rate 1e6, spectator", func(qc *quic.Conn, st *quic.Stream) {
			st.Write(frame(welcomeBytes(1, 0, 1e6)))
			<-qc.Context().Done()
		}, true},
		{"close with 256+ message", func(qc *quic.Conn, st *quic.Stream) {
			b := []byte{wire.Magic[0], wire.Magic[1], wire.Version, byte(wire.TypeClose), 200, 0xff, 0x0f}
			st.Write(frame(append(b, make([]byte, 2000)...)))
			<-qc.Context().Done()
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			addr, cfg := rawServer(t, tc.serve)
			start := time.Now()
			cli, err := Dial(context.Background(), addr, cfg)
			took := time.Since(start)
			if cli != nil {
				w := cli.Welcome()
				st, ok := cli.ServerTick()
				t.Logf("welcomed: %+v ServerTick %v %v", w, st, ok)
				cli.Close()
			}
			t.Logf("%v: %v", took.Round(time.Millisecond), err)
			if took > 3*time.Second || (err == nil) != tc.ok {
				t.Errorf("took %v, err %v", took, err)
			}
		})
	}
}

// The same over a message connection (the WebSocket fallback), which has
// no idle timeout of its own.
func TestClientEndsWhenMessageServerFallsSilent(t *testing.T) {
	a, b := net.Pipe()
	cm, sm := &netMsg{c: a}, &netMsg{c: b}
	go func() {
		in, err := transport.NewIncoming(sm, time.Second)
		if err != nil {
			return
		}
		in.Accept(wire.Welcome{ClientID: 1, TickRate: 20})
	}()
	cfg := Config{Token: []byte("tok"), Session: SessionConfig{Inbox: systems.NewInbox(0)}}
	cfg.Transport.IdleTimeout = time.Second
	cli, err := Handshake(context.Background(), cm, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	go func() { // the server's side drains whatever the client sends
		for {
			if _, err := sm.ReadMessage(); err != nil {
				return
			}
		}
	}()
	endsForSilence(t, cli)
}

// netMsg frames messages on a net.Conn (2-byte length), as a WebSocket would.
type netMsg struct {
	c  net.Conn
	mu sync.Mutex
}

func (m *netMsg) ReadMessage() ([]byte, error) {
	var n [2]byte
	if _, err := readFull(m.c, n[:]); err != nil {
		return nil, err
	}
	b := make([]byte, binary.BigEndian.Uint16(n[:]))
	_, err := readFull(m.c, b)
	return b, err
}

func readFull(c net.Conn, b []byte) (int, error) {
	got := 0
	for got < len(b) {
		n, err := c.Read(b[got:])
		got += n
		if err != nil {
			return got, err
		}
	}
	return got, nil
}

func (m *netMsg) WriteMessage(b []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.c.SetWriteDeadline(time.Now().Add(time.Second))
	_, err := m.c.Write(frame(b))
	return err
}
func (m *netMsg) Close() error         { return m.c.Close() }
func (m *netMsg) RemoteAddr() net.Addr { return m.c.RemoteAddr() }

// A dial to a server that takes the control stream and never answers
// fails with an error wrapping transport.ErrTimeout, as Dial says, every
// time: the stream's read deadline (the context's) can fire before the
// context records its end, which must not surface as a plain "deadline
// exceeded".
func TestDialTimeoutSaysSo(t *testing.T) {
	addr, cfg := rawServer(t, func(qc *quic.Conn, st *quic.Stream) { <-qc.Context().Done() })
	cfg.Transport.Timeout = 200 * time.Millisecond
	const n = 10
	wrapped := 0
	var last error
	for range n {
		_, err := Dial(context.Background(), addr, cfg)
		if errors.Is(err, transport.ErrTimeout) {
			wrapped++
		} else {
			last = err
		}
	}
	t.Logf("%d of %d timed-out dials wrap transport.ErrTimeout; other: %v", wrapped, n, last)
	if wrapped < n {
		t.Errorf("%d of %d dials to a server that never answered do not wrap transport.ErrTimeout", n-wrapped, n)
	}
}

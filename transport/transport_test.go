//go:build !js

package transport

import (
	"bytes"
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/netsmooth/netsmooth/wire"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// exchange sends a packet each way on a connected pair and checks both
// arrive whole.
func exchange(t *testing.T, client, server Conn) {
	t.Helper()
	big := bytes.Repeat([]byte{7}, wire.DefaultMaxPacket)
	for _, msg := range [][]byte{[]byte("to the server"), big} {
		if err := client.WritePacket(msg); err != nil {
			t.Fatal(err)
		}
		got, err := server.ReadPacket()
		if err != nil || !bytes.Equal(got, msg) {
			t.Fatalf("server read %d bytes, %v; want %d", len(got), err, len(msg))
		}
		if err := server.WritePacket(msg); err != nil {
			t.Fatal(err)
		}
		if got, err = client.ReadPacket(); err != nil || !bytes.Equal(got, msg) {
			t.Fatalf("client read %d bytes, %v; want %d", len(got), err, len(msg))
		}
	}
}

// A native client connects over QUIC with a self-signed certificate it
// accepts by hash, is welcomed, exchanges datagrams of the largest
// packet size, and learns why the server closed the connection.
func TestDialAndKick(t *testing.T) {
	for _, kind := range []Kind{KindQUIC, KindWebTransport} {
		t.Run(kind.String(), func(t *testing.T) {
			l := listen(t, ListenConfig{})
			conns := serve(t, l, nil)
			var c Conn
			var w wire.Welcome
			var err error
			if kind == KindQUIC {
				c, w, err = Dial(context.Background(), l.Addr().String(), hello("t"), devDial(l))
			} else {
				c, w, err = DialWebTransport(context.Background(), l.WebTransportURL("127.0.0.1"), hello("t"), devDial(l))
			}
			if err != nil {
				t.Fatal(err)
			}
			if w.ClientID != 1 || w.TickRate != 20 || c.Kind() != kind {
				t.Fatalf("welcome %+v, kind %v", w, c.Kind())
			}
			s := <-conns
			if s.Kind() != kind {
				t.Fatalf("server side kind %v", s.Kind())
			}
			exchange(t, c, s)
			if err := s.Close(wire.ReasonKicked, "cheating"); err != nil {
				t.Fatal(err)
			}
			_, err = c.ReadPacket()
			var ce *CloseError
			if !errors.As(err, &ce) || ce.Reason != wire.ReasonKicked || ce.Message != "cheating" || !ce.Remote {
				t.Fatalf("client read after a kick: %v", err)
			}
			if !errors.Is(err, net.ErrClosed) || !errors.Is(c.WritePacket([]byte{1}), net.ErrClosed) {
				t.Fatalf("a CloseError is not net.ErrClosed: %v", err)
			}
			c.Close(wire.ReasonLeft, "")
			if st := s.Stats(); st.PacketsSent != 2 || st.PacketsReceived != 2 {
				t.Fatalf("server stats %+v", st)
			}
		})
	}
}

// A client that leaves says so; the server reads why.
func TestClientLeaves(t *testing.T) {
	l := listen(t, ListenConfig{})
	conns := serve(t, l, nil)
	c, _, err := Dial(context.Background(), l.Addr().String(), hello("t"), devDial(l))
	if err != nil {
		t.Fatal(err)
	}
	s := <-conns
	c.Close(wire.ReasonLeft, "bye")
	_, err = s.ReadPacket()
	var ce *CloseError
	if !errors.As(err, &ce) || ce.Reason != wire.ReasonLeft || ce.Message != "bye" {
		t.Fatalf("server read after the client left: %v", err)
	}
	s.Close(wire.ReasonNone, "")
}

// A refusal reaches the client as the server's reason, before any
// datagram; so does a refusal over WebTransport.
func TestRefused(t *testing.T) {
	l := listen(t, ListenConfig{})
	serve(t, l, func(in *Incoming) *wire.Close {
		return &wire.Close{Reason: wire.ReasonBadToken, Message: "token: expired 12 s ago " + string(in.Hello().Token)}
	})
	_, _, err := Dial(context.Background(), l.Addr().String(), hello("old"), devDial(l))
	var ce *CloseError
	if !errors.As(err, &ce) || ce.Reason != wire.ReasonBadToken || ce.Message != "token: expired 12 s ago old" {
		t.Fatalf("QUIC: %v", err)
	}
	_, _, err = DialWebTransport(context.Background(), l.WebTransportURL("127.0.0.1"), hello("old"), devDial(l))
	if !errors.As(err, &ce) || ce.Reason != wire.ReasonBadToken {
		t.Fatalf("WebTransport: %v", err)
	}
}

// A client checks the server's certificate: a hash that does not match,
// and a certificate valid longer than a hash may vouch for, are refused;
// with neither hash nor root the self-signed certificate fails the usual
// verification.
func TestCertificateChecks(t *testing.T) {
	long, err := SelfSigned(nil, MaxHashedValidity)
	if err == nil {
		t.Fatal("SelfSigned made a certificate longer than a hash may vouch for")
	}
	_ = long
	l := listen(t, ListenConfig{})
	serve(t, l, nil)
	other := l.CertHash()
	other[0] ^= 1
	for name, cfg := range map[string]DialConfig{
		"wrong hash": {CertHashes: [][32]byte{other}},
		"no trust":   {},
	} {
		if _, _, err := Dial(context.Background(), l.Addr().String(), hello("t"), cfg); err == nil {
			t.Errorf("%s: connected", name)
		}
	}
}

// A connection that never says hello is closed after HelloTimeout and
// gives its place back; one that says something else is refused as a
// protocol error.
func TestHelloTimeoutAndBadHello(t *testing.T) {
	l := listen(t, ListenConfig{HelloTimeout: 300 * time.Millisecond})
	serve(t, l, nil)
	ctx := context.Background()
	qc, err := rawDial(ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-qc.Context().Done():
	case <-time.After(3 * time.Second):
		t.Fatal("a silent connection was not closed")
	}
	if ce := closeReason(context.Cause(qc.Context())); ce.Reason != wire.ReasonTimeout {
		t.Fatalf("closed with %v", ce)
	}
	qc2, err := rawDial(ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := qc2.OpenStreamSync(ctx)
	writeFrame(st, []byte("NS\x02\x05 not a hello"))
	<-qc2.Context().Done()
	if ce := closeReason(context.Cause(qc2.Context())); ce.Reason != wire.ReasonProtocol {
		t.Fatalf("closed with %v", ce)
	}
	until(t, "places given back", func() {}, func() bool { return l.Stats().Pending == 0 })
	if st := l.Stats(); st.TimedOut != 1 || st.BadHello != 1 || st.Offered != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// Beyond MaxPending connections being set up, new ones are refused at
// once; when they are gone, connections are taken again.
func TestMaxPending(t *testing.T) {
	l := listen(t, ListenConfig{MaxPending: 3, HelloTimeout: 2 * time.Second})
	serve(t, l, nil)
	ctx := context.Background()
	var silent []func()
	for range 3 {
		qc, err := rawDial(ctx, l)
		if err != nil {
			t.Fatal(err)
		}
		silent = append(silent, func() { qc.CloseWithError(0, "") })
	}
	if _, _, err := Dial(ctx, l.Addr().String(), hello("t"), devDial(l)); err == nil {
		t.Fatal("a fourth connection was set up beyond MaxPending")
	}
	for _, f := range silent {
		f()
	}
	until(t, "places given back", func() {}, func() bool { return l.Stats().Pending == 0 })
	c, _, err := Dial(ctx, l.Addr().String(), hello("t"), devDial(l))
	if err != nil {
		t.Fatalf("after the silent ones left: %v", err)
	}
	c.Close(wire.ReasonLeft, "")
	if l.Stats().Busy == 0 {
		t.Fatal("no refusal counted")
	}
}

// Over a message connection (a WebSocket's stand-in): the Hello, the
// Welcome or the refusal, datagrams both ways, and the reason a
// connection ended.
func TestMessageConn(t *testing.T) {
	a, b := pipePair()
	type result struct {
		c   Conn
		w   wire.Welcome
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, w, err := Handshake(context.Background(), a, wire.Hello{Token: []byte("tok"), Spectator: true})
		done <- result{c, w, err}
	}()
	in, err := NewIncoming(b, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if h := in.Hello(); string(h.Token) != "tok" || !h.Spectator || in.Kind() != KindMessage {
		t.Fatalf("hello %+v", h)
	}
	s, err := in.Accept(wire.Welcome{ClientID: 9, TickRate: 60})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Accept(wire.Welcome{TickRate: 1}); !errors.Is(err, ErrDecided) {
		t.Fatalf("second answer: %v", err)
	}
	r := <-done
	if r.err != nil || r.w.ClientID != 9 {
		t.Fatalf("client: %+v %v", r.w, r.err)
	}
	exchange(t, r.c, s)
	s.Close(wire.ReasonShutdown, "maintenance")
	_, err = r.c.ReadPacket()
	var ce *CloseError
	if !errors.As(err, &ce) || ce.Reason != wire.ReasonShutdown || ce.Message != "maintenance" {
		t.Fatalf("client read after the server closed: %v", err)
	}
	r.c.Close(wire.ReasonLeft, "")

	// A refusal, and a connection that sends something else first.
	a, b = pipePair()
	go func() {
		_, _, err := Handshake(context.Background(), a, hello("x"))
		done <- result{err: err}
	}()
	in, _ = NewIncoming(b, time.Second)
	in.Refuse(wire.ReasonFull, "64 players")
	if r := <-done; !errors.As(r.err, &ce) || ce.Reason != wire.ReasonFull {
		t.Fatalf("refused: %v", r.err)
	}
	a, b = pipePair()
	a.WriteMessage([]byte("GET / HTTP/1.1"))
	if _, err := NewIncoming(b, time.Second); !errors.Is(err, ErrHandshake) {
		t.Fatalf("garbage first: %v", err)
	}
	a, b = pipePair()
	if _, err := NewIncoming(b, 50*time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("silence: %v", err)
	}
	a.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	a, _ = pipePair()
	if _, _, err := Handshake(ctx, a, hello("x")); !errors.Is(err, ErrTimeout) {
		t.Fatalf("no answer: %v", err)
	}
}

// A connection that sends faster than its carrier drops the oldest
// packets, never blocks, and counts them.
func TestSendQueueDropsOldest(t *testing.T) {
	release := make(chan struct{})
	var got [][]byte
	q := newSendQueue(4, func(b []byte) error {
		<-release
		got = append(got, append([]byte(nil), b...))
		return nil
	}, nil)
	for i := range 20 {
		if !q.push([]byte{byte(i)}) {
			t.Fatal("push refused")
		}
	}
	close(release)
	until(t, "the queue to drain", func() {}, func() bool { return q.sent.Load()+q.dropped.Load() == 20 })
	q.close()
	if q.push([]byte{1}) {
		t.Fatal("push after close")
	}
	last := got[len(got)-1]
	if last[0] != 19 || q.dropped.Load() < 15 {
		t.Fatalf("sent %v, dropped %d", got, q.dropped.Load())
	}
	if n := testing.AllocsPerRun(100, func() { q.push([]byte{1, 2, 3}) }); n != 0 {
		t.Fatalf("push after close allocates %v", n)
	}
}

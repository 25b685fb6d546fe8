//go:build !js

package transport

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/netsmooth/netsmooth/wire"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/quic-go/webtransport-go"
)

// rawWebTransport opens a WebTransport session to l on a QUIC connection
// it returns too, so that a test can watch the connection outlive the
// session; keep-alives keep it open for as long as the server lets it.
func rawWebTransport(ctx context.Context, t *testing.T, l *Listener) (*quic.Conn, *webtransport.Session) {
	t.Helper()
	cfg := devDial(l)
	q := cfg.quic()
	q.KeepAlivePeriod = 300 * time.Millisecond
	qc, err := quic.DialAddrEarly(ctx, l.Addr().String(), cfg.tlsConfig("127.0.0.1", http3.NextProtoH3), q)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { qc.CloseWithError(0, "") })
	cc, err := (&webtransport.Transport{QUICConfig: q}).NewClientConn(qc)
	if err != nil {
		t.Fatal(err)
	}
	_, sess, err := cc.Dial(ctx, l.WebTransportURL("127.0.0.1"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return qc, sess
}

// openConns counts the connections of qcs that are still open.
func openConns(qcs []*quic.Conn) int {
	n := 0
	for _, qc := range qcs {
		if qc.Context().Err() == nil {
			n++
		}
	}
	return n
}

// A WebTransport client refused for its token (any bytes will do), or
// admitted and then let go, loses its QUIC connection too, not only its
// session: a connection whose setup was decided escapes the Hello
// timeout and MaxPending, and would otherwise stay open, with the
// server's HTTP/3 goroutines and QUIC state, for as long as the client
// kept it alive.
func TestWebTransportEndsWithItsConnection(t *testing.T) {
	const refused = 20
	l := listen(t, ListenConfig{HelloTimeout: time.Second, MaxPending: 8})
	conns := serve(t, l, func(in *Incoming) *wire.Close {
		if string(in.Hello().Token) == "let me in" {
			return nil
		}
		return &wire.Close{Reason: wire.ReasonBadToken, Message: "forged"}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var qcs []*quic.Conn
	for i := range refused + 1 {
		qc, sess := rawWebTransport(ctx, t, l)
		qcs = append(qcs, qc)
		st, err := sess.OpenStreamSync(ctx)
		if err != nil {
			t.Fatal(err)
		}
		token := "not a token"
		if i == refused {
			token = "let me in"
		}
		h, _ := wire.AppendHello(nil, &wire.Hello{Token: []byte(token)})
		_, err = hail(ctx, st, h)
		if (err == nil) != (i == refused) {
			t.Fatalf("client %d (token %q): hail: %v", i, token, err)
		}
	}
	admitted := <-conns
	time.Sleep(3 * time.Second / 2) // beyond the Hello timeout and the graces
	if n := openConns(qcs[:refused]); n > 0 {
		t.Errorf("%d of %d refused WebTransport clients still have their QUIC connection after the Hello timeout", n, refused)
	}
	if st := l.Stats(); st.Pending != 0 {
		t.Errorf("%d connections still counted as pending", st.Pending)
	}
	if err := admitted.Close(wire.ReasonKicked, "bye"); err != nil {
		t.Fatal(err)
	}
	until(t, "the admitted client's QUIC connection to end once it is kicked", func() {}, func() bool { return openConns(qcs[refused:]) == 0 })
}

// liveHeap returns the live heap after a collection.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// A client that opens HTTP/3 request streams and sends on each only a
// HEADERS frame's 5-byte head claiming a megabyte makes the server hold
// no more than a few kilobytes a stream (HTTP/3 allocates the length a
// frame claims before reading it; its default bound is 1 MB), with no
// token and no session.
func TestHTTP3HeaderClaimsAreBounded(t *testing.T) {
	const conns, streams = 8, 16
	l := listen(t, ListenConfig{HelloTimeout: 2 * time.Second, MaxPending: conns})
	cfg := devDial(l)
	before := liveHeap()
	opened := 0
	for range conns {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		qc, err := quic.DialAddr(ctx, l.Addr().String(), cfg.tlsConfig("127.0.0.1", http3.NextProtoH3), cfg.quic())
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		t.Cleanup(func() { qc.CloseWithError(0, "") })
		for range streams {
			rs, err := qc.OpenStreamSync(ctx)
			if err != nil {
				break
			}
			// HEADERS (type 0x01), length 1,048,575 as a 4-byte varint, and nothing else.
			rs.Write([]byte{0x01, 0x80, 0x0f, 0xff, 0xff})
			opened++
		}
		cancel()
	}
	time.Sleep(300 * time.Millisecond)
	grew := liveHeap() - before
	t.Logf("%d pending connections, %d request streams claiming 1 MB headers: live heap %+.1f MB", conns, opened, float64(grew)/(1<<20))
	if opened < conns*streams/2 {
		t.Fatalf("only %d request streams opened: the test tests little", opened)
	}
	if grew > 8<<20 {
		t.Errorf("%d streams of 5 bytes each make the server hold %.1f MB", opened, float64(grew)/(1<<20))
	}
}

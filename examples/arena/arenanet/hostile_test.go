//go:build !js

package arenanet

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/wire"
)

// silentWS joins srv over its WebSocket with a fresh ticket, reads the
// Welcome, and then never reads nor writes again (a frozen tab, or an
// attacker): it neither sends packets nor answers a close. It returns the
// connection and the client's ID.
func silentWS(t *testing.T, srv *Server) (*websocket.Conn, server.ClientID) {
	t.Helper()
	tk, err := srv.Ticket(false)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tk.RawToken()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+srv.WebAddr()+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	hello, _ := wire.AppendHello(nil, &wire.Hello{Token: tok})
	if err := c.Write(ctx, websocket.MessageBinary, hello); err != nil {
		t.Fatal(err)
	}
	_, b, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w, err := wire.ParseWelcome(b)
	if err != nil {
		t.Fatalf("answer to the hello: %v", err)
	}
	return c, server.ClientID(w.ClientID)
}

// Kicking WebSocket clients that never answer (a close waits a second for
// each one's closing handshake) holds neither the tick that kicks them
// nor the others' snapshots: every tick stays short, and each client's
// leave is reported. The idle timeout closes silent clients the same way.
func TestSilentWebSocketsStallNoTick(t *testing.T) {
	const silent = 4
	srv, err := StartServer(context.Background(), small(10), "127.0.0.1:0", "127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.close()
	var ids []server.ClientID
	for range silent {
		_, id := silentWS(t, srv)
		ids = append(ids, id)
	}
	// A client has its Welcome a moment before the server has it as a
	// member that Kick finds (a game learns the ID from the Join event).
	for end := time.Now().Add(5 * time.Second); srv.srv.Stats().Clients < silent; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%d of %d silent clients joined after 5 s", srv.srv.Stats().Clients, silent)
		}
	}
	var longest time.Duration
	for i := range 2 * TickRate { // two seconds; the kicks at the first
		start := time.Now()
		if i == 0 {
			for _, id := range ids {
				if err := srv.srv.Kick(id, "bye"); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := srv.step(); err != nil {
			t.Fatal(err)
		}
		longest = max(longest, time.Since(start))
		time.Sleep(time.Second / TickRate)
	}
	st := srv.srv.Stats()
	t.Logf("%d silent WebSocket clients kicked: longest tick %v; %d clients left, %d leaves", silent, longest, st.Clients, st.Leaves)
	if st.Leaves != silent {
		t.Errorf("%d leaves reported 2 s after kicking %d clients", st.Leaves, silent)
	}
	// Far above a tick's work, far below a second's close per client.
	if longest > 500*time.Millisecond {
		t.Errorf("a tick took %v: every client's snapshots stalled that long", longest)
	}
}

// A connection that made a request and then idles (kept alive) is closed
// after httpIdle, as one that never sent a byte is, rather than kept
// for ever with its goroutine and buffers.
func TestIdleHTTPConnectionsClosed(t *testing.T) {
	const n = 50
	srv, err := StartServer(context.Background(), small(1), "127.0.0.1:0", "127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.close()
	var idle, silent []net.Conn
	dial := func() net.Conn {
		c, err := net.Dial("tcp", srv.WebAddr())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	for range n {
		c := dial()
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: arena\r\n\r\n", TicketPath)
		rsp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, rsp.Body)
		rsp.Body.Close()
		idle = append(idle, c)
		silent = append(silent, dial())
	}
	time.Sleep(httpIdle + 2*time.Second)
	open := func(cs []net.Conn) int {
		k := 0
		for _, c := range cs {
			c.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
			var b [1]byte
			if _, err := c.Read(b[:]); err != nil {
				if ne, ok := err.(net.Error); ok && ne.Timeout() {
					k++ // still open: the read timed out instead of ending
				}
			}
		}
		return k
	}
	oi, os := open(idle), open(silent)
	t.Logf("%v after: %d of %d kept-alive connections still open, %d of %d silent ones", httpIdle+2*time.Second, oi, n, os, n)
	if oi > 0 || os > 0 {
		t.Errorf("%d kept-alive and %d silent connections held beyond httpIdle", oi, os)
	}
}

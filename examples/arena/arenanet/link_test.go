//go:build !js

package arenanet

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/netsmooth/netsmooth/client"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/transport"
	"github.com/netsmooth/netsmooth/wire"
)

// A player leaving a server that no longer answers (it accepted the
// WebSocket, then went silent: hung, or its network gone) is not kept
// waiting for the closing handshake the WebSocket library would wait 5 s
// and more for: Close gives up after closeWait. Neither is a client whose
// handshake such a server never answers.
func TestWebSocketCloseSilentServer(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		<-release // never reads: the client's closure is never answered
		ws.CloseNow()
	}))
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(srv.URL, "http")

	ws, _, err := websocket.Dial(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	mc := newWSConn(ws, nil)
	read := make(chan error, 1)
	go func() {
		_, err := mc.ReadMessage()
		read <- err
	}()
	time.Sleep(100 * time.Millisecond) // the read is under way
	start := time.Now()
	if err := mc.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	// closeWait is 1 s; the handshake alone would take 5 s.
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("Close took %v with a silent server", took)
	}
	if err := <-read; err == nil {
		t.Error("ReadMessage returned no error after Close")
	}

	// The handshake: the server never answers the Hello.
	ws, _, err = websocket.Dial(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	cfg := client.Config{Token: []byte("token"), Transport: transport.DialConfig{Timeout: 500 * time.Millisecond},
		Session: client.SessionConfig{Inbox: systems.NewInbox(0)}}
	if _, err := client.Handshake(context.Background(), newWSConn(ws, nil), cfg); !errors.Is(err, transport.ErrTimeout) {
		t.Errorf("a handshake with a silent server: %v, want a timeout", err)
	}
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("a failed handshake took %v with a silent server", took)
	}
}

// ticketProxy serves the tickets of the backend at ticketURL, changed by
// edit.
func ticketProxy(t *testing.T, ticketURL string, edit func(*Ticket)) string {
	t.Helper()
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tk, err := fetchTicket(r.Context(), ticketURL)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		edit(&tk)
		json.NewEncoder(w).Encode(tk)
	}))
	t.Cleanup(p.Close)
	return p.URL
}

// The browser's way in: WebTransport with a ticket from the backend; the
// WebSocket when asked, or when WebTransport fails to connect (here: a
// certificate that does not match the ticket's hash); no second try when
// the server answered and refused (here: a token of another server's
// backend).
func TestJoinWeb(t *testing.T) {
	srv := testServer(t, small(10))
	other := testServer(t, small(0))
	ctx := context.Background()
	wsURL := "ws://" + srv.WebAddr() + "/ws"
	join := func(ticketURL string, tr Transport) (*Client, error) {
		c, err := JoinWeb(ctx, DefaultSettings(), ticketURL, wsURL, tr, 1)
		if err == nil {
			t.Cleanup(func() { c.Close() })
		}
		return c, err
	}
	for _, tc := range []struct {
		name      string
		ticketURL string
		tr, want  Transport
	}{
		{"WebTransport", srv.TicketURL(), WebTransport, WebTransport},
		{"forced WebSocket", srv.TicketURL(), WebSocket, WebSocket},
		{"WebTransport fails", ticketProxy(t, srv.TicketURL(), func(tk *Ticket) {
			tk.CertHash = strings.Repeat("00", 32)
		}), WebTransport, WebSocket},
	} {
		c, err := join(tc.ticketURL, tc.tr)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := c.Stats().Via; got != tc.want {
			t.Errorf("%s: joined over %v, want %v", tc.name, got, tc.want)
		}
	}

	// A token from another server's backend, for this server's address.
	alien := ticketProxy(t, other.TicketURL(), func(tk *Ticket) {
		mine, err := srv.Ticket(false)
		if err != nil {
			t.Error(err)
		}
		tk.Addr, tk.WebTransport, tk.WebSocket, tk.CertHash = mine.Addr, mine.WebTransport, mine.WebSocket, mine.CertHash
	})
	var ce *transport.CloseError
	if _, err := join(alien, WebTransport); !errors.As(err, &ce) || ce.Reason != wire.ReasonBadToken {
		t.Errorf("joining with another backend's token: %v, want the server's refusal (bad token)", err)
	}
	if st := srv.srv.Stats(); st.BadTokens != 1 {
		t.Errorf("the server refused %d bad tokens, want 1 (no second try over the WebSocket)", st.BadTokens)
	}
}

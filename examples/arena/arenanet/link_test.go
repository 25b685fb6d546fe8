//go:build !js

package arenanet

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/session"
)

// A player leaving a server that no longer answers (it accepted the
// WebSocket, then went silent: hung, or its network gone) is not kept
// waiting for the closing handshake the WebSocket library would wait 5 s
// and more for: Close gives up after closeWait. Neither is a client that
// failed to start on such a server.
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
	_, cfg, err := newClient()
	if err != nil {
		t.Fatal(err)
	}
	l, err := dialWS(context.Background(), url, *cfg, netsim.Config{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the client reads
	start := time.Now()
	if err := l.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	// closeWait is 1 s; the handshake alone would take 5 s.
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("Close took %v with a silent server", took)
	}

	// An invalid configuration: the client closes the WebSocket it was
	// given without ever reading from it.
	start = time.Now()
	if _, err := dialWS(context.Background(), url, session.ClientConfig{}, netsim.Config{}, 1); err == nil {
		t.Fatal("a client without an inbox started")
	}
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("a failed start took %v with a silent server", took)
	}
}

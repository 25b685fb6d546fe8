package arenanet

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"

	"github.com/netsmooth/netsmooth/internal/devauth"
	"github.com/netsmooth/netsmooth/transport"
	"github.com/netsmooth/netsmooth/wire"
)

// TicketPath is where the arena's HTTP server hands out tickets: its
// development backend (internal/devauth), JSON over plain HTTP.
const TicketPath = "/ticket"

// Ticket is what the arena's ticket endpoint hands out: the development
// backend's ticket (the server's addresses, its certificate's hash, a
// connect token) and the Rules the server plays by, which the client
// needs to draw and predict the same world. Its JSON is the backend's
// with a "rules" object more.
type Ticket struct {
	devauth.Ticket
	Rules Rules `json:"rules"`
}

// DefaultHTTPPort is the port of the arena's HTTP server unless told
// otherwise.
const DefaultHTTPPort = "8080"

// TicketURLFor is where a player joining the server at addr (host:port,
// its UDP address) gets a ticket by default: the development backend on
// the same host's DefaultHTTPPort.
func TicketURLFor(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	return "http://" + net.JoinHostPort(host, DefaultHTTPPort) + TicketPath
}

// Join fetches a fresh ticket from the development backend at ticketURL
// and joins its server over tr (QUIC, WebTransport or WebSocket), as
// Connect does. endpoint, if set, is where to connect instead of the
// ticket's endpoint for tr: the address or URL the player typed.
func Join(ctx context.Context, set Settings, ticketURL string, tr Transport, endpoint string, seed uint64) (*Client, error) {
	t, err := fetchTicket(ctx, ticketURL)
	if err != nil {
		return nil, fmt.Errorf("arena: %w (is the arena's server running, with its HTTP server?)", err)
	}
	if endpoint != "" {
		switch tr {
		case QUIC:
			t.Addr = endpoint
		case WebTransport:
			t.WebTransport = endpoint
		case WebSocket:
			t.WebSocket = endpoint
		}
	}
	return Connect(ctx, set, t, tr, seed)
}

// JoinWeb joins as the browser version does: with a fresh ticket from
// ticketURL, over WebTransport at the ticket's URL, or, when the browser
// has no WebTransport or it fails to connect (UDP blocked, say), over a
// WebSocket at wsURL (the page's own origin, which a TLS-terminating
// proxy in front of the server serves too) with another fresh ticket.
// With tr WebSocket it takes the WebSocket at once. A server that
// answered and refused the client (a *transport.CloseError: full, a bad
// token) is not tried again over the WebSocket. A native client can join
// this way too (the tests do).
func JoinWeb(ctx context.Context, set Settings, ticketURL, wsURL string, tr Transport, seed uint64) (*Client, error) {
	if tr == WebSocket {
		return Join(ctx, set, ticketURL, WebSocket, wsURL, seed)
	}
	c, err := Join(ctx, set, ticketURL, WebTransport, "", seed)
	var refused *transport.CloseError
	if err == nil || errors.As(err, &refused) || ctx.Err() != nil {
		return c, err
	}
	log.Printf("arena: WebTransport failed (%v); falling back to the WebSocket", err)
	c, wsErr := Join(ctx, set, ticketURL, WebSocket, wsURL, seed)
	if wsErr != nil {
		return nil, fmt.Errorf("arena: WebTransport failed (%w), and so did the WebSocket (%w)", err, wsErr)
	}
	return c, nil
}

// Disconnected describes why a connection ended, for the overlay: the
// server's reason and message when it closed the connection (kicked the
// player, shut down, lost it), or the error.
func Disconnected(err error) string {
	var ce *transport.CloseError
	switch {
	case !errors.As(err, &ce):
		return "disconnected: " + err.Error()
	case ce.Reason == wire.ReasonNone && ce.Message != "":
		return "connection lost: " + ce.Message
	}
	who := "by the server"
	if !ce.Remote {
		who = "by this client"
	}
	if ce.Message == "" {
		return fmt.Sprintf("disconnected %s: %v", who, ce.Reason)
	}
	return fmt.Sprintf("disconnected %s: %v: %s", who, ce.Reason, ce.Message)
}

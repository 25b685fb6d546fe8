//go:build !js

package arenanet

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/netsmooth/netsmooth/client"
)

// dialQUIC joins the arena server at addr over QUIC.
func dialQUIC(ctx context.Context, addr string, cfg client.Config) (*client.Client, error) {
	return client.Dial(ctx, addr, cfg)
}

// fetchTicket gets a ticket from the arena server's ticket endpoint at
// url, as devauth.Fetch does, rules included.
func fetchTicket(ctx context.Context, url string) (Ticket, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Ticket{}, err
	}
	rsp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Ticket{}, fmt.Errorf("fetching a ticket: %w", err)
	}
	defer rsp.Body.Close()
	if rsp.StatusCode != http.StatusOK {
		return Ticket{}, fmt.Errorf("fetching a ticket: HTTP %d", rsp.StatusCode)
	}
	var t Ticket
	if err := json.NewDecoder(rsp.Body).Decode(&t); err != nil {
		return Ticket{}, fmt.Errorf("fetching a ticket: %w", err)
	}
	return t, nil
}

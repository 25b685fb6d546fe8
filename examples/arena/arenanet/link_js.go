//go:build js

package arenanet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"syscall/js"
	"time"

	"github.com/netsmooth/netsmooth/client"
)

// dialQUIC: a browser has no QUIC of its own to offer a page; the
// browser version joins over WebTransport or a WebSocket.
func dialQUIC(context.Context, string, client.Config) (*client.Client, error) {
	return nil, errors.New("arena: no QUIC in the browser: join over WebTransport or a WebSocket")
}

// fetchTicket gets a ticket from the arena server's ticket endpoint at
// url with the browser's fetch: net/http's client would add 6 MB to the
// module.
func fetchTicket(ctx context.Context, url string) (Ticket, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	rsp, err := await(ctx, js.Global().Call("fetch", url, map[string]any{"cache": "no-store"}))
	if err != nil {
		return Ticket{}, fmt.Errorf("fetching a ticket: %w", err)
	}
	if !rsp.Get("ok").Bool() {
		return Ticket{}, fmt.Errorf("fetching a ticket: HTTP %d", rsp.Get("status").Int())
	}
	text, err := await(ctx, rsp.Call("text"))
	if err != nil {
		return Ticket{}, fmt.Errorf("fetching a ticket: %w", err)
	}
	var t Ticket
	if err := json.Unmarshal([]byte(text.String()), &t); err != nil {
		return Ticket{}, fmt.Errorf("fetching a ticket: %w", err)
	}
	return t, nil
}

// await waits until promise p settles or ctx ends.
func await(ctx context.Context, p js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	ch := make(chan result, 1)
	var ok, fail js.Func
	settle := func(r result) {
		ok.Release()
		fail.Release()
		ch <- r
	}
	ok = js.FuncOf(func(_ js.Value, args []js.Value) any {
		settle(result{v: args[0]})
		return nil
	})
	fail = js.FuncOf(func(_ js.Value, args []js.Value) any {
		settle(result{err: errors.New(args[0].Call("toString").String())})
		return nil
	})
	p.Call("then", ok, fail)
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		return js.Undefined(), ctx.Err()
	}
}

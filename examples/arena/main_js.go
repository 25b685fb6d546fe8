//go:build js

package main

import (
	"context"
	"fmt"
	"syscall/js"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/netsmooth/netsmooth/examples/arena/arenanet"
)

// main is the browser version: it gets a ticket from the server that
// served the page and joins over WebTransport, or over the WebSocket at
// the page's own origin when the browser has no WebTransport or it fails
// (?transport=ws takes the WebSocket at once), and runs the same game in
// the canvas Ebitengine makes. The page's title says which transport
// carries the packets.
func main() {
	if err := runBrowser(); err != nil {
		js.Global().Get("document").Get("body").Set("innerText", "arena: "+err.Error())
		fmt.Println("arena:", err)
	}
}

func runBrowser() error {
	loc := js.Global().Get("location")
	scheme := "ws://"
	if loc.Get("protocol").String() == "https:" {
		scheme = "wss://"
	}
	wsURL := scheme + loc.Get("host").String() + "/ws"
	ticketURL := loc.Get("origin").String() + arenanet.TicketPath
	tr := arenanet.WebTransport
	query := js.Global().Get("URLSearchParams").New(loc.Get("search"))
	if t := query.Call("get", "transport"); t.Type() == js.TypeString && (t.String() == "ws" || t.String() == "websocket") {
		tr = arenanet.WebSocket
	}
	seed := uint64(time.Now().UnixNano()) // every tab its own losses
	c, err := arenanet.JoinWeb(context.Background(), arenanet.DefaultSettings(), ticketURL, wsURL, tr, seed)
	if err != nil {
		return err
	}
	defer c.Close()
	js.Global().Get("document").Set("title", fmt.Sprintf("netsmooth arena (%v)", c.Stats().Via))
	g := newGame(c, nil, shot{})
	g.logShots = true // the console shows the shots' counts too
	return ebiten.RunGame(g)
}

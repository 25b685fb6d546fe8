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

// main is the browser version: it joins the server that served the page,
// over WebSocket at the page's own host, and runs the same game in the
// canvas Ebitengine makes.
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
	url := scheme + loc.Get("host").String() + "/ws"
	seed := uint64(time.Now().UnixNano()) // every tab its own losses
	c, err := arenanet.Connect(context.Background(), arenanet.DefaultSettings(), "", url, seed)
	if err != nil {
		return err
	}
	defer c.Close()
	ebiten.SetWindowTitle("netsmooth arena")
	return ebiten.RunGame(newGame(c, nil, shot{}))
}

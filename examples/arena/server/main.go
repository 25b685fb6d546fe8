//go:build !js

// Command server runs the arena's server without a window: the bots
// (5,000 in a world of 400 × 256 units by default; -small for the old
// arena), one player per client, each client sent its area within its
// budget (-view, -budget), QUIC for desktop clients and WebTransport for
// browsers on one UDP port and, on -http, the browser version, its
// WebSocket fallback and the development backend's tickets. It needs no
// display, so it runs anywhere Go does; the players join with the arena
// command (-join) or a browser.
//
//	go run ./examples/arena/server
//	go run ./examples/arena -join 127.0.0.1:7777
//	open http://127.0.0.1:8080 in a browser: every tab is a player
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/netsmooth/netsmooth/examples/arena/arenanet"
)

func main() {
	flag.CommandLine.Init("server", flag.ExitOnError)
	cfg := arenanet.ServeConfig{}
	rules := arenanet.RulesFlags(flag.CommandLine)
	flag.StringVar(&cfg.Addr, "addr", "127.0.0.1:7777", "UDP address to listen on (QUIC and WebTransport)")
	flag.StringVar(&cfg.HTTPAddr, "http", "127.0.0.1:"+arenanet.DefaultHTTPPort, `address of the browser version, its WebSocket and the tickets ("" for none)`)
	flag.StringVar(&cfg.Wasm, "wasm", "", "serve this prebuilt arena.wasm instead of building one")
	seconds := flag.Float64("seconds", 0, "stop after this many seconds (0: run until interrupted)")
	flag.Parse()
	var err error
	cfg.Rules, err = rules(false)
	switch {
	case flag.NArg() > 0:
		fmt.Fprintf(os.Stderr, "server: unexpected argument %q: every setting is a flag (-h lists them)\n", flag.Arg(0))
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(2)
	case *seconds < 0:
		fmt.Fprintln(os.Stderr, "server: -seconds must not be negative")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *seconds > 0 {
		var cancel func()
		ctx, cancel = context.WithTimeout(ctx, time.Duration(*seconds*float64(time.Second)))
		defer cancel()
	}
	srv, err := arenanet.Serve(ctx, cfg, log.Printf)
	if err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
	srv.Wait() // until ctx ends: interrupted, or -seconds
}

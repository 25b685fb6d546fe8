//go:build !js

// Command arena shows netsmooth at work in a window: a server simulating
// a world of 400 × 256 units with 5,000 bots and one player per client,
// and a client that draws them through netsmooth's pipeline
// (interpolated, extrapolated, snapped on teleports) and predicts its own
// player from the keyboard, reconciled with the server. The server sends
// each client its area only, the entities within 48 units of its player
// (interest management), within a budget of 32 kB/s, nearest first; key N
// asks it for every entity instead, to compare. The window follows the
// player, with a minimap of the world. The client and the server talk
// over QUIC (TLS 1.3, datagrams) on 127.0.0.1 through a simulated network
// (netsim) whose latency, jitter, loss and burst loss the keys change
// while it runs; other keys switch interpolation off, change the delay
// and the extrapolation policy, and draw each entity's true and drawn
// paths. Space or a mouse click fires at the nearest bot the player
// faces; the client sends what it drew with its inputs and the server
// judges the shot against the bots as the client drew them (lag
// compensation), or, after key C, against its present, to compare. The
// overlay shows the shots claimed and confirmed, the delay, underruns,
// corrections, RTT, bandwidth, what netsmooth costs per frame, the
// entities the client holds and the bytes a second it receives against
// its budget. -small plays the arena before it grew: one screen, 400
// bots, every entity to every client.
//
//	go run ./examples/arena                        # server + window
//	go run ./examples/arena -join 127.0.0.1:7777   # a second player, from another terminal
//
// Every client joins with a connect token: the server's development
// backend hands out tickets (the server's address and certificate hash,
// a token) on its HTTP server, http://127.0.0.1:8080/ticket, where a
// joining player fetches one (-ticket names another place). The same
// HTTP server serves the arena for the browser on http://127.0.0.1:8080
// (built for js/wasm when it starts), which joins over WebTransport, or
// over a WebSocket when the browser has no WebTransport or it fails
// (?transport=ws forces it): every tab is another player.
//
//	go run ./examples/arena -screenshot out.png -frames 300
//	go run ./examples/arena -compare -loss 0.2   # interpolation on and off, side by side
//	go run ./examples/arena/server                 # no window: server and page only
//
// The screenshot mode renders that many frames in a real window, saves
// the last one as a PNG and exits, printing the frame rate and
// netsmooth's cost.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/netsmooth/netsmooth/examples/arena/arenanet"
)

// options are the command's flags.
type options struct {
	rules      arenanet.Rules
	addr       string
	http       string
	join       string
	ws         string
	ticket     string
	screenshot string
	frames     int
	gif        string
	gifFrames  int
	compare    bool
	autopilot  bool
	autofire   bool
	seconds    float64
	wasm       string
	set        arenanet.Settings
	seed       uint64
}

func main() {
	o, err := parseFlags(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, prefixed(err))
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, prefixed(err))
		os.Exit(1)
	}
}

// prefixed is err's message starting with "arena:" once.
func prefixed(err error) string {
	if msg := err.Error(); strings.HasPrefix(msg, "arena:") {
		return msg
	}
	return "arena: " + err.Error()
}

func parseFlags(args []string) (*options, error) {
	o := &options{set: arenanet.DefaultSettings()}
	fs := flag.NewFlagSet("arena", flag.ContinueOnError)
	rules := arenanet.RulesFlags(fs)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:7777", "UDP address the server listens on (QUIC and WebTransport)")
	fs.StringVar(&o.http, "http", "127.0.0.1:"+arenanet.DefaultHTTPPort, `address of the browser version, its WebSocket and the tickets ("" for none)`)
	fs.StringVar(&o.join, "join", "", "join the server at this UDP address over QUIC instead of starting one")
	fs.StringVar(&o.ws, "ws", "", "join over WebSocket at this URL (ws://host:port/ws) instead of starting a server")
	fs.StringVar(&o.ticket, "ticket", "", "with -join or -ws, get the ticket here (default: the server host's http://HOST:"+arenanet.DefaultHTTPPort+arenanet.TicketPath+", or the -ws URL's host)")
	fs.StringVar(&o.screenshot, "screenshot", "", "save the screen to this PNG after -frames frames and exit")
	fs.IntVar(&o.frames, "frames", 300, "frames to render in the screenshot mode")
	fs.StringVar(&o.gif, "gif", "", "also record the last -gif-frames frames (every other one) as an animated GIF here, and exit")
	fs.IntVar(&o.gifFrames, "gif-frames", 90, "frames of the GIF")
	fs.BoolVar(&o.autopilot, "autopilot", false, "the player drives itself in a square (for screenshots and recordings)")
	fs.BoolVar(&o.autofire, "autofire", false, "the trigger is held: the player fires whenever a bot is in its line of fire (for screenshots and recordings)")
	fs.BoolVar(&o.compare, "compare", false, "two clients side by side, zoomed in: interpolation on (left) and off (right), in the small world (-small) unless told otherwise")
	fs.Float64Var(&o.seconds, "seconds", 0, "stop after this many seconds (0: run until closed)")
	fs.StringVar(&o.wasm, "wasm", "", "serve this prebuilt arena.wasm instead of building one")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the simulated network")
	interp := fs.Bool("interp", true, "interpolation on (key I)")
	trails := fs.Bool("trails", true, "draw trails (key T)")
	latency := fs.Duration("latency", arenanet.Latencies[o.set.Latency], fmt.Sprintf("one-way latency, one of %v (key K)", arenanet.Latencies))
	jitter := fs.Duration("jitter", arenanet.Jitters[o.set.Jitter], fmt.Sprintf("jitter, one of %v (key J)", arenanet.Jitters))
	loss := fs.Float64("loss", arenanet.Losses[o.set.Loss], fmt.Sprintf("loss, one of %v (key L)", arenanet.Losses))
	burst := fs.Bool("burst", false, "burst loss (key B)")
	overlay := fs.Bool("overlay", true, "show the metrics overlay (key O)")
	interest := fs.Bool("interest", true, "ask the server for your area only: its interest management (key N)")
	lagComp := fs.Bool("lagcomp", true, "the server judges your shots against what you saw: lag compensation (key C)")
	delay := fs.String("delay", arenanet.Delays[o.set.Delay].Name, fmt.Sprintf("interpolation delay, one of %q (key Q)", delayNames()))
	extrap := fs.String("extrap", arenanet.Policies[o.set.Policy].String(), fmt.Sprintf("extrapolation policy, one of %q (key E)", policyNames()))
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q: every setting is a flag (-h lists them)", fs.Arg(0))
	}
	o.set.Interp, o.set.Trails, o.set.Burst, o.set.Overlay, o.set.Interest, o.set.LagComp = *interp, *trails, *burst, *overlay, *interest, *lagComp
	var err error
	if o.rules, err = rules(o.compare); err != nil {
		return nil, err
	}
	var ok bool
	if o.set.Latency, ok = index(arenanet.Latencies, *latency); !ok {
		return nil, fmt.Errorf("-latency %v: want one of %v", *latency, arenanet.Latencies)
	}
	if o.set.Jitter, ok = index(arenanet.Jitters, *jitter); !ok {
		return nil, fmt.Errorf("-jitter %v: want one of %v", *jitter, arenanet.Jitters)
	}
	if o.set.Loss, ok = index(arenanet.Losses, *loss); !ok {
		return nil, fmt.Errorf("-loss %v: want one of %v", *loss, arenanet.Losses)
	}
	if o.set.Delay, ok = index(delayNames(), *delay); !ok {
		return nil, fmt.Errorf("-delay %q: want one of %q", *delay, delayNames())
	}
	if o.set.Policy, ok = index(policyNames(), *extrap); !ok {
		return nil, fmt.Errorf("-extrap %q: want one of %q", *extrap, policyNames())
	}
	if o.screenshot != "" || o.gif != "" {
		for _, path := range []string{o.screenshot, o.gif} {
			if dir := filepath.Dir(path); path != "" {
				if st, err := os.Stat(dir); err != nil || !st.IsDir() {
					return nil, fmt.Errorf("cannot write %s: no directory %s", path, dir)
				}
			}
		}
	}
	switch {
	case o.frames < 1:
		return nil, fmt.Errorf("-frames %d: want at least 1", o.frames)
	case o.gif != "" && (o.gifFrames < 1 || 2*o.gifFrames > o.frames):
		return nil, fmt.Errorf("-gif-frames %d: want 1..%d (half of -frames)", o.gifFrames, o.frames/2)
	case o.seconds < 0:
		return nil, fmt.Errorf("-seconds %v: want 0 or more", o.seconds)
	case o.join != "" && o.ws != "":
		return nil, errors.New("-join and -ws: choose one")
	case o.ticket != "" && o.join == "" && o.ws == "":
		return nil, errors.New("-ticket: only with -join or -ws (a server started here hands its own tickets)")
	}
	return o, nil
}

// delayNames and policyNames are the -delay and -extrap choices.
func delayNames() []string {
	var names []string
	for _, d := range arenanet.Delays {
		names = append(names, d.Name)
	}
	return names
}

func policyNames() []string {
	var names []string
	for _, p := range arenanet.Policies {
		names = append(names, p.String())
	}
	return names
}

func index[T comparable](xs []T, x T) (int, bool) {
	i := slices.Index(xs, x)
	return i, i >= 0
}

func run(o *options) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.seconds > 0 {
		var cancel func()
		ctx, cancel = context.WithTimeout(ctx, time.Duration(o.seconds*float64(time.Second)))
		defer cancel()
	}
	var connect func(set arenanet.Settings, seed uint64) (*arenanet.Client, error)
	switch {
	case o.join != "":
		ticketURL := o.ticket
		if ticketURL == "" {
			ticketURL = arenanet.TicketURLFor(o.join)
		}
		connect = func(set arenanet.Settings, seed uint64) (*arenanet.Client, error) {
			return arenanet.Join(ctx, set, ticketURL, arenanet.QUIC, o.join, seed)
		}
	case o.ws != "":
		ticketURL := o.ticket
		if ticketURL == "" {
			var err error
			if ticketURL, err = ticketURLOfWS(o.ws); err != nil {
				return err
			}
		}
		connect = func(set arenanet.Settings, seed uint64) (*arenanet.Client, error) {
			return arenanet.Join(ctx, set, ticketURL, arenanet.WebSocket, o.ws, seed)
		}
	default:
		srvCtx, stopServer := context.WithCancel(ctx)
		srv, err := arenanet.Serve(srvCtx, arenanet.ServeConfig{Rules: o.rules, Addr: o.addr, HTTPAddr: o.http, Wasm: o.wasm}, log.Printf)
		if err != nil {
			stopServer()
			return err
		}
		defer srv.Wait()
		defer stopServer()
		connect = func(set arenanet.Settings, seed uint64) (*arenanet.Client, error) {
			t, err := srv.Ticket(false)
			if err != nil {
				return nil, err
			}
			return arenanet.Connect(ctx, set, t, arenanet.QUIC, seed)
		}
	}
	c, err := connect(o.set, o.seed)
	if err != nil {
		return err
	}
	defer c.Close()
	var other *arenanet.Client
	if o.compare {
		off := o.set
		off.Interp = false
		if other, err = connect(off, o.seed+100); err != nil {
			return err
		}
		defer other.Close()
	}
	return window(ctx, c, other, o)
}

// ticketURLOfWS is where a player joining over the WebSocket at wsURL
// gets a ticket by default: the same host's ticket endpoint.
func ticketURLOfWS(wsURL string) (string, error) {
	u, err := url.Parse(wsURL)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") {
		return "", fmt.Errorf("-ws %q: want a ws:// or wss:// URL", wsURL)
	}
	u.Scheme = strings.Replace(u.Scheme, "ws", "http", 1)
	u.Path, u.RawQuery = arenanet.TicketPath, ""
	return u.String(), nil
}

// window runs the game in a window until it is closed, ctx ends, or the
// screenshot is saved.
func window(ctx context.Context, c, other *arenanet.Client, o *options) error {
	g := newGame(c, other, shot{path: o.screenshot, frames: o.frames, gif: o.gif, gifFrames: o.gifFrames})
	g.autopilot, g.autofire = o.autopilot, o.autofire
	g.report = func(frames int, elapsed time.Duration, s arenanet.Stats) {
		rate := "too short to measure the frame rate (it is measured after the first second)"
		if elapsed > 0 && frames > 0 {
			rate = fmt.Sprintf("after the first second, %d frames in %.2f s: %.1f FPS", frames, elapsed.Seconds(), float64(frames)/elapsed.Seconds())
		}
		fmt.Printf("arena: %s; netsmooth %.3f ms/frame (peak %.3f) for %d entities; delay %.0f ms, past the newest sample %.2f%% of entity-frames (%.1f%% of frames)\n",
			rate, ms(s.Cost), ms(s.Peak), s.Entities+int(min(s.NetID, 1)), s.Delay, s.PastNewestPct, s.UnderrunPct)
		fmt.Printf("arena: %v; held %d remote entities, received %.1f kB/s\n", s.Rules, s.Entities, s.Down)
		fmt.Printf("arena: %s\n", shotLine(c.ShotStats()))
	}
	go func() {
		<-ctx.Done()
		g.stop(errStopped)
	}()
	if other != nil {
		ebiten.SetWindowSize(compareW, compareH)
	} else {
		ebiten.SetWindowSize(screenW, screenH)
	}
	ebiten.SetWindowTitle("netsmooth arena")
	ebiten.SetWindowResizingMode(ebiten.WindowResizingModeEnabled)
	ebiten.SetRunnableOnUnfocused(true)
	if err := ebiten.RunGame(g); err != nil && !errors.Is(err, errStopped) {
		return err
	}
	if st := c.Stats(); st.Err != nil {
		return errors.New(arenanet.Disconnected(st.Err))
	} else if st.NetID == 0 {
		fmt.Fprintf(os.Stderr, "arena: no player from the server (is it running at %s?)\n", serverOf(o))
	}
	return nil
}

// errStopped ends the game from outside (stop).
var errStopped = errors.New("arena: stopped")

// stop ends the game at its next Update; safe from any goroutine.
func (g *game) stop(err error) {
	select {
	case g.stopCh <- err:
	default:
	}
}

// serverOf names the server a client joined.
func serverOf(o *options) string {
	switch {
	case o.ws != "":
		return o.ws
	case o.join != "":
		return o.join
	}
	return o.addr
}

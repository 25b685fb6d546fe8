// Command netplay runs netsmooth over its secure transport: a server
// simulating a thousand entities at 20 Hz plus one player per client, and
// a headless client that draws them through the pipeline at 60 FPS and
// predicts its player from scripted inputs. Snapshots and inputs travel
// as QUIC datagrams (TLS 1.3; the server's self-signed certificate is
// accepted by its hash), and a client joins only with a connect token
// from a development backend (internal/devauth). The server, not the
// client, decides which entity each player controls.
//
// By default both run in this process over loopback, with a simulated
// network (netsim, on the wall clock) in both directions, and the process
// issues its client a token itself; at the end the client prints its
// metrics: how far what it drew was from the truth, the delay, underruns
// and corrections, the round trip and clock offset it measured, the bytes
// per second each way, the packets lost, and how its connections ended.
//
//	go run ./examples/netplay
//	go run ./examples/netplay -seconds 20 -latency 80ms -jitter 20ms -loss 0.1
//	go run ./examples/netplay -full       # no delta compression
//	go run ./examples/netplay -spectate   # watch only: no player, no inputs
//
// In two processes, the server also serves development tickets (where to
// connect, its certificate's hash, a fresh token) over HTTP on loopback,
// and each client fetches one:
//
//	go run ./examples/netplay -role server              # until Ctrl-C
//	go run ./examples/netplay -role client              # as many as you like
//	go run ./examples/netplay -role client -spectate
//
// -addr sets the server's UDP address (default 127.0.0.1:7777),
// -ticket-addr its ticket endpoint (default 127.0.0.1:7778, loopback
// only: it gives a token to anyone who asks), -ticket the URL a client
// fetches its tickets from. A client checks what it draws against the
// entities' known paths, so it needs the server's -entities and -moving
// (the server prints the command with them). A client whose server
// shuts down or falls silent fetches a new ticket and connects again
// (restart the server to see it); one the server kicks stops and says
// why. Ctrl-C stops either cleanly, printing the metrics so far.
//
// -measure compares the cost of the transport with a bare UDP socket
// carrying the very same packets: bytes per second each way at the
// server's socket, the server's CPU time per tick, and the handshake
// time (see measure.go).
//
//	go run ./examples/netplay -measure
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/netsmooth/netsmooth/internal/devauth"
	"github.com/netsmooth/netsmooth/netsim"
)

// options are the command's settings, one flag each.
type options struct {
	role       string
	addr       string
	ticketAddr string
	ticket     string
	seconds    float64
	entities   int
	moving     float64
	fps        float64
	latency    time.Duration
	jitter     time.Duration
	loss       float64
	full       bool
	spectate   bool
	seed       uint64

	measure bool
	meas    measureOptions
}

// impairment is the simulated network each end puts in front of what it
// sends, nil for none.
func (o *options) impairment() *netsim.Config {
	if o.latency == 0 && o.jitter == 0 && o.loss == 0 {
		return nil
	}
	return &netsim.Config{Latency: o.latency, Jitter: o.jitter, Loss: o.loss}
}

// duration is how long to run, 0 for until interrupted.
func (o *options) duration() time.Duration { return time.Duration(o.seconds * float64(time.Second)) }

func (o *options) validate() error {
	switch {
	case o.role != "both" && o.role != "server" && o.role != "client":
		return fmt.Errorf("-role %q: want both, server or client", o.role)
	case !(o.seconds >= 0 && o.seconds < 1e6), o.entities < 0, o.entities > maxEntities, !(o.fps > 0 && o.fps <= 1000):
		return fmt.Errorf("-seconds must be within 0..1e6 (0: until Ctrl-C), -fps positive, -entities within 0..%d", maxEntities)
	case !(o.moving >= 0 && o.moving <= 1):
		return errors.New("-moving must be within 0..1")
	case o.latency < 0 || o.jitter < 0 || !(o.loss >= 0 && o.loss < 1):
		return errors.New("-latency and -jitter must not be negative, -loss within [0, 1)")
	case o.role == "server" && o.spectate:
		return errors.New("-spectate is a client's flag")
	}
	if o.role == "server" {
		if err := loopbackOnly(o.ticketAddr); err != nil {
			return err
		}
	}
	if o.measure {
		return o.meas.validate()
	}
	if imp := o.impairment(); imp != nil {
		return imp.Validate()
	}
	return nil
}

// parse reads the command line; usage and errors go to out.
func parse(args []string, out io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("netplay", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&o.role, "role", "both", "both (server and client in this process), server or client")
	fs.StringVar(&o.addr, "addr", "", "the server's UDP address (default 127.0.0.1:0 for both, 127.0.0.1:7777 for server)")
	fs.StringVar(&o.ticketAddr, "ticket-addr", "127.0.0.1:7778", "-role server: where to serve development tickets over HTTP (loopback only)")
	fs.StringVar(&o.ticket, "ticket", "http://127.0.0.1:7778/ticket", "-role client: the URL to fetch tickets from")
	fs.Float64Var(&o.seconds, "seconds", 10, "how long to run, in seconds; 0: until Ctrl-C (the default for -role server)")
	fs.IntVar(&o.entities, "entities", 1000, "entities the server moves (besides the players); a client must be told the server's")
	fs.Float64Var(&o.moving, "moving", 1, "fraction of the entities that move; the others stand still")
	fs.Float64Var(&o.fps, "fps", 60, "client frames per second")
	fs.DurationVar(&o.latency, "latency", 50*time.Millisecond, "simulated one-way latency, each direction (0 with -jitter 0 -loss 0: none)")
	fs.DurationVar(&o.jitter, "jitter", 10*time.Millisecond, "simulated jitter: each packet's delay varies uniformly by ± this")
	fs.Float64Var(&o.loss, "loss", 0.02, "simulated probability that a packet is lost, each direction")
	fs.BoolVar(&o.full, "full", false, "disable delta compression: every snapshot is full")
	fs.BoolVar(&o.spectate, "spectate", false, "join as a spectator: the world, no player, no inputs")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the simulated network")
	fs.BoolVar(&o.measure, "measure", false, "measure the transport's cost against bare UDP, print a table and exit")
	o.meas.flags(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "netplay: netsmooth over QUIC with connect tokens, headless.\n\nUsage: go run ./examples/netplay [flags]\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for name, roles := range map[string]string{"addr": "both server", "ticket-addr": "server", "ticket": "client"} {
		if set[name] && !strings.Contains(roles, o.role) {
			return o, fmt.Errorf("-%s is for -role %s, not %s", name, strings.ReplaceAll(roles, " ", " or "), o.role)
		}
	}
	if o.role == "server" && !set["seconds"] {
		o.seconds = 0 // a server runs until stopped
	}
	if o.addr == "" {
		o.addr = "127.0.0.1:7777"
		if o.role == "both" {
			o.addr = "127.0.0.1:0"
		}
	}
	return o, o.validate()
}

func main() {
	if peer, ok := measurePeerFromEnv(); ok {
		// This process is the client side of a -measure run.
		if err := runMeasurePeer(peer, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "netplay measure peer:", err)
			os.Exit(1)
		}
		return
	}
	o, err := parse(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "netplay:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C kills the process
	}()
	if err := run(ctx, &o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "netplay:", err)
		os.Exit(1)
	}
}

// run plays the role o asks for, for o.seconds or until ctx is done, and
// prints the metrics.
func run(ctx context.Context, o *options, w io.Writer) error {
	if o.measure {
		return measure(ctx, &o.meas, w)
	}
	runCtx := ctx // the client's, and a lone server's
	if d := o.duration(); d > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	if o.role == "server" {
		return runServer(runCtx, o, w)
	}
	var (
		srv        *gameServer
		tickets    ticketFunc
		stopServer = func() error { return nil }
	)
	if o.role == "both" {
		auth, err := devauth.New()
		if err != nil {
			return err
		}
		// The server outlives the client, so that the client's last
		// moments are not a disconnection.
		srvCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		if srv, err = startServer(srvCtx, o, o.addr, auth, io.Discard); err != nil {
			return err
		}
		fmt.Fprintf(w, "server listening on %v (QUIC); this process issues its client a token\n", srv.srv.Addr())
		done := make(chan error, 1)
		go func() { done <- srv.run(srvCtx) }()
		stopServer = func() error {
			cancel()
			return <-done
		}
		tickets = srv.ticket
	} else {
		tickets = fetchTickets(o.ticket)
	}
	c, err := startClient(runCtx, o, tickets, w)
	if err != nil {
		stopServer()
		return err
	}
	started := time.Now()
	c.run(runCtx)
	r := c.report(time.Since(started), srv)
	err = stopServer()
	r.print(w, o)
	return err
}

// runServer runs a server with its ticket endpoint until ctx is done,
// then prints its counters.
func runServer(ctx context.Context, o *options, w io.Writer) error {
	auth, err := devauth.New()
	if err != nil {
		return err
	}
	srv, err := startServer(ctx, o, o.addr, auth, w)
	if err != nil {
		return err
	}
	url, wait, err := ticketServer(ctx, o.ticketAddr, srv)
	if err != nil {
		srv.srv.Close()
		return err
	}
	b := srv.base()
	fmt.Fprintf(w, "server listening on %v: QUIC (ALPN netsmooth/2) and WebTransport at %s\n", b.Addr, b.WebTransport)
	fmt.Fprintf(w, "self-signed certificate, SHA-256 %s\n", b.CertHash)
	fmt.Fprintf(w, "development tickets (a fresh connect token each) at %s\n\n", url)
	join := "go run ./examples/netplay -role client"
	if url != "http://127.0.0.1:7778/ticket" {
		join += " -ticket " + url
	}
	if o.entities != 1000 {
		join += fmt.Sprintf(" -entities %d", o.entities)
	}
	if o.moving != 1 {
		join += fmt.Sprintf(" -moving %g", o.moving)
	}
	fmt.Fprintf(w, "join with:   %s\nwatch with:  %s -spectate\nstop with Ctrl-C.\n\n", join, join)
	err = srv.run(ctx)
	wait()
	printServer(w, o, srv)
	return err
}

// Command udp runs netsmooth over a real UDP socket: a server simulating
// a thousand entities at 20 Hz plus one player per client, and a headless
// client that draws them through the pipeline at 60 FPS and predicts its
// player from scripted inputs. By default both run in this process over
// loopback, with a simulated network (netsim, on the wall clock) in both
// directions; at the end the client prints its metrics: how far what it
// drew was from the truth, the delay, underruns and corrections, the
// round trip and clock offset it measured, the bytes per second each way
// and the packets lost.
//
//	go run ./examples/udp
//	go run ./examples/udp -seconds 20 -latency 80ms -jitter 20ms -loss 0.1
//	go run ./examples/udp -full          # no delta compression
//	go run ./examples/udp -role server -addr 127.0.0.1:7777
//	go run ./examples/udp -role client -addr 127.0.0.1:7777
//	go run ./examples/udp -role client -addr 127.0.0.1:7777 -player 1000001
//
// Each client of one server plays its own NetID (-player); a client that
// names a world entity's or another client's NetID is given no player.
// Ctrl-C stops it cleanly, printing the metrics so far.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/netsmooth/netsmooth/netsim"
)

// options are the command's settings, one flag each.
type options struct {
	role     string
	addr     string
	seconds  float64
	entities int
	moving   float64
	fps      float64
	latency  time.Duration
	jitter   time.Duration
	loss     float64
	full     bool
	seed     uint64
	player   uint
}

// impairment is the simulated network each end puts in front of what it
// sends, nil for none.
func (o *options) impairment() *netsim.Config {
	if o.latency == 0 && o.jitter == 0 && o.loss == 0 {
		return nil
	}
	return &netsim.Config{Latency: o.latency, Jitter: o.jitter, Loss: o.loss}
}

func (o *options) validate() error {
	switch {
	case o.role != "both" && o.role != "server" && o.role != "client":
		return fmt.Errorf("-role %q: want both, server or client", o.role)
	case !(o.seconds > 0), o.entities < 0, o.entities > 16000, !(o.fps > 0 && o.fps <= 1000):
		return errors.New("-seconds and -fps must be positive, -entities within 0..16000")
	case !(o.moving >= 0 && o.moving <= 1):
		return errors.New("-moving must be within 0..1")
	case o.latency < 0 || o.jitter < 0 || !(o.loss >= 0 && o.loss < 1):
		return errors.New("-latency and -jitter must not be negative, -loss within [0, 1)")
	case o.player <= uint(o.entities) || o.player > math.MaxUint32:
		return fmt.Errorf("-player %d: want a NetID above the entities' (%d) and below 2^32", o.player, o.entities)
	}
	if imp := o.impairment(); imp != nil {
		return imp.Validate()
	}
	return nil
}

func parse(args []string, out io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("udp", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&o.role, "role", "both", "both (server and client in this process), server or client")
	fs.StringVar(&o.addr, "addr", "", "server address (default 127.0.0.1:0 for both, 127.0.0.1:7777 otherwise)")
	fs.Float64Var(&o.seconds, "seconds", 10, "how long to run, in seconds")
	fs.IntVar(&o.entities, "entities", 1000, "entities the server moves (besides the players)")
	fs.Float64Var(&o.moving, "moving", 1, "fraction of the entities that move; the others stand still")
	fs.Float64Var(&o.fps, "fps", 60, "client frames per second")
	fs.DurationVar(&o.latency, "latency", 50*time.Millisecond, "simulated one-way latency, each direction (0 with -jitter 0 -loss 0: none)")
	fs.DurationVar(&o.jitter, "jitter", 10*time.Millisecond, "simulated jitter: each packet's delay varies uniformly by ± this")
	fs.Float64Var(&o.loss, "loss", 0.02, "simulated probability that a packet is lost, each direction")
	fs.BoolVar(&o.full, "full", false, "disable delta compression: every snapshot is full")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the simulated network")
	fs.UintVar(&o.player, "player", playerID, "NetID of this client's player; give each client of one server its own")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "udp: netsmooth over a real UDP socket, headless.\n\nUsage: go run ./examples/udp [flags]\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
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
	o, err := parse(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "udp:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, &o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "udp:", err)
		os.Exit(1)
	}
}

// run plays the role o asks for, for o.seconds or until ctx is done, and
// prints the metrics.
func run(ctx context.Context, o *options, w io.Writer) error {
	d := time.Duration(o.seconds * float64(time.Second))
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var srv *gameServer
	done := make(chan error, 1)
	addr := o.addr
	if o.role != "client" {
		var err error
		if srv, err = startServer(ctx, o, o.addr); err != nil {
			return err
		}
		addr = srv.srv.Addr().String()
		fmt.Fprintf(w, "server listening on %v\n", addr)
		go func() { done <- srv.run(ctx) }()
	}
	if o.role == "server" {
		err := <-done
		printServer(w, o, srv)
		return err
	}
	c, err := startClient(ctx, o, addr)
	if err != nil {
		cancel()
		if srv != nil {
			<-done
		}
		return err
	}
	started := time.Now()
	c.run(ctx, d)
	r := c.report(time.Since(started), srv)
	cancel()
	if srv != nil {
		if err := <-done; err != nil {
			return err
		}
	}
	r.print(w, o)
	return nil
}

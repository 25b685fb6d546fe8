// Command capacity measures a netsmooth server end to end with real
// connections: a server simulating tens of thousands of wandering
// entities at 20 Hz, with interest management and a bandwidth budget per
// client, and as many QUIC clients as the machine holds, in a second
// process, each decoding its snapshots and acknowledging them as a game
// client does. At the end the server prints its CPU per tick, how long
// its own work took (SendSnapshots), and the bytes each client was sent
// a second, against the budget.
//
//	go run ./examples/capacity                       # 200 clients, 50,000 entities, 20 s
//	go run ./examples/capacity -clients 100 -entities 10000 -seconds 10
//	go run ./examples/capacity -interest=false       # every entity to every client
//
// The clients run in a process of their own (this command, started
// again with -role clients), so that the server's CPU time is its own.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/client"
	"github.com/netsmooth/netsmooth/internal/devauth"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/transport"
	"github.com/netsmooth/netsmooth/wire"
)

const tickRate = 20

type options struct {
	role      string
	clients   int
	entities  int
	seconds   float64
	budget    int
	radius    float64
	interest  bool
	ticketURL string
}

func parse(args []string, out io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("capacity", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&o.role, "role", "both", "both (the server here, the clients in a second process), server or clients")
	fs.IntVar(&o.clients, "clients", 200, "clients to connect")
	fs.IntVar(&o.entities, "entities", 50_000, "entities the server moves")
	fs.Float64Var(&o.seconds, "seconds", 20, "how long to measure, once every client is connected")
	fs.IntVar(&o.budget, "budget", 32_000, "each client's budget, bytes per second (0: none)")
	fs.Float64Var(&o.radius, "radius", 50, "each client's view radius; the world is sized so that about 300 entities are in view")
	fs.BoolVar(&o.interest, "interest", true, "interest management (false: every entity to every client)")
	fs.StringVar(&o.ticketURL, "ticket", "", "the server's ticket URL (for -role clients)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case o.role != "both" && o.role != "server" && o.role != "clients":
		return o, fmt.Errorf("-role %q: want both, server or clients", o.role)
	case o.clients < 1 || o.entities < 1 || !(o.seconds > 0) || o.budget < 0 || !(o.radius > 0):
		return o, errors.New("-clients, -entities, -seconds and -radius must be positive, -budget not negative")
	case o.role == "clients" && o.ticketURL == "":
		return o, errors.New("-role clients needs -ticket")
	}
	return o, nil
}

func main() {
	o, err := parse(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "capacity:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.role == "clients" {
		err = runClients(ctx, o, os.Stdout)
	} else {
		err = runServer(ctx, o, os.Stdout)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "capacity:", err)
		os.Exit(1)
	}
}

// world is the server's simulation: entities wandering at 4 units/s in a
// square sized so that a view of the radius holds about 300 of them, and
// one player per client, standing where it joined.
type world struct {
	pos, vel []mgl32.Vec3
	side     float32
	rng      *rand.Rand
}

func newWorld(n int, radius float64) *world {
	rng := rand.New(rand.NewPCG(1, 2))
	side := float32(math.Sqrt(float64(n) / 300 * math.Pi * radius * radius))
	w := &world{pos: make([]mgl32.Vec3, n), vel: make([]mgl32.Vec3, n), side: side, rng: rng}
	for k := range n {
		w.pos[k] = mgl32.Vec3{rng.Float32() * side, rng.Float32() * side, 0}
		a := rng.Float64() * 2 * math.Pi
		w.vel[k] = mgl32.Vec3{float32(4 * math.Cos(a)), float32(4 * math.Sin(a)), 0}
	}
	return w
}

func (w *world) step(dt float32) {
	for k := range w.pos {
		for i := range 2 {
			p := w.pos[k][i] + w.vel[k][i]*dt
			if p < 0 || p > w.side {
				w.vel[k][i] = -w.vel[k][i]
				p = w.pos[k][i] + w.vel[k][i]*dt
			}
			w.pos[k][i] = p
		}
	}
}

// runServer runs the server, starts the clients' process (with -role
// both), waits for them, measures for o.seconds and prints the report.
func runServer(ctx context.Context, o options, out io.Writer) error {
	backend, err := devauth.New()
	if err != nil {
		return err
	}
	sc := server.SessionConfig{MaxClients: o.clients + 16, Wire: wire.Config{MaxEntities: o.entities + o.clients + 16}}
	if o.interest {
		sc.Interest = &server.InterestConfig{CellSize: float32(o.radius / 2)}
		sc.Budget = server.BudgetConfig{BytesPerSecond: o.budget}
	}
	srv, err := server.Listen(ctx, server.Config{Tokens: backend.Tokens(), TickRate: tickRate, Session: sc,
		MaxPending: 4 * o.clients})
	if err != nil {
		return err
	}
	defer srv.Close()
	web, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	base := devauth.Ticket{Addr: srv.Addr().String(), CertHash: devauth.HashString(srv.CertHash())}
	hs := &http.Server{Handler: backend.Handler(func() devauth.Ticket { return base }), ReadHeaderTimeout: 5 * time.Second}
	go hs.Serve(web)
	defer hs.Close()
	ticket := "http://" + web.Addr().String() + "/"
	fmt.Fprintf(out, "server on %v, %d entities, interest %v, budget %d B/s; tickets at %s\n", srv.Addr(), o.entities, o.interest, o.budget, ticket)

	var clients *exec.Cmd
	if o.role == "both" {
		self, err := os.Executable()
		if err != nil {
			return err
		}
		clients = exec.CommandContext(ctx, self, "-role", "clients", "-clients", fmt.Sprint(o.clients),
			"-seconds", fmt.Sprint(o.seconds+10), "-ticket", ticket)
		clients.Stdout, clients.Stderr = out, os.Stderr
		if err := clients.Start(); err != nil {
			return err
		}
		defer func() {
			clients.Process.Signal(os.Interrupt)
			clients.Wait()
		}()
	}
	return serve(ctx, o, srv, out)
}

// serve ticks the game at 20 Hz: players join and leave, the world moves,
// every client's view follows its player; it measures once every client
// has joined.
func serve(ctx context.Context, o options, srv *server.Server, out io.Writer) error {
	w := newWorld(o.entities, o.radius)
	sess := srv.Session()
	players := map[server.ClientID]uint32{}
	var events []server.Event
	ticker := time.NewTicker(time.Second / tickRate)
	defer ticker.Stop()
	var m measure
	batch := make([]wire.Entity, len(w.pos))
	tick := uint32(0)
	deadline := time.Now().Add(60 * time.Second) // for every client to join
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ticker.C:
		}
		events = srv.Events(events[:0])
		for _, ev := range events {
			switch ev.Kind {
			case server.Join:
				id := uint32(o.entities) + uint32(ev.Client)
				players[ev.Client] = id
				sess.Assign(ev.Client, id)
			case server.Leave:
				sess.Despawn(players[ev.Client])
				delete(players, ev.Client)
			}
		}
		w.step(1.0 / tickRate)
		tick++
		start := time.Now()
		if err := sess.BeginTick(tick); err != nil {
			return err
		}
		// The whole world in one call: one lock for every entity.
		for k := range w.pos {
			batch[k] = wire.Entity{NetID: uint32(k + 1), Pos: w.pos[k]}
		}
		if err := sess.SetEntities(batch); err != nil {
			return err
		}
		for id, netID := range players {
			p := w.pos[int(netID)%len(w.pos)] // stands where an entity was when it joined
			sess.SetEntity(wire.Entity{NetID: netID, Pos: p})
			sess.SetView(id, server.View{Pos: p, Radius: float32(o.radius)})
		}
		if err := srv.SendSnapshots(); err != nil {
			return err
		}
		work := time.Since(start)
		switch {
		case !m.started && len(players) >= o.clients:
			m.begin(srv)
			fmt.Fprintf(out, "%d clients connected; measuring for %v\n", len(players), time.Duration(o.seconds*float64(time.Second)))
		case !m.started && time.Now().After(deadline):
			return fmt.Errorf("only %d of %d clients joined within a minute", len(players), o.clients)
		case m.started:
			m.tick(work)
			if m.elapsed() >= o.seconds {
				m.report(out, o, srv)
				return nil
			}
		}
	}
}

// measure accumulates the server's work over the measured ticks.
type measure struct {
	started bool
	start   time.Time
	cpu     time.Duration
	ticks   int
	works   []time.Duration
	sent    map[server.ClientID]uint64
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func (m *measure) begin(srv *server.Server) {
	m.started, m.start, m.cpu = true, time.Now(), cpuTime()
	m.sent = map[server.ClientID]uint64{}
	for _, id := range srv.Clients(nil) {
		st, _ := srv.Session().Stats(id)
		m.sent[id] = st.BytesSent
	}
}

func (m *measure) tick(work time.Duration) {
	m.ticks++
	m.works = append(m.works, work)
}

func (m *measure) elapsed() float64 { return time.Since(m.start).Seconds() }

func (m *measure) report(out io.Writer, o options, srv *server.Server) {
	cpu := cpuTime() - m.cpu
	secs := m.elapsed()
	slices.Sort(m.works)
	var rates []float64
	for _, id := range srv.Clients(nil) {
		st, ok := srv.Session().Stats(id)
		if before, known := m.sent[id]; ok && known {
			rates = append(rates, float64(st.BytesSent-before)/secs)
		}
	}
	slices.Sort(rates)
	mean := 0.0
	for _, r := range rates {
		mean += r
	}
	mean /= float64(max(len(rates), 1))
	pct := func(xs []time.Duration, p float64) time.Duration { return xs[min(len(xs)-1, int(p*float64(len(xs))))] }
	fmt.Fprintf(out, "\n%d clients, %d entities, %.0f s (%d ticks at %d Hz)\n", len(rates), o.entities, secs, m.ticks, tickRate)
	fmt.Fprintf(out, "server CPU:            %.2f ms a tick (%.0f%% of one core), the whole process\n",
		float64(cpu)/float64(m.ticks)/1e6, 100*cpu.Seconds()/secs)
	fmt.Fprintf(out, "server's own work:     median %v, p99 %v a tick (SetEntities, views, SendSnapshots)\n",
		pct(m.works, 0.5).Round(10*time.Microsecond), pct(m.works, 0.99).Round(10*time.Microsecond))
	if len(rates) > 0 {
		fmt.Fprintf(out, "bytes to each client:  mean %.0f B/s, min %.0f, max %.0f", mean, rates[0], rates[len(rates)-1])
		if o.budget > 0 && o.interest {
			fmt.Fprintf(out, " (budget %d)", o.budget)
		}
		fmt.Fprintln(out)
	}
}

// runClients connects o.clients clients with tickets from o.ticketURL and
// keeps them playing (decoding, acknowledging) until ctx is done or
// o.seconds passed; it prints how many connected and what they received.
func runClients(ctx context.Context, o options, out io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(o.seconds*float64(time.Second)))
	defer cancel()
	var wg sync.WaitGroup
	var connected, failed atomic.Int64
	var received atomic.Uint64
	sem := make(chan struct{}, 32) // handshakes at once
	for range o.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			c, err := dial(ctx, o.ticketURL)
			<-sem
			if err != nil {
				if ctx.Err() == nil {
					failed.Add(1)
					fmt.Fprintln(os.Stderr, "capacity: client:", err)
				}
				return
			}
			connected.Add(1)
			play(ctx, c)
			received.Add(c.Stats().Conn.BytesReceived)
			c.Close()
		}()
	}
	wg.Wait()
	fmt.Fprintf(out, "clients: %d connected, %d failed, %.1f MB received in all\n", connected.Load(), failed.Load(), float64(received.Load())/1e6)
	return nil
}

func dial(ctx context.Context, url string) (*client.Client, error) {
	t, err := devauth.Fetch(ctx, url)
	if err != nil {
		return nil, err
	}
	hash, err := t.Hash()
	if err != nil {
		return nil, err
	}
	tok, err := t.RawToken()
	if err != nil {
		return nil, err
	}
	inbox := systems.NewInbox(1 << 16)
	return client.Dial(ctx, t.Addr, client.Config{Token: tok,
		Transport: transport.DialConfig{CertHashes: [][32]byte{hash}, Timeout: 20 * time.Second},
		Session:   client.SessionConfig{Inbox: inbox}})
}

// play acknowledges what arrives every tick and drains the inbox, as a
// game client's frame loop does (without drawing).
func play(ctx context.Context, c *client.Client) {
	ticker := time.NewTicker(time.Second / tickRate)
	defer ticker.Stop()
	var msgs []systems.Message
	inbox := c.Session().Config().Inbox
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.Done():
			return
		case <-ticker.C:
		}
		msgs, _ = inbox.Drain(msgs[:0])
		c.SendInputs()
	}
}

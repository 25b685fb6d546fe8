package main

// -measure: what the secure transport costs against a bare UDP socket.
//
// The same world (server.Session, 1000 moving entities plus the client's
// player, 20 Hz) is served to one client that sends an input and an
// acknowledgement every tick, over loopback without impairment:
//
//   - over QUIC: server.Listen and client.Dial, exactly as the game runs;
//   - over bare UDP: the very same session packets written to and read
//     from a UDP socket pair by the minimal loop below (a measuring
//     device, not a transport: it has no handshake, no encryption, and
//     takes any packet from anyone).
//
// The client runs in a child process (this executable again, told so by
// the environment), so that the server's CPU time is the process's alone.
// Bytes are counted at the sockets: the UDP payload of every datagram,
// QUIC's headers, encryption tag and acknowledgements included (with
// quic-go's batched reads and segmented writes left on: the counting
// socket offers them). The handshake is timed in this process, from Dial
// to the server's Welcome.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/netsmooth/netsmooth/client"
	"github.com/netsmooth/netsmooth/internal/devauth"
	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/transport"
	"github.com/netsmooth/netsmooth/wire"
	"golang.org/x/net/ipv4"
)

// measureOptions configure -measure.
type measureOptions struct {
	entities   int
	seconds    float64 // measured per run
	warmUp     float64 // before each run's measurement
	repeats    int     // runs per transport, alternating
	handshakes int     // timed per kind of handshake
}

// flags registers the -measure-* flags.
func (m *measureOptions) flags(fs *flag.FlagSet) {
	fs.IntVar(&m.entities, "measure-entities", 1000, "-measure: entities in the world")
	fs.Float64Var(&m.seconds, "measure-seconds", 10, "-measure: seconds measured per run")
	fs.Float64Var(&m.warmUp, "measure-warmup", 2, "-measure: seconds before each run's measurement")
	fs.IntVar(&m.repeats, "measure-repeats", 5, "-measure: runs per transport (medians are reported)")
	fs.IntVar(&m.handshakes, "measure-handshakes", 20, "-measure: handshakes timed per kind (the median is reported)")
}

func (m *measureOptions) validate() error {
	switch {
	case m.entities < 1 || m.entities > maxEntities:
		return fmt.Errorf("-measure-entities must be within 1..%d", maxEntities)
	case !(m.seconds >= 0.1 && m.seconds <= 3600), !(m.warmUp >= 0 && m.warmUp <= 60):
		return errors.New("-measure-seconds must be within 0.1..3600, -measure-warmup within 0..60")
	case m.repeats < 1 || m.repeats > 100, m.handshakes < 1 || m.handshakes > 10000:
		return errors.New("-measure-repeats must be within 1..100, -measure-handshakes within 1..10000")
	}
	return nil
}

// Transports measured.
const (
	kindQUIC = "quic"
	kindUDP  = "udp"
)

// peerEnv names the environment variable that makes this executable the
// client side of a measurement; its value is a measurePeer as JSON.
const peerEnv = "NETPLAY_MEASURE_PEER"

// measurePeer tells the child process what to connect to.
type measurePeer struct {
	Kind   string         `json:"kind"`
	Ticket devauth.Ticket `json:"ticket"` // Addr only, for bare UDP
}

// peerMark is the child's counters, sent whenever the parent asks.
type peerMark struct {
	BytesIn, BytesOut uint64
	CPU               time.Duration
}

// runResult is one run's measures over its window.
type runResult struct {
	kind             string
	ticks            int
	elapsed          time.Duration
	down, up         float64 // bytes/s at the server's socket
	payDown, payUp   float64 // bytes/s of session packets
	cpuPerTick       float64 // ms, the server process
	sendPerTick      float64 // ms in SendSnapshots (or the bare loop's send)
	clientCPUPerTick float64 // ms, the client process
	fullSnapshots    uint64
	snapshots        uint64
}

// measure runs the comparison and prints the table.
func measure(ctx context.Context, m *measureOptions, w io.Writer) error {
	fmt.Fprintf(w, "netplay -measure: %d moving entities and one player, %d Hz, one client sending an input and an acknowledgement every tick, loopback, no impairment; %d runs of %g s per transport, medians\n",
		m.entities, tickRate, m.repeats, m.seconds)
	if _, ok := processCPU(); !ok {
		fmt.Fprintln(w, "(no process CPU time on this system: the CPU rows read 0)")
	}
	results := map[string][]runResult{}
	for i := range m.repeats {
		for _, kind := range []string{kindQUIC, kindUDP} {
			r, err := measureRun(ctx, m, kind)
			if err != nil {
				return fmt.Errorf("measure %s run %d: %w", kind, i+1, err)
			}
			fmt.Fprintf(w, "  run %d %-4s: down %.0f B/s, up %.0f B/s, server CPU %.3f ms/tick, send %.3f ms/tick, %d of %d snapshots full\n",
				i+1, kind, r.down, r.up, r.cpuPerTick, r.sendPerTick, r.fullSnapshots, r.snapshots)
			results[kind] = append(results[kind], r)
		}
	}
	hs, err := measureHandshakes(ctx, m.handshakes)
	if err != nil {
		return fmt.Errorf("measure handshakes: %w", err)
	}
	printMeasure(w, results, hs, m)
	return nil
}

// printMeasure writes the table of medians.
func printMeasure(w io.Writer, results map[string][]runResult, hs []handshakeResult, m *measureOptions) {
	q, u := results[kindQUIC], results[kindUDP]
	line := func(name, unit string, f func(r runResult) float64) {
		xq, xu := values(q, f), values(u, f)
		ratio := "—"
		if mu := medianOf(xu); mu > 0 {
			ratio = fmt.Sprintf("%.2f×", medianOf(xq)/mu)
		}
		fmt.Fprintf(w, "| %-46s | %-25s | %-25s | %-6s |\n", name+" ("+unit+")", spread(xq), spread(xu), ratio)
	}
	fmt.Fprintf(w, "\n| %-46s | %-25s | %-25s | %-6s |\n", "median (min–max) over runs", "QUIC datagrams", "bare UDP", "ratio")
	fmt.Fprintf(w, "|%s|%s|%s|%s|\n", dashes(48), dashes(27), dashes(27), dashes(8))
	line("server → client at the socket", "B/s", func(r runResult) float64 { return r.down })
	line("client → server at the socket", "B/s", func(r runResult) float64 { return r.up })
	line("server → client, session packets", "B/s", func(r runResult) float64 { return r.payDown })
	line("client → server, session packets", "B/s", func(r runResult) float64 { return r.payUp })
	line("server CPU per tick, whole process", "ms", func(r runResult) float64 { return r.cpuPerTick })
	line("server time in SendSnapshots per tick", "ms", func(r runResult) float64 { return r.sendPerTick })
	line("client CPU per tick, whole process", "ms", func(r runResult) float64 { return r.clientCPUPerTick })
	fmt.Fprintf(w, "\n| %-46s | %-25s |\n", fmt.Sprintf("handshake on loopback, median of %d (min–max)", m.handshakes), "ms")
	fmt.Fprintf(w, "|%s|%s|\n", dashes(48), dashes(27))
	for _, h := range hs {
		fmt.Fprintf(w, "| %-46s | %-25s |\n", h.name, fmt.Sprintf("%.2f (%.2f–%.2f)", h.median, h.min, h.max))
	}
	fmt.Fprintln(w, "\nSession packets are the snapshots and inputs the codec writes, the same bytes either way; at the socket QUIC adds its")
	fmt.Fprintln(w, "header, encryption tag and acknowledgements. SendSnapshots encodes and queues (QUIC encrypts and writes on its own")
	fmt.Fprintln(w, "goroutines, counted in the process CPU); the bare loop encodes and writes. Bare UDP has no handshake: its row is")
	fmt.Fprintln(w, "one round trip, the least any join costs. Both include the simulation's own work: setting every entity each tick.")
}

// dashes is a table rule n wide.
func dashes(n int) string { return strings.Repeat("-", n) }

// values returns f of every run.
func values(rs []runResult, f func(runResult) float64) []float64 {
	xs := make([]float64, len(rs))
	for i, r := range rs {
		xs[i] = f(r)
	}
	return xs
}

// medianOf returns the median of xs (NaN for none).
func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// spread formats the median of xs, with their range when there are
// several.
func spread(xs []float64) string {
	m := medianOf(xs)
	format := "%.0f"
	if m < 100 {
		format = "%.3f"
	}
	if len(xs) < 2 {
		return fmt.Sprintf(format, m)
	}
	return fmt.Sprintf(format+" ("+format+"–"+format+")", m, slices.Min(xs), slices.Max(xs))
}

// measureRun serves the world over kind for the warm-up and the measured
// window, to a client in a child process.
func measureRun(ctx context.Context, m *measureOptions, kind string) (runResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pc, err := listenCounting("127.0.0.1:0")
	if err != nil {
		return runResult{}, err
	}
	var h host
	switch kind {
	case kindQUIC:
		h, err = newQUICHost(ctx, pc)
	default:
		h, err = newUDPHost(pc)
	}
	if err != nil {
		pc.Close()
		return runResult{}, err
	}
	defer h.close()
	peer, err := startPeer(ctx, measurePeer{Kind: kind, Ticket: h.ticket()})
	if err != nil {
		return runResult{}, err
	}
	defer peer.stop()

	world := newMeasureWorld(h.session(), m.entities)
	t := time.NewTicker(time.Second / tickRate)
	defer t.Stop()
	warm := int(m.warmUp * tickRate)
	total := warm + max(1, int(m.seconds*tickRate))
	var (
		start                   time.Time
		cpu0                    time.Duration
		in0, out0               uint64
		stats0                  server.ClientStats
		mark0                   peerMark
		sendTime                time.Duration
		ticks                   int
		id                      server.ClientID
		hasPlayer, hasStartMark bool
	)
	// The window opens before the send of tick warm and closes before
	// the send of tick total: QUIC sends on its own goroutines, and a
	// tick's packets are on the wire well before the next tick.
	for i := 0; i <= total; i++ {
		select {
		case <-ctx.Done():
			return runResult{}, ctx.Err()
		case <-peer.exited:
			return runResult{}, fmt.Errorf("the client exited early: %v", peer.err)
		case <-t.C:
		}
		if !hasPlayer {
			id, hasPlayer = h.player()
		}
		if i == warm {
			if !hasPlayer {
				return runResult{}, errors.New("the client did not join during the warm-up")
			}
			if mark0, err = peer.mark(); err != nil {
				return runResult{}, err
			}
			hasStartMark = true
			start = time.Now()
			cpu0, _ = processCPU()
			in0, out0 = pc.in.Load(), pc.out.Load()
			stats0, _ = h.session().Stats(id)
		}
		if i == total {
			break
		}
		if err := world.step(id, hasPlayer); err != nil {
			return runResult{}, err
		}
		t0 := time.Now()
		if err := h.send(); err != nil {
			return runResult{}, err
		}
		if hasStartMark {
			sendTime += time.Since(t0)
			ticks++
		}
	}
	elapsed := time.Since(start)
	cpu1, _ := processCPU()
	in1, out1 := pc.in.Load(), pc.out.Load()
	stats1, _ := h.session().Stats(id)
	mark1, err := peer.mark()
	if err != nil {
		return runResult{}, err
	}
	secs := elapsed.Seconds()
	perTick := func(d time.Duration) float64 { return ms(d) / float64(ticks) }
	return runResult{
		kind: kind, ticks: ticks, elapsed: elapsed,
		down:             float64(out1-out0) / secs,
		up:               float64(in1-in0) / secs,
		payDown:          float64(stats1.BytesSent-stats0.BytesSent) / secs,
		payUp:            float64(stats1.BytesReceived-stats0.BytesReceived) / secs,
		cpuPerTick:       perTick(cpu1 - cpu0),
		sendPerTick:      perTick(sendTime),
		clientCPUPerTick: perTick(mark1.CPU - mark0.CPU),
		fullSnapshots:    stats1.FullSnapshots - stats0.FullSnapshots,
		snapshots:        stats1.Snapshots - stats0.Snapshots,
	}, nil
}

// measureWorld is the measured world: entities circling, and the
// client's player stepped by its inputs, as the game server does.
type measureWorld struct {
	sess   *server.Session
	n      int
	tick   uint32
	player scenario.Mover
	last   scenario.Stick
	q      wire.Quantizer
	buf    []byte
}

// newMeasureWorld sets a world of n entities on sess.
func newMeasureWorld(sess *server.Session, n int) *measureWorld {
	return &measureWorld{sess: sess, n: n, q: wire.DefaultQuantizer()}
}

// step runs a tick of the simulation: the player's inputs, every entity
// set.
func (w *measureWorld) step(id server.ClientID, hasPlayer bool) error {
	if hasPlayer {
		for {
			in, err := w.sess.NextInput(id, w.buf[:0])
			if err != nil || in.Status == server.InputEmpty {
				break
			}
			if in.Status == server.InputReady {
				w.buf = in.Payload
				w.last = decodeStick(in.Payload)
			}
			w.player = quantized(w.q, scenario.StepMover(w.player, w.last, 1.0/tickRate))
		}
	}
	w.tick++
	if err := w.sess.BeginTick(w.tick); err != nil {
		return err
	}
	for k := range w.n {
		if err := w.sess.SetEntity(entityAt(k, w.tick, w.n)); err != nil {
			return err
		}
	}
	if hasPlayer {
		return w.sess.SetEntity(playerEntity(playerBase+uint32(id), w.player))
	}
	return nil
}

// host is the server end of a measured run.
type host interface {
	session() *server.Session
	// player returns the client's ID once it has joined (and has been
	// assigned its player).
	player() (server.ClientID, bool)
	// send sends the tick's snapshot.
	send() error
	// ticket is what the client needs to connect.
	ticket() devauth.Ticket
	close()
}

// quicHost is the real server.
type quicHost struct {
	srv    *server.Server
	auth   *devauth.Backend
	events []server.Event
	id     server.ClientID
	joined bool
}

// newQUICHost starts a server on pc, with a development backend.
func newQUICHost(ctx context.Context, pc net.PacketConn) (*quicHost, error) {
	auth, err := devauth.New()
	if err != nil {
		return nil, err
	}
	srv, err := server.Listen(ctx, server.Config{PacketConn: pc, Tokens: auth.Tokens(), TickRate: tickRate})
	if err != nil {
		return nil, err
	}
	return &quicHost{srv: srv, auth: auth}, nil
}

func (h *quicHost) session() *server.Session { return h.srv.Session() }

func (h *quicHost) player() (server.ClientID, bool) {
	h.events = h.srv.Events(h.events[:0])
	for _, ev := range h.events {
		if ev.Kind == server.Join && !h.joined {
			if err := h.srv.Session().Assign(ev.Client, playerBase+uint32(ev.Client)); err == nil {
				h.id, h.joined = ev.Client, true
			}
		}
	}
	return h.id, h.joined
}

func (h *quicHost) send() error { return h.srv.SendSnapshots() }

func (h *quicHost) ticket() devauth.Ticket {
	t, _ := h.auth.Ticket(devauth.Ticket{Addr: h.srv.Addr().String(), CertHash: devauth.HashString(h.srv.CertHash())}, false)
	return t
}

func (h *quicHost) close() { h.srv.Close() }

// udpHost is the bare UDP loop: the session's packets to and from
// whoever sent the last input packet. It is a measuring device only: it
// has no handshake, no encryption and no authentication, which is what
// the secure transport replaced.
type udpHost struct {
	pc      *countingConn
	sess    *server.Session
	start   time.Time
	peer    atomic.Pointer[net.UDPAddr]
	packets [][]byte
	wg      sync.WaitGroup
}

// newUDPHost serves a session with client 1, whose player is assigned,
// on pc.
func newUDPHost(pc *countingConn) (*udpHost, error) {
	sess, err := server.NewSession(server.SessionConfig{})
	if err != nil {
		return nil, err
	}
	if err := sess.Connect(1); err != nil {
		return nil, err
	}
	if err := sess.Assign(1, playerBase+1); err != nil {
		return nil, err
	}
	h := &udpHost{pc: pc, sess: sess, start: time.Now()}
	h.wg.Add(1)
	go h.read()
	return h, nil
}

// read hands every datagram to the session until the socket closes.
func (h *udpHost) read() {
	defer h.wg.Done()
	buf := make([]byte, 65536)
	for {
		n, addr, err := h.pc.ReadFromUDP(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		h.peer.Store(addr)
		h.sess.Receive(1, buf[:n], h.now())
	}
}

func (h *udpHost) now() uint32 { return uint32(time.Since(h.start).Milliseconds()) }

func (h *udpHost) session() *server.Session { return h.sess }

func (h *udpHost) player() (server.ClientID, bool) { return 1, h.peer.Load() != nil }

func (h *udpHost) send() error {
	to := h.peer.Load()
	if to == nil {
		return nil
	}
	packets, err := h.sess.Snapshot(1, h.now(), h.packets[:0])
	h.packets = packets
	if err != nil {
		return err
	}
	for _, b := range packets {
		h.pc.WriteTo(b, to) // a full socket buffer drops it, as UDP does
	}
	return nil
}

func (h *udpHost) ticket() devauth.Ticket { return devauth.Ticket{Addr: h.pc.LocalAddr().String()} }

func (h *udpHost) close() {
	h.pc.Close()
	h.wg.Wait()
}

// countingConn is a UDP socket that counts the payload bytes of the
// datagrams it sends and receives, through every way quic-go uses it:
// single reads and writes, batched reads (recvmmsg) and segmented writes
// (GSO: a write carries several datagrams, all counted).
type countingConn struct {
	*net.UDPConn
	batch   *ipv4.PacketConn
	in, out atomic.Uint64
}

// listenCounting opens a counting UDP socket on addr.
func listenCounting(addr string) (*countingConn, error) {
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, err
	}
	u, err := net.ListenUDP("udp", ua)
	if err != nil {
		return nil, err
	}
	_ = u.SetReadBuffer(4 << 20) // as transport.Listen does
	_ = u.SetWriteBuffer(4 << 20)
	return &countingConn{UDPConn: u, batch: ipv4.NewPacketConn(u)}, nil
}

// ReadFrom implements net.PacketConn.
func (c *countingConn) ReadFrom(b []byte) (int, net.Addr, error) {
	n, addr, err := c.UDPConn.ReadFrom(b)
	c.in.Add(uint64(n))
	return n, addr, err
}

// ReadFromUDP reads a datagram.
func (c *countingConn) ReadFromUDP(b []byte) (int, *net.UDPAddr, error) {
	n, addr, err := c.UDPConn.ReadFromUDP(b)
	c.in.Add(uint64(n))
	return n, addr, err
}

// WriteTo implements net.PacketConn.
func (c *countingConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	n, err := c.UDPConn.WriteTo(b, addr)
	c.out.Add(uint64(n))
	return n, err
}

// ReadMsgUDP reads a datagram with its control messages.
func (c *countingConn) ReadMsgUDP(b, oob []byte) (n, oobn, flags int, addr *net.UDPAddr, err error) {
	n, oobn, flags, addr, err = c.UDPConn.ReadMsgUDP(b, oob)
	c.in.Add(uint64(n))
	return n, oobn, flags, addr, err
}

// WriteMsgUDP writes a datagram, or several segments of one size (GSO).
func (c *countingConn) WriteMsgUDP(b, oob []byte, addr *net.UDPAddr) (n, oobn int, err error) {
	n, oobn, err = c.UDPConn.WriteMsgUDP(b, oob, addr)
	c.out.Add(uint64(n))
	return n, oobn, err
}

// ReadBatch reads several datagrams at once (recvmmsg).
func (c *countingConn) ReadBatch(ms []ipv4.Message, flags int) (int, error) {
	n, err := c.batch.ReadBatch(ms, flags)
	for i := range n {
		c.in.Add(uint64(ms[i].N))
	}
	return n, err
}

// peerProc is the child process running the client.
type peerProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Scanner
	exited chan struct{}
	err    error
}

// startPeer starts this executable as the client of p.
func startPeer(ctx context.Context, p measurePeer) (*peerProc, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cfg, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), peerEnv+"="+string(cfg))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	pp := &peerProc{cmd: cmd, stdin: stdin, out: bufio.NewScanner(stdout), exited: make(chan struct{})}
	go func() {
		pp.err = cmd.Wait()
		close(pp.exited)
	}()
	return pp, nil
}

// mark asks the child for its counters.
func (p *peerProc) mark() (peerMark, error) {
	var m peerMark
	if _, err := io.WriteString(p.stdin, "mark\n"); err != nil {
		return m, fmt.Errorf("asking the client for its counters: %w", err)
	}
	if !p.out.Scan() {
		return m, fmt.Errorf("the client's counters: %v", p.out.Err())
	}
	return m, json.Unmarshal(p.out.Bytes(), &m)
}

// stop tells the child to leave and waits for it.
func (p *peerProc) stop() {
	p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-p.exited
	}
}

// measurePeerFromEnv reports whether this process is a measurement's
// client, and what it connects to.
func measurePeerFromEnv() (measurePeer, bool) {
	v, ok := os.LookupEnv(peerEnv)
	if !ok {
		return measurePeer{}, false
	}
	var p measurePeer
	if err := json.Unmarshal([]byte(v), &p); err != nil {
		p.Kind = "invalid: " + err.Error()
	}
	return p, true
}

// runMeasurePeer is the measured client: it connects as p says, sends an
// input and an acknowledgement every tick, writes its counters to out
// for every line read from in, and leaves when in ends.
func runMeasurePeer(p measurePeer, in io.Reader, out io.Writer) error {
	pc, err := listenCounting("127.0.0.1:0")
	if err != nil {
		return err
	}
	defer pc.Close()
	inbox := systems.NewInbox(0)
	cfg := client.SessionConfig{Inbox: inbox, OnOwn: func(client.Own) {}}
	var (
		sess *client.Session
		send func() error
	)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	switch p.Kind {
	case kindQUIC:
		tok, err := p.Ticket.RawToken()
		if err != nil {
			return err
		}
		hash, err := p.Ticket.Hash()
		if err != nil {
			return err
		}
		cli, err := client.Dial(ctx, p.Ticket.Addr, client.Config{Token: tok, Session: cfg,
			Transport: transport.DialConfig{CertHashes: [][32]byte{hash}, PacketConn: pc}})
		if err != nil {
			return err
		}
		defer cli.Close()
		sess, send = cli.Session(), cli.SendInputs
	case kindUDP:
		to, err := net.ResolveUDPAddr("udp", p.Ticket.Addr)
		if err != nil {
			return err
		}
		cfg.TickRate = tickRate
		if sess, err = client.NewSession(cfg); err != nil {
			return err
		}
		start := time.Now()
		now := func() uint32 { return uint32(time.Since(start).Milliseconds()) }
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 65536)
			for {
				n, _, err := pc.ReadFromUDP(buf)
				if errors.Is(err, net.ErrClosed) {
					return
				}
				if err == nil {
					sess.Receive(buf[:n], now())
				}
			}
		}()
		defer wg.Wait()
		defer pc.Close()
		var buf []byte
		send = func() error {
			b, err := sess.InputPacket(now(), buf[:0])
			buf = b
			if err != nil {
				return err
			}
			_, err = pc.WriteTo(b, to)
			return err
		}
	default:
		return fmt.Errorf("unknown kind %q", p.Kind)
	}

	marks := make(chan struct{})
	go func() {
		defer close(marks)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			marks <- struct{}{}
		}
	}()
	t := time.NewTicker(time.Second / tickRate)
	defer t.Stop()
	var msgs []systems.Message
	var seq uint32
	for {
		select {
		case _, ok := <-marks:
			if !ok {
				return nil
			}
			cpu, _ := processCPU()
			b, _ := json.Marshal(peerMark{BytesIn: pc.in.Load(), BytesOut: pc.out.Load(), CPU: cpu})
			if _, err := fmt.Fprintf(out, "%s\n", b); err != nil {
				return err
			}
		case <-t.C:
			msgs, _ = inbox.Drain(msgs[:0])
			seq++
			if err := sess.QueueInput(seq, encodeStick(nil, script(uint64(seq)))); err != nil {
				return err
			}
			if err := send(); err != nil {
				return err
			}
		}
	}
}

// handshakeResult is one kind of handshake's times, in ms.
type handshakeResult struct {
	name             string
	median, min, max float64
}

// measureHandshakes times n handshakes of each kind, after one not
// counted.
func measureHandshakes(ctx context.Context, n int) ([]handshakeResult, error) {
	var out []handshakeResult
	for _, c := range []struct {
		name  string
		retry transport.RetryPolicy
		wt    bool
	}{
		{"QUIC, Dial → Welcome, with Retry (default)", transport.RetryAlways, false},
		{"QUIC, Dial → Welcome, without Retry", transport.RetryUnderLoad, false},
		{"WebTransport, Dial → Welcome, with Retry", transport.RetryAlways, true},
	} {
		times, err := timeHandshakes(ctx, n, c.retry, c.wt)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		out = append(out, summarize(c.name, times))
	}
	rtts, err := timeUDPRoundTrips(n)
	if err != nil {
		return nil, err
	}
	return append(out, summarize("bare UDP: no handshake; one round trip", rtts)), nil
}

// summarize takes the median and range of times.
func summarize(name string, times []float64) handshakeResult {
	return handshakeResult{name: name, median: medianOf(times), min: slices.Min(times), max: slices.Max(times)}
}

// timeHandshakes connects n+1 clients to a fresh server one after the
// other and returns the times of the last n, from Dial to Welcome.
func timeHandshakes(ctx context.Context, n int, retry transport.RetryPolicy, webTransport bool) ([]float64, error) {
	auth, err := devauth.New()
	if err != nil {
		return nil, err
	}
	srv, err := server.Listen(ctx, server.Config{Tokens: auth.Tokens(), Retry: retry})
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	var times []float64
	for i := range n + 1 {
		tok, err := auth.Issue(srv.Addr().String(), false)
		if err != nil {
			return nil, err
		}
		cfg := client.Config{Token: tok, Transport: transport.DialConfig{CertHashes: [][32]byte{srv.CertHash()}},
			Session: client.SessionConfig{Inbox: systems.NewInbox(0)}}
		start := time.Now()
		var cli *client.Client
		if webTransport {
			cli, err = client.DialWebTransport(ctx, srv.WebTransportURL("127.0.0.1"), cfg)
		} else {
			cli, err = client.Dial(ctx, srv.Addr().String(), cfg)
		}
		took := time.Since(start)
		if err != nil {
			return nil, err
		}
		cli.Close()
		if i > 0 {
			times = append(times, ms(took))
		}
		srv.Events(nil) // let the joins and leaves go
	}
	return times, nil
}

// timeUDPRoundTrips times n+1 round trips of a Hello-sized datagram
// between two UDP sockets on loopback and returns the last n.
func timeUDPRoundTrips(n int) ([]float64, error) {
	a, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	defer a.Close()
	b, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the echo
		defer wg.Done()
		buf := make([]byte, 2048)
		for {
			k, from, err := b.ReadFromUDP(buf)
			if err != nil {
				return
			}
			b.WriteToUDP(buf[:k], from)
		}
	}()
	defer wg.Wait()
	defer b.Close()
	msg := make([]byte, 160) // about a Hello with a token
	buf := make([]byte, 2048)
	var times []float64
	for i := range n + 1 {
		start := time.Now()
		if _, err := a.WriteToUDP(msg, b.LocalAddr().(*net.UDPAddr)); err != nil {
			return nil, err
		}
		a.SetReadDeadline(time.Now().Add(time.Second))
		if _, _, err := a.ReadFromUDP(buf); err != nil {
			return nil, err
		}
		if i > 0 {
			times = append(times, ms(time.Since(start)))
		}
	}
	return times, nil
}

package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/internal/devauth"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/wire"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if peer, ok := measurePeerFromEnv(); ok {
		// The measured client of TestMeasure, in a process of its own.
		if err := runMeasurePeer(peer, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "measure peer:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// lossy is the end-to-end tests' network, each way: 50 ± 10 ms, 10% loss.
func lossy(entities int) *options {
	return &options{role: "both", addr: "127.0.0.1:0", entities: entities, moving: 1, fps: 60,
		latency: 50 * time.Millisecond, jitter: 10 * time.Millisecond, loss: 0.1, seed: 1}
}

// testServer runs a game server until stop is called.
type testServer struct {
	*gameServer
	stop func() error
}

// serve starts a game server on addr, with a backend of its own.
func serve(t *testing.T, o *options, addr string) *testServer {
	t.Helper()
	auth, err := devauth.New()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	g, err := startServer(ctx, o, addr, auth, testLog(t, "server"))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	return spawn(g, cancel)
}

// spawn runs g until the returned server's stop.
func spawn(g *gameServer, cancel context.CancelFunc) *testServer {
	ctx, stopCtx := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.run(ctx) }()
	s := &testServer{gameServer: g}
	var once sync.Once
	var err error
	s.stop = func() error {
		once.Do(func() {
			stopCtx()
			cancel()
			err = <-done
		})
		return err
	}
	return s
}

// connect starts a client with the tickets of tickets.
func connect(t *testing.T, o *options, tickets ticketFunc) *gameClient {
	t.Helper()
	c, err := startClient(context.Background(), o, tickets, testLog(t, "client"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// runFor runs c for d.
func runFor(c *gameClient, d time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	c.run(ctx)
}

// stallGap is the longest pause in a client's frames or a server's ticks
// the timing tests take for the code's: the machine is shared, and another
// process may take the CPU for a second, which a run on the wall clock
// then measures instead.
const stallGap = 250 * time.Millisecond

// steadily runs attempt, which returns the longest pause it saw, until it
// ran without a stall, three times at most.
func steadily(t *testing.T, attempt func() (stall time.Duration)) {
	t.Helper()
	for i := 1; ; i++ {
		stall := attempt()
		if stall <= stallGap || i == 3 {
			return
		}
		t.Logf("attempt %d: the machine stalled the test for %v; running it again", i, stall)
	}
}

// testLog is a writer that logs each line to t, prefixed.
func testLog(t *testing.T, prefix string) io.Writer {
	return writerFunc(func(b []byte) (int, error) {
		t.Logf("%s| %s", prefix, strings.TrimRight(string(b), "\n"))
		return len(b), nil
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(b)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Over loopback with 50 ± 10 ms and 10% loss each way, 1000 entities at
// 10 units/s: what the client draws stays within 0.05 units RMS of the
// server's truth at the tick it draws, its player (the NetID the server
// gave it) reconciles without a hard cut, and every message the session
// pushed is counted by the pipeline.
func TestEndToEnd(t *testing.T) {
	defer goleak.VerifyNone(t)
	o := lossy(1000)
	var (
		s     *testServer
		c     *gameClient
		id    server.ClientID
		sst   server.ClientStats
		ticks uint32
	)
	steadily(t, func() time.Duration {
		s = serve(t, o, o.addr)
		c = connect(t, o, s.ticket)
		done := make(chan struct{})
		go func() {
			defer close(done)
			runFor(c, 9*time.Second) // long enough to measure the server's tick rate (3 windows of 2 s)
		}()
		id = server.ClientID(c.conns[0].Welcome().ClientID)
		time.Sleep(8500 * time.Millisecond)
		sst, _ = s.srv.Session().Stats(id) // while the client is connected
		ticks = s.srv.Session().Tick()
		<-done
		if err := s.stop(); err != nil {
			t.Fatal(err)
		}
		return max(c.stalled(), s.stalled())
	})
	cli := c.conns[0]
	rms, maxErr, n := c.drawnError(c.frames[0].at.Add(warmUp))
	m := c.pipe.Metrics()
	st := cli.Session().Stats()
	ts := cli.Stats()
	sync, _ := cli.Session().Sync()
	t.Logf("drawn error RMS %.4f, max %.3f units over %d entity-frames; delay %.0f ms; underrun frames %d of %d; corrections %d; reconciles %d, hard cuts %d, max prediction error %.3f",
		rms, maxErr, n, m.ActualDelay*1000, m.UnderrunFrames, m.Frames, m.Corrections, m.Reconciles, m.HardCuts, m.MaxPredictionError)
	t.Logf("RTT %.1f ms, latency %.1f ms; down lost %d, up unacknowledged %d (link %d); pushed %d + own %d, pipeline counted %d; server tick rate measured %.2f Hz; server: %d inputs applied, %d lost, %d throttled",
		sync.RTT, sync.Latency, st.PacketsLost, st.PacketsUnacked, ts.Link.Lost, st.Pushed, st.Own, m.Received(), m.ServerTickRate,
		sst.InputsApplied, sst.InputsLost, sst.InputsThrottled)
	if n < 100_000 || !(rms < 0.05) {
		t.Errorf("drawn error RMS %.4f over %d entity-frames, want < 0.05", rms, n)
	}
	if want := components.NetID(playerBase + uint32(id)); c.meID != want || !c.hasMe || sst.NetID != uint32(want) {
		t.Errorf("the player is NetID %d (predicted: %v), server stats %d, want the server's %d", c.meID, c.hasMe, sst.NetID, want)
	}
	if m.HardCuts != 0 || m.Reconciles < 50 {
		t.Errorf("%d hard cuts in %d reconciliations", m.HardCuts, m.Reconciles)
	}
	if got := m.Received(); got != st.Pushed+st.Own || st.Pushed == 0 {
		t.Errorf("the pipeline counted %d messages, the session pushed %d and %d own", got, st.Pushed, st.Own)
	}
	if st.Restarts != 0 || st.BadPackets != 0 || st.SeqJumps != 0 || st.Diverged != 0 || len(c.conns) != 1 || len(c.ends) != 0 {
		t.Errorf("session %+v; %d connections, ends %v", st, len(c.conns), c.ends)
	}
	if st.PacketsLost == 0 || ts.Link.Lost == 0 {
		t.Error("nothing was lost: the test does not test loss")
	}
	// Measured on the wall clock, through a lossy, jittery link.
	if m.TickRateMismatch || math.Abs(m.ServerTickRate-tickRate) > 0.02*tickRate {
		t.Errorf("server tick rate measured %.2f Hz (mismatch %v), the server ticks at %d", m.ServerTickRate, m.TickRateMismatch, tickRate)
	}
	// The session paces the inputs: the player is stepped once per tick.
	if sst.InputsApplied < 100 || sst.InputsApplied+sst.InputsLost > uint64(ticks) {
		t.Errorf("%d inputs applied and %d lost in %d ticks", sst.InputsApplied, sst.InputsLost, ticks)
	}
}

// A server restarted mid-session on the same port, its ticks from 0 and
// the same NetIDs: the client's connection ends with ReasonShutdown, it
// fetches a new ticket and connects again, with a fresh session into the
// same pipeline, and the entities are drawn right again within 2 s of the
// new server's first snapshot.
//
// The link has its latency, jitter and loss: late parts of one tick arrive
// a frame after the others, which the clock's evidence must tolerate.
func TestServerRestart(t *testing.T) {
	defer goleak.VerifyNone(t)
	o := lossy(500)
	var (
		a, b *testServer
		c    *gameClient
	)
	steadily(t, func() time.Duration {
		var cur atomic.Pointer[testServer]
		tickets := func(ctx context.Context) (devauth.Ticket, error) {
			if s := cur.Load(); s != nil {
				return s.ticket(ctx)
			}
			return devauth.Ticket{}, errors.New("no server")
		}
		a = serve(t, o, o.addr)
		cur.Store(a)
		addr := a.srv.Addr().String()
		c = connect(t, o, tickets)
		clientDone := make(chan struct{})
		go func() {
			defer close(clientDone)
			runFor(c, 6*time.Second)
		}()
		time.Sleep(2500 * time.Millisecond)
		cur.Store(nil)
		if err := a.stop(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		b = serve(t, o, addr)
		cur.Store(b)
		<-clientDone
		if err := b.stop(); err != nil {
			t.Fatal(err)
		}
		return max(c.stalled(), a.stalled(), b.stalled())
	})

	first := b.firstSnapshot()
	if first.IsZero() {
		t.Fatal("the new server sent nothing")
	}
	if len(c.ends) != 1 || c.ends[0].reason != wire.ReasonShutdown || len(c.conns) != 2 || c.over != nil {
		t.Fatalf("connections %d, ends %+v, stopped %v: want one end (shutdown) and a second connection", len(c.conns), c.ends, c.over)
	}
	// Recovered: from this frame on, every frame draws at least 90% of the
	// entities within 0.05 units RMS of the truth.
	var recovered time.Time
	good := 0
	for _, f := range c.frames {
		ok := f.n >= o.entities*9/10 && f.rms() < 0.05
		switch {
		case !ok:
			recovered = time.Time{}
		case recovered.IsZero():
			recovered = f.at
		}
		if ok && f.at.After(first) {
			good++
		}
	}
	st := c.conns[1].Session().Stats()
	if recovered.IsZero() || good < 60 {
		t.Fatalf("never recovered (%d good frames after the restart); new session %+v", good, st)
	}
	took := recovered.Sub(first)
	t.Logf("disconnected at +%v; the new server's first snapshot at +%v; entities drawn right again %v later",
		c.ends[0].at.Sub(c.frames[0].at).Round(time.Millisecond), first.Sub(c.frames[0].at).Round(time.Millisecond), took.Round(time.Millisecond))
	if took > 2*time.Second {
		t.Errorf("recovered %v after the new server's first snapshot, want within 2 s", took)
	}
	if st.Restarts != 0 || !c.hasMe || c.meID != components.NetID(c.conns[1].Session().NetID()) {
		t.Errorf("new session %+v; predicting %v NetID %d", st, c.hasMe, c.meID)
	}
	if m := c.pipe.Metrics(); m.Received() != c.sumPushed()+c.despawned {
		t.Errorf("the pipeline counted %d messages, the sessions pushed %d and the client %d", m.Received(), c.sumPushed(), c.despawned)
	}
}

// sumPushed is what every session pushed into the pipeline.
func (c *gameClient) sumPushed() uint64 {
	var n uint64
	for _, cli := range c.conns {
		st := cli.Session().Stats()
		n += st.Pushed + st.Own
	}
	return n
}

// A server that vanishes without a word (its socket gone) is taken for
// lost when nothing arrives for idleTimeout: the client reports
// ReasonTimeout and reconnects to the next server.
func TestServerVanishes(t *testing.T) {
	defer goleak.VerifyNone(t)
	o := &options{role: "both", addr: "127.0.0.1:0", entities: 50, moving: 1, fps: 60, seed: 1}
	auth, err := devauth.New()
	if err != nil {
		t.Fatal(err)
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := serverConfig(o, "", auth)
	cfg.PacketConn = pc
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := server.Listen(ctx, cfg)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	a := spawn(newGameServer(srv, o, auth, testLog(t, "server a")), cancel)
	var cur atomic.Pointer[testServer]
	cur.Store(a)
	tickets := func(ctx context.Context) (devauth.Ticket, error) { return cur.Load().ticket(ctx) }
	c := connect(t, o, tickets)
	clientDone := make(chan struct{})
	go func() {
		defer close(clientDone)
		runFor(c, idleTimeout+3*time.Second)
	}()
	time.Sleep(time.Second)
	b := serve(t, o, o.addr)
	cur.Store(b)
	pc.Close() // the server's socket: nothing more goes out, not even a close
	<-clientDone
	a.stop()
	b.stop()
	if len(c.ends) != 1 || c.ends[0].reason != wire.ReasonTimeout || len(c.conns) != 2 {
		t.Fatalf("connections %d, ends %+v: want one end (timeout) and a second connection", len(c.conns), c.ends)
	}
	if st := c.conns[1].Session().Stats(); st.Ticks < 10 || !c.hasMe {
		t.Fatalf("the second connection: %+v, predicting %v", st, c.hasMe)
	}
}

// A kicked client says why and stops: it does not come back.
func TestKicked(t *testing.T) {
	defer goleak.VerifyNone(t)
	o := &options{role: "both", addr: "127.0.0.1:0", entities: 10, moving: 1, fps: 60, seed: 1}
	s := serve(t, o, o.addr)
	defer s.stop()
	var log syncBuffer
	c, err := startClient(context.Background(), o, s.ticket, &log)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(500 * time.Millisecond)
		s.srv.Kick(server.ClientID(c.conns[0].Welcome().ClientID), "no loitering")
	}()
	start := time.Now()
	runFor(c, 5*time.Second)
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the client ran %v after it was kicked", took)
	}
	if c.over == nil || reasonOf(c.over) != wire.ReasonKicked || len(c.conns) != 1 {
		t.Fatalf("stopped: %v; %d connections", c.over, len(c.conns))
	}
	if !strings.Contains(log.String(), "disconnected by the server: kicked (no loitering)") {
		t.Errorf("client log:\n%s", log.String())
	}
	var out bytes.Buffer
	c.report(time.Since(start), s.gameServer).print(&out, o)
	if !strings.Contains(out.String(), "| disconnected by                        | kicked |") {
		t.Errorf("report:\n%s", out.String())
	}
}

// Bandwidth for 1000 entities at 20 Hz, full snapshots against deltas,
// from the server's session counters for the client (loopback, no
// simulated network). Logged for the record; deltas must cost less.
func TestBandwidth(t *testing.T) {
	defer goleak.VerifyNone(t)
	measure := func(full bool, moving float64) (down, up float64) {
		o := &options{role: "both", addr: "127.0.0.1:0", entities: 1000, moving: moving, fps: 60, full: full}
		var (
			st server.ClientStats
			ok bool
		)
		steadily(t, func() time.Duration {
			s := serve(t, o, o.addr)
			c := connect(t, o, s.ticket)
			done := make(chan struct{})
			go func() {
				defer close(done)
				runFor(c, 2500*time.Millisecond)
			}()
			time.Sleep(2 * time.Second)
			st, ok = s.srv.Session().Stats(server.ClientID(c.conns[0].Welcome().ClientID))
			<-done
			if err := s.stop(); err != nil {
				t.Fatal(err)
			}
			return max(c.stalled(), s.stalled())
		})
		if !ok || st.Snapshots < 20 {
			t.Fatalf("server stats %+v", st)
		}
		secs := float64(st.Snapshots) / tickRate
		down, up = float64(st.BytesSent)/secs, float64(st.BytesReceived)/secs
		t.Logf("full %-5v moving %3.0f%%: down %6.0f B/s (%5.2f B/entity/tick), up %4.0f B/s; %d of %d snapshots full",
			full, moving*100, down, down/tickRate/1000, up, st.FullSnapshots, st.Snapshots)
		return down, up
	}
	fullDown, _ := measure(true, 1)
	deltaDown, _ := measure(false, 1)
	halfDown, _ := measure(false, 0.5)
	if !(deltaDown < fullDown && halfDown < deltaDown*0.7) {
		t.Errorf("down: full %.0f B/s, delta %.0f B/s, delta with half still %.0f B/s", fullDown, deltaDown, halfDown)
	}
}

// The command runs, prints its table and stops by itself.
func TestRun(t *testing.T) {
	defer goleak.VerifyNone(t)
	o, err := parse([]string{"-seconds", "1.5", "-entities", "100"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(context.Background(), &o, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"drawn error vs truth", "RTT (median)", "server clock offset: measured / true", "down: bytes/s",
		"| role                                   | player, NetID 20001 (the server's choice) |",
		"| connections / disconnections           | 1 / 0 |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "disconnected") {
		t.Errorf("a disconnection at the end of a run:\n%s", out.String())
	}
}

// Players get an entity each, the server's choice, and draw the others'
// players interpolated; a spectator draws every player and controls
// nothing.
func TestPlayers(t *testing.T) {
	defer goleak.VerifyNone(t)
	base := options{role: "both", addr: "127.0.0.1:0", entities: 10, moving: 1, fps: 60, seed: 1}
	s := serve(t, &base, base.addr)
	clients := make([]*gameClient, 4)
	for i := range clients {
		o := base
		o.seed, o.spectate = uint64(i+1), i == 3
		clients[i] = connect(t, &o, s.ticket)
	}
	// The clients stop together, while the server runs: none sees the
	// others leave.
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Go(func() { c.run(ctx) })
	}
	time.Sleep(1200 * time.Millisecond)
	players := s.assigned()
	watcher, _ := s.srv.Session().Stats(server.ClientID(clients[3].conns[0].Welcome().ClientID))
	wg.Wait()
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	var all []uint32
	for i, c := range clients[:3] {
		id := server.ClientID(c.conns[0].Welcome().ClientID)
		if want := playerBase + uint32(id); players[id] != want || uint32(c.meID) != want || !c.hasMe {
			t.Errorf("client %d: the server gave NetID %d, the client predicts %d (%v), want %d", i, players[id], c.meID, c.hasMe, want)
		}
		all = append(all, uint32(c.meID))
	}
	slices.Sort(all)
	if len(players) != 3 || len(slices.Compact(slices.Clone(all))) != 3 {
		t.Fatalf("players %v, predicted %v", players, all)
	}
	if !watcher.Spectator || watcher.NetID != 0 || watcher.InputsRefused != 0 || clients[3].hasMe {
		t.Errorf("the spectator: server stats %+v, predicting %v", watcher, clients[3].hasMe)
	}
	for i, c := range clients {
		var seen []uint32
		q := c.remote.Query(&c.world)
		for q.Next() {
			id, r, _ := q.Get()
			if isPlayer(uint32(*id)) && r.Flags&components.Visible != 0 {
				seen = append(seen, uint32(*id))
			}
		}
		slices.Sort(seen)
		want := slices.DeleteFunc(slices.Clone(all), func(id uint32) bool { return id == uint32(c.meID) })
		if !slices.Equal(seen, want) {
			t.Errorf("client %d (NetID %d) draws the players %v, want %v", i, c.meID, seen, want)
		}
	}
}

// A server and a client in separate roles find each other: the server
// serves tickets and says how to join, the client fetches one.
func TestRoles(t *testing.T) {
	defer goleak.VerifyNone(t)
	so, err := parse([]string{"-role", "server", "-addr", "127.0.0.1:0", "-ticket-addr", "127.0.0.1:0", "-entities", "10"}, io.Discard)
	if err != nil || so.seconds != 0 {
		t.Fatalf("%+v %v", so, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var srvOut syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, &so, &srvOut) }()
	var url string
	deadline := time.Now().Add(5 * time.Second)
	for url == "" {
		if time.Now().After(deadline) {
			cancel()
			<-done
			t.Fatalf("no join command in\n%s", srvOut.String())
		}
		time.Sleep(10 * time.Millisecond)
		if m := regexp.MustCompile(`join with: +go run ./examples/netplay -role client -ticket (\S+) -entities 10`).FindStringSubmatch(srvOut.String()); m != nil {
			url = m[1]
		}
	}
	co, err := parse([]string{"-role", "client", "-ticket", url, "-seconds", "1", "-entities", "10"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(context.Background(), &co, &out); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the server takes the leave in its next tick
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "entities drawn") || !strings.Contains(out.String(), "| 10 |") || !strings.Contains(out.String(), "NetID 20001") {
		t.Errorf("client output:\n%s", out.String())
	}
	for _, want := range []string{"self-signed certificate, SHA-256", "client 1 joined over QUIC", "client 1 left: left",
		"clients connected / joins / leaves     | 0 / 1 / 1 |"} {
		if !strings.Contains(srvOut.String(), want) {
			t.Errorf("no %q in the server's output:\n%s", want, srvOut.String())
		}
	}
	// With no server, the client says what to run.
	co.ticket = url
	if err := run(context.Background(), &co, io.Discard); err == nil || !strings.Contains(err.Error(), "-role server") {
		t.Errorf("a client without a server: %v", err)
	}
}

func TestFlags(t *testing.T) {
	if _, err := parse([]string{"-h"}, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	for _, args := range [][]string{
		{"-role", "spectator"},
		{"-seconds", "-1"},
		{"-entities", "-1"},
		{"-entities", "16001"},
		{"-moving", "2"},
		{"-loss", "1"},
		{"-jitter", "-1ms"},
		{"-fps", "NaN"},
		{"-player", "20001"},
		{"-role", "server", "-ticket-addr", "0.0.0.0:7778"},
		{"-role", "server", "-spectate"},
		{"-role", "client", "-addr", "127.0.0.1:7777"},
		{"-ticket-addr", "127.0.0.1:7778"},
		{"-role", "server", "-ticket", "http://127.0.0.1:7778/ticket"},
		{"-measure", "-measure-repeats", "0"},
		{"stray"},
	} {
		if _, err := parse(args, io.Discard); err == nil {
			t.Errorf("%v: accepted", args)
		}
	}
	o, err := parse([]string{"-latency", "0", "-jitter", "0", "-loss", "0"}, io.Discard)
	if err != nil || o.impairment() != nil || o.addr != "127.0.0.1:0" || o.seconds != 10 {
		t.Fatalf("%+v %v", o, err)
	}
	if o, _ := parse([]string{"-role", "server"}, io.Discard); o.addr != "127.0.0.1:7777" || o.seconds != 0 {
		t.Fatalf("server address %q, seconds %v", o.addr, o.seconds)
	}
	if o, _ := parse([]string{"-role", "server", "-seconds", "5", "-ticket-addr", "[::1]:0"}, io.Discard); o.seconds != 5 {
		t.Fatalf("server seconds %v", o.seconds)
	}
	if f := (frameSample{}); !math.IsNaN(f.rms()) {
		t.Fatal("an empty frame has an error")
	}
}

package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/netsmooth/netsmooth/components"
	"go.uber.org/goleak"
)

// lossy is the end-to-end tests' network, each way: 50 ± 10 ms, 10% loss.
func lossy(entities int) *options {
	return &options{role: "both", addr: "127.0.0.1:0", entities: entities, moving: 1, fps: 60,
		latency: 50 * time.Millisecond, jitter: 10 * time.Millisecond, loss: 0.1, seed: 1, player: playerID}
}

// server runs a game server on addr until stop is called.
type server struct {
	*gameServer
	stop func() error
}

func serve(t *testing.T, o *options, addr string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	g, err := startServer(ctx, o, addr)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- g.run(ctx) }()
	s := &server{gameServer: g}
	s.stop = func() error {
		cancel()
		return <-done
	}
	return s
}

func connect(t *testing.T, o *options, addr string) *gameClient {
	t.Helper()
	c, err := startClient(context.Background(), o, addr)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Over loopback with 50 ± 10 ms and 10% loss each way, 1000 entities at
// 10 units/s: what the client draws stays within 0.05 units RMS of the
// server's truth at the tick it draws, its player reconciles without a
// hard cut, and every message the session pushed is counted by the
// pipeline.
func TestEndToEnd(t *testing.T) {
	defer goleak.VerifyNone(t)
	o := lossy(1000)
	s := serve(t, o, o.addr)
	c := connect(t, o, s.srv.Addr().String())
	c.run(context.Background(), 7*time.Second) // long enough to measure the server's tick rate
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	rms, maxErr, n := c.drawnError(c.frames[0].at.Add(warmUp))
	m := c.pipe.Metrics()
	st := c.cli.Session().Stats()
	ts := c.cli.Stats()
	sync, _ := c.cli.Session().Sync()
	t.Logf("drawn error RMS %.4f, max %.3f units over %d entity-frames; delay %.0f ms; underrun frames %d of %d; corrections %d; reconciles %d, hard cuts %d, max prediction error %.3f",
		rms, maxErr, n, m.ActualDelay*1000, m.UnderrunFrames, m.Frames, m.Corrections, m.Reconciles, m.HardCuts, m.MaxPredictionError)
	t.Logf("RTT %.1f ms, latency %.1f ms; down lost %d (link %d), up unacknowledged %d (link %d); pushed %d + own %d, pipeline counted %d; server tick rate measured %.2f Hz",
		sync.RTT, sync.Latency, st.PacketsLost, s.srv.Stats().Link.Lost, st.PacketsUnacked, ts.Link.Lost, st.Pushed, st.Own, m.Received(), m.ServerTickRate)
	if n < 100_000 || !(rms < 0.05) {
		t.Errorf("drawn error RMS %.4f over %d entity-frames, want < 0.05", rms, n)
	}
	if m.HardCuts != 0 || m.Reconciles < 50 {
		t.Errorf("%d hard cuts in %d reconciliations", m.HardCuts, m.Reconciles)
	}
	if got := m.Received(); got != st.Pushed+st.Own || st.Pushed == 0 {
		t.Errorf("the pipeline counted %d messages, the session pushed %d and %d own", got, st.Pushed, st.Own)
	}
	if st.Restarts != 0 || st.BadPackets != 0 || ts.BadPackets != 0 {
		t.Errorf("session %+v, transport %+v", st, ts)
	}
	if st.PacketsLost == 0 || ts.Link.Lost == 0 {
		t.Error("nothing was lost: the test does not test loss")
	}
	// Measured on the wall clock, through a lossy, jittery socket.
	if m.TickRateMismatch || math.Abs(m.ServerTickRate-tickRate) > 0.02*tickRate {
		t.Errorf("server tick rate measured %.2f Hz (mismatch %v), the server ticks at %d", m.ServerTickRate, m.TickRateMismatch, tickRate)
	}
}

// A server restarted mid-session on the same port, its ticks from 0 and
// the same NetIDs: without restarting the client, the entities are drawn
// right again within 2 s of the new server's first snapshot.
//
// The link has its latency, jitter and loss: late parts of one tick arrive
// a frame after the others, which the clock's evidence must tolerate.
func TestServerRestart(t *testing.T) {
	defer goleak.VerifyNone(t)
	o := lossy(500)
	a := serve(t, o, o.addr)
	addr := a.srv.Addr().String()
	c := connect(t, o, addr)
	clientDone := make(chan struct{})
	go func() {
		defer close(clientDone)
		c.run(context.Background(), 6*time.Second)
	}()
	time.Sleep(2500 * time.Millisecond)
	if err := a.stop(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	b := serve(t, o, addr)
	<-clientDone
	if err := b.stop(); err != nil {
		t.Fatal(err)
	}

	first := b.firstSnapshot()
	if first.IsZero() {
		t.Fatal("the new server sent nothing")
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
	st := c.cli.Session().Stats()
	if recovered.IsZero() || good < 60 {
		t.Fatalf("never recovered (%d good frames after the restart); session %+v", good, st)
	}
	took := recovered.Sub(first)
	t.Logf("the new server's first snapshot at +%v; entities drawn right again %v later (restart noticed: %d)",
		first.Sub(c.frames[0].at).Round(time.Millisecond), took.Round(time.Millisecond), st.Restarts)
	if took > 2*time.Second {
		t.Errorf("recovered %v after the new server's first snapshot, want within 2 s", took)
	}
	if st.Restarts != 1 {
		t.Errorf("%d restarts noticed, want 1", st.Restarts)
	}
}

// Bandwidth for 1000 entities at 20 Hz, full snapshots against deltas,
// from the server's session counters for the client (loopback, no
// simulated network). Logged for the record; deltas must cost less.
func TestBandwidth(t *testing.T) {
	defer goleak.VerifyNone(t)
	measure := func(full bool, moving float64) (down, up float64) {
		o := &options{role: "both", addr: "127.0.0.1:0", entities: 1000, moving: moving, fps: 60, full: full, player: playerID}
		s := serve(t, o, o.addr)
		c := connect(t, o, s.srv.Addr().String())
		c.run(context.Background(), 2*time.Second)
		st, ok := s.srv.Session().Stats(1)
		if err := s.stop(); err != nil {
			t.Fatal(err)
		}
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
	for _, want := range []string{"drawn error vs truth", "RTT (median)", "server clock offset: measured / true", "down: bytes/s"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
}

// Clients of one server each play their own NetID and draw the others'
// players interpolated. A client that names a world entity or another
// client's player is given none: the server trusts no client.
func TestPlayers(t *testing.T) {
	defer goleak.VerifyNone(t)
	base := options{role: "both", addr: "127.0.0.1:0", entities: 10, moving: 1, fps: 60, seed: 1}
	s := serve(t, &base, base.addr)
	addr := s.srv.Addr().String()
	players := []uint{playerID, playerID + 1, playerID, 5} // the last two claim taken NetIDs
	clients := make([]*gameClient, len(players))
	for i, p := range players {
		o := base
		o.player, o.seed = p, uint64(i+1)
		clients[i] = connect(t, &o, addr)
	}
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.run(context.Background(), 1500*time.Millisecond)
		}()
	}
	time.Sleep(1200 * time.Millisecond)
	if err := s.stop(); err != nil { // the clients are still connected
		t.Fatal(err)
	}
	wg.Wait()
	var given []uint32
	for _, p := range s.players {
		if p.netID != 0 {
			given = append(given, p.netID)
		}
	}
	slices.Sort(given)
	if len(s.players) != 4 || !slices.Equal(given, []uint32{playerID, playerID + 1}) {
		t.Fatalf("%d clients, players given %v, want %d and %d", len(s.players), given, playerID, playerID+1)
	}
	for i, other := range []uint32{playerID + 1, playerID} {
		var seen []uint32
		q := clients[i].remote.Query(&clients[i].world)
		for q.Next() {
			id, r, _ := q.Get()
			if uint32(*id) > 10 && r.Flags&components.Visible != 0 {
				seen = append(seen, uint32(*id))
			}
		}
		if !slices.Equal(seen, []uint32{other}) {
			t.Errorf("client %d (player %d) draws the players %v, want [%d]", i, players[i], seen, other)
		}
	}
}

// A server and a client in separate roles find each other.
func TestRoles(t *testing.T) {
	defer goleak.VerifyNone(t)
	so, _ := parse([]string{"-role", "server", "-addr", "127.0.0.1:0", "-seconds", "1", "-entities", "10"}, io.Discard)
	g, err := startServer(context.Background(), &so, so.addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.run(ctx) }()
	co, _ := parse([]string{"-role", "client", "-addr", g.srv.Addr().String(), "-seconds", "1", "-entities", "10"}, io.Discard)
	var out bytes.Buffer
	if err := run(context.Background(), &co, &out); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var srvOut bytes.Buffer
	printServer(&srvOut, &so, g)
	if !strings.Contains(out.String(), "entities drawn") || !strings.Contains(out.String(), "| 10 |") {
		t.Errorf("client output:\n%s", out.String())
	}
	if !strings.Contains(srvOut.String(), "clients connected") {
		t.Errorf("server output:\n%s", srvOut.String())
	}
}

func TestFlags(t *testing.T) {
	if _, err := parse([]string{"-h"}, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	for _, args := range [][]string{
		{"-role", "spectator"},
		{"-seconds", "0"},
		{"-entities", "-1"},
		{"-moving", "2"},
		{"-loss", "1"},
		{"-jitter", "-1ms"},
		{"-fps", "NaN"},
		{"-player", "7"},
		{"-player", "4294967296"},
	} {
		if _, err := parse(args, io.Discard); err == nil {
			t.Errorf("%v: accepted", args)
		}
	}
	o, err := parse([]string{"-latency", "0", "-jitter", "0", "-loss", "0"}, io.Discard)
	if err != nil || o.impairment() != nil || o.addr != "127.0.0.1:0" {
		t.Fatalf("%+v %v", o, err)
	}
	if o, _ := parse([]string{"-role", "server"}, io.Discard); o.addr != "127.0.0.1:7777" {
		t.Fatalf("server address %q", o.addr)
	}
	if f := (frameSample{}); !math.IsNaN(f.rms()) {
		t.Fatal("an empty frame has an error")
	}
}

package client

import (
	"errors"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/transport"
	"github.com/netsmooth/netsmooth/wire"
)

func newTestSide(t testing.TB, cfg SessionConfig) *Session {
	t.Helper()
	if cfg.Inbox == nil {
		cfg.Inbox = systems.NewInbox(0)
	}
	c, err := NewSession(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// deliver sends the server's snapshot of the current tick for client 1
// to c, in order, at now.
func deliver(t *testing.T, s *server.Session, c *Session, now uint32) {
	t.Helper()
	packets, err := s.Snapshot(1, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range packets {
		if err := c.Receive(p, now); err != nil {
			t.Fatal(err)
		}
	}
}

// Events become kinds (Spawn wins over Teleport), every field is carried
// over, the controlled entity goes to OnOwn with the input ack, and a
// complete tick ends with its despawns and a Complete message.
func TestClientMessages(t *testing.T) {
	s := newServer(t, server.SessionConfig{})
	s.Connect(1)
	s.Assign(1, 9)
	inbox := systems.NewInbox(0)
	var owns []Own
	c := newTestSide(t, SessionConfig{Inbox: inbox, OnOwn: func(o Own) { owns = append(owns, o) }})

	// The server gets input 1.
	if err := c.QueueInput(1, []byte{7}); err != nil {
		t.Fatal(err)
	}
	pkt, err := c.InputPacket(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Receive(1, pkt, 0); err != nil {
		t.Fatal(err)
	}
	if in, _ := s.NextInput(1, nil); in.Status != server.InputReady || in.Seq != 1 {
		t.Fatalf("server input %+v", in)
	}

	s.BeginTick(1)
	rot := mgl32.QuatRotate(1, mgl32.Vec3{0, 0, 1})
	for _, e := range []wire.Entity{
		{NetID: 1, Flags: wire.Spawn, Pos: mgl32.Vec3{1, 2, 3}},
		{NetID: 2, Pos: mgl32.Vec3{4, 0, 0}, Vel: mgl32.Vec3{1, 0, 0}, Flags: wire.HasVelocity, State: 3, Epoch: 2, Rot: rot},
		{NetID: 3, Flags: wire.Spawn | wire.Teleport},
		{NetID: 9, Pos: mgl32.Vec3{5, 5, 0}},
	} {
		if err := s.SetEntity(e); err != nil {
			t.Fatal(err)
		}
	}
	deliver(t, s, c, 50)
	got, _ := inbox.Drain(nil)
	// Every entity is a spawn the first time a client is sent it.
	want := []systems.Kind{systems.Spawn, systems.Spawn, systems.Spawn, systems.Complete}
	if len(got) != len(want) {
		t.Fatalf("tick 1: %d messages, want %d: %+v", len(got), len(want), got)
	}
	for i, m := range got {
		if m.Kind != want[i] || m.Tick != 1 {
			t.Fatalf("message %d: %v at %d, want %v at 1", i, m.Kind, m.Tick, want[i])
		}
	}
	if m := got[1]; m.NetID != 2 || !m.HasVelocity || m.Vel != (mgl32.Vec3{1, 0, 0}) || m.State != 3 || m.Epoch != 2 ||
		m.Pos != (mgl32.Vec3{4, 0, 0}) || !m.Rot.ApproxEqualThreshold(rot, 1e-3) {
		t.Fatalf("entity 2: %+v", m)
	}
	if got[0].Pos != (mgl32.Vec3{1, 2, 3}) || got[0].HasVelocity {
		t.Fatalf("entity 1: %+v", got[0])
	}
	if len(owns) != 1 || owns[0].Tick != 1 || owns[0].Ack != 1 || !owns[0].HasAck || owns[0].Entity.Pos != (mgl32.Vec3{5, 5, 0}) {
		t.Fatalf("own records %+v", owns)
	}
	a := Authoritative(owns[0], owns[0].Entity.Pos)
	if a.NetID != 9 || a.Tick != 1 || a.Ack != 1 || a.State != (mgl32.Vec3{5, 5, 0}) {
		t.Fatalf("Authoritative %+v", a)
	}

	// Tick 2: entity 1 gone, 2 teleported; acknowledged, so a delta.
	pkt, _ = c.InputPacket(60, nil)
	if err := s.Receive(1, pkt, 60); err != nil {
		t.Fatal(err)
	}
	s.BeginTick(2)
	s.Despawn(1)
	s.SetEntity(wire.Entity{NetID: 2, Pos: mgl32.Vec3{40, 0, 0}, Flags: wire.Teleport})
	deliver(t, s, c, 100)
	got, _ = inbox.Drain(got)
	want = []systems.Kind{systems.Despawn, systems.Teleport, systems.Complete}
	if len(got) != len(want) {
		t.Fatalf("tick 2: %+v", got)
	}
	for i, m := range got {
		if m.Kind != want[i] || m.Tick != 2 {
			t.Fatalf("tick 2 message %d: %v at %d, want %v", i, m.Kind, m.Tick, want[i])
		}
	}
	if got[0].NetID != 1 || got[1].NetID != 2 || got[1].HasVelocity {
		t.Fatalf("tick 2: %+v", got)
	}
	st := c.Stats()
	if st.Pushed != 7 || st.Own != 2 || st.Ticks != 2 || st.Snapshots != 2 || st.PacketsReceived != 2 {
		t.Fatalf("stats %+v", st)
	}
	if sst, _ := s.Stats(1); sst.FullSnapshots != 1 {
		t.Fatalf("server sent %d full snapshots, want 1", sst.FullSnapshots)
	}
}

// Without OnOwn, the controlled entity is an entity like the others.
func TestClientWithoutOnOwn(t *testing.T) {
	s := newServer(t, server.SessionConfig{})
	s.Connect(1)
	s.Assign(1, 9)
	inbox := systems.NewInbox(0)
	c := newTestSide(t, SessionConfig{Inbox: inbox})
	s.BeginTick(1)
	s.SetEntity(wire.Entity{NetID: 9})
	deliver(t, s, c, 0)
	if got, _ := inbox.Drain(nil); len(got) != 2 || got[0].NetID != 9 {
		t.Fatalf("%+v", got)
	}
}

// Input packets carry the newest unacknowledged inputs, at most
// Redundancy, consecutive; acknowledged ones are dropped; a gap starts a
// new run; bad inputs are refused.
func TestClientInputs(t *testing.T) {
	s := newServer(t, server.SessionConfig{})
	s.Connect(1)
	c := newTestSide(t, SessionConfig{Redundancy: 3})
	var in wire.InputPacket
	packet := func(now uint32) (wire.Header, *wire.InputPacket) {
		t.Helper()
		b, err := c.InputPacket(now, nil)
		if err != nil {
			t.Fatal(err)
		}
		h, err := wire.DecodeInput(b, &in, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Receive(1, b, now); err != nil {
			t.Fatal(err)
		}
		return h, &in
	}
	if h, p := packet(0); len(p.Inputs) != 0 || p.HasAckedTick || p.Resync || h.Seq != 0 {
		t.Fatalf("first packet: %+v %+v", h, p)
	}
	for seq := uint32(1); seq <= 5; seq++ {
		if err := c.QueueInput(seq, []byte{byte(seq)}); err != nil {
			t.Fatal(err)
		}
	}
	h, p := packet(10)
	if h.Seq != 1 || p.FirstSeq != 3 || len(p.Inputs) != 3 || p.Inputs[0][0] != 3 || p.Inputs[2][0] != 5 {
		t.Fatalf("packet: seq %d, first %d, %d inputs", h.Seq, p.FirstSeq, len(p.Inputs))
	}
	if err := c.QueueInput(5, nil); !errors.Is(err, ErrInputSeq) {
		t.Fatalf("a repeated seq: %v", err)
	}
	if err := c.QueueInput(6, make([]byte, 65)); !errors.Is(err, wire.ErrLimit) {
		t.Fatalf("an oversized input: %v", err)
	}

	// The server applies 3 and 4: the snapshot's ack drops them.
	s.BeginTick(1)
	s.NextInput(1, nil)
	s.NextInput(1, nil)
	s.SetEntity(wire.Entity{NetID: 4})
	deliver(t, s, c, 20)
	if _, p := packet(30); p.FirstSeq != 5 || len(p.Inputs) != 1 || !p.HasAckedTick || p.AckedTick != 1 {
		t.Fatalf("after the ack: first %d, %d inputs, acked tick %d %v", p.FirstSeq, len(p.Inputs), p.AckedTick, p.HasAckedTick)
	}

	// A gap: 5 is dropped unacknowledged.
	c.QueueInput(9, []byte{9})
	if _, p := packet(40); p.FirstSeq != 9 || len(p.Inputs) != 1 {
		t.Fatalf("after a gap: first %d, %d inputs", p.FirstSeq, len(p.Inputs))
	}
	st := c.Stats()
	if st.InputsQueued != 6 || st.InputsExpired != 3 || st.PacketsSent != 4 {
		t.Fatalf("stats %+v", st)
	}
}

// QueueInputs takes a predictor's outbox as it is.
func TestQueueInputs(t *testing.T) {
	c := newTestSide(t, SessionConfig{})
	ins := []systems.SentInput[int8]{{NetID: 1, Seq: 7, Input: -1}, {NetID: 1, Seq: 8, Input: 2}}
	err := QueueInputs(c, ins, func(dst []byte, in int8) []byte { return append(dst, byte(in)) })
	if err != nil {
		t.Fatal(err)
	}
	b, _ := c.InputPacket(0, nil)
	var p wire.InputPacket
	if _, err := wire.DecodeInput(b, &p, nil); err != nil {
		t.Fatal(err)
	}
	if p.FirstSeq != 7 || len(p.Inputs) != 2 || p.Inputs[0][0] != 0xff || p.Inputs[1][0] != 2 {
		t.Fatalf("%+v", p)
	}
	if err := QueueInputs(c, ins, func(dst []byte, in int8) []byte { return dst }); !errors.Is(err, ErrInputSeq) {
		t.Fatalf("queued again: %v", err)
	}
}

// With NoDelta every snapshot is full, and complete.
func TestClientNoDelta(t *testing.T) {
	p := newPair(t, netsim.Config{Latency: 20 * time.Millisecond}, 1, 50, SessionConfig{NoDelta: true})
	p.run(2 * time.Second)
	st, _ := p.srv.Stats(1)
	if st.FullSnapshots != st.Snapshots || st.Snapshots < 39 {
		t.Fatalf("%d full snapshots of %d", st.FullSnapshots, st.Snapshots)
	}
	if cs := p.cli.Stats(); cs.Ticks < 38 || cs.Restarts != 0 {
		t.Fatalf("client stats %+v", cs)
	}
}

func TestNewClientConfig(t *testing.T) {
	in := systems.NewInbox(0)
	for _, cfg := range []SessionConfig{
		{},
		{Inbox: in, TickRate: -1},
		{Inbox: in, TickRate: 1.0 / 30}, // a tick's length, not a rate
		{Inbox: in, Redundancy: 9},
		{Inbox: in, Redundancy: -1},
		{Inbox: in, Wire: wire.Config{History: 1}},
	} {
		_, err := NewSession(cfg)
		if !errors.Is(err, wire.ErrConfig) {
			t.Errorf("%+v: %v", cfg, err)
			continue
		}
		// The session's own checks name the client package; the codec's
		// name the wire.
		if cfg.Wire.History == 0 && !strings.HasPrefix(err.Error(), "client: ") {
			t.Errorf("%+v: %q, want it to start with \"client: \"", cfg, err)
		}
	}
	c := newTestSide(t, SessionConfig{Inbox: in})
	if cfg := c.Config(); cfg.TickRate != 20 || cfg.Redundancy != wire.DefaultMaxInputs || cfg.Wire.History != wire.DefaultHistory {
		t.Fatalf("defaults %+v", cfg)
	}

	// Left zero, the tick rate is the pipeline's, once FeedLatency has
	// seen it. Set, it stays.
	pipe := &latencySink{rate: 60}
	c.FeedLatency(pipe)
	if got := c.Config().TickRate; got != 60 {
		t.Fatalf("a client without a TickRate fed a 60 Hz pipeline uses %v", got)
	}
	set := newTestSide(t, SessionConfig{Inbox: in, TickRate: 30})
	set.FeedLatency(pipe)
	if got := set.Config().TickRate; got != 30 {
		t.Fatalf("a client set to 30 Hz fed a 60 Hz pipeline uses %v", got)
	}
}

// Over a lossy, jittery, reordering, duplicating network both ways: no
// packet is refused, no restart is imagined, every message pushed is
// counted, the own entity's acks advance, and the loss counters match
// the links'.
func TestClientOverABadNetwork(t *testing.T) {
	p := newPair(t, badNetwork, 7, 200, SessionConfig{})
	p.run(30 * time.Second)
	p.drain()
	st := p.cli.Stats()
	if len(p.errs) > 0 || st.BadPackets > 0 || st.Restarts > 0 {
		t.Fatalf("errors %v, stats %+v", p.errs[:min(3, len(p.errs))], st)
	}
	if st.Pushed != p.messages {
		t.Fatalf("pushed %d, the inbox held %d", st.Pushed, p.messages)
	}
	if st.Snapshots+st.DuplicatePackets+st.NoBaseline+st.BadPackets != st.PacketsReceived {
		t.Fatalf("packets do not add up: %+v", st)
	}
	if st.Ticks < 400 || len(p.owns) < 400 {
		t.Fatalf("%d ticks, %d own records", st.Ticks, len(p.owns))
	}
	for i := 1; i < len(p.owns); i++ {
		if tickBefore(p.owns[i].Tick, p.owns[i-1].Tick) {
			continue // reordered
		}
		if p.owns[i].HasAck && p.owns[i-1].HasAck && tickBefore(p.owns[i].Ack, p.owns[i-1].Ack) {
			t.Fatalf("ack went back: %+v after %+v", p.owns[i], p.owns[i-1])
		}
	}
	down, up := p.down.Stats(), p.up.Stats()
	t.Logf("down: %d sent, %d lost, client counted %d lost; up: %d sent, %d lost, client counted %d unacked of %d judged",
		down.Sent, down.Lost, st.PacketsLost, up.Sent, up.Lost, st.PacketsUnacked, st.PacketsAcked+st.PacketsUnacked)
	if d := int64(st.PacketsLost) - int64(down.Lost); d < -int64(down.Lost)/10 || d > int64(down.Lost)/10 {
		t.Errorf("client counted %d packets lost, the link lost %d", st.PacketsLost, down.Lost)
	}
	if d := int64(st.PacketsUnacked) - int64(up.Lost); d < -int64(up.Lost)/10 || d > int64(up.Lost)/10 {
		t.Errorf("client counted %d packets unacknowledged, the link lost %d", st.PacketsUnacked, up.Lost)
	}
	sst, _ := p.srv.Stats(1)
	if sst.FullSnapshots > 10 {
		t.Errorf("%d full snapshots", sst.FullSnapshots)
	}
}

// Over links far worse than a game should meet (150 ms of jitter, a
// fifth of the packets reordered by 200 ms, a fifth duplicated), late
// packets are never taken for a restart: they are interleaved with newer
// ticks, and a late delta is never 500 ms of ticks behind the newest.
func TestNoRestartImaginedOverHarshLinks(t *testing.T) {
	links := []netsim.Config{
		{Latency: 100 * time.Millisecond, Jitter: 150 * time.Millisecond, Loss: 0.1, Reorder: 0.2, ReorderDelay: 200 * time.Millisecond, Duplicate: 0.2},
		{Latency: 50 * time.Millisecond, Jitter: 300 * time.Millisecond, Duplicate: 0.3},
	}
	for i, link := range links {
		for seed := uint64(1); seed <= 5; seed++ {
			p := newPair(t, link, seed, 50, SessionConfig{})
			p.run(30 * time.Second)
			if st := p.cli.Stats(); st.Restarts != 0 || st.Ticks < 200 {
				t.Errorf("link %d, seed %d: %d restarts imagined, %d ticks received", i, seed, st.Restarts, st.Ticks)
			}
		}
	}
}

// A server restarted mid-session, its ticks from 1 again: the client
// notices within RestartAfterMs of its first packets and takes up its
// stream (deltas again) without being restarted itself.
func TestClientServerRestart(t *testing.T) {
	link := netsim.Config{Latency: 40 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05}
	p := newPair(t, link, 3, 100, SessionConfig{})
	p.run(5 * time.Second)
	if st := p.cli.Stats(); st.Restarts != 0 || st.Ticks < 80 {
		t.Fatalf("before the restart: %+v", st)
	}
	before, _ := p.cli.Sync()

	// The old server stops; 300 ms later a new one starts from tick 0,
	// with a clock of its own.
	p.run(300 * time.Millisecond) // packets in flight still arrive
	p.srv = newServer(t, server.SessionConfig{})
	p.srv.Connect(1)
	p.srvBase += 77777
	p.tick = 0
	start := p.now
	var detected time.Duration
	p.onTick = func(p *pair) {
		if detected == 0 && p.cli.Stats().Restarts > 0 {
			detected = p.now - start
		}
	}
	p.run(3 * time.Second)
	st := p.cli.Stats()
	if st.Restarts != 1 || len(p.errs) > 0 || st.PacketsLost > 30 {
		t.Fatalf("after the restart: %+v, errors %v", st, p.errs)
	}
	// Detection: the first packets take a latency to arrive, then
	// RestartAfterMs, within a tick.
	if detected > time.Duration(RestartAfterMs+200)*time.Millisecond {
		t.Errorf("restart detected %v after the new server started", detected)
	}
	sst, _ := p.srv.Stats(1)
	if !sst.HasAckedTick || sst.AckedTick < 50 || sst.FullSnapshots > 15 {
		t.Fatalf("new server: %+v", sst)
	}
	after, _ := p.cli.Sync()
	if d := after.Offset - before.Offset; d < 77777-10 || d > 77777+10 {
		t.Errorf("offset moved by %v, the server clock by 77777", d)
	}
	t.Logf("restart detected %v after the new server's first tick; %d full snapshots before deltas resumed", detected, sst.FullSnapshots)
}

// Receive on the transport's goroutine while the game queues inputs,
// builds packets and reads the estimates (run with -race).
func TestClientConcurrentUse(t *testing.T) {
	p := newPair(t, netsim.Config{Latency: 10 * time.Millisecond}, 1, 20, SessionConfig{})
	var packets [][]byte
	p.onTick = func(p *pair) {
		for _, b := range p.packets {
			packets = append(packets, append([]byte(nil), b...))
		}
	}
	p.run(time.Second)
	c := newTestSide(t, SessionConfig{OnOwn: func(Own) {}})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i, b := range packets {
			c.Receive(b, uint32(i))
		}
	}()
	for seq := uint32(1); seq <= 200; seq++ {
		c.QueueInput(seq, []byte{1})
		if _, err := c.InputPacket(seq, nil); err != nil {
			t.Error(err)
		}
		c.Sync()
		c.ServerTick(seq)
		c.Stats()
		c.NetID()
	}
	wg.Wait()
	if st := c.Stats(); st.Snapshots == 0 {
		t.Fatalf("%+v", st)
	}
}

// Steady state allocates nothing: receiving a tick's snapshot, setting
// what was drawn, queueing an input and building the input packet.
func TestClientSteadyStateAllocs(t *testing.T) {
	// Record the snapshots of a lossless session, tick by tick.
	p := newPair(t, netsim.Config{}, 1, 300, SessionConfig{})
	var ticks [][][]byte
	p.onTick = func(p *pair) {
		var packets [][]byte
		for _, b := range p.packets {
			packets = append(packets, append([]byte(nil), b...))
		}
		ticks = append(ticks, packets)
	}
	p.run(5 * time.Second)

	// Replay them to a client, which learns its NetID from the first.
	c := newTestSide(t, SessionConfig{OnOwn: func(Own) {}})
	var drained []systems.Message
	var buf []byte
	late := []wire.Late{{NetID: 3, Span: 4, Back: 1}, {NetID: 9}}
	k := 0
	tickOnce := func() {
		now := uint32(k * 50)
		for _, b := range ticks[k] {
			if err := c.Receive(b, now); err != nil {
				t.Fatal(err)
			}
		}
		k++
		drained, _ = c.inbox.Drain(drained)
		late[0].Behind = uint16(k)
		if err := c.SetDrawn(wire.Drawn{Time: uint32(k * 256), Late: late}); err != nil {
			t.Fatal(err)
		}
		c.QueueInput(uint32(k), []byte{1})
		buf, _ = c.InputPacket(now, buf[:0])
	}
	for range 40 {
		tickOnce()
	}
	if n := testing.AllocsPerRun(50, tickOnce); n != 0 {
		t.Fatalf("%v allocations per tick", n)
	}
	if st := c.Stats(); st.BadPackets != 0 || st.Ticks != uint64(k) || st.Own != uint64(k) || c.NetID() != ownID {
		t.Fatalf("%+v after %d ticks, NetID %d", st, k, c.NetID())
	}
}

// latencySink is a Pipeline at a tick rate that records the latency it is
// told.
type latencySink struct {
	rate    float64
	latency float64
}

func (p *latencySink) SetLatency(seconds float64) { p.latency = seconds }
func (p *latencySink) TickRate() float64          { return p.rate }

// A game that runs no frames for a while (a browser tab in the
// background, a loading screen) leaves the pipeline's inbox full while the
// transport goes on decoding. The server despawns entities meanwhile; the
// client acknowledged the ticks that carried the despawns, so the server
// does not send them again: the session keeps the despawns the inbox had
// no room for and pushes them once the game drains it again.
func TestDespawnsSurviveAFullInbox(t *testing.T) {
	const n, kept = 40, 30
	p := newPair(t, netsim.Config{Latency: 30 * time.Millisecond}, 1, n, SessionConfig{Inbox: systems.NewInbox(200)})
	p.run(time.Second)
	if len(p.alive) != n {
		t.Fatalf("%d entities alive after a second, want %d", len(p.alive), n)
	}
	p.away = true
	p.run(500 * time.Millisecond) // the inbox fills
	p.entities = kept             // the server despawns the others
	for id := kept + 1; id <= n; id++ {
		if !p.srv.Despawn(uint32(id)) {
			t.Fatalf("the server has no entity %d to despawn", id)
		}
	}
	p.run(2 * time.Second)
	if p.inbox.Len() != p.inbox.Capacity() {
		t.Fatalf("the inbox holds %d of %d: it never filled, nothing tested", p.inbox.Len(), p.inbox.Capacity())
	}
	if st := p.cli.Stats(); st.LifecycleRepushed != 0 {
		t.Fatalf("%d lifecycle messages pushed again into a full inbox", st.LifecycleRepushed)
	}
	p.away = false
	p.run(time.Second)
	for id := components.NetID(kept + 1); id <= n; id++ {
		if p.alive[id] {
			t.Errorf("NetID %d: never despawned", id)
		}
	}
	if len(p.alive) != kept {
		t.Errorf("%d entities alive, want %d", len(p.alive), kept)
	}
	st := p.cli.Stats()
	if st.LifecycleRepushed < n-kept || st.LifecycleLost != 0 {
		t.Errorf("%d lifecycle messages pushed again, %d lost; want at least %d and none", st.LifecycleRepushed, st.LifecycleLost, n-kept)
	}
}

// The lifecycle messages kept for a full inbox are bounded by its
// capacity, Spawns by half of it: a game away for good does not make the
// session grow. The server enters 290 new entities into the stream while
// the game drains nothing.
func TestLifecycleKeptIsBounded(t *testing.T) {
	const capacity = 50
	p := newPair(t, netsim.Config{Latency: 30 * time.Millisecond}, 1, 10, SessionConfig{Inbox: systems.NewInbox(capacity)})
	p.run(time.Second)
	p.away = true
	p.entities = 300
	p.run(time.Second)
	st := p.cli.Stats()
	if len(p.cli.retry) != capacity/2 || p.cli.retrySpawns != capacity/2 || st.LifecycleLost == 0 {
		t.Fatalf("%d lifecycle messages (%d spawns) kept for an inbox of %d, %d lost; want %d spawns",
			len(p.cli.retry), p.cli.retrySpawns, capacity, st.LifecycleLost, capacity/2)
	}
}

// Spawns fill at most half the room kept for lifecycle messages; the rest
// is for despawns, kept in order with them.
func TestDespawnsKeepRoom(t *testing.T) {
	const capacity = 10
	c, err := NewSession(SessionConfig{Inbox: systems.NewInbox(capacity)})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []systems.Message
	for id := range components.NetID(20) {
		msgs = append(msgs, systems.Message{Kind: systems.Spawn, NetID: 100 + id})
	}
	for id := range components.NetID(20) {
		msgs = append(msgs, systems.Message{Kind: systems.Snapshot, NetID: 200 + id})
		msgs = append(msgs, systems.Message{Kind: systems.Despawn, NetID: 300 + id})
	}
	c.keepLifecycle(msgs)
	var got []components.NetID
	for _, m := range c.retry {
		got = append(got, m.NetID)
	}
	want := []components.NetID{100, 101, 102, 103, 104, 300, 301, 302, 303, 304}
	if !slices.Equal(got, want) || c.stats.LifecycleLost != 30 {
		t.Fatalf("kept %v with %d lost, want %v with 30", got, c.stats.LifecycleLost, want)
	}
}

// closedConn is a transport.Conn that is closed from the start and
// records why it was closed.
type closedConn struct {
	reason wire.Reason
	closed bool
}

func (c *closedConn) ReadPacket() ([]byte, error) { return nil, errors.New("closed") }
func (c *closedConn) WritePacket([]byte) error    { return errors.New("closed") }
func (c *closedConn) Close(r wire.Reason, _ string) error {
	c.reason, c.closed = r, true
	return nil
}
func (c *closedConn) RemoteAddr() net.Addr       { return &net.UDPAddr{} }
func (c *closedConn) Kind() transport.Kind       { return 0 }
func (c *closedConn) Stats() transport.ConnStats { return transport.ConnStats{} }

// A Welcome whose tick rate is out of range (a hand-made one: the wire
// decoder refuses such a Welcome) is refused by New, which says that the
// Welcome's rate is at fault, and closes the connection.
func TestNewRefusesTheWelcomesBadTickRate(t *testing.T) {
	conn := &closedConn{}
	_, err := New(conn, wire.Welcome{ClientID: 1, TickRate: 0}, Config{Session: SessionConfig{Inbox: systems.NewInbox(0)}})
	if err == nil || !strings.Contains(err.Error(), "Welcome") || !conn.closed || conn.reason != wire.ReasonLeft {
		t.Fatalf("New with a Welcome of tick rate 0: %v, connection closed with %v", err, conn.reason)
	}
}

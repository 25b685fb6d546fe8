package client

import (
	"github.com/netsmooth/netsmooth/components"
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/wire"
)

// The attacks on a client's session that a packet not from the server
// could make if it reached the session: QUIC keeps such packets out, and
// these tests keep the session safe even so (a server bug, a transport of
// the game's own).

// forge encodes a one-part snapshot of tick with header h and info's
// other fields, naming the records rs against no baseline.
func forge(t *testing.T, h wire.Header, info wire.SnapshotInfo, rs ...wire.Record) []byte {
	t.Helper()
	enc, err := wire.NewEncoder(wire.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := enc.Begin(h, info, nil); err != nil {
		t.Fatal(err)
	}
	var hash uint64
	for i := range rs {
		if err := enc.Add(&rs[i], nil, wire.Spawn); err != nil {
			t.Fatal(err)
		}
		hash ^= rs[i].Hash()
	}
	parts, err := enc.Finish(true, uint32(hash))
	if err != nil {
		t.Fatal(err)
	}
	return parts[0]
}

// newestSeq returns the newest sequence number the client has from the
// server.
func newestSeq(p *pair) uint16 {
	p.cli.mu.Lock()
	defer p.cli.mu.Unlock()
	n, _ := p.cli.receipts.Newest()
	return n
}

// A forged time echo with a far-off server clock moves neither the clock
// offset nor the round trip: an echo must be the send time of the input
// packet it acknowledges.
func TestForgedTimeEchoRefused(t *testing.T) {
	p := newPair(t, netsim.Config{Latency: 30 * time.Millisecond}, 1, 20, SessionConfig{})
	p.run(3 * time.Second)
	before, _ := p.cli.Sync()
	now := p.cliMs(p.now)
	forged := forge(t, wire.Header{Seq: newestSeq(p) + 1, Sent: p.srvMs(p.now) + 93_000, HasAck: true, Ack: 5,
		HasEcho: true, Echo: now - 1, Hold: 0}, wire.SnapshotInfo{Tick: p.tick + 1})
	p.cli.Receive(forged, now)
	p.run(8 * time.Second)
	after, _ := p.cli.Sync()
	if math.Abs(after.Offset-before.Offset) > 2 || after.RTT > 100 || after.Latency > 40 {
		t.Fatalf("sync moved by a forged echo: before %+v, after %+v", before, after)
	}
}

// Two forged packets with far-ahead sequence numbers do not silence the
// server's genuine stream.
func TestForgedSequenceJumpRefused(t *testing.T) {
	p := newPair(t, netsim.Config{Latency: 30 * time.Millisecond}, 1, 20, SessionConfig{})
	p.run(2 * time.Second)
	for i := range uint16(2) {
		b := forge(t, wire.Header{Seq: newestSeq(p) + 30000 + i}, wire.SnapshotInfo{Tick: p.tick})
		p.cli.Receive(b, p.cliMs(p.now))
	}
	ticks := p.cli.Stats().Ticks
	p.run(2 * time.Second)
	st := p.cli.Stats()
	if st.SeqJumps != 2 || st.Ticks < ticks+38 {
		t.Fatalf("after two forged far-ahead packets: %d ticks in 2 s, stats %+v", st.Ticks-ticks, st)
	}
}

// A forged complete snapshot of the next tick, and forged parts naming
// a thousand phantom entities: the client's state is the server's again
// within a few ticks (it notices the divergence by the hash and asks for
// a full snapshot), and every phantom it pushed is despawned.
func TestForgedSnapshotsRecovered(t *testing.T) {
	p := newPair(t, netsim.Config{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond}, 1, 100, SessionConfig{})
	p.run(2 * time.Second)
	q := wire.DefaultQuantizer()
	seq := newestSeq(p)
	// The next tick, full, complete and empty: arrives before the genuine one.
	p.cli.Receive(forge(t, wire.Header{Seq: seq + 1}, wire.SnapshotInfo{Tick: p.tick + 1}), p.cliMs(p.now))
	// Half-ticks of phantoms, for ticks near and far.
	var phantoms []wire.Record
	for i := range 1000 {
		r, _ := q.Record(wire.Entity{NetID: 50_000 + uint32(i), Pos: mgl32.Vec3{9999, 9999, 0}})
		phantoms = append(phantoms, r)
	}
	for k, tick := range []uint32{p.tick + 2, p.tick + 3, p.tick + 1_000_000} {
		enc, _ := wire.NewEncoder(wire.Config{})
		enc.Begin(wire.Header{Seq: seq + 2 + uint16(k)}, wire.SnapshotInfo{Tick: tick}, nil)
		for i := range phantoms[k*300 : k*300+300] {
			enc.Add(&phantoms[k*300+i], nil, wire.Spawn)
		}
		parts, _ := enc.Finish(true, 0)
		for _, b := range parts {
			b[wire.HeaderSize+7] = 2 // claim a second part that never comes
			p.cli.Receive(b, p.cliMs(p.now))
		}
	}
	p.run(2 * time.Second)
	p.drain()
	st := p.cli.Stats()
	sst, _ := p.srv.Stats(1)
	if st.Diverged == 0 || sst.Resyncs == 0 || p.cli.dec.Diverged() {
		t.Fatalf("divergence not recovered: client %+v, server %+v", st, sst)
	}
	newest, ok := p.cli.dec.Acked()
	world := p.cli.dec.State(newest)
	if !ok || world == nil || world.Len() != p.entities+1 {
		t.Fatalf("the client's newest tick holds %v entities, want the server's 100 and the player", world.Len())
	}
	for _, r := range world.Records() {
		if r.NetID >= 50_000 {
			t.Fatalf("phantom %d in the client's state", r.NetID)
		}
	}
	alive := 0
	for id := range p.alive {
		if id >= 50_000 {
			alive++
		}
	}
	if alive != 0 || st.Pushed != p.messages {
		t.Fatalf("%d phantoms never despawned (%d messages pushed, %d drained)", alive, st.Pushed, p.messages)
	}
}

// One forged part of a far-future tick (a tick that never completes, so
// the decoder's history is untouched and no restart is detected) pins the
// session's newest tick: from then on no snapshot of the server's sane
// stream is "of the newest tick", so the server's assignment is never
// taken again. The client loses its controlled entity (NetID 0, records
// of its own entity go to the inbox instead of OnOwn) and ServerTick is
// off by the forged distance, for as long as the server takes to reach
// that tick (here about 14 hours).
func TestForgedFarTickPartKeepsAssignment(t *testing.T) {
	p := newPair(t, netsim.Config{Latency: 30 * time.Millisecond}, 1, 20, SessionConfig{})
	p.run(2 * time.Second)
	if got := p.cli.NetID(); got != ownID {
		t.Fatalf("before: NetID %d", got)
	}
	b := forge(t, wire.Header{Seq: newestSeq(p) + 1}, wire.SnapshotInfo{Tick: p.tick + 1_000_000})
	b[wire.HeaderSize+7] = 2 // claim a second part that never comes
	if err := p.cli.Receive(b, p.cliMs(p.now)); err != nil {
		t.Fatal(err)
	}
	owns := len(p.owns)
	p.run(2 * time.Second) // a sane stream
	st, _ := p.cli.ServerTick(p.cliMs(p.now))
	t.Logf("2 s after one forged part: NetID %d, %d records to OnOwn, ServerTick %.0f (server at %d), %d restarts",
		p.cli.NetID(), len(p.owns)-owns, st, p.tick, p.cli.Stats().Restarts)
	if got := p.cli.NetID(); got != components.NetID(ownID) {
		t.Errorf("2 s of the server's stream after one forged part: NetID %d, want %d", got, ownID)
	}
	if len(p.owns) == owns {
		t.Errorf("no record of the controlled entity reached OnOwn in 2 s")
	}
	if st > float64(p.tick)+10 {
		t.Errorf("ServerTick %.0f, the server is at tick %d", st, p.tick)
	}
}

// A forged complete snapshot of a tick ahead becomes the newest tick the
// client holds, and the server's stream goes on below it: the client
// waits for the stream to catch up with a tick near ahead, and takes the
// stream for a restart's when the tick is far ahead (asking for a full
// snapshot). Either way it holds the server's state, assignment and tick
// again within a second, however long the server's history (which used
// to bound the time: the server sends deltas against the last tick it
// knows the client holds until that tick leaves its history). A tick half
// the tick numbers away, both before and after the server's, is no
// different.
func TestForgedTickAheadRecovered(t *testing.T) {
	for _, history := range []int{32, 128} {
		for _, ahead := range []uint32{5, 40, 1_000_000, 1 << 31} {
			p := newPair(t, netsim.Config{Latency: 30 * time.Millisecond}, 1, 20, SessionConfig{Wire: wire.Config{History: history}})
			p.run(2 * time.Second)
			b := forge(t, wire.Header{Seq: newestSeq(p) + 1}, wire.SnapshotInfo{Tick: p.tick + ahead})
			if err := p.cli.Receive(b, p.cliMs(p.now)); err != nil {
				t.Fatal(err)
			}
			start, since := p.now, time.Duration(-1) // since: when the client was last seen right
			for p.now-start < 4*time.Second {
				p.run(10 * time.Millisecond)
				st, _ := p.cli.ServerTick(p.cliMs(p.now))
				newest, _ := p.cli.dec.Acked()
				world := p.cli.dec.State(newest)
				right := p.cli.NetID() == components.NetID(ownID) && math.Abs(st-float64(p.tick)) < 10 &&
					newest <= p.tick && world != nil && world.Len() == p.entities+1 && !p.cli.dec.Diverged()
				switch {
				case !right:
					since = -1
				case since < 0:
					since = p.now - start
				}
			}
			t.Logf("history %d, %d ticks ahead: right again %v after the forged tick (-1: not in 4 s), %d restarts",
				history, ahead, since, p.cli.Stats().Restarts)
			if since < 0 || since > time.Second {
				t.Errorf("history %d: the client holds the server's stream again %v after a forged tick %d ahead (-1: not in 4 s), want within 1 s",
					history, since, ahead)
			}
		}
	}
}

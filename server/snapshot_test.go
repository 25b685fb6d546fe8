package server

import (
	"testing"

	"github.com/netsmooth/netsmooth/wire"
)

// tick runs one server tick: the world at tick, a snapshot for client 1
// delivered to c (unless drop), and returns the snapshot info.
func tick(t *testing.T, s *Session, c *testClient, n int, tk uint32, still, drop bool) []wire.Snapshot {
	t.Helper()
	if err := s.BeginTick(tk); err != nil {
		t.Fatal(err)
	}
	setWorld(t, s, n, tk, still)
	packets, err := s.Snapshot(1, tk*50, nil)
	if err != nil {
		t.Fatal(err)
	}
	if drop {
		return nil
	}
	before := len(c.snaps)
	for _, p := range packets {
		c.receive(p, tk*50+30)
	}
	if len(c.errs) > 0 {
		t.Fatalf("tick %d: client errors %v", tk, c.errs)
	}
	return c.snaps[before:]
}

func TestBaselineAdvancesOnAck(t *testing.T) {
	s := newServer(t, SessionConfig{})
	s.Connect(1)
	c := newTestClient(t, wire.Config{})

	snaps := tick(t, s, c, 200, 1, false, false)
	if snaps[0].Delta {
		t.Fatal("first snapshot is a delta")
	}
	// No ack yet: still full.
	snaps = tick(t, s, c, 200, 2, false, false)
	if snaps[0].Delta {
		t.Fatal("delta before any ack")
	}
	if err := s.Receive(1, c.ack(t, 120), 120); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.Stats(1); !st.HasAckedTick || st.AckedTick != 2 {
		t.Fatalf("acked %v %d", st.HasAckedTick, st.AckedTick)
	}
	snaps = tick(t, s, c, 200, 3, false, false)
	if !snaps[0].Delta || snaps[0].Baseline != 2 {
		t.Fatalf("tick 3: delta %v baseline %d, want against 2", snaps[0].Delta, snaps[0].Baseline)
	}
	// Without a newer ack the baseline stays.
	snaps = tick(t, s, c, 200, 4, false, false)
	if snaps[0].Baseline != 2 {
		t.Fatalf("tick 4 against %d", snaps[0].Baseline)
	}
	// The client reconstructs the world exactly at every tick.
	for tk := uint32(1); tk <= 4; tk++ {
		if got := c.dec.State(tk); got == nil {
			t.Fatalf("tick %d not received", tk)
		}
	}
	if !c.dec.State(4).Equal(worldTable(s)) {
		t.Fatal("client's tick 4 differs from the server's world")
	}
	s.Receive(1, c.ack(t, 230), 230)
	snaps = tick(t, s, c, 200, 5, false, false)
	if snaps[0].Baseline != 4 {
		t.Fatalf("tick 5 against %d, want 4", snaps[0].Baseline)
	}
}

func TestAcksOfUnknownOrOlderTicksAreIgnored(t *testing.T) {
	s := newServer(t, SessionConfig{})
	s.Connect(1)
	c := newTestClient(t, wire.Config{})
	tick(t, s, c, 10, 1, false, false)
	tick(t, s, c, 10, 2, false, false)
	ack := func(tk uint32, seq uint16) {
		p := wire.InputPacket{AckedTick: tk, HasAckedTick: true}
		b, _ := wire.AppendInput(nil, &wire.Header{Seq: seq}, &p, nil)
		if err := s.Receive(1, b, 0); err != nil {
			t.Fatal(err)
		}
	}
	ack(99, 0) // never sent
	if st, _ := s.Stats(1); st.HasAckedTick {
		t.Fatal("ack of a tick never sent accepted")
	}
	ack(2, 1)
	ack(1, 2) // older than the ack held
	if st, _ := s.Stats(1); st.AckedTick != 2 {
		t.Fatalf("acked %d", st.AckedTick)
	}
}

func TestFallsBackToFullWhenBaselineIsGone(t *testing.T) {
	cfg := wire.Config{History: 4}
	// AllowNoDelta: a client silent for so long is held back otherwise
	// (see the hostile tests), which is not what this test is about.
	s := newServer(t, SessionConfig{Wire: cfg, AllowNoDelta: true})
	s.Connect(1)
	c := newTestClient(t, cfg)
	tick(t, s, c, 50, 1, false, false)
	s.Receive(1, c.ack(t, 60), 60) // acks 1; then the client falls silent
	var deltas []bool
	for tk := uint32(2); tk <= 7; tk++ {
		snaps := tick(t, s, c, 50, tk, false, false)
		deltas = append(deltas, snaps[0].Delta)
	}
	// Ticks 2..4 are deltas against 1; at 5 tick 1 is the oldest of four
	// kept and is evicted: full from then on, until a new ack.
	want := []bool{true, true, true, false, false, false}
	for i := range want {
		if deltas[i] != want[i] {
			t.Fatalf("deltas %v, want %v", deltas, want)
		}
	}
	if st, _ := s.Stats(1); st.FullSnapshots != 4 {
		t.Fatalf("%d full snapshots", st.FullSnapshots)
	}
	// The client decoded everything (no ErrNoBaseline) and agrees.
	if !c.dec.State(7).Equal(worldTable(s)) {
		t.Fatal("client differs after the fallback")
	}
	s.Receive(1, c.ack(t, 400), 400)
	if snaps := tick(t, s, c, 50, 8, false, false); !snaps[0].Delta || snaps[0].Baseline != 7 {
		t.Fatal("delta did not resume after a new ack")
	}
}

func TestDeltaSendsOnlyChanges(t *testing.T) {
	s := newServer(t, SessionConfig{})
	s.Connect(1)
	c := newTestClient(t, wire.Config{})
	tick(t, s, c, 100, 1, true, false)
	s.Receive(1, c.ack(t, 60), 60)
	snaps := tick(t, s, c, 100, 2, true, false)
	if !snaps[0].Complete || len(c.entities) != 50 {
		t.Fatalf("complete %v, %d entities, want the 50 that move", snaps[0].Complete, len(c.entities))
	}
	for _, e := range c.entities {
		if e.NetID%2 == 0 {
			t.Fatalf("still entity %d sent", e.NetID)
		}
	}
	// Nothing changes: an empty, complete snapshot.
	s.Receive(1, c.ack(t, 110), 110)
	s.BeginTick(3)
	packets, _ := s.Snapshot(1, 150, nil)
	if len(packets) != 1 {
		t.Fatal("parts")
	}
	c.receive(packets[0], 170)
	if last := c.snaps[len(c.snaps)-1]; !last.Complete || last.Records != 0 {
		t.Fatalf("unchanged world: %+v", last)
	}
}

func TestFilterReducesWhatIsSent(t *testing.T) {
	var asked int
	s := newServer(t, SessionConfig{Filter: func(peer ClientID, netID, tick uint32) bool {
		asked++
		return netID <= 10 || tick%4 == 0 // far entities every 4 ticks
	}})
	s.Connect(1)
	c := newTestClient(t, wire.Config{})
	var records []int
	var complete []bool
	for tk := uint32(1); tk <= 8; tk++ {
		snaps := tick(t, s, c, 40, tk, false, false)
		n := 0
		for _, sn := range snaps {
			n += sn.Records
		}
		records = append(records, n)
		complete = append(complete, snaps[0].Complete)
		s.Receive(1, c.ack(t, tk*50+40), tk*50+40)
	}
	for i, tk := 0, uint32(1); tk <= 8; i, tk = i+1, tk+1 {
		want := 10
		if tk%4 == 0 {
			want = 40
		}
		if records[i] != want || complete[i] != (tk%4 == 0) {
			t.Fatalf("tick %d: %d records (want %d), complete %v", tk, records[i], want, complete[i])
		}
	}
	st, _ := s.Stats(1)
	if st.Incomplete != 6 || st.Deferred != 6*30 || asked == 0 {
		t.Fatalf("stats %+v", st)
	}
	// After a complete tick the client agrees with the world; in between
	// the far entities it holds are older.
	if !c.dec.State(8).Equal(worldTable(s)) {
		t.Fatal("complete tick differs")
	}
	if c.dec.State(7).Equal(c.dec.State(8)) {
		t.Fatal("filtered ticks equal complete ones")
	}
}

func TestEvery(t *testing.T) {
	f := Every(func(_ ClientID, netID uint32) uint32 { return netID % 4 })
	sent := map[uint32]int{}
	for tk := uint32(0); tk < 12; tk++ {
		for id := uint32(0); id < 8; id++ {
			if f(1, id, tk) {
				sent[id]++
			}
		}
	}
	for id, want := range map[uint32]int{0: 12, 1: 12, 2: 6, 3: 4, 4: 12, 6: 6, 7: 4} {
		if sent[id] != want {
			t.Errorf("NetID %d sent %d times in 12 ticks, want %d", id, sent[id], want)
		}
	}
}

func TestControlledEntityAlwaysSent(t *testing.T) {
	s := newServer(t, SessionConfig{Filter: func(ClientID, uint32, uint32) bool { return false }})
	s.Connect(1)
	s.Assign(1, 3)
	c := newTestClient(t, wire.Config{})
	s.BeginTick(1)
	setWorld(t, s, 5, 0, false)
	// The client introduces itself with an input.
	if err := s.Receive(1, c.input(t, 0, 8, []byte{1}), 0); err != nil {
		t.Fatal(err)
	}
	if in, _ := s.NextInput(1, nil); in.Status != InputReady {
		t.Fatal(in)
	}
	for tk := uint32(1); tk <= 3; tk++ {
		if tk > 1 {
			s.BeginTick(tk)
		}
		packets, _ := s.Snapshot(1, tk*50, nil)
		for _, p := range packets {
			c.receive(p, 0)
		}
		s.Receive(1, c.ack(t, 0), 0)
		if len(c.entities) != 1 || c.entities[0].NetID != 3 {
			t.Fatalf("tick %d: %+v", tk, c.entities)
		}
		if last := c.snaps[len(c.snaps)-1]; !last.HasInputAck || last.InputAck != 1 {
			t.Fatalf("input ack %+v", last)
		}
	}
}

func TestEventsReachEveryClientOnce(t *testing.T) {
	s := newServer(t, SessionConfig{})
	s.Connect(1)
	c := newTestClient(t, wire.Config{})
	s.BeginTick(1)
	s.SetEntity(wire.Entity{NetID: 1})
	s.SetEntity(wire.Entity{NetID: 2, Flags: wire.Spawn})
	flags := func() map[uint32]wire.Flags {
		m := map[uint32]wire.Flags{}
		for _, e := range c.entities {
			m[e.NetID] = e.Flags
		}
		return m
	}
	send := func(tk uint32, drop bool) {
		if tk > 1 {
			s.BeginTick(tk)
		}
		packets, _ := s.Snapshot(1, 0, nil)
		c.entities = c.entities[:0]
		if !drop {
			for _, p := range packets {
				c.receive(p, 0)
			}
			s.Receive(1, c.ack(t, 0), 0)
		}
	}
	send(1, false)
	if f := flags(); f[2] != wire.Spawn || f[1] != wire.Spawn {
		t.Fatalf("tick 1 flags %v: every entity a client is sent for the first time is a spawn", f)
	}
	// A teleport whose snapshot is lost is sent again with the next
	// change, until a snapshot carrying it is acknowledged.
	s.BeginTick(2)
	s.SetEntity(wire.Entity{NetID: 1, Pos: [3]float32{50, 0, 0}, Flags: wire.Teleport})
	packets, _ := s.Snapshot(1, 0, nil) // lost
	_ = packets
	send(3, false)
	if f := flags(); f[1] != wire.Teleport {
		t.Fatalf("tick 3 flags %v (teleport of tick 2, whose snapshot was lost)", f)
	}
	s.BeginTick(4)
	s.SetEntity(wire.Entity{NetID: 1, Pos: [3]float32{51, 0, 0}})
	send(5, false)
	if f := flags(); f[1] != 0 {
		t.Fatalf("teleport sent twice: %v", f)
	}
	// A despawn reaches the client; the NetID reused with Spawn is new.
	s.BeginTick(6)
	s.Despawn(2)
	send(6, false)
	if f := flags(); f[2] != wire.Despawn {
		t.Fatalf("despawn: %v", f)
	}
	s.BeginTick(7)
	s.SetEntity(wire.Entity{NetID: 2, Flags: wire.Spawn, Epoch: 1})
	send(7, false)
	if f := flags(); f[2] != wire.Spawn {
		t.Fatalf("respawn: %v", f)
	}
	// A second client connecting later gets spawns, not old teleports.
	s.Connect(2)
	s.BeginTick(8)
	p2, _ := s.Snapshot(2, 0, nil)
	c2 := newTestClient(t, wire.Config{})
	c2.receive(p2[0], 0)
	for _, e := range c2.entities {
		if e.Flags&wire.Teleport != 0 || e.Flags&wire.Spawn == 0 {
			t.Fatalf("late client got %v for %d", e.Flags, e.NetID)
		}
	}
}

func TestIncompleteWhenPartsRunOut(t *testing.T) {
	cfg := wire.Config{MaxPacket: 300, MaxParts: 2, MaxInputs: 2, MaxInputSize: 8}
	s := newServer(t, SessionConfig{Wire: cfg})
	s.Connect(1)
	c := newTestClient(t, cfg)
	for tk := uint32(1); tk <= 6; tk++ {
		tick(t, s, c, 200, tk, false, false)
		s.Receive(1, c.ack(t, 0), 0)
	}
	st, _ := s.Stats(1)
	if st.Incomplete != 6 || st.Deferred == 0 {
		t.Fatalf("stats %+v", st)
	}
	// What was sent is consistent: the client decodes every delta.
	if len(c.errs) != 0 || c.dec.State(6) == nil {
		t.Fatalf("errors %v", c.errs)
	}
}

// An entity a client heard of only in a tick it received in part, and
// which died before the client acknowledged anything newer, is despawned
// explicitly: without it, an incomplete snapshot stream would leave it
// alive on the client for ever.
func TestDespawnOfEntityKnownFromAPartialTick(t *testing.T) {
	cfg := wire.Config{MaxPacket: 200, MaxInputs: 2, MaxInputSize: 8}
	s := newServer(t, SessionConfig{Wire: cfg, Filter: func(_ ClientID, netID, _ uint32) bool { return netID != 7 }})
	s.Connect(1)
	c := newTestClient(t, cfg)
	tick(t, s, c, 50, 1, false, false)
	s.Receive(1, c.ack(t, 0), 0)

	s.BeginTick(2)
	setWorld(t, s, 50, 2, false)
	s.SetEntity(wire.Entity{NetID: 500, Flags: wire.Spawn})
	packets, _ := s.Snapshot(1, 0, nil)
	if len(packets) < 2 {
		t.Fatal("tick 2 not split")
	}
	c.receive(packets[len(packets)-1], 0) // only the last part arrives
	if e := c.entities[len(c.entities)-1]; e.NetID != 500 || e.Flags != wire.Spawn {
		t.Fatalf("last part: %+v", e)
	}

	s.BeginTick(3)
	s.Despawn(500)
	setWorld(t, s, 50, 3, false)
	packets, _ = s.Snapshot(1, 0, nil)
	var gone []uint32
	for _, p := range packets {
		c.receive(p, 0)
		for _, e := range c.entities {
			if e.Flags&wire.Despawn != 0 {
				gone = append(gone, e.NetID)
			}
		}
	}
	last := c.snaps[len(c.snaps)-1]
	if last.Tick != 3 || last.Complete || len(gone) != 1 || gone[0] != 500 {
		t.Fatalf("tick 3: complete %v, despawned %v", last.Complete, gone)
	}
	// Once the client acknowledges tick 3, the death is known: no more
	// despawns, and the server forgets it.
	s.Receive(1, c.ack(t, 0), 0)
	s.BeginTick(4)
	if len(s.graves) != 0 {
		t.Fatalf("graves %v", s.graves)
	}
	packets, _ = s.Snapshot(1, 0, nil)
	for _, p := range packets {
		c.receive(p, 0)
		for _, e := range c.entities {
			if e.Flags&wire.Despawn != 0 {
				t.Fatalf("despawn of %d sent again", e.NetID)
			}
		}
	}
}

// A client whose state drifted from the server's (here: a forged complete
// snapshot it took for the next tick) notices by the hash, asks for a full
// snapshot, and gets one with its next input packet; it is right again
// from then on.
func TestResyncAfterDivergence(t *testing.T) {
	s := newServer(t, SessionConfig{})
	s.Connect(1)
	c := newTestClient(t, wire.Config{})
	tick := uint32(0)
	step := func(extra func()) {
		tick++
		s.BeginTick(tick)
		setWorld(t, s, 20, tick, false)
		packets, err := s.Snapshot(1, tick, nil)
		if err != nil {
			t.Fatal(err)
		}
		if extra != nil {
			extra()
		}
		for _, p := range packets {
			c.receive(p, tick)
		}
		if err := s.Receive(1, c.ack(t, tick), tick); err != nil {
			t.Fatal(err)
		}
	}
	for range 5 {
		step(nil)
	}
	// A forgery of the next tick arrives first: full, complete, empty.
	enc, _ := wire.NewEncoder(wire.Config{})
	forge := func() {
		enc.Begin(wire.Header{Seq: 60000}, wire.SnapshotInfo{Tick: tick + 1}, nil)
		parts, _ := enc.Finish(true, 0)
		c.receive(parts[0], tick)
	}
	step(nil)
	step(forge) // the forged tick+1 arrives before the genuine tick+1
	full := 0
	for range 6 {
		step(nil)
		if last := c.snaps[len(c.snaps)-1]; !last.Delta {
			full++
		}
	}
	st, _ := s.Stats(1)
	if c.dec.Divergences() == 0 || st.Resyncs == 0 || full == 0 {
		t.Fatalf("divergences %d, resyncs %d, full snapshots after %d", c.dec.Divergences(), st.Resyncs, full)
	}
	if c.dec.Diverged() {
		t.Fatal("still diverged after the full snapshot")
	}
	newest, _ := c.dec.Acked()
	if got := c.dec.State(newest); got == nil || !got.Equal(worldTable(s)) {
		t.Fatal("the client's newest tick is not the server's world")
	}
}

package session

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/wire"
)

func TestAssignUnknownClient(t *testing.T) {
	s := newServer(t, Config{})
	if err := s.Assign(9, 1); !errors.Is(err, ErrUnknownClient) {
		t.Fatalf("Assign to an unknown client: %v", err)
	}
	if id, ok := s.Controlled(9); ok || id != 0 {
		t.Fatalf("Controlled of an unknown client: %d %v", id, ok)
	}
	s.Connect(1)
	if id, ok := s.Controlled(1); ok || id != 0 {
		t.Fatalf("Controlled before any claim: %d %v", id, ok)
	}
}

// Without Assign the server takes the client's word for its entity, as
// it always did.
func TestClaimWithoutAssign(t *testing.T) {
	s := newServer(t, Config{})
	s.Connect(1)
	c := newTestClient(t, wire.Config{}, 4)
	if err := s.Receive(1, c.ack(t, 0), 0); err != nil {
		t.Fatal(err)
	}
	if id, ok := s.Controlled(1); !ok || id != 4 {
		t.Fatalf("Controlled: %d %v, want the claim 4", id, ok)
	}
	c.netID = 6
	s.Receive(1, c.ack(t, 1), 1)
	st, _ := s.Stats(1)
	if st.NetID != 6 || st.Assigned || st.WrongNetID != 0 {
		t.Fatalf("stats %+v", st)
	}
	s.BeginTick(1)
	s.SetEntity(wire.Entity{NetID: 6})
	packets, _ := s.Snapshot(1, 0, nil)
	c.receive(packets[0], 0)
	if last := c.snaps[len(c.snaps)-1]; last.HasControlled {
		t.Fatalf("a snapshot names a controlled NetID without Assign: %+v", last.SnapshotInfo)
	}
}

// Once the server assigns, the client's claims change nothing: a packet
// naming another entity is taken for its inputs and acknowledgements,
// counted, and the claimed entity gains nothing (the Filter still applies
// to it); the assigned one is in every snapshot, named as controlled.
// Assign(0) takes the entity away.
func TestAssignOverridesClaims(t *testing.T) {
	s := newServer(t, Config{Filter: func(ClientID, uint32, uint32) bool { return false }})
	s.Connect(1)
	if err := s.Assign(1, 3); err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t, wire.Config{}, 9) // claims 9, a world entity
	wantWrong := uint64(0)
	for tk := uint32(1); tk <= 4; tk++ {
		if err := s.Receive(1, c.input(t, tk*50, 8, []byte{byte(tk)}), tk*50); err != nil {
			t.Fatal(err)
		}
		wantWrong++
		if in, _ := s.NextInput(1, nil); in.Status != InputReady || in.Seq != tk {
			t.Fatalf("tick %d: the wrong claim's input was not taken: %+v", tk, in)
		}
		s.BeginTick(tk)
		setWorld(t, s, 10, tk, false)
		packets, err := s.Snapshot(1, tk*50, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range packets {
			c.receive(p, tk*50)
		}
		last := c.snaps[len(c.snaps)-1]
		if !last.HasControlled || last.Controlled != 3 {
			t.Fatalf("tick %d: controlled %d %v, want 3", tk, last.Controlled, last.HasControlled)
		}
		if len(c.entities) != 1 || c.entities[0].NetID != 3 {
			t.Fatalf("tick %d: entities %+v, want the assigned 3 only", tk, c.entities)
		}
		if !last.HasInputAck || last.InputAck != tk {
			t.Fatalf("tick %d: input ack %d %v", tk, last.InputAck, last.HasInputAck)
		}
		if tk > 1 && !last.Delta {
			t.Fatalf("tick %d: full snapshot; the wrong claim's acknowledgement was not taken", tk)
		}
	}
	// Claiming nothing or the assigned entity is not wrong.
	for _, claim := range []uint32{0, 3} {
		c.netID = claim
		s.Receive(1, c.ack(t, 300), 300)
	}
	st, _ := s.Stats(1)
	if st.WrongNetID != wantWrong || st.NetID != 3 || !st.Assigned {
		t.Fatalf("stats: %d wrong (want %d), NetID %d, assigned %v", st.WrongNetID, wantWrong, st.NetID, st.Assigned)
	}
	if id, ok := s.Controlled(1); !ok || id != 3 {
		t.Fatalf("Controlled: %d %v", id, ok)
	}

	// Taken away: no controlled NetID, entity 3 is filtered like the
	// others, and claims still count for nothing.
	if err := s.Assign(1, 0); err != nil {
		t.Fatal(err)
	}
	c.netID = 9
	s.Receive(1, c.ack(t, 310), 310)
	s.BeginTick(5)
	setWorld(t, s, 10, 5, false)
	packets, _ := s.Snapshot(1, 350, nil)
	for _, p := range packets {
		c.receive(p, 350)
	}
	if last := c.snaps[len(c.snaps)-1]; last.HasControlled || len(c.entities) != 0 {
		t.Fatalf("after Assign(0): %+v, entities %+v", last.SnapshotInfo, c.entities)
	}
	st, _ = s.Stats(1)
	if id, ok := s.Controlled(1); ok || id != 0 || st.NetID != 0 || !st.Assigned || st.WrongNetID != wantWrong+1 {
		t.Fatalf("after Assign(0): Controlled %d %v, stats %+v", id, ok, st)
	}
}

// A Client configured with NetID 0 learns its entity from the very first
// snapshot: that snapshot's record of it already goes to OnOwn, the inbox
// never sees it, and the input packets name it from then on; over a
// lossy, reordering network too.
func TestClientLearnsAssignedNetID(t *testing.T) {
	for _, c := range []struct {
		name string
		link netsim.Config
	}{
		{"perfect", netsim.Config{Latency: 20 * time.Millisecond}},
		{"bad", badNetwork},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newAssignedPair(t, c.link, 5, 50, ClientConfig{})
			if id := p.cli.NetID(); id != 0 {
				t.Fatalf("NetID %d before any snapshot", id)
			}
			p.run(5 * time.Second)
			p.drain()
			if id := p.cli.NetID(); id != ownID {
				t.Fatalf("NetID %d, want the assigned %d", id, ownID)
			}
			st := p.cli.Stats()
			if len(p.errs) > 0 || st.Reassigned != 0 || st.Restarts != 0 {
				t.Fatalf("errors %v, stats %+v", p.errs, st)
			}
			if p.ownMsgs != 0 {
				t.Fatalf("the inbox got %d messages about the assigned entity", p.ownMsgs)
			}
			if len(p.owns) < 50 || st.Own != uint64(len(p.owns)) {
				t.Fatalf("%d own records, stats %+v", len(p.owns), st)
			}
			if c.name == "perfect" && p.owns[0].Tick != 1 {
				t.Fatalf("first own record at tick %d, want 1 (the first snapshot)", p.owns[0].Tick)
			}
			var in wire.InputPacket
			if _, err := wire.DecodeInput(p.inBuf, &in, nil); err != nil || in.NetID != ownID {
				t.Fatalf("input packet names %d (%v), want %d", in.NetID, err, ownID)
			}
			sst, _ := p.srv.Stats(1)
			if sst.WrongNetID != 0 || sst.NetID != ownID || !sst.Assigned {
				t.Fatalf("server stats %+v", sst)
			}
		})
	}
}

// A configured NetID is overridden by the server's assignment, counted
// once; the packets sent before the client learned it are counted wrong
// by the server, and no more after.
func TestClientConfiguredNetIDOverridden(t *testing.T) {
	p := newAssignedPair(t, netsim.Config{Latency: 20 * time.Millisecond}, 1, 50, ClientConfig{NetID: 9})
	if id := p.cli.NetID(); id != 9 {
		t.Fatalf("NetID %d before any snapshot, want the configured 9", id)
	}
	p.run(time.Second)
	st := p.cli.Stats()
	if id := p.cli.NetID(); id != ownID || st.Reassigned != 1 {
		t.Fatalf("NetID %d, %d reassignments", id, st.Reassigned)
	}
	sst, _ := p.srv.Stats(1)
	if sst.WrongNetID == 0 || sst.WrongNetID > 10 {
		t.Fatalf("%d packets counted wrong; want the few sent before the first snapshot arrived", sst.WrongNetID)
	}
	p.run(time.Second)
	p.drain()
	if again, _ := p.srv.Stats(1); again.WrongNetID != sst.WrongNetID || again.NetID != ownID {
		t.Fatalf("still counted wrong: %d then %d", sst.WrongNetID, again.WrongNetID)
	}
	// Entity 9 is a world entity like the others; the assigned one goes to
	// OnOwn only.
	if p.ownMsgs != 0 || p.owns[0].Tick != 1 || p.owns[0].Entity.NetID != ownID {
		t.Fatalf("%d inbox messages about the own entity, first own record %+v", p.ownMsgs, p.owns[0])
	}
}

// The client follows the server's later assignments (another entity,
// none) from snapshots of the newest tick only: a late snapshot of an
// older tick does not bring an old assignment back.
func TestClientFollowsAssignments(t *testing.T) {
	s := newServer(t, Config{})
	s.Connect(1)
	var owns []uint32
	c := newTestSide(t, ClientConfig{OnOwn: func(o Own) { owns = append(owns, o.Entity.NetID) }})
	snapshot := func(tick, assign uint32) [][]byte {
		t.Helper()
		if err := s.Assign(1, assign); err != nil {
			t.Fatal(err)
		}
		s.BeginTick(tick)
		for id := uint32(1); id <= 3; id++ {
			s.SetEntity(wire.Entity{NetID: id, Pos: mgl32.Vec3{float32(tick), 0, 0}})
		}
		packets, err := s.Snapshot(1, tick*50, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out [][]byte
		for _, p := range packets {
			out = append(out, append([]byte(nil), p...))
		}
		return out
	}
	receive := func(packets [][]byte) {
		t.Helper()
		for _, p := range packets {
			if err := c.Receive(p, 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	receive(snapshot(1, 1))
	old := snapshot(2, 1)
	receive(snapshot(3, 2))
	receive(old) // late: tick 2 still names 1
	if id := c.NetID(); id != 2 {
		t.Fatalf("NetID %d after a late snapshot of an older assignment, want 2", id)
	}
	receive(snapshot(4, 0))
	if id := c.NetID(); id != 0 {
		t.Fatalf("NetID %d after the server took the assignment back", id)
	}
	receive(snapshot(5, 0))
	if id := c.NetID(); id != 0 {
		t.Fatalf("NetID %d: the configured 0 is not restored by a snapshot without assignment", id)
	}
	// Tick 1: own 1; tick 3: own 2; the late tick 2: own 2 (its entity 1
	// is no longer controlled and goes to the inbox); ticks 4 and 5: none.
	if !slices.Equal(owns, []uint32{1, 2, 2}) {
		t.Fatalf("own records %v, want [1 2 2]", owns)
	}
	if st := c.Stats(); st.Reassigned != 2 || st.Own != 3 {
		t.Fatalf("stats %+v, want 2 reassignments (1 to 2, 2 to none)", st)
	}
}

// A restarted server has not assigned anything: the client forgets the
// old server's assignment (back to its configured NetID) and takes the
// new server's when it comes.
func TestClientRestartForgetsAssignment(t *testing.T) {
	for _, configured := range []components.NetID{0, 9} {
		link := netsim.Config{Latency: 40 * time.Millisecond, Jitter: 10 * time.Millisecond}
		p := newAssignedPair(t, link, 3, 50, ClientConfig{NetID: configured})
		p.run(3 * time.Second)
		if id := p.cli.NetID(); id != ownID {
			t.Fatalf("configured %d: NetID %d before the restart", configured, id)
		}

		// A new server, ticks from 1 again, that assigns nothing.
		p.run(300 * time.Millisecond)
		p.srv = newServer(t, Config{})
		p.srv.Connect(1)
		p.srvBase += 77777
		p.tick = 0
		owns := -1
		p.onTick = func(p *pair) {
			if owns < 0 && p.cli.Stats().Restarts > 0 {
				owns = len(p.owns)
			}
		}
		p.run(2 * time.Second)
		p.drain()
		if st := p.cli.Stats(); st.Restarts != 1 {
			t.Fatalf("configured %d: %+v", configured, st)
		}
		if id := p.cli.NetID(); id != configured {
			t.Fatalf("configured %d: NetID %d after the restart, want the configured one", configured, id)
		}
		for _, o := range p.owns[owns:] {
			if components.NetID(o.Entity.NetID) != configured {
				t.Fatalf("configured %d: an own record of %d after the restart", configured, o.Entity.NetID)
			}
		}
		if (configured == 0) != (len(p.owns) == owns) {
			t.Fatalf("configured %d: %d own records after the restart", configured, len(p.owns)-owns)
		}
		if p.ownMsgs == 0 {
			t.Fatalf("configured %d: entity %d, no longer controlled, never reached the inbox", configured, ownID)
		}
		if configured != 0 {
			if sst, _ := p.srv.Stats(1); components.NetID(sst.NetID) != configured || sst.Assigned {
				t.Fatalf("the new server heard %+v, want the configured claim", sst)
			}
		}

		// The new server assigns: the client follows.
		if err := p.srv.Assign(1, ownID); err != nil {
			t.Fatal(err)
		}
		p.run(time.Second)
		if id := p.cli.NetID(); id != ownID || len(p.owns) <= owns {
			t.Fatalf("configured %d: NetID %d after the new server's assignment, %d new own records", configured, id, len(p.owns)-owns)
		}
	}
}

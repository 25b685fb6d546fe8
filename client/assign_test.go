package client

import (
	"slices"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/wire"
)

// A client learns its entity from the very first snapshot: that
// snapshot's record of it already goes to OnOwn and the inbox never sees
// it; over a lossy, reordering network too.
func TestClientLearnsAssignedNetID(t *testing.T) {
	for _, c := range []struct {
		name string
		link netsim.Config
	}{
		{"perfect", netsim.Config{Latency: 20 * time.Millisecond}},
		{"bad", badNetwork},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newPair(t, c.link, 5, 50, SessionConfig{})
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
			sst, _ := p.srv.Stats(1)
			if sst.NetID != ownID || sst.InputsApplied < 90 || sst.InputsTooEarly != 0 {
				t.Fatalf("server stats %+v", sst)
			}
		})
	}
}

// The client follows the server's later assignments (another entity,
// none) from snapshots of the newest tick only: a late snapshot of an
// older tick does not bring an old assignment back.
func TestClientFollowsAssignments(t *testing.T) {
	s := newServer(t, server.SessionConfig{})
	s.Connect(1)
	var owns []uint32
	c := newTestSide(t, SessionConfig{OnOwn: func(o Own) { owns = append(owns, o.Entity.NetID) }})
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
		t.Fatalf("NetID %d after a second snapshot without assignment", id)
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
// old server's assignment and takes the new server's when it comes.
func TestClientRestartForgetsAssignment(t *testing.T) {
	link := netsim.Config{Latency: 40 * time.Millisecond, Jitter: 10 * time.Millisecond}
	p := newPair(t, link, 3, 50, SessionConfig{})
	p.run(3 * time.Second)
	if id := p.cli.NetID(); id != ownID {
		t.Fatalf("NetID %d before the restart", id)
	}

	// A new server, ticks from 1 again, that assigns nothing.
	p.run(300 * time.Millisecond)
	p.srv = newServer(t, server.SessionConfig{})
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
		t.Fatalf("%+v", st)
	}
	if id := p.cli.NetID(); id != 0 || len(p.owns) != owns {
		t.Fatalf("NetID %d after the restart, %d own records since", id, len(p.owns)-owns)
	}
	if p.ownMsgs == 0 {
		t.Fatalf("entity %d, no longer controlled, never reached the inbox", ownID)
	}

	// The new server assigns: the client follows.
	if err := p.srv.Assign(1, ownID); err != nil {
		t.Fatal(err)
	}
	p.run(time.Second)
	if id := p.cli.NetID(); id != ownID || len(p.owns) <= owns {
		t.Fatalf("NetID %d after the new server's assignment, %d new own records", id, len(p.owns)-owns)
	}
}

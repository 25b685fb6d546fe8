package server

import (
	"errors"
	"testing"
	"time"

	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/wire"
)

type runResult struct {
	server      ClientStats
	committed   int    // ticks the client completely received
	mismatched  int    // of those, ticks whose state differs from the server's
	divergences uint64 // ticks whose hash differs from the server's
	duplicates  int    // client decode errors: duplicates (expected)
	other       []error
	statuses    map[InputStatus]int
}

// run drives a server and one client through a bad network in both
// directions for `ticks` ticks at 20 Hz: the server moves 300 entities and
// the client's own (NetID 1000), the client sends one input per tick with
// its last `redundancy` unacknowledged inputs. The server starts consuming
// inputs 4 ticks after the first arrives, one per tick.
func run(t *testing.T, ticks int, redundancy int, net netsim.Config, seed uint64) runResult {
	t.Helper()
	cfg := wire.Config{MaxInputs: 8}
	s := newServer(t, SessionConfig{Wire: cfg})
	s.Connect(1)
	c := newTestClient(t, cfg)
	down, err := netsim.NewLink[[]byte](net, seed)
	if err != nil {
		t.Fatal(err)
	}
	up, _ := netsim.NewLink[[]byte](net, seed+1)
	res := runResult{statuses: map[InputStatus]int{}}
	worlds := map[uint32]*wire.Table{}
	var inbox []netsim.Timed[[]byte]
	consuming, firstInput := false, -1
	const step = 50 * time.Millisecond
	for k := range ticks {
		now := time.Duration(k) * step
		ms := uint32(now.Milliseconds())

		// Server: inputs in, one input consumed, the world, snapshots out.
		inbox = up.DeliverTimed(now, inbox[:0])
		for _, d := range inbox {
			if err := s.Receive(1, d.Msg, uint32(d.At.Milliseconds())); err != nil {
				t.Fatal(err)
			}
			if firstInput < 0 {
				firstInput = k
			}
		}
		if firstInput >= 0 && k >= firstInput+4 {
			consuming = true
		}
		if consuming {
			in, _ := s.NextInput(1, nil)
			res.statuses[in.Status]++
		}
		tick := uint32(k + 1)
		if err := s.BeginTick(tick); err != nil {
			t.Fatal(err)
		}
		setWorld(t, s, 300, tick, true)
		s.SetEntity(wire.Entity{NetID: 1000, State: uint16(k)})
		worlds[tick] = worldTable(s)
		packets, err := s.Snapshot(1, ms, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range packets {
			down.Send(now, append([]byte(nil), p...))
		}

		// Client: snapshots in, an input out.
		inbox = down.DeliverTimed(now, inbox[:0])
		for _, d := range inbox {
			n, m := len(c.errs), len(c.snaps)
			c.receive(d.Msg, uint32(d.At.Milliseconds()))
			if len(c.errs) > n {
				if err := c.errs[n]; errors.Is(err, wire.ErrDuplicate) {
					res.duplicates++
				} else {
					res.other = append(res.other, err)
				}
			}
			if len(c.snaps) > m && c.snaps[m].Done {
				if got := c.dec.State(c.snaps[m].Tick); got != nil {
					res.committed++
					if !got.Equal(worlds[c.snaps[m].Tick]) {
						res.mismatched++
					}
				}
			}
		}
		up.Send(now, c.input(t, ms, redundancy, []byte{byte(k)}))
	}
	res.server, _ = s.Stats(1)
	res.divergences = c.dec.Divergences()
	return res
}

var badNetwork = netsim.Config{
	Latency:   60 * time.Millisecond,
	Jitter:    20 * time.Millisecond,
	Loss:      0.10,
	Reorder:   0.10,
	Duplicate: 0.05,
}

// Over a lossy, jittery, reordering, duplicating network: every tick the
// client completely receives is exactly the server's world at that tick,
// deltas stay against acknowledged baselines (the client never lacks
// one), and redundant inputs turn 10% packet loss into almost no lost
// inputs.
func TestOverABadNetwork(t *testing.T) {
	r := run(t, 600, 8, badNetwork, 42)
	if len(r.other) > 0 {
		t.Fatalf("client errors other than duplicates: %v", r.other[:min(5, len(r.other))])
	}
	if r.committed < 300 || r.mismatched != 0 || r.divergences != 0 {
		t.Fatalf("%d ticks received, %d differ from the server's world, %d from its hash", r.committed, r.mismatched, r.divergences)
	}
	st := r.server
	// The first few, until an ack arrives (a tick or two held back if the
	// first acks are lost).
	if st.FullSnapshots > 8 || st.Snapshots+st.FullHeld != 600 || st.FullHeld > 4 {
		t.Fatalf("%d full snapshots of %d, %d ticks held", st.FullSnapshots, st.Snapshots, st.FullHeld)
	}
	if r.duplicates == 0 {
		t.Fatal("the network duplicated nothing: the test does not test dedupe")
	}
	// Every input the server needed was applied or lost, never both.
	if got := st.InputsApplied + st.InputsLost; got != uint64(r.statuses[InputReady]+r.statuses[InputLost]) {
		t.Fatalf("applied+lost %d, NextInput said %v", got, r.statuses)
	}
	if st.InputsDuplicate == 0 || st.DuplicatePackets == 0 {
		t.Fatalf("no redundant copies counted: %+v", st)
	}
	single := run(t, 600, 1, badNetwork, 42)
	t.Logf("inputs lost: %d with redundancy 8, %d without (of %d needed)", st.InputsLost, single.server.InputsLost, st.InputsApplied+st.InputsLost)
	if single.server.InputsLost < 20 || st.InputsLost*10 > single.server.InputsLost {
		t.Fatalf("redundancy did not help: %d lost with 8, %d with 1", st.InputsLost, single.server.InputsLost)
	}
	if !st.HasRTT || st.RTT < 80 || st.RTT > 400 {
		t.Fatalf("RTT %d (%v)", st.RTT, st.HasRTT)
	}
	t.Logf("server stats: %+v", st)
	t.Logf("client: %d ticks complete, %d duplicate packets dropped", r.committed, r.duplicates)
}

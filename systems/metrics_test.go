package systems_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/netsmooth/netsmooth/systems"
)

func TestRejectReasonNames(t *testing.T) {
	seen := map[string]systems.RejectReason{}
	for r := systems.RejectReason(0); r < systems.NumRejectReasons; r++ {
		name := r.String()
		if name == "" || strings.HasPrefix(name, "RejectReason(") {
			t.Errorf("reason %d has no name: %q", r, name)
		}
		if other, dup := seen[name]; dup {
			t.Errorf("reasons %d and %d are both called %q", other, r, name)
		}
		seen[name] = r
	}
	if got := systems.RejectReason(200).String(); got != "RejectReason(200)" {
		t.Errorf("unknown reason prints %q", got)
	}
}

// TestOccupancyStats: the occupancy histogram summarises how many samples
// the remote entities hold, and follows them as samples arrive and
// entities leave.
func TestOccupancyStats(t *testing.T) {
	r := newRig(t, cfgAt(20, 100)) // render far behind: nothing is consumed
	if lo, mean, hi := r.Pipe.Metrics().OccupancyStats(); lo != 0 || mean != 0 || hi != 0 {
		t.Fatalf("no entities: %d, %v, %d; want zeros", lo, mean, hi)
	}
	for tick := uint32(200); tick < 203; tick++ {
		r.Push(snap(1, tick, 0))
	}
	r.Push(snap(2, 200, 0), snap(3, 200, 0), snap(3, 201, 0))
	r.Frame(0)
	m := r.Pipe.Metrics()
	if lo, mean, hi := m.OccupancyStats(); lo != 1 || mean != 2 || hi != 3 {
		t.Fatalf("occupancy %d, %v, %d; want 1, 2, 3", lo, mean, hi)
	}
	if m.Occupancy[1] != 1 || m.Occupancy[2] != 1 || m.Occupancy[3] != 1 {
		t.Fatalf("histogram %v", m.Occupancy)
	}
	// The game removes entity 1 itself; the pipeline notices when the
	// NetID is named again, and recounts.
	r.World.RemoveEntity(r.Entity(1))
	r.Push(snap(2, 201, 0), snap(1, 203, 0))
	r.Frame(0)
	if lo, mean, hi := m.OccupancyStats(); lo != 1 || mean != 5.0/3 || hi != 2 || m.Entities != 3 {
		t.Fatalf("after a removal: %d, %v, %d over %d entities; want 1, 5/3, 2 over 3", lo, mean, hi, m.Entities)
	}
	if m.Occupancy[1] != 1 || m.Occupancy[2] != 2 || m.Occupancy[3] != 0 {
		t.Fatalf("histogram %v", m.Occupancy)
	}
}

// TestWriteTo prints every figure a dashboard needs, rejections by name,
// and the prediction lines only when prediction runs.
func TestWriteTo(t *testing.T) {
	r := newRig(t, cfgAt(20, 2))
	r.Push(snap(1, 10, 0), snap(1, 11, 1), snap(1, 11, 1))
	r.Frame(0)
	var buf bytes.Buffer
	n, err := r.Pipe.Metrics().WriteTo(&buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteTo = %d, %v; wrote %d bytes", n, err, buf.Len())
	}
	out := buf.String()
	for _, want := range []string{"frames              1\n", "entities            1 (spawned 1, despawned 0)\n",
		"messages            2 accepted, 1 rejected\n", "  rejected duplicate  1\n", "buffer occupancy    min 2, mean 2.0, max 2",
		"underruns", "corrections", "snaps", "samples ahead", "delay               target 100.0 ms", "clock"} {
		if !strings.Contains(out, want) {
			t.Errorf("WriteTo output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "prediction") || strings.Contains(out, "rejected stale") {
		t.Errorf("WriteTo prints what did not happen:\n%s", out)
	}

	p := newPredRig(t, cfgAt(20, 2))
	p.Frame(1.0 / 20)
	buf.Reset()
	if _, err := p.Pipe.Metrics().WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "prediction          1 ticks") {
		t.Errorf("WriteTo lacks the prediction line:\n%s", buf.String())
	}
}

// A delay or age that rounds to zero milliseconds prints as 0.0, never
// -0.0 (the newest tick is often a hair ahead of the estimated server
// time); one that does not keeps its sign.
func TestWriteToPrintsNoNegativeZero(t *testing.T) {
	m := systems.Metrics{NewestAge: -0.00001, ActualDelay: -0.002}
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "actual -2.0 ms") || !strings.Contains(out, "newest age 0.0 ms") || strings.Contains(out, "-0.0") {
		t.Errorf("WriteTo printed:\n%s", out)
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errFail }

var errFail = errors.New("write failed")

func TestWriteToReportsWriteError(t *testing.T) {
	var m systems.Metrics
	if n, err := m.WriteTo(failWriter{}); !errors.Is(err, errFail) || n != 0 {
		t.Fatalf("WriteTo = %d, %v; want 0 and the writer's error", n, err)
	}
}

func TestReceivedSumsAcceptedAndRejected(t *testing.T) {
	m := systems.Metrics{Accepted: 5}
	m.Rejected[systems.RejectStale] = 2
	m.Rejected[systems.RejectPredicted] = 3
	if m.RejectedTotal() != 5 || m.Received() != 10 {
		t.Fatalf("rejected %d, received %d; want 5 and 10", m.RejectedTotal(), m.Received())
	}
}

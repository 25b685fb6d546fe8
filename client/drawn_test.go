package client

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/wire"
)

// Every input carries what the client drew when it was queued, including
// the copies resent for redundancy, and the server hands each back with
// its input.
func TestDrawnReachesServer(t *testing.T) {
	s := newServer(t, server.SessionConfig{})
	if err := s.Connect(1); err != nil {
		t.Fatal(err)
	}
	c := newTestSide(t, SessionConfig{Redundancy: 4})
	send := func(now uint32) {
		t.Helper()
		b, err := c.InputPacket(now, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Receive(1, b, now); err != nil {
			t.Fatal(err)
		}
	}

	// Before SetDrawn, inputs carry nothing.
	c.QueueInput(1, []byte{1})
	send(0)
	s.BeginTick(1)
	if in, _ := s.NextInput(1, nil); in.Status != server.InputReady || in.HasDrawn {
		t.Fatalf("input 1: %+v", in)
	}

	want := map[uint32]wire.Drawn{
		2: {Time: wire.DrawnTime(100.25)},
		3: {Time: wire.DrawnTime(101.5), Late: []wire.Late{{NetID: 7, Behind: 512}, {NetID: 90, Behind: 3}}},
		4: {Time: wire.DrawnTime(102.75), Late: []wire.Late{{NetID: 8, Behind: 1}}},
	}
	for seq := uint32(2); seq <= 4; seq++ {
		if err := c.SetDrawn(want[seq]); err != nil {
			t.Fatal(err)
		}
		c.QueueInput(seq, []byte{byte(seq)})
		send(10 * seq) // every packet resends the unacknowledged earlier ones
	}
	for seq := uint32(2); seq <= 4; seq++ {
		s.BeginTick(seq)
		in, err := s.NextInput(1, nil)
		if err != nil || in.Status != server.InputReady || in.Seq != seq || !in.HasDrawn {
			t.Fatalf("input %d: %+v %v", seq, in, err)
		}
		w := want[seq]
		if in.Drawn.Time != w.Time || !slices.Equal(in.Drawn.Late, w.Late) {
			t.Fatalf("input %d drew %+v, want %+v", seq, in.Drawn, w)
		}
		if got, want := in.Drawn.Tick(seq+100), 100+1.25*float64(seq-2)+0.25; math.Abs(got-want) > 1e-9 {
			t.Fatalf("input %d drew tick %v, want %v", seq, got, want)
		}
	}
}

// SetDrawn refuses what the wire cannot carry and keeps what it had.
func TestSetDrawnRefuses(t *testing.T) {
	c := newTestSide(t, SessionConfig{})
	good := wire.Drawn{Time: 5, Late: []wire.Late{{NetID: 1}}}
	if err := c.SetDrawn(good); err != nil {
		t.Fatal(err)
	}
	tooMany := wire.Drawn{Late: make([]wire.Late, wire.DefaultMaxLate+1)}
	for i := range tooMany.Late {
		tooMany.Late[i].NetID = uint32(i + 1)
	}
	if err := c.SetDrawn(tooMany); !errors.Is(err, wire.ErrLimit) {
		t.Fatalf("too many late entities: %v", err)
	}
	if err := c.SetDrawn(wire.Drawn{Late: []wire.Late{{NetID: 4}, {NetID: 4}}}); !errors.Is(err, wire.ErrOrder) {
		t.Fatalf("a repeated NetID: %v", err)
	}
	if err := c.SetDrawn(wire.Drawn{Late: []wire.Late{{NetID: 4}, {NetID: 2}}}); !errors.Is(err, wire.ErrOrder) {
		t.Fatalf("descending NetIDs: %v", err)
	}
	c.QueueInput(1, nil)
	b, err := c.InputPacket(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	var p wire.InputPacket
	if _, err := wire.DecodeInput(b, &p, nil); err != nil {
		t.Fatal(err)
	}
	if len(p.Drawn) != 1 || p.Drawn[0].Time != 5 || !slices.Equal(p.Drawn[0].Late, good.Late) {
		t.Fatalf("after refusals the packet carries %+v", p.Drawn)
	}
}

// DrawnNow sorts and deduplicates the late entities and keeps at most
// DefaultMaxLate; LateOf rounds a lag to 1/256 tick and clamps it.
func TestDrawnNowAndLateBy(t *testing.T) {
	late := []wire.Late{{NetID: 30, Behind: 1}, {NetID: 2, Behind: 2}, {NetID: 30, Behind: 1}, {NetID: 9, Behind: 3}}
	d := DrawnNow(1234.5, late)
	if d.Time != 1234*256+128 {
		t.Fatalf("time %d", d.Time)
	}
	if !slices.Equal(d.Late, []wire.Late{{NetID: 2, Behind: 2}, {NetID: 9, Behind: 3}, {NetID: 30, Behind: 1}}) {
		t.Fatalf("late %+v", d.Late)
	}
	many := make([]wire.Late, 20)
	for i := range many {
		many[i].NetID = uint32(100 - i)
	}
	if d := DrawnNow(0, many); len(d.Late) != wire.DefaultMaxLate || d.Late[0].NetID != 81 {
		t.Fatalf("%d late, first %d", len(d.Late), d.Late[0].NetID)
	}
	for _, c := range []struct {
		lag  float32
		want uint16
	}{{0, 0}, {1, 256}, {0.5, 128}, {0.0019, 0}, {0.0021, 1}, {-3, 0}, {1e9, math.MaxUint16}, {float32(math.NaN()), 0}} {
		span := components.Span{Mode: components.SpanLerp, From: 10, To: 11, Lag: c.lag}
		got, needed := LateOf(5, &span, 10.5)
		if got.NetID != 5 || got.Behind != c.want || got.Span != 0 || needed != (c.want > 0) {
			t.Errorf("lag %v: %+v %v, want Behind %d", c.lag, got, needed, c.want)
		}
	}
}

// LateOf names the samples an entity was drawn between when they are more
// than a tick apart, so that the server joins the same two: the entity's
// time (render time minus lag) minus Back is the first sample's tick.
func TestLateOfSpan(t *testing.T) {
	for _, c := range []struct {
		from, to    uint32
		render, lag float64
		span, back  uint8
		needed      bool
		mode        components.SpanMode
	}{
		{100, 101, 100.5, 0, 0, 0, false, components.SpanLerp},                  // consecutive: nothing to say
		{100, 104, 102.25, 0, 4, 2, true, components.SpanLerp},                  // a 5 Hz entity
		{100, 104, 105.5, 3, 4, 2, true, components.SpanLerp},                   // and 3 ticks behind
		{100, 102, 100.0, 0, 2, 0, true, components.SpanLerp},                   // at its first sample
		{100, 104, 102.25, 0, 0, 0, false, components.SpanPast},                 // extrapolated: judged at its time
		{1<<24 - 2, 1<<24 + 2, 1<<24 + 1.5, 0, 4, 3, true, components.SpanLerp}, // across the wrap
	} {
		span := components.Span{Mode: c.mode, From: c.from, To: c.to, Lag: float32(c.lag)}
		l, needed := LateOf(7, &span, c.render)
		if l.Span != c.span || l.Back != c.back || needed != c.needed {
			t.Errorf("%+v: got Span %d Back %d needed %v", c, l.Span, l.Back, needed)
			continue
		}
		if c.span > 0 {
			d := DrawnNow(c.render, []wire.Late{l})
			if got := l.From(d.Time); got != c.from&(1<<24-1) {
				t.Errorf("%+v: From %d", c, got)
			}
		}
	}
}

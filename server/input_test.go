package server

import (
	"bytes"
	"errors"
	"testing"

	"github.com/netsmooth/netsmooth/wire"
)

// inputs returns an input packet carrying seqs first..first+n-1, each
// payload the seq's low byte.
func inputs(t *testing.T, seq uint16, first uint32, n int) []byte {
	t.Helper()
	p := wire.InputPacket{FirstSeq: first}
	for i := range n {
		p.Inputs = append(p.Inputs, []byte{byte(first + uint32(i))})
	}
	b, err := wire.AppendInput(nil, &wire.Header{Seq: seq}, &p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// next starts a new tick, which allows the client one more input, and
// takes client 1's next input.
func next(t *testing.T, s *Session) Input {
	t.Helper()
	if err := s.BeginTick(s.Tick() + 1); err != nil {
		t.Fatal(err)
	}
	in, err := s.NextInput(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func TestInputsReorderedAndDeduplicated(t *testing.T) {
	s := newServer(t, SessionConfig{})
	s.Connect(1)
	if in := next(t, s); in.Status != InputEmpty {
		t.Fatalf("before any input: %v", in.Status)
	}
	// Packets with redundancy 3: p0 = 1..3, p1 = 2..4, p2 = 3..5, p3 = 4..6;
	// they arrive p0, p2, p1 (late), p2 again (duplicated), p3.
	for _, p := range [][]byte{inputs(t, 0, 1, 3), inputs(t, 2, 3, 3), inputs(t, 1, 2, 3), inputs(t, 2, 3, 3), inputs(t, 3, 4, 3)} {
		if err := s.Receive(1, p, 0); err != nil {
			t.Fatal(err)
		}
	}
	for want := uint32(1); want <= 6; want++ {
		in := next(t, s)
		if in.Status != InputReady || in.Seq != want || !bytes.Equal(in.Payload, []byte{byte(want)}) {
			t.Fatalf("want %d: %+v", want, in)
		}
	}
	if in := next(t, s); in.Status != InputEmpty {
		t.Fatalf("after the last: %v", in.Status)
	}
	st, _ := s.Stats(1)
	// 12 copies of inputs: 6 distinct, and p1 and p2 overlap what came
	// before; the duplicated p2 packet is dropped whole.
	if st.InputsReceived != 6 || st.InputsDuplicate != 3+3 || st.DuplicatePackets != 1 ||
		st.InputsApplied != 6 || st.InputsLost != 0 || st.InputsStarved != 2 || st.InputAck != 6 {
		t.Fatalf("stats %+v", st)
	}
}

func TestInputLossAndLateArrival(t *testing.T) {
	s := newServer(t, SessionConfig{})
	s.Connect(1)
	s.Receive(1, inputs(t, 0, 1, 2), 0) // 1, 2
	s.Receive(1, inputs(t, 1, 5, 2), 0) // 5, 6: 3 and 4 are missing
	for _, want := range []struct {
		seq    uint32
		status InputStatus
	}{{1, InputReady}, {2, InputReady}, {3, InputLost}} {
		if in := next(t, s); in.Seq != want.seq || in.Status != want.status {
			t.Fatalf("want %d %v: %+v", want.seq, want.status, in)
		}
	}
	s.Receive(1, inputs(t, 2, 3, 2), 0) // 3 arrives late, 4 in time
	for _, want := range []uint32{4, 5, 6} {
		if in := next(t, s); in.Seq != want || in.Status != InputReady {
			t.Fatalf("want %d: %+v", want, in)
		}
	}
	// Nothing newer: the game may decide not to wait.
	if in := next(t, s); in.Status != InputEmpty {
		t.Fatal(in)
	}
	if seq, ok, err := s.SkipInput(1); err != nil || !ok || seq != 7 {
		t.Fatalf("skip: %d %v %v", seq, ok, err)
	}
	s.Receive(1, inputs(t, 3, 7, 2), 0) // 7 late, 8 fine
	if in := next(t, s); in.Seq != 8 || in.Status != InputReady {
		t.Fatalf("after skipping 7: %+v", in)
	}
	st, _ := s.Stats(1)
	if st.InputsLost != 2 || st.InputsLate != 2 || st.InputsApplied != 6 || st.InputAck != 8 {
		t.Fatalf("stats %+v", st)
	}
	if _, ok, _ := newServerWith(t, 1).SkipInput(1); ok {
		t.Fatal("skip before any input")
	}
}

func newServerWith(t *testing.T, id ClientID) *Session {
	s := newServer(t, SessionConfig{})
	s.Connect(id)
	return s
}

func TestInputsTooEarly(t *testing.T) {
	s := newServer(t, SessionConfig{InputWindow: 8, MaxLostReplay: 8})
	s.Connect(1)
	s.Receive(1, inputs(t, 0, 1, 1), 0)
	s.Receive(1, inputs(t, 1, 9, 1), 0)  // 8 ahead of 1: outside the window
	s.Receive(1, inputs(t, 2, 8, 1), 0)  // 7 ahead: inside
	s.Receive(1, inputs(t, 3, 10, 1), 0) // outside
	st, _ := s.Stats(1)
	if st.InputsTooEarly != 2 || st.InputsReceived != 2 {
		t.Fatalf("stats %+v", st)
	}
	// Slots are reused past the window without mixing inputs up.
	for seq := uint32(1); seq <= 8; seq++ {
		in := next(t, s)
		if seq == 1 || seq == 8 {
			if in.Status != InputReady || in.Payload[0] != byte(seq) {
				t.Fatalf("%d: %+v", seq, in)
			}
		} else if in.Status != InputLost {
			t.Fatalf("%d: %+v", seq, in)
		}
	}
	s.Receive(1, inputs(t, 4, 9, 8), 0) // 9..16, all in the window now
	for seq := uint32(9); seq <= 16; seq++ {
		if in := next(t, s); in.Status != InputReady || in.Seq != seq || in.Payload[0] != byte(seq) {
			t.Fatalf("%d: %+v", seq, in)
		}
	}
}

func TestReceiveRejectsBadPackets(t *testing.T) {
	s := newServerWith(t, 1)
	snap := wire.AppendHeader(nil, &wire.Header{Type: wire.TypeSnapshot})
	for _, p := range [][]byte{nil, []byte("hello"), snap, inputs(t, 0, 1, 2)[:30]} {
		if err := s.Receive(1, p, 0); err == nil {
			t.Errorf("% x accepted", p)
		}
	}
	st, _ := s.Stats(1)
	if st.BadPackets != 4 || st.PacketsReceived != 4 || st.InputsReceived != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestInputStatusString(t *testing.T) {
	if InputReady.String() != "ready" || InputLost.String() != "lost" || InputEmpty.String() != "empty" || InputStatus(9).String() != "InputStatus(9)" {
		t.Error("names")
	}
}

// stepAll is what a naive server does each tick: step the player once for
// every input NextInput hands out (a lost one repeats the previous input).
// It returns the steps taken.
func stepAll(t *testing.T, s *Session, id ClientID) int {
	t.Helper()
	steps := 0
	for {
		in, err := s.NextInput(id, nil)
		if err != nil {
			t.Fatal(err)
		}
		if in.Status == InputEmpty {
			return steps
		}
		steps++
	}
}

// A client that sends 64 inputs a tick moves no faster than an honest one
// sending one, however eagerly the server steps it: each tick allows one
// input, and the rest wait (or fall outside the window).
func TestFloodOfInputsIsPaced(t *testing.T) {
	const ticks = 100
	run := func(perTick int) (int, ClientStats) {
		s := newServer(t, SessionConfig{})
		s.Connect(1)
		seq, pkt := uint32(1), uint16(0)
		steps := 0
		for tick := uint32(1); tick <= ticks; tick++ {
			for sent := 0; sent < perTick; sent += 8 {
				n := min(8, perTick-sent)
				if err := s.Receive(1, inputs(t, pkt, seq, n), tick); err != nil {
					t.Fatal(err)
				}
				seq += uint32(n)
				pkt++
			}
			s.BeginTick(tick)
			steps += stepAll(t, s, 1)
		}
		st, _ := s.Stats(1)
		return steps, st
	}
	honest, _ := run(1)
	flood, st := run(64)
	if honest != ticks {
		t.Fatalf("honest client stepped %d times in %d ticks", honest, ticks)
	}
	if flood > honest+1 {
		t.Fatalf("flooding client stepped %d times, the honest one %d", flood, honest)
	}
	if st.InputsThrottled == 0 || st.InputsTooEarly == 0 {
		t.Fatalf("flood not counted: %+v", st)
	}
}

// A client that jumps its sequence numbers 63 ahead is not replayed for
// the 63 inputs it pretends were lost: at most MaxLostReplay of them are
// stepped, the rest are skipped, and it is stepped once per tick.
func TestSequenceJumpNotReplayed(t *testing.T) {
	s := newServer(t, SessionConfig{})
	s.Connect(1)
	steps, lost := 0, 0
	seq := uint32(1)
	for tick := uint32(1); tick <= 40; tick++ {
		if tick == 11 {
			seq += 63 // skips 63 sequence numbers
		}
		s.Receive(1, inputs(t, uint16(tick), seq, 1), tick)
		seq++
		s.BeginTick(tick)
		for {
			in, _ := s.NextInput(1, nil)
			if in.Status == InputEmpty {
				break
			}
			steps++
			if in.Status == InputLost {
				lost++
			}
		}
	}
	st, _ := s.Stats(1)
	if steps > 40+1 || lost != DefaultMaxLostReplay || st.InputsSkipped != 63-DefaultMaxLostReplay || st.InputsLost != 63 {
		t.Fatalf("%d steps in 40 ticks, %d replayed lost; stats %+v", steps, lost, st)
	}
}

// A client whose inputs arrive two at a time, every other tick, is caught
// up: nothing is lost and every input is applied in the tick it arrives
// or the next.
func TestLateInputsCatchUp(t *testing.T) {
	s := newServer(t, SessionConfig{})
	s.Connect(1)
	steps := 0
	for tick := uint32(1); tick <= 40; tick++ {
		if tick%2 == 0 {
			s.Receive(1, inputs(t, uint16(tick), tick-1, 2), tick)
		}
		s.BeginTick(tick)
		steps += stepAll(t, s, 1)
	}
	st, _ := s.Stats(1)
	if steps != 40 || st.InputsLost != 0 || st.InputsApplied != 40 {
		t.Fatalf("%d steps; stats %+v", steps, st)
	}
}

// A spectator receives snapshots but controls nothing: its inputs are
// refused and counted, its acknowledgements still taken.
func TestSpectator(t *testing.T) {
	s := newServer(t, SessionConfig{})
	if err := s.ConnectSpectator(1); err != nil {
		t.Fatal(err)
	}
	if err := s.Assign(1, 5); !errors.Is(err, ErrSpectator) {
		t.Fatalf("Assign to a spectator: %v", err)
	}
	c := newTestClient(t, wire.Config{})
	for tick := uint32(1); tick <= 3; tick++ {
		s.BeginTick(tick)
		setWorld(t, s, 5, tick, false)
		packets, err := s.Snapshot(1, tick, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range packets {
			c.receive(p, tick)
		}
		s.Receive(1, c.input(t, tick, 8, []byte{1}), tick)
		if in, _ := s.NextInput(1, nil); in.Status != InputEmpty {
			t.Fatalf("a spectator's input was handed out: %+v", in)
		}
	}
	st, _ := s.Stats(1)
	if !st.Spectator || st.InputsRefused == 0 || st.InputsReceived != 0 || st.AckedTick != 3 || !s.Spectator(1) {
		t.Fatalf("stats %+v", st)
	}
}

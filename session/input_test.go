package session

import (
	"bytes"
	"testing"

	"github.com/netsmooth/netsmooth/wire"
)

// inputs returns an input packet carrying seqs first..first+n-1, each
// payload the seq's low byte.
func inputs(t *testing.T, seq uint16, first uint32, n int) []byte {
	t.Helper()
	p := wire.InputPacket{NetID: 1, FirstSeq: first}
	for i := range n {
		p.Inputs = append(p.Inputs, []byte{byte(first + uint32(i))})
	}
	b, err := wire.AppendInput(nil, &wire.Header{Seq: seq}, &p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func next(t *testing.T, s *Server) Input {
	t.Helper()
	in, err := s.NextInput(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func TestInputsReorderedAndDeduplicated(t *testing.T) {
	s := newServer(t, Config{})
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
	s := newServer(t, Config{})
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

func newServerWith(t *testing.T, id ClientID) *Server {
	s := newServer(t, Config{})
	s.Connect(id)
	return s
}

func TestInputsTooEarly(t *testing.T) {
	s := newServer(t, Config{InputWindow: 8})
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

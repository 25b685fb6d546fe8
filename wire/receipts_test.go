package wire

import "testing"

func TestReceiptsAckWindow(t *testing.T) {
	var r Receipts
	var h Header
	r.Stamp(&h, 0)
	if h.HasAck || h.HasEcho {
		t.Fatal("acks before anything was received")
	}
	recv := func(seq uint16) bool { return r.Receive(&Header{Seq: seq}, 0) == ReceiptNew }
	for _, s := range []uint16{10, 11, 13} {
		if !recv(s) {
			t.Fatalf("fresh %d refused", s)
		}
	}
	if recv(11) || recv(13) {
		t.Fatal("duplicates accepted")
	}
	if !recv(12) { // late but within the window
		t.Fatal("reordered packet refused")
	}
	r.Stamp(&h, 0)
	if h.Ack != 13 || h.AckBits != 0b111 {
		t.Fatalf("ack %d bits %b", h.Ack, h.AckBits)
	}
	for _, s := range []uint16{10, 11, 12, 13} {
		if !h.Acks(s) {
			t.Errorf("%d not acked", s)
		}
	}
	if h.Acks(9) {
		t.Error("9 acked")
	}
	// A jump of more than 32 clears the window; older packets are refused.
	if !recv(100) {
		t.Fatal("jump refused")
	}
	r.Stamp(&h, 0)
	if h.AckBits != 0 || recv(60) {
		t.Fatalf("bits %b after a jump", h.AckBits)
	}
	if !recv(68) { // exactly 32 behind
		t.Fatal("packet 32 behind refused")
	}
	// Wrap-around.
	r.Reset()
	recv(65535)
	if !recv(0) {
		t.Fatal("wrap refused")
	}
	r.Stamp(&h, 0)
	if h.Ack != 0 || h.AckBits != 1 || !h.Acks(65535) {
		t.Fatalf("across the wrap: ack %d bits %b", h.Ack, h.AckBits)
	}
	if n, ok := r.Newest(); !ok || n != 0 {
		t.Fatal("Newest")
	}
}

// Two ends exchanging packets measure the round trip from the header fields
// alone, whatever their clocks' origins.
func TestReceiptsRTT(t *testing.T) {
	var client, server Receipts
	const offset = 1 << 31 // the server's clock reads very differently
	// Client sends at 1000 (its clock); it arrives 40 ms later.
	c := Header{Seq: 1, Sent: 1000}
	client.Stamp(&c, 1000)
	server.Receive(&c, 1040+offset)
	// The server replies 25 ms later; 35 ms on the way back.
	s := Header{Seq: 1, Sent: 1065 + offset}
	server.Stamp(&s, 1065+offset)
	if !s.HasEcho || s.Echo != 1000 || s.Hold != 25 {
		t.Fatalf("echo %+v", s)
	}
	client.Receive(&s, 1100)
	if rtt, ok := s.RTT(1100); !ok || rtt != 75 {
		t.Fatalf("RTT %d %v, want 75", rtt, ok)
	}
	// An older packet does not replace the echo.
	server.Receive(&Header{Seq: 0, Sent: 1}, 1070+offset)
	server.Stamp(&s, 1080+offset)
	if s.Echo != 1000 || s.Hold != 40 {
		t.Fatalf("echo replaced by an older packet: %+v", s)
	}
	// An echo held too long is not sent.
	server.Stamp(&s, 1040+offset+70000)
	if s.HasEcho {
		t.Fatal("echo held 70 s still sent")
	}
}

// Far-ahead sequence numbers are refused: two forged packets must not make
// the genuine stream look old. A stream that really moved on is taken up
// after SeqResync far-ahead packets in a row.
func TestReceiptsSeqJump(t *testing.T) {
	var r Receipts
	recv := func(seq uint16) Receipt { return r.Receive(&Header{Seq: seq, Sent: uint32(seq)}, 0) }
	for s := uint16(100); s < 110; s++ {
		recv(s)
	}
	// Two forged packets far ahead, then the genuine stream goes on.
	if recv(30000) != ReceiptJump || recv(30001) != ReceiptJump {
		t.Fatal("far-ahead packets adopted")
	}
	for s := uint16(110); s < 130; s++ {
		if got := recv(s); got != ReceiptNew {
			t.Fatalf("genuine packet %d after forged ones: %v", s, got)
		}
		if s%3 == 0 && recv(s+20000) != ReceiptJump {
			t.Fatal("interleaved far-ahead packet adopted")
		}
	}
	if n, _ := r.Newest(); n != 129 || r.Jumps() < 2 {
		t.Fatalf("newest %d, %d jumps", n, r.Jumps())
	}
	var h Header
	r.Stamp(&h, 0)
	if h.Echo != 129 {
		t.Fatalf("echo %d: a refused packet's send time was echoed", h.Echo)
	}
	// A stream that moved on 5000 packets (a long outage): taken up after
	// SeqResync packets in a row.
	for i := range SeqResync {
		s := uint16(5129 + i)
		got := recv(s)
		if want := ReceiptJump; i == SeqResync-1 {
			want = ReceiptNew
			if got != want {
				t.Fatalf("packet %d of the moved-on stream: %v, want %v", i, got, want)
			}
		} else if got != want {
			t.Fatalf("packet %d of the moved-on stream: %v, want %v", i, got, want)
		}
	}
	if n, _ := r.Newest(); n != 5129+SeqResync-1 {
		t.Fatalf("newest %d after resync", n)
	}
	if recv(5129+SeqResync) != ReceiptNew {
		t.Fatal("stream after resync")
	}
}

// SentTimes accepts only the echo of the packet acknowledged as newest,
// with a possible round trip.
func TestSentTimesEcho(t *testing.T) {
	var s SentTimes
	for seq := range uint16(100) {
		s.Record(seq, 1000+uint32(seq)*10)
	}
	h := Header{HasAck: true, Ack: 90, HasEcho: true, Echo: 1900, Hold: 5}
	if rtt, ok := s.RTT(&h, 1950); !ok || rtt != 45 {
		t.Fatalf("genuine echo: %d %v", rtt, ok)
	}
	for _, c := range []struct {
		name string
		h    Header
		now  uint32
	}{
		{"forged echo", Header{HasAck: true, Ack: 90, HasEcho: true, Echo: 1000}, 1950},
		{"packet forgotten", Header{HasAck: true, Ack: 10, HasEcho: true, Echo: 1100}, 1950},
		{"never sent", Header{HasAck: true, Ack: 500, HasEcho: true, Echo: 1900}, 1950},
		{"from the future", Header{HasAck: true, Ack: 90, HasEcho: true, Echo: 1900}, 1800},
		{"too long", Header{HasAck: true, Ack: 90, HasEcho: true, Echo: 1900}, 1900 + MaxRTT + 1},
		{"no echo", Header{HasAck: true, Ack: 90}, 1950},
	} {
		if rtt, ok := s.RTT(&c.h, c.now); ok {
			t.Errorf("%s: accepted, RTT %d", c.name, rtt)
		}
	}
}

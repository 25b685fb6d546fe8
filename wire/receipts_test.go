package wire

import "testing"

func TestReceiptsAckWindow(t *testing.T) {
	var r Receipts
	var h Header
	r.Stamp(&h, 0)
	if h.HasAck || h.HasEcho {
		t.Fatal("acks before anything was received")
	}
	recv := func(seq uint16) bool { return r.Receive(&Header{Seq: seq}, 0) }
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

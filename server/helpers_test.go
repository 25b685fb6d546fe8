package server

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/wire"
)

// circle returns entity k's state at tick (20 Hz): the scorecard's motion,
// NetID k+1, facing where it goes.
func circle(k int, tick uint32, velocity bool) wire.Entity {
	a := 1.25*float64(tick)/20 + float64(k)*0.7
	e := wire.Entity{
		NetID: uint32(k + 1),
		Pos:   mgl32.Vec3{float32(k*30) + float32(8*math.Cos(a)), float32(8 * math.Sin(a)), 0},
		Rot:   mgl32.QuatRotate(float32(a+math.Pi/2), mgl32.Vec3{0, 0, 1}),
	}
	if velocity {
		e.Flags = wire.HasVelocity
		e.Vel = mgl32.Vec3{float32(-10 * math.Sin(a)), float32(10 * math.Cos(a)), 0}
	}
	return e
}

// setWorld sets n circling entities at tick; with still, even NetIDs keep
// their tick-0 state.
func setWorld(t testing.TB, s *Session, n int, tick uint32, still bool) {
	t.Helper()
	for k := range n {
		tk := tick
		if still && (k+1)%2 == 0 {
			tk = 0
		}
		if err := s.SetEntity(circle(k, tk, false)); err != nil {
			t.Fatal(err)
		}
	}
}

// worldTable is the server's world as the client should reconstruct it.
func worldTable(s *Session) *wire.Table {
	s.mu.Lock()
	defer s.mu.Unlock()
	var t wire.Table
	for _, slot := range s.world.sorted() {
		t.Set(s.world.ents[slot].rec)
	}
	return &t
}

// testClient is a minimal client: a decoder, receipts, and the inputs it
// has not seen acknowledged.
type testClient struct {
	dec      *wire.Decoder
	receipts wire.Receipts
	seq      uint16
	nextIn   uint32   // next input sequence number
	unacked  [][]byte // inputs from firstUnacked on
	firstUn  uint32
	inputAck uint32
	entities []wire.Entity
	snaps    []wire.Snapshot
	errs     []error
	// wantFull asks for a full snapshot in every packet until the decoder
	// holds a baseline, as client.Session does after a restart.
	wantFull bool
}

func newTestClient(t testing.TB, cfg wire.Config) *testClient {
	d, err := wire.NewDecoder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &testClient{dec: d, nextIn: 1, firstUn: 1}
}

// receive records a snapshot packet's receipt, then decodes it, as
// client.Session does (a packet that does not decode is acknowledged
// too); decode errors are collected.
func (c *testClient) receive(p []byte, now uint32) {
	if h, _, err := wire.ParseHeader(p); err == nil {
		c.receipts.Receive(&h, now)
	}
	s, es, err := c.dec.Decode(p, c.entities[:0])
	if err != nil {
		c.errs = append(c.errs, err)
		return
	}
	c.entities = es
	c.snaps = append(c.snaps, s)
	if s.HasInputAck && int32(s.InputAck-c.inputAck) > 0 {
		c.inputAck = s.InputAck
	}
	// Drop acknowledged inputs.
	for len(c.unacked) > 0 && int32(c.firstUn-c.inputAck) <= 0 {
		c.unacked = c.unacked[1:]
		c.firstUn++
	}
}

// input makes a new input and returns the packet repeating the last
// `redundancy` unacknowledged ones.
func (c *testClient) input(t testing.TB, now uint32, redundancy int, payload []byte) []byte {
	t.Helper()
	c.unacked = append(c.unacked, payload)
	c.nextIn++
	ins := c.unacked
	first := c.firstUn
	if len(ins) > redundancy {
		first += uint32(len(ins) - redundancy)
		ins = ins[len(ins)-redundancy:]
	}
	return c.send(t, now, wire.InputPacket{FirstSeq: first, Inputs: ins})
}

// ack sends an input packet with no input: just the acknowledgement.
func (c *testClient) ack(t testing.TB, now uint32) []byte {
	t.Helper()
	return c.send(t, now, wire.InputPacket{FirstSeq: c.firstUn})
}

// send encodes p with the snapshot acknowledgement and a new header.
func (c *testClient) send(t testing.TB, now uint32, p wire.InputPacket) []byte {
	t.Helper()
	p.AckedTick, p.HasAckedTick = c.dec.Acked()
	p.Resync = c.dec.Diverged() || c.wantFull && !p.HasAckedTick
	h := wire.Header{Seq: c.seq, Sent: now}
	c.seq++
	c.receipts.Stamp(&h, now)
	b, err := wire.AppendInput(nil, &h, &p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newServer(t testing.TB, cfg SessionConfig) *Session {
	t.Helper()
	s, err := NewSession(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// handClient is client 1 of a session driven by hand, tick by tick: the
// test picks every header and acknowledgement it sends, and the client
// logs the packets the session sends it.
type handClient struct {
	t    testing.TB
	s    *Session
	rate uint32 // the session's ticks a second
	tick uint32
	seq  uint16
	log  []handPacket
}

// handPacket is a snapshot packet a handClient was sent.
type handPacket struct {
	tick uint32
	seq  uint16
	at   uint32 // its send time, milliseconds
}

// newHandClient connects client 1 to a session of cfg, whose TickRate
// must be set.
func newHandClient(t testing.TB, cfg SessionConfig) *handClient {
	s := newServer(t, cfg)
	if err := s.Connect(1); err != nil {
		t.Fatal(err)
	}
	return &handClient{t: t, s: s, rate: uint32(cfg.TickRate)}
}

// now is the session's clock at the current tick, milliseconds.
func (c *handClient) now() uint32 { return c.tick * 1000 / c.rate }

// send sends the session h and p at now, with the next sequence number.
func (c *handClient) send(h wire.Header, p wire.InputPacket, now uint32) {
	c.t.Helper()
	h.Seq, h.Sent = c.seq, now
	c.seq++
	b, err := wire.AppendInput(nil, &h, &p, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := c.s.Receive(1, b, now); err != nil {
		c.t.Fatal(err)
	}
}

// ackAged is a reply for step that acknowledges, with its echo, every
// packet sent age ticks before, and its tick: a client whose round trip
// is age ticks.
func (c *handClient) ackAged(age uint32) func(now uint32) {
	return func(now uint32) {
		for _, l := range c.log {
			if l.tick+age == c.tick {
				c.send(wire.Header{HasAck: true, Ack: l.seq, HasEcho: true, Echo: l.at},
					wire.InputPacket{AckedTick: l.tick, HasAckedTick: true}, now)
			}
		}
	}
}

// step begins the next tick with n entities standing still, logs the
// snapshot sent to the client, lets reply answer, and reports whether a
// snapshot was sent.
func (c *handClient) step(n int, reply func(now uint32)) bool {
	c.t.Helper()
	c.tick++
	if err := c.s.BeginTick(c.tick); err != nil {
		c.t.Fatal(err)
	}
	for k := range n {
		if err := c.s.SetEntity(wire.Entity{NetID: uint32(k + 1), Pos: mgl32.Vec3{float32(k), 0, 0}}); err != nil {
			c.t.Fatal(err)
		}
	}
	packets, err := c.s.Snapshot(1, c.now(), nil)
	if err != nil {
		c.t.Fatal(err)
	}
	for _, p := range packets {
		h, _, err := wire.ParseHeader(p)
		if err != nil {
			c.t.Fatal(err)
		}
		c.log = append(c.log, handPacket{c.tick, h.Seq, h.Sent})
	}
	reply(c.now())
	return len(packets) > 0
}

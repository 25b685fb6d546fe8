package client

import (
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/wire"
)

// ownID is the controlled entity of the pair's client.
const ownID = 1000

// pair is a server session and a client session over two netsim links on
// a virtual clock with 1 ms steps: the server ticks at 20 Hz (entities on
// circles and the client's own entity, which moves by its inputs'
// payloads), the client queues an input every tick (50 ms) and sends a
// packet every inputEvery. The two ends have
// clocks of their own: server ms = true ms + srvBase, client ms = true ms +
// cliBase.
type pair struct {
	t          testing.TB
	srv        *server.Session
	cli        *Session
	inbox      *systems.Inbox
	down, up   *netsim.Link[[]byte]
	entities   int
	inputEvery time.Duration
	srvBase    uint32
	cliBase    uint32

	now      time.Duration
	tick     uint32
	ownX     float32 // the server's own entity: x advances by each input's byte
	nextSeq  uint32
	owns     []Own
	drained  []systems.Message
	messages uint64                    // drained from the inbox
	ownMsgs  uint64                    // of them, messages about ownID
	alive    map[components.NetID]bool // entities spawned or updated, not despawned
	packets  [][]byte
	timed    []netsim.Timed[[]byte]
	inBuf    []byte
	errs     []error

	// onTick, if set, runs after every server tick.
	onTick func(p *pair)
	// away stops the draining of the inbox, as a game that runs no frames.
	away bool
}

// newPair returns a pair whose server assigns the client ownID. Its
// inbox is ccfg.Inbox, or a default one.
func newPair(t testing.TB, link netsim.Config, seed uint64, entities int, ccfg SessionConfig) *pair {
	t.Helper()
	p := &pair{t: t, entities: entities, inputEvery: 16 * time.Millisecond,
		srvBase: 0xfff00000, cliBase: 1000, nextSeq: 1}
	p.srv = newServer(t, server.SessionConfig{Wire: ccfg.Wire, AllowNoDelta: ccfg.NoDelta})
	if err := p.srv.Connect(1); err != nil {
		t.Fatal(err)
	}
	if err := p.srv.Assign(1, ownID); err != nil {
		t.Fatal(err)
	}
	if ccfg.Inbox == nil {
		ccfg.Inbox = systems.NewInbox(0)
	}
	p.inbox = ccfg.Inbox
	user := ccfg.OnOwn
	ccfg.OnOwn = func(o Own) {
		p.owns = append(p.owns, o)
		if user != nil {
			user(o)
		}
	}
	var err error
	if p.cli, err = NewSession(ccfg); err != nil {
		t.Fatal(err)
	}
	if p.down, err = netsim.NewLink[[]byte](link, seed); err != nil {
		t.Fatal(err)
	}
	p.up, _ = netsim.NewLink[[]byte](link, seed+1)
	return p
}

func (p *pair) srvMs(at time.Duration) uint32 { return uint32(at.Milliseconds()) + p.srvBase }
func (p *pair) cliMs(at time.Duration) uint32 { return uint32(at.Milliseconds()) + p.cliBase }

// run advances the virtual clock by d.
func (p *pair) run(d time.Duration) {
	p.t.Helper()
	for end := p.now + d; p.now < end; p.now += time.Millisecond {
		p.deliver()
		if p.now%(50*time.Millisecond) == 0 {
			p.serverTick()
		}
		if p.now%p.inputEvery == 0 {
			p.sendInput()
		}
		if p.now%(16*time.Millisecond) == 0 && !p.away {
			p.drain()
		}
	}
}

// drain empties the inbox into p.drained, counting its messages.
func (p *pair) drain() {
	p.drained, _ = p.inbox.Drain(p.drained)
	p.messages += uint64(len(p.drained))
	if p.alive == nil {
		p.alive = map[components.NetID]bool{}
	}
	for _, m := range p.drained {
		if m.NetID == ownID {
			p.ownMsgs++
		}
		switch m.Kind {
		case systems.Despawn:
			delete(p.alive, m.NetID)
		case systems.Complete:
		default:
			p.alive[m.NetID] = true
		}
	}
}

func (p *pair) deliver() {
	p.timed = p.down.DeliverTimed(p.now, p.timed[:0])
	for _, d := range p.timed {
		if err := p.cli.Receive(d.Msg, p.cliMs(d.At)); err != nil {
			p.errs = append(p.errs, err)
		}
	}
	p.timed = p.up.DeliverTimed(p.now, p.timed[:0])
	for _, d := range p.timed {
		if err := p.srv.Receive(1, d.Msg, p.srvMs(d.At)); err != nil {
			p.t.Fatal(err)
		}
	}
}

func (p *pair) serverTick() {
	for {
		in, err := p.srv.NextInput(1, nil)
		if err != nil {
			p.t.Fatal(err)
		}
		if in.Status == server.InputEmpty {
			break
		}
		if in.Status == server.InputReady && len(in.Payload) > 0 {
			p.ownX += float32(in.Payload[0])
		}
	}
	p.tick++
	if err := p.srv.BeginTick(p.tick); err != nil {
		p.t.Fatal(err)
	}
	for k := range p.entities {
		if err := p.srv.SetEntity(circle(k, p.tick, false)); err != nil {
			p.t.Fatal(err)
		}
	}
	if err := p.srv.SetEntity(wire.Entity{NetID: ownID, Pos: mgl32.Vec3{p.ownX, 0, 0}}); err != nil {
		p.t.Fatal(err)
	}
	var err error
	if p.packets, err = p.srv.Snapshot(1, p.srvMs(p.now), p.packets[:0]); err != nil {
		p.t.Fatal(err)
	}
	for _, b := range p.packets {
		p.down.Send(p.now, append([]byte(nil), b...))
	}
	if p.onTick != nil {
		p.onTick(p)
	}
}

func (p *pair) sendInput() {
	if p.now%(50*time.Millisecond) < p.inputEvery {
		if err := p.cli.QueueInput(p.nextSeq, []byte{1}); err != nil {
			p.t.Fatal(err)
		}
		p.nextSeq++
	}
	var err error
	if p.inBuf, err = p.cli.InputPacket(p.cliMs(p.now), p.inBuf[:0]); err != nil {
		p.t.Fatal(err)
	}
	p.up.Send(p.now, append([]byte(nil), p.inBuf...))
}

func newServer(t testing.TB, cfg server.SessionConfig) *server.Session {
	t.Helper()
	s, err := server.NewSession(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

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

// badNetwork loses, delays, reorders and duplicates.
var badNetwork = netsim.Config{
	Latency:   60 * time.Millisecond,
	Jitter:    20 * time.Millisecond,
	Loss:      0.10,
	Reorder:   0.10,
	Duplicate: 0.05,
}

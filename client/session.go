package client

import (
	"errors"
	"fmt"
	"sync"

	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/internal/limits"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/wire"
)

// Restart detection: a server that restarted sends full snapshots of
// ticks the client has already passed, and a stream that goes on far
// below the newest tick the client holds (farBehindMs of ticks or more)
// says that tick was not the server's. After this long with nothing but
// such packets (at least restartPackets of them), the client starts over.
const (
	RestartAfterMs = 250
	restartPackets = 3
	farBehindMs    = 500
)

// ErrInputSeq: an input queued with a sequence number not after the
// previous one's.
var ErrInputSeq = errors.New("client: input sequence number out of order")

// SessionConfig configures a [Session].
type SessionConfig struct {
	// Wire is the codec configuration, the server's (the same Quantizer,
	// limits and History at least the server's).
	Wire wire.Config
	// Inbox is the pipeline's inbox, where Receive pushes the entities
	// (pipe.Inbox()). Required.
	Inbox *systems.Inbox
	// OnOwn, if set, receives the record of the entity the client
	// controls ([Session.NetID], the server's choice) from every snapshot
	// instead of the inbox, with the snapshot's input ack: the game turns
	// it into the predictor's systems.Authoritative (see [Own]). It is
	// called from Receive, on Receive's goroutine, and must not call the
	// Session.
	OnOwn func(Own)
	// TickRate is the server's tick rate, for [Session.ServerTick]. Zero
	// means the pipeline's: 20 (its default) until [Session.FeedLatency]
	// is first given the pipeline's clock, then the clock's rate, so that
	// a game sets the rate once, in the pipeline's config.
	TickRate float64
	// Redundancy is how many of the newest unacknowledged inputs every
	// input packet repeats (default and at most Wire.MaxInputs).
	Redundancy int
	// NoDelta makes the client acknowledge no tick, so that every
	// snapshot is full: for measuring, or a link too lossy for deltas.
	// The server sends them every tick only if it allows it
	// (server.SessionConfig.AllowNoDelta); otherwise ever more rarely,
	// down to one a second.
	NoDelta bool
	// Fields, if set, receives the custom field values
	// (Wire.Quantizer.Fields) of every entity Receive pushes into the
	// inbox, as one systems.FieldMessage each: the pipeline's field inbox
	// (ecs.AddField, then pipe.FieldInbox()). Left nil, or with no field
	// declared, nothing is pushed there.
	Fields *systems.FieldInbox
}

// The pipeline's field messages carry the wire's field values.
var _ [wire.MaxFields - systems.MaxFields]struct{}
var _ [systems.MaxFields - wire.MaxFields]struct{}

// Own is the controlled entity's record from one snapshot: the server's
// state after applying the client's inputs up to Ack.
type Own struct {
	// Entity is the record in world units (its Flags may carry Spawn,
	// Teleport, or Despawn).
	Entity wire.Entity
	// Tick is the snapshot's tick.
	Tick uint32
	// Ack is the newest input sequence number the server applied (0 when
	// HasAck is false: none yet).
	Ack uint32
	// HasAck says the server has applied (or skipped) an input.
	HasAck bool
}

// Authoritative returns o as the predictor's authoritative state, with
// the game's state s made from o.Entity.
func Authoritative[S any](o Own, s S) systems.Authoritative[S] {
	return systems.Authoritative[S]{NetID: components.NetID(o.Entity.NetID), Tick: o.Tick, Ack: o.Ack, State: s}
}

// Stats are a [Session]'s counters. Every packet given to Receive
// lands in exactly one of Snapshots, DuplicatePackets, NoBaseline,
// SeqJumps or BadPackets.
type Stats struct {
	// PacketsReceived and BytesReceived count what Receive was given.
	PacketsReceived, BytesReceived uint64
	// Snapshots counts snapshot packets decoded; DuplicatePackets the
	// duplicated ones dropped (and those too old to matter); NoBaseline
	// the deltas against a tick the client does not hold, dropped (the
	// server falls back to a full snapshot); SeqJumps those whose
	// sequence number jumped too far ahead (wire.MaxSeqJump), dropped;
	// BadPackets those refused with an error.
	Snapshots, DuplicatePackets, NoBaseline, SeqJumps, BadPackets uint64
	// PacketsLost counts the server's packets that never arrived (gaps in
	// its sequence numbers, less the ones that arrived late).
	PacketsLost uint64
	// Ticks counts ticks completely received; Diverged the ticks whose
	// assembled state differed from the server's (wire.Snapshot.Diverged),
	// after which the client asks for a full snapshot.
	Ticks, Diverged uint64
	// Pushed counts the messages pushed to the inbox (entities, despawns,
	// Complete markers): the pipeline's Metrics.Received() counts them
	// all. Own counts the records handed to OnOwn.
	Pushed, Own uint64
	// LifecycleRepushed counts the Spawn and Despawn messages pushed again
	// because the inbox was full the first time (each push is in Pushed,
	// and the pipeline counts the first as RejectInboxFull);
	// LifecycleLost those dropped because more of them waited than the
	// inbox holds.
	LifecycleRepushed, LifecycleLost uint64
	// PacketsSent and BytesSent count the input packets built.
	PacketsSent, BytesSent uint64
	// PacketsAcked counts input packets the server acknowledged;
	// PacketsUnacked those it did not acknowledge while they were among
	// the 33 its acknowledgements cover (lost, most likely).
	PacketsAcked, PacketsUnacked uint64
	// InputsQueued counts inputs queued; InputsExpired those dropped
	// unacknowledged, by Redundancy newer ones or by a gap in the
	// sequence numbers (they travelled in the packets built meanwhile).
	InputsQueued, InputsExpired uint64
	// Restarts counts server restarts detected (see [Session.Receive]).
	Restarts uint64
	// Reassigned counts the snapshots that changed a nonzero NetID the
	// client controlled: the server assigned another entity, or took its
	// assignment back. Learning the first assignment is not counted.
	Reassigned uint64
}

// Session is the client side of netsmooth's protocol for one connection,
// without I/O: it decodes the server's snapshot packets into the
// pipeline's messages, follows the server's choice of the entity it
// controls ([Session.NetID]), hands the controlled entity's authoritative
// records to the game, builds the input packets, and measures the round
// trip and the server's clock from the headers both ways. [Client]
// carries its packets over QUIC, WebTransport or any message connection;
// a test drives it over a netsim.Link.
//
// A Session is safe for concurrent use: a transport calls Receive from its
// receiving goroutine while the game queues inputs, builds input packets
// and reads the estimates from its own. Every method takes one lock.
type Session struct {
	mu         sync.Mutex
	cfg        SessionConfig
	followRate bool // TickRate was left zero: FeedLatency's clock sets it
	dec        *wire.Decoder
	inbox      *systems.Inbox
	onOwn      func(Own)

	receipts wire.Receipts
	sentAt   wire.SentTimes // of the input packets, to check echoes
	ents     []wire.Entity
	msgs     []systems.Message
	// retry holds the lifecycle messages the inbox had no room for, in
	// order, to push again before the next ones, retrySpawns how many of
	// them are Spawns (see pushInbox).
	retry       []systems.Message
	retrySpawns int
	fmsgs       []systems.FieldMessage // nil unless fields are declared and pushed
	fields      *systems.FieldInbox    // nil unless fields are declared
	sync        timeSync

	// The newest tick received whole and the server's send time of the
	// packet that completed it, for ServerTick.
	tick, tickSent uint32
	hasTick        bool

	// Restart detection.
	behind      int
	behindSince uint32
	// wantFull asks the server for a full snapshot after a restart, until
	// one arrives: the server's deltas are against ticks forgotten.
	wantFull bool

	// netID is the entity the client controls, 0 for none: the server's
	// choice.
	netID components.NetID

	out      outbox
	drawn    wire.Drawn   // what the client draws now (SetDrawn)
	useDrawn bool         // SetDrawn was called: inputs carry drawn records
	drawnBuf []wire.Drawn // the drawn records of the packet being built
	seq      uint16       // next input packet's sequence number
	views    [][]byte     // the inputs of the packet being built
	scratch  []byte       // QueueInputs' encoding buffer
	acks     ackWindow
	stats    Stats
}

// NewSession returns a client session for cfg.
func NewSession(cfg SessionConfig) (*Session, error) {
	if cfg.Inbox == nil {
		return nil, configErr("SessionConfig.Inbox is nil")
	}
	dec, err := wire.NewDecoder(cfg.Wire)
	if err != nil {
		return nil, err
	}
	cfg.Wire = dec.Config()
	followRate := cfg.TickRate == 0
	if followRate {
		cfg.TickRate = 20
	}
	if err := limits.CheckTickRate(cfg.TickRate); err != nil {
		return nil, configErr("TickRate: %v (or 0 to follow the pipeline's, given by FeedLatency)", err)
	}
	if cfg.Redundancy == 0 {
		cfg.Redundancy = cfg.Wire.MaxInputs
	}
	if cfg.Redundancy < 1 || cfg.Redundancy > cfg.Wire.MaxInputs {
		return nil, configErr("Redundancy = %d, want 1..%d (Wire.MaxInputs, or 0 for it)", cfg.Redundancy, cfg.Wire.MaxInputs)
	}
	var fields *systems.FieldInbox
	if len(cfg.Wire.Quantizer.Fields) > 0 {
		fields = cfg.Fields
	}
	return &Session{
		fields:     fields,
		cfg:        cfg,
		followRate: followRate,
		dec:        dec,
		inbox:      cfg.Inbox,
		onOwn:      cfg.OnOwn,
		out:        newOutbox(cfg.Redundancy, cfg.Wire.MaxInputSize, cfg.Wire.MaxLate),
	}, nil
}

// Config returns the client's configuration with defaults filled in.
func (c *Session) Config() SessionConfig {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cfg
}

// NetID returns the entity the client controls now, 0 if none: the one
// the server assigned it, named by the newest snapshot received. It is
// the NetID of the records OnOwn receives. A game polls it to spawn its
// predicted entity once it turns nonzero, and to move its prediction to
// another entity when it changes.
func (c *Session) NetID() components.NetID {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.netID
}

// Receive processes a snapshot packet received at the client's clock now
// (ms, any origin, the clock InputPacket is given). It pushes the
// packet's entities into the inbox at the snapshot's tick, in NetID order,
// each with its Kind from its events (Despawn; Spawn, which wins over
// Teleport; Teleport; else Snapshot), then, when the packet completes a
// tick the server marked complete, the despawns of the entities that tick
// no longer holds and a Complete message for the tick. The controlled
// entity's record goes to OnOwn instead, if set.
//
// A snapshot of the newest tick received names the entity the server
// assigned the client, or none: that becomes the client's
// [Session.NetID] before its entities are pushed, so that the very first
// snapshot's record of the assigned entity already goes to OnOwn.
//
// Duplicated packets, packets whose sequence number jumps too far ahead
// (wire.MaxSeqJump) and deltas against a tick the client does not hold
// are dropped and counted, not errors: the stream heals by itself. A tick
// whose assembled state differs from the server's makes the next input
// packets ask for a full snapshot (wire.InputPacket.Resync). A packet
// that does not decode is counted and reported as an error wrapping the
// codec's (package wire). Receive never panics, whatever the bytes.
//
// A server that restarted (its ticks start again, below the ones the
// client holds) sends full snapshots of ticks the client has passed, and
// a forged snapshot of a tick far ahead leaves the server's stream going
// on below it: after RestartAfterMs of nothing newer, the client forgets
// the ticks, clock and assignment it held, asks for a full snapshot and
// takes the stream as it comes.
func (c *Session) Receive(packet []byte, now uint32) error {
	c.mu.Lock()
	own, hasOwn, err := c.receive(packet, now)
	onOwn := c.onOwn
	c.mu.Unlock()
	if hasOwn {
		onOwn(own)
	}
	return err
}

func (c *Session) receive(packet []byte, now uint32) (Own, bool, error) {
	st := &c.stats
	st.PacketsReceived++
	st.BytesReceived += uint64(len(packet))
	if h, _, err := wire.ParseHeader(packet); err == nil && h.Type == wire.TypeSnapshot {
		// A packet too old to acknowledge is still decoded (the decoder
		// drops duplicates, and a restarted server's stream starts with
		// old numbers); one far ahead is not.
		if c.heard(&h, now) == wire.ReceiptJump {
			st.SeqJumps++
			return Own{}, false, nil
		}
	}
	newest, held := c.dec.Acked()
	s, es, err := c.dec.Decode(packet, c.ents[:0])
	if held && c.restarted(&s, err, newest, now) {
		c.restart()
		s, es, err = c.dec.Decode(packet, c.ents[:0])
	}
	c.ents = es[:0]
	switch {
	case errors.Is(err, wire.ErrDuplicate):
		st.DuplicatePackets++
		return Own{}, false, nil
	case errors.Is(err, wire.ErrNoBaseline):
		st.NoBaseline++
		return Own{}, false, nil
	case err != nil:
		st.BadPackets++
		return Own{}, false, fmt.Errorf("client: snapshot: %w", err)
	}
	st.Snapshots++
	if c.wantFull {
		_, held := c.dec.Acked()
		c.wantFull = !held
	}
	if rtt, ok := c.sentAt.RTT(&s.Header, now); ok && s.Part == 0 {
		c.sync.add(rtt, s.Header.Sent, now)
	}
	if !c.hasTick || !tickBefore(s.Tick, c.tick) {
		c.control(&s) // before push: this snapshot's own record is the new NetID's
	}
	// Only a tick whose parts all arrived is the newest, and only when the
	// decoder holds it as its newest: a lone part of a tick that never
	// completes (a forged one far ahead) would otherwise hold the
	// assignment and the server tick until the stream reached it, and a
	// tick half the tick numbers away is both before and after the others.
	if newest, held := c.dec.Acked(); s.Done && held && newest == s.Tick {
		c.tick, c.tickSent, c.hasTick = s.Tick, s.Header.Sent, true
	}
	if s.HasInputAck {
		c.out.acked(s.InputAck)
	}
	if s.Done {
		st.Ticks++
	}
	if s.Diverged {
		st.Diverged++
	}
	own, hasOwn := c.push(&s, es)
	return own, hasOwn, nil
}

// restarted watches for a restarted server, or a newest tick that was
// not the server's (a forged one far ahead): it reports true once, for
// RestartAfterMs and restartPackets, every parsed packet was a full
// snapshot of a tick at or before the newest tick held, or a delta
// farBehindMs of ticks or more before it, with no progress (a newer tick,
// a delta of a recent one) in between. Reordered or duplicated packets
// are interleaved with progress, and a server that lost track of the
// client sends full snapshots of newer ticks.
func (c *Session) restarted(s *wire.Snapshot, err error, newest, now uint32) bool {
	parsed := err == nil || errors.Is(err, wire.ErrDuplicate)
	far := float64(newest-s.Tick) >= c.cfg.TickRate*farBehindMs/1000
	switch {
	case err == nil && (tickBefore(newest, s.Tick) || s.Delta && !far):
		c.behind = 0
	case parsed && !tickBefore(newest, s.Tick) && (!s.Delta || far):
		if c.behind == 0 {
			c.behindSince = now
		}
		c.behind++
		return c.behind >= restartPackets && now-c.behindSince >= RestartAfterMs
	}
	return false
}

// control takes the server's assignment from a snapshot of the newest
// tick: the NetID it names, or none.
func (c *Session) control(s *wire.Snapshot) {
	var id components.NetID
	if s.HasControlled {
		id = components.NetID(s.Controlled)
	}
	if id == c.netID {
		return
	}
	if c.netID != 0 {
		c.stats.Reassigned++
	}
	c.netID = id
}

// restart forgets the old server: its ticks, its packets' sequence
// numbers, its clock, its assignment; the next input packets ask for a
// full snapshot.
func (c *Session) restart() {
	c.wantFull = true
	c.dec.Reset()
	c.receipts.Reset()
	c.retry, c.retrySpawns = nil, 0 // the old server's lives
	c.sync.resetOffset()
	c.hasTick = false
	c.behind = 0
	c.netID = 0
	c.stats.Restarts++
}

// heard records a snapshot packet's header before its body is decoded:
// the acknowledgements and echo for the next input packet, lost packets,
// and the acknowledgements of the client's own packets. It says whether
// to decode the packet (see wire.Receipt).
func (c *Session) heard(h *wire.Header, now uint32) wire.Receipt {
	newest, ok := c.receipts.Newest()
	r := c.receipts.Receive(h, now)
	if r != wire.ReceiptNew {
		return r
	}
	switch {
	case !ok:
	case seqAfter(h.Seq, newest):
		if gap := h.Seq - newest - 1; gap < wire.MaxSeqJump {
			c.stats.PacketsLost += uint64(gap)
		} // else the stream moved on (a long outage, a restart), not losses
	case c.stats.PacketsLost > 0:
		c.stats.PacketsLost-- // a late one, counted lost when it was skipped
	}
	c.acks.heard(h, c.seq, &c.stats)
	return r
}

// push pushes the decoded entities into the inbox, the controlled one
// excepted when OnOwn takes it, then the tick's Complete marker.
func (c *Session) push(s *wire.Snapshot, es []wire.Entity) (Own, bool) {
	var own Own
	hasOwn := false
	msgs := c.msgs[:0]
	for i := range es {
		e := &es[i]
		if c.onOwn != nil && c.netID != 0 && components.NetID(e.NetID) == c.netID {
			own = Own{Entity: *e, Tick: s.Tick, Ack: s.InputAck, HasAck: s.HasInputAck} // Ack 0 without one
			hasOwn = true
			continue
		}
		msgs = append(msgs, message(e, s.Tick))
		if c.fields != nil && e.Flags&wire.Despawn == 0 {
			c.fmsgs = append(c.fmsgs, systems.FieldMessage{NetID: components.NetID(e.NetID), Tick: s.Tick, Values: e.Fields})
		}
	}
	if len(c.fmsgs) > 0 {
		// Before the entities: a frame that takes an entity's sample
		// finds its fields waiting.
		c.fields.PushBatch(c.fmsgs)
		c.fmsgs = c.fmsgs[:0]
	}
	if s.Done && s.Complete {
		msgs = append(msgs, systems.Message{Kind: systems.Complete, Tick: s.Tick})
	}
	c.pushInbox(msgs)
	if hasOwn {
		c.stats.Own++
	}
	clear(msgs)
	c.msgs = msgs[:0]
	return own, hasOwn
}

// pushInbox pushes msgs, decoded from a snapshot packet, into the
// pipeline's inbox, behind the lifecycle messages an earlier push found
// no room for. What of msgs does not fit is counted by the pipeline
// (RejectInboxFull). The client acknowledged the tick when it decoded it,
// and the server sends no despawn or spawn again once its tick is
// acknowledged; a game that runs no frames for a while (a loading screen,
// a browser tab in the background) fills the inbox. So the Spawn and
// Despawn messages that do not fit are kept, in order, and handed to the
// inbox again before the next packet's messages (Inbox.PushAfter), as
// many as fit: a despawn lost here would leave its entity in the world
// for good, a spawn lost here would leave a still entity out of it. At
// most the inbox's capacity of them is kept, Spawns at most half of it,
// so that despawns always have room (see keepLifecycle).
func (c *Session) pushInbox(msgs []systems.Message) {
	if len(msgs) == 0 && len(c.retry) == 0 {
		return
	}
	k, n := c.inbox.PushAfter(c.retry, msgs)
	c.stats.Pushed += uint64(k + len(msgs))
	c.stats.LifecycleRepushed += uint64(k)
	if k > 0 {
		for _, m := range c.retry[:k] {
			if m.Kind == systems.Spawn {
				c.retrySpawns--
			}
		}
		c.retry = c.retry[:copy(c.retry, c.retry[k:])]
		if len(c.retry) == 0 && cap(c.retry) > maxIdleRetry {
			c.retry = nil // a flood's worth, given back
		}
	}
	c.keepLifecycle(msgs[n:])
}

// maxIdleRetry is the capacity of the kept lifecycle messages' buffer
// that an empty one keeps; a larger one (after a flood) is given back.
const maxIdleRetry = 1024

// keepLifecycle keeps the Spawn and Despawn messages of msgs to push
// again (see pushInbox): Despawns while fewer than the inbox's capacity
// are kept, Spawns while fewer than half of it are Spawns (a full
// snapshot makes every record a Spawn), so that at least half the room
// is for despawns (a despawn kept when its spawn was not is no harm: the
// pipeline remembers it and refuses that life's spawn). The others are
// counted in Stats.LifecycleLost.
func (c *Session) keepLifecycle(msgs []systems.Message) {
	for i := range msgs {
		switch k := msgs[i].Kind; {
		case k != systems.Spawn && k != systems.Despawn:
			continue
		case len(c.retry) >= c.inbox.Capacity(),
			k == systems.Spawn && 2*c.retrySpawns >= c.inbox.Capacity():
			c.stats.LifecycleLost++
			continue
		case k == systems.Spawn:
			c.retrySpawns++
		}
		c.retry = append(c.retry, msgs[i])
	}
}

// message converts a decoded entity at tick into the pipeline's message.
func message(e *wire.Entity, tick uint32) systems.Message {
	m := systems.Message{NetID: components.NetID(e.NetID), Tick: tick}
	switch {
	case e.Flags&wire.Despawn != 0:
		m.Kind = systems.Despawn
		return m
	case e.Flags&wire.Spawn != 0:
		m.Kind = systems.Spawn
	case e.Flags&wire.Teleport != 0:
		m.Kind = systems.Teleport
	}
	m.Pos, m.Vel, m.Rot = e.Pos, e.Vel, e.Rot
	m.HasVelocity = e.Flags&wire.HasVelocity != 0
	m.State, m.Epoch = e.State, e.Epoch
	return m
}

// Stats returns the client's counters.
func (c *Session) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// Sync returns the round-trip, latency and clock estimates, and false
// before the first sample (the first snapshot echoing an input packet).
// Their accuracy under jitter is asserted by TestSyncAccuracy; the RTT
// reads somewhat below the mean of the two one-way delays, because the
// echo favours input packets that travelled fast.
func (c *Session) Sync() (Sync, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sync.sync()
}

// RTT returns the round-trip time estimate in ms (see [Sync.RTT]), false
// before the first sample.
func (c *Session) RTT() (float64, bool) {
	s, ok := c.Sync()
	return s.RTT, ok
}

// ServerMs returns the server's clock (ms) at the client's time now,
// false before the first sample.
func (c *Session) ServerMs(now uint32) (uint32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sync.serverMs(now)
}

// ServerTick estimates the server's tick at the client's time now: the
// newest tick received whole plus the server time elapsed since it was
// sent, in ticks of TickRate. False before the first sample.
func (c *Session) ServerTick(now uint32) (float64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ms, ok := c.sync.serverMs(now)
	if !ok || !c.hasTick {
		return 0, false
	}
	return float64(c.tick) + float64(int32(ms-c.tickSent))*c.cfg.TickRate/1000, true
}

// Pipeline is what [Session.FeedLatency] hands the measured latency to: a
// netsmooth pipeline (*ecs.Pipeline of github.com/netsmooth/netsmooth/ecs).
type Pipeline interface {
	// SetLatency takes the one-way latency from the server, in seconds.
	SetLatency(seconds float64)
	// TickRate is the pipeline's tick rate, in ticks per second.
	TickRate() float64
}

// FeedLatency tells the pipeline the one-way latency from the server
// ([Sync.Latency]), if there is an estimate yet, and reports whether
// there was. Call it on the world's goroutine, once per frame for
// instance. A client configured without a TickRate takes the pipeline's
// from then on.
func (c *Session) FeedLatency(pipe Pipeline) bool {
	if c.followRate {
		c.mu.Lock()
		c.cfg.TickRate = pipe.TickRate()
		c.mu.Unlock()
	}
	s, ok := c.Sync()
	if ok {
		pipe.SetLatency(s.Latency / 1000)
	}
	return ok
}

// seqAfter reports whether packet sequence number a comes after b, with
// wrap-around.
func seqAfter(a, b uint16) bool { return int16(a-b) > 0 }

// tickBefore reports whether tick a comes before b, with wrap-around.
func tickBefore(a, b uint32) bool { return int32(a-b) < 0 }

// configError is a configuration NewSession refuses: its text names the
// field and the fix, and it wraps wire.ErrConfig, which errors.Is finds.
type configError string

func (e configError) Error() string { return "client: " + string(e) }
func (e configError) Unwrap() error { return wire.ErrConfig }

// configErr formats a configError.
func configErr(format string, args ...any) error {
	return configError(fmt.Sprintf(format, args...))
}

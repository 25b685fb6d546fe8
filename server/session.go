package server

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/netsmooth/netsmooth/wire"
)

// Errors of the session, besides the codec's (package wire) that Receive
// and SetEntity wrap.
var (
	// ErrUnknownClient: the ClientID is not connected.
	ErrUnknownClient = errors.New("server: unknown client")
	// ErrClientExists: Connect for a ClientID already connected.
	ErrClientExists = errors.New("server: client already connected")
	// ErrTooManyClients: Connect beyond SessionConfig.MaxClients.
	ErrTooManyClients = errors.New("server: too many clients")
	// ErrTick: a tick that does not come after the previous one, a
	// Snapshot before the first BeginTick, or a second Snapshot of the
	// same tick for one client.
	ErrTick = errors.New("server: tick out of order")
	// ErrEntity: an entity SetEntity cannot take (NetID 0, which is
	// reserved, or a Despawn flag: call Despawn).
	ErrEntity = errors.New("server: invalid entity")
	// ErrSpectator: Assign of an entity to a spectator, which controls
	// nothing.
	ErrSpectator = errors.New("server: client is a spectator")
)

// ClientID identifies a client connection; the transport chooses it (an
// index, a hash of the address).
type ClientID uint32

// Session is the server side of netsmooth's protocol for any number of
// clients, without I/O: it keeps the world's state as of the current tick,
// and per client what the client has acknowledged (the baseline its
// snapshots are delta-encoded against), the inputs it sent, reordered,
// de-duplicated and paced, and its statistics. It produces snapshot
// packets and consumes input packets as byte slices, so any transport can
// carry them; [Server] carries them over QUIC, WebTransport and any
// message connection.
//
// A Session is safe for concurrent use: a transport may call Receive from
// its receiving goroutines while the tick goroutine calls the rest. All
// methods take one lock; Snapshot holds it while it encodes.
type Session struct {
	mu      sync.Mutex
	cfg     SessionConfig
	q       wire.Quantizer
	enc     *wire.Encoder
	tick    uint32
	started bool
	world   []worldEntry
	graves  []grave // recent despawns, by NetID
	clients map[ClientID]*peer
	in      wire.InputPacket // scratch for Receive
	addErr  error            // an unexpected encoder error during Snapshot
}

// worldEntry is one entity of the world, with the ticks of its latest
// events (kept until every client has received them).
type worldEntry struct {
	rec                   wire.Record
	spawn, teleport       uint32
	hasSpawn, hasTeleport bool
}

// grave is a despawned entity, remembered until every client has
// acknowledged a tick after its death: a client may know the entity from a
// tick it received only in part, which its baseline does not hold, and
// must still be told it is gone.
type grave struct {
	netID, tick uint32
}

// NewServer returns a server for cfg, which is validated.
func NewSession(cfg SessionConfig) (*Session, error) {
	enc, err := wire.NewEncoder(cfg.Wire)
	if err != nil {
		return nil, err
	}
	c, err := cfg.normalize(enc.Config())
	if err != nil {
		return nil, err
	}
	return &Session{
		cfg:     c,
		q:       c.Wire.Quantizer,
		enc:     enc,
		clients: make(map[ClientID]*peer),
	}, nil
}

// Config returns the server's configuration with defaults filled in.
func (s *Session) Config() SessionConfig {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg
}

// Connect adds a player: a client that may be given an entity to control
// ([Session.Assign]) and whose inputs are taken. Its first snapshot is
// full; its input buffer starts at the first input it sends.
func (s *Session) Connect(id ClientID) error { return s.connect(id, false) }

// ConnectSpectator adds a spectator: a client that receives snapshots
// like a player but controls no entity; the inputs it sends are refused
// and counted (ClientStats.InputsRefused), its acknowledgements still taken.
func (s *Session) ConnectSpectator(id ClientID) error { return s.connect(id, true) }

func (s *Session) connect(id ClientID, spectator bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.clients[id]; ok {
		return fmt.Errorf("%w: %d", ErrClientExists, id)
	}
	if len(s.clients) >= s.cfg.MaxClients {
		return fmt.Errorf("%w: %d connected (MaxClients)", ErrTooManyClients, len(s.clients))
	}
	p := newPeer(id, &s.cfg)
	p.spectator = spectator
	s.clients[id] = p
	return nil
}

// Disconnect removes a client and reports whether it was connected.
func (s *Session) Disconnect(id ClientID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.clients[id]
	delete(s.clients, id)
	return ok
}

// Connected reports whether id is connected.
func (s *Session) Connected(id ClientID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.clients[id]
	return ok
}

// BeginTick starts server tick t: the world's state set from now on is the
// state at t, and Snapshot sends it as t. Ticks must increase (with
// wrap-around); entities keep their state from tick to tick until set
// again or despawned.
func (s *Session) BeginTick(t uint32) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started && !tickBefore(s.tick, t) {
		return fmt.Errorf("%w: BeginTick(%d) after tick %d", ErrTick, t, s.tick)
	}
	s.tick, s.started = t, true
	s.pruneGraves()
	for _, c := range s.clients {
		c.inputs.tick(s.cfg.MaxCatchUp)
	}
	return nil
}

// pruneGraves forgets the despawns every client has acknowledged a tick
// after (or, for a client without an acknowledgement, that happened before
// its first snapshot).
func (s *Session) pruneGraves() {
	if len(s.graves) == 0 {
		return
	}
	var horizon uint32 // graves at or before it are known to every client
	found := false
	for _, c := range s.clients {
		if !c.hasSent {
			continue // its first snapshot is in the future
		}
		h := c.first - 1
		if c.hasAcked {
			h = c.acked
		}
		if !found || tickBefore(h, horizon) {
			horizon, found = h, true
		}
	}
	out := s.graves[:0]
	for _, g := range s.graves {
		if found && tickBefore(horizon, g.tick) {
			out = append(out, g)
		}
	}
	s.graves = out
}

// Tick returns the current tick.
func (s *Session) Tick() uint32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tick
}

// SetEntity sets an entity's state at the current tick, adding it if it is
// new. The Spawn and Teleport flags are events of this tick: every client
// receives them once, with the first record of the entity it gets after
// them (a teleport is never interpolated across). A NetID reused after a
// Despawn should carry Spawn (and, for the pipeline, a new Epoch).
//
// It fails, changing nothing, with an error wrapping wire.ErrRange for a
// state that cannot be quantised, wire.ErrLimit beyond
// SessionConfig.Wire.MaxEntities entities, or [ErrEntity] for NetID 0 or a
// Despawn flag.
func (s *Session) SetEntity(e wire.Entity) error {
	if e.NetID == 0 {
		return fmt.Errorf("%w: NetID 0 is reserved (it means no entity)", ErrEntity)
	}
	if e.Flags&wire.Despawn != 0 {
		return fmt.Errorf("%w: NetID %d has the Despawn flag: call Despawn", ErrEntity, e.NetID)
	}
	r, err := s.q.Record(e)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.find(e.NetID)
	if !ok {
		if len(s.world) >= s.cfg.Wire.MaxEntities {
			return fmt.Errorf("%w: NetID %d would be entity %d > MaxEntities %d", wire.ErrLimit, e.NetID, len(s.world)+1, s.cfg.Wire.MaxEntities)
		}
		s.world = slices.Insert(s.world, i, worldEntry{})
	}
	w := &s.world[i]
	w.rec = r
	if e.Flags&wire.Spawn != 0 {
		w.spawn, w.hasSpawn = s.tick, true
	}
	if e.Flags&wire.Teleport != 0 {
		w.teleport, w.hasTeleport = s.tick, true
	}
	return nil
}

// Despawn removes an entity from the world and reports whether it was
// there. Clients holding it receive a despawn record.
func (s *Session) Despawn(netID uint32) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.find(netID)
	if !ok {
		return false
	}
	s.world = slices.Delete(s.world, i, i+1)
	j, found := slices.BinarySearchFunc(s.graves, netID, func(g grave, id uint32) int {
		return cmpUint32(g.netID, id)
	})
	switch {
	case found:
		s.graves[j].tick = s.tick
	case len(s.graves) < s.cfg.Wire.MaxEntities:
		s.graves = slices.Insert(s.graves, j, grave{netID: netID, tick: s.tick})
	}
	// Beyond MaxEntities recent despawns, the oldest clients' view of the
	// extra ones relies on complete snapshots (the decoder's sweep).
	return true
}

func cmpUint32(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Len returns the number of entities in the world.
func (s *Session) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.world)
}

// find returns the position of netID in the world, or where it would go.
func (s *Session) find(netID uint32) (int, bool) {
	lo, hi := 0, len(s.world)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.world[m].rec.NetID < netID {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(s.world) && s.world[lo].rec.NetID == netID
}

// client finds a connected client; the lock is held.
func (s *Session) peer(id ClientID) (*peer, error) {
	c, ok := s.clients[id]
	if !ok {
		return nil, fmt.Errorf("%w: %d", ErrUnknownClient, id)
	}
	return c, nil
}

// Assign makes client id control entity netID: from the next snapshot
// on, every snapshot to the client names netID as its controlled entity
// (wire's SnapshotInfo.Controlled) and always carries that entity's state
// (when the world holds it), so that its prediction gets the server's
// state with every input ack. netID 0 takes the assignment back: the
// client controls nothing, and its snapshots name no entity.
//
// Only the server decides what a client controls: a client never names
// its entity. The entity need not exist yet: a game may assign before it
// spawns it. It fails with an error wrapping [ErrUnknownClient] for a
// client not connected, or [ErrSpectator] for a spectator (netID 0 is
// allowed).
func (s *Session) Assign(id ClientID, netID uint32) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[id]
	if !ok {
		return fmt.Errorf("%w: %d (Assign of NetID %d)", ErrUnknownClient, id, netID)
	}
	if c.spectator && netID != 0 {
		return fmt.Errorf("%w: %d (Assign of NetID %d)", ErrSpectator, id, netID)
	}
	c.netID = netID
	c.stats.NetID = netID
	return nil
}

// Controlled returns the entity client id controls, and false when it
// controls none (or is not connected): the one [Session.Assign] gave it.
// This is the entity its snapshots always carry, and the one a game
// applies the client's inputs to.
func (s *Session) Controlled(id ClientID) (uint32, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[id]
	if !ok || c.netID == 0 {
		return 0, false
	}
	return c.netID, true
}

// Spectator reports whether client id is connected as a spectator.
func (s *Session) Spectator(id ClientID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[id]
	return ok && c.spectator
}

// Stats returns a client's statistics.
func (s *Session) Stats(id ClientID) (ClientStats, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[id]
	if !ok {
		return ClientStats{}, false
	}
	st := c.stats
	st.AckedTick, st.HasAckedTick = c.acked, c.hasAcked
	st.InputAck, st.HasInputAck = c.inputs.applied, c.inputs.hasApplied
	st.Spectator = c.spectator
	st.SeqJumps = c.receipts.Jumps()
	return st, true
}

// tickBefore reports whether tick a comes before b, with wrap-around.
func tickBefore(a, b uint32) bool { return int32(a-b) < 0 }

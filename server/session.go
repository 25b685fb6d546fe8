package server

import (
	"errors"
	"fmt"
	"math"
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
	world   world
	grid    *grid     // nil without interest management
	hist    *history  // nil without lag compensation
	cand    []int32   // grid queries' scratch
	cells   []int32   // relevance's scratch: the cells a view reaches
	keys    []uint64  // relevance's scratch: NetID and index in near
	near    []nearEnt // relevance's scratch: the entities found
	sortTmp []uint64  // the radix sorts' scratch
	alive   []bool    // collect's scratch: which relevant entities live
	near2   []float64 // collect's scratch: their squared distances, steps
	weight  []float32 // collect's scratch: their default importance
	// The snapshot being built's candidates, in NetID order, and choose's
	// scratch: one array for every client, so that it stays in cache.
	cands   []candidate
	added   int // how many of the candidates add a record to the table: enter, not held
	order   []uint64
	due     []uint64 // choose's scratch: the despawns and the entities past MaxInterval
	warmed  uint32   // what stillAlive read of the baseline, kept so that its reads stay
	graves  []grave  // recent despawns, by NetID
	clients map[ClientID]*peer
	in      wire.InputPacket // scratch for Receive
	addErr  error            // an unexpected encoder error during Snapshot
	rate    rateProbe        // the tick rate the game runs at

	left []leftEntry // dropped's scratch: the entities that left, by NetID
	// relSpare is the relevant set the last rebuild replaced, for the next
	// rebuild to write its set into while it is in cache.
	relSpare []relEntry
}

// NewSession returns a session for cfg, which is validated.
func NewSession(cfg SessionConfig) (*Session, error) {
	enc, err := wire.NewEncoder(cfg.Wire)
	if err != nil {
		return nil, err
	}
	c, err := cfg.normalize(enc.Config())
	if err != nil {
		return nil, err
	}
	s := &Session{
		cfg:     c,
		q:       c.Wire.Quantizer,
		enc:     enc,
		clients: make(map[ClientID]*peer),
	}
	if c.History != nil {
		hc, frames, err := c.History.normalize(c.TickRate)
		if err != nil {
			return nil, err
		}
		s.hist = &history{cfg: hc, frames: make([]frame, frames)}
	}
	if c.Interest != nil {
		s.grid = newGrid(int32(min(math.Ceil(float64(c.Interest.CellSize)/float64(s.q.PosStep)), 1<<30)), c.Interest.Dims)
	}
	return s, nil
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
	s.capture() // the tick that ends, for lag compensation
	s.tick, s.started = t, true
	s.pruneGraves()
	for _, c := range s.clients {
		c.inputs.tick(s.cfg.MaxCatchUp)
	}
	return nil
}

// Tick returns the current tick.
func (s *Session) Tick() uint32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tick
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
// spawns it. Keep NetIDs small and dense (count up from 1): a client
// indexes entities by NetID in a table as large as the largest below
// systems.DefaultDenseIDs, so a NetID near a million costs every client
// tens of megabytes. It fails with an error wrapping [ErrUnknownClient] for a
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
	c.relStale = true
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
	st.Relevant = len(c.rel)
	st.SeqJumps = c.receipts.Jumps()
	return st, true
}

// tickBefore reports whether tick a comes before b, with wrap-around.
func tickBefore(a, b uint32) bool { return int32(a-b) < 0 }

// SetField sets custom field i (the one wire.Quantizer.Fields[i]
// declares) of entity netID at the current tick, keeping the rest of its
// state: for a game that changes a value (a health, a size) apart from
// the motion it hands to SetEntity. Like every change it reaches each
// client once, delta-encoded: an unchanged value costs nothing.
//
// SetEntity replaces every declared field with its Entity.Fields, so a
// SetEntity later in the tick undoes SetField. A game that keeps a field
// apart from the motion either carries its current value in every
// SetEntity, or calls SetField after SetEntity in each tick it calls
// both.
//
// It fails, changing nothing, with an error wrapping [ErrEntity] for an
// entity the world does not hold, or wire.ErrRange for a field not
// declared or a value its FieldSpec refuses (NaN, outside the range).
func (s *Session) SetField(netID uint32, i int, v float32) error {
	if i < 0 || i >= len(s.q.Fields) {
		return fmt.Errorf("%w: field %d of NetID %d, %d declared", wire.ErrRange, i, netID, len(s.q.Fields))
	}
	step, err := s.q.Fields[i].Quantize(v)
	if err != nil {
		return fmt.Errorf("NetID %d Fields[%d]: %w", netID, i, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	slot, ok := s.world.slot(netID)
	if !ok {
		return fmt.Errorf("%w: SetField of NetID %d, not in the world", ErrEntity, netID)
	}
	s.world.ents[slot].rec.Fields[i] = step
	s.world.ents[slot].hash = 0
	return nil
}

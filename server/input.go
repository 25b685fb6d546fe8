package server

import (
	"fmt"

	"github.com/netsmooth/netsmooth/wire"
)

// InputStatus says what [Session.NextInput] found.
type InputStatus uint8

const (
	// InputEmpty: nothing was consumed. Either no input newer than the
	// last one applied has arrived (the client is behind, or silent: the
	// simulation may wait, or go on without an input and call
	// [Session.SkipInput]), or the client has had its inputs for this
	// tick (SessionConfig.MaxCatchUp), or it is a spectator.
	InputEmpty InputStatus = iota
	// InputReady: the next input in sequence, in Input.Payload.
	InputReady
	// InputLost: the next input never arrived, but later ones did: it is
	// counted lost and skipped, and the simulation goes on without it
	// (repeating the previous input, typically). The client's prediction
	// corrects itself when the ack reaches it.
	InputLost
)

// String returns the status's name.
func (s InputStatus) String() string {
	switch s {
	case InputEmpty:
		return "empty"
	case InputReady:
		return "ready"
	case InputLost:
		return "lost"
	}
	return fmt.Sprintf("InputStatus(%d)", uint8(s))
}

// Input is what NextInput hands the simulation.
type Input struct {
	// Seq is the input's sequence number (valid unless Status is
	// InputEmpty).
	Seq uint32
	// Payload is the game's encoded input (with InputReady).
	Payload []byte
	// Drawn is what the client drew when it made the input, valid with
	// HasDrawn (with InputReady, when the client sent one): what
	// [Session.Rewind] judges a shot at. Its Late slice is the session's,
	// valid until the next NextInput for this client.
	Drawn    wire.Drawn
	HasDrawn bool
	// Status says whether an input was found.
	Status InputStatus
}

// input slot states
const (
	slotEmpty uint8 = iota
	slotPresent
	slotApplied
	slotLost
	slotLate // lost, and a copy arrived afterwards
)

type inputSlot struct {
	seq      uint32
	state    uint8
	payload  []byte
	hasDrawn bool
	time     uint32      // the drawn record's
	late     []wire.Late // the drawn record's, in memory of the slot's own
}

// inputBuffer reorders and de-duplicates one client's inputs: a ring of
// slots indexed by sequence number, from the next one the simulation needs
// to InputWindow ahead. Applied and lost slots keep their sequence number
// until reused, so that late copies are told apart from duplicates. It
// also paces them: credit is how many inputs the simulation may still
// take, one more per tick up to MaxCatchUp.
type inputBuffer struct {
	slots      []inputSlot
	started    bool
	next       uint32 // the next sequence number the simulation needs
	newest     uint32 // the newest received
	applied    uint32 // the newest applied or lost: the ack
	hasApplied bool
	credit     int // inputs NextInput may still hand out
	lostRun    int // inputs reported lost in a row
}

func newInputBuffer(window, size, maxLate int) inputBuffer {
	b := inputBuffer{slots: make([]inputSlot, window), credit: 1}
	mem := make([]byte, window*size)
	late := make([]wire.Late, window*maxLate)
	for i := range b.slots {
		b.slots[i].payload = mem[i*size : i*size : (i+1)*size]
		b.slots[i].late = late[i*maxLate : i*maxLate : (i+1)*maxLate]
	}
	return b
}

func (b *inputBuffer) slot(seq uint32) *inputSlot { return &b.slots[seq%uint32(len(b.slots))] }

// add buffers input seq with what the client drew (nil: nothing sent), counting it in st.
func (b *inputBuffer) add(seq uint32, payload []byte, drawn *wire.Drawn, st *ClientStats) {
	if !b.started {
		b.started, b.next, b.newest = true, seq, seq
	}
	d := int32(seq - b.next)
	s := b.slot(seq)
	switch {
	case d < 0:
		if s.seq == seq && s.state == slotLost {
			s.state = slotLate
			st.InputsLate++
		} else {
			st.InputsDuplicate++
		}
		return
	case d >= int32(len(b.slots)):
		st.InputsTooEarly++
		return
	case s.seq == seq && s.state == slotPresent:
		st.InputsDuplicate++
		return
	}
	s.seq, s.state = seq, slotPresent
	s.payload = append(s.payload[:0], payload...)
	s.hasDrawn = drawn != nil
	if drawn != nil {
		s.time = drawn.Time
		s.late = append(s.late[:0], drawn.Late[:min(len(drawn.Late), cap(s.late))]...)
	}
	if tickBefore(b.newest, seq) {
		b.newest = seq
	}
	st.InputsReceived++
}

// tick gives the buffer one more input's worth of credit, keeping at most
// max. A client starts with one, for the tick under way when it connects:
// it is never stepped more often than once more than ticks have begun
// since.
func (b *inputBuffer) tick(max int) {
	if b.credit < max {
		b.credit++
	}
}

// NextInput hands the simulation the client's next input in sequence
// order, its payload copied into buf (appended to buf[:0]); see
// [InputStatus] for what it may find. Call it once per simulation step of
// the client's entity; the sequence number it returns (ready or lost) is
// the input ack the next snapshot carries.
//
// It paces the client: each tick ([Session.BeginTick]) allows one more
// input, and at most SessionConfig.MaxCatchUp are allowed at once, so a
// client whose inputs arrived late catches up a little faster, but
// however many inputs a client sends, or however far it jumps its
// sequence numbers, it is stepped no more often than once per tick on
// average. A gap in the sequence numbers is reported lost input by input
// (the simulation typically repeats the previous input) for at most
// SessionConfig.MaxLostReplay inputs in a row; the rest of the gap is
// skipped without a step (ClientStats.InputsSkipped).
func (s *Session) NextInput(id ClientID, buf []byte) (Input, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.peer(id)
	if err != nil {
		return Input{}, err
	}
	b := &c.inputs
	if c.spectator {
		return Input{Status: InputEmpty}, nil
	}
	sl := b.slot(b.next)
	ready := b.started && sl.seq == b.next && sl.state == slotPresent
	if !ready && !(b.started && tickBefore(b.next, b.newest)) {
		c.stats.InputsStarved++
		return Input{Status: InputEmpty}, nil
	}
	if b.credit <= 0 {
		c.stats.InputsThrottled++
		return Input{Status: InputEmpty}, nil
	}
	if !ready && b.lostRun >= s.cfg.MaxLostReplay {
		// Skip the rest of the gap: the next input present is the newest
		// received or one before it.
		for !ready && tickBefore(b.next, b.newest) {
			b.lose()
			c.stats.InputsLost++
			c.stats.InputsSkipped++
			sl = b.slot(b.next)
			ready = sl.seq == b.next && sl.state == slotPresent
		}
	}
	b.credit--
	if ready {
		in := Input{Seq: b.next, Payload: append(buf[:0], sl.payload...), Status: InputReady}
		if sl.hasDrawn {
			c.drawnOut = append(c.drawnOut[:0], sl.late...)
			in.Drawn, in.HasDrawn = wire.Drawn{Time: sl.time, Late: c.drawnOut}, true
		}
		sl.state = slotApplied
		b.consume()
		b.lostRun = 0
		c.stats.InputsApplied++
		return in, nil
	}
	seq := b.lose()
	b.lostRun++
	c.stats.InputsLost++
	return Input{Seq: seq, Status: InputLost}, nil
}

// SkipInput declares the client's next input lost although nothing newer
// has arrived, for a simulation that will not wait for it: it is counted
// in InputsLost, acknowledged, takes the tick's credit like a step, and a
// copy arriving later counts as late. It returns the skipped sequence
// number, and false if the client has sent no input yet (there is no
// sequence to skip) or is a spectator.
func (s *Session) SkipInput(id ClientID) (uint32, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.peer(id)
	if err != nil {
		return 0, false, err
	}
	b := &c.inputs
	if !b.started || c.spectator {
		return 0, false, nil
	}
	b.credit = max(b.credit-1, 0)
	if sl := b.slot(b.next); sl.seq == b.next && sl.state == slotPresent {
		// It did arrive: skipping it loses it all the same.
		sl.state = slotApplied
		b.consume()
		c.stats.InputsLost++
		return b.applied, true, nil
	}
	seq := b.lose()
	c.stats.InputsLost++
	if tickBefore(b.newest, b.next) {
		b.newest = seq
	}
	return seq, true, nil
}

// consume advances past the next input.
func (b *inputBuffer) consume() {
	b.applied, b.hasApplied = b.next, true
	b.next++
}

// lose marks the next input lost and advances past it.
func (b *inputBuffer) lose() uint32 {
	seq := b.next
	sl := b.slot(seq)
	sl.seq, sl.state = seq, slotLost
	sl.payload = sl.payload[:0]
	b.consume()
	return seq
}

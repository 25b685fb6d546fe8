package wire

import (
	"encoding/binary"
	"fmt"
)

// Encoder writes one tick's snapshot for one client as one or more packets
// (parts) of at most Config.MaxPacket bytes each. A server calls
// [Encoder.Begin], then [Encoder.Add] or [Encoder.Despawn] for every entity
// to send in ascending NetID order (or [Encoder.Diff] for everything that
// differs between two tables), then [Encoder.Finish], which returns the
// packets. Each part can be decoded on its own, given the baseline.
//
// Packet buffers come from the dst slice given to Begin and are reused:
// passing the previous result back in makes encoding allocation-free in
// steady state. An Encoder is not safe for concurrent use; a server with
// several sending goroutines uses one each.
type Encoder struct {
	cfg      Config
	rotBytes int
	zero     Record
	fields   []FieldSpec // the custom fields declared

	hdr   Header
	info  SnapshotInfo
	parts [][]byte
	open  bool
	full  bool
	// fullErr is the error of a record that does not fit in MaxParts
	// parts: made once, so that a server filling every packet of every
	// client's snapshot does not allocate an error for each.
	fullErr error

	// current part
	count int
	next  uint64 // NetID expected after the previous record of the part

	// whole tick
	last    uint32
	any     bool
	records int
}

// NewEncoder returns an encoder for cfg, which is validated.
func NewEncoder(cfg Config) (*Encoder, error) {
	c, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	return &Encoder{
		cfg: c, rotBytes: c.Quantizer.rotationBytes(), zero: c.Quantizer.Zero(0), fields: c.Quantizer.Fields,
		fullErr: fmt.Errorf("%w: the snapshot does not fit in %d parts of %d bytes (raise MaxParts or MaxPacket, or send fewer entities)", ErrLimit, c.MaxParts, c.MaxPacket),
	}, nil
}

// Config returns the encoder's configuration with defaults filled in.
func (e *Encoder) Config() Config { return e.cfg }

// Begin starts the snapshot of info.Tick. h is the header template of every
// part: part i gets sequence number h.Seq+i, the rest as given (Type is set
// to TypeSnapshot). info's Baseline, Delta, InputAck, HasInputAck,
// Controlled and HasControlled are used, and written in every part; Part,
// Parts and Complete are set by Finish. dst provides the packet buffers to
// reuse (nil is fine).
//
// It fails with an error wrapping [ErrRange] for a delta against its own
// tick, or HasControlled with Controlled 0 (to assign nothing, leave
// HasControlled false).
func (e *Encoder) Begin(h Header, info SnapshotInfo, dst [][]byte) error {
	if info.Delta && info.Baseline == info.Tick {
		return fmt.Errorf("%w: tick %d delta-encoded against itself", ErrRange, info.Tick)
	}
	if info.HasControlled && info.Controlled == 0 {
		return fmt.Errorf("%w: tick %d: controlled NetID 0 (leave HasControlled false to assign nothing)", ErrRange, info.Tick)
	}
	h.Type = TypeSnapshot
	e.hdr, e.info = h, info
	e.parts = dst[:0]
	e.open, e.full = true, false
	e.count, e.next = 0, 0
	e.any, e.records = false, 0
	return nil
}

// Full reports whether the snapshot has reached Config.MaxParts and has no
// room for another record: what was not added by then is left out.
func (e *Encoder) Full() bool { return e.full }

// Records returns the number of records added since Begin.
func (e *Encoder) Records() int { return e.records }

// Part returns the index of the part the last record added went into
// (its packet's Seq is the header's plus this), -1 before any.
func (e *Encoder) Part() int { return len(e.parts) - 1 }

// Add appends cur's record, delta-encoded against base: the entity's record
// in the baseline table, or nil when the baseline does not hold it (or the
// snapshot is full), which encodes against [Quantizer.Zero]. Only the
// fields that differ are written. ev may hold Spawn and Teleport, sent with
// the record; cur.Flags other than HasVelocity are ignored.
//
// NetIDs must be added in strictly ascending order ([ErrOrder]). When the
// record does not fit in the last part and MaxParts parts are in use, Add
// returns an error wrapping [ErrLimit], adds nothing, and [Encoder.Full]
// turns true: the snapshot so far is still valid, but not complete.
func (e *Encoder) Add(cur, base *Record, ev Flags) error {
	if ev&^(Spawn|Teleport) != 0 {
		return fmt.Errorf("%w: NetID %d: events %v (only spawn and teleport; use Despawn)", ErrRange, cur.NetID, ev)
	}
	if !e.cfg.Quantizer.rotationValid(cur.Rot) {
		return fmt.Errorf("NetID %d: %w", cur.NetID, e.cfg.Quantizer.checkRotation(cur.Rot))
	}
	if cur.Fields != ([MaxFields]int32{}) {
		if err := checkFields(cur, e.fields); err != nil {
			return err
		}
	}
	if base == nil {
		base = &e.zero
	}
	return e.add(cur.NetID, cur, base, ev)
}

// RecordSize returns the bytes Add would write for cur against base (nil:
// the zero record) with events ev, without the NetID gap that precedes
// it (one byte between neighbouring NetIDs, at most five): what a server
// choosing what fits in a byte budget weighs a record by.
func (e *Encoder) RecordSize(cur, base *Record, ev Flags) int {
	if base == nil {
		base = &e.zero
	}
	return recordSize(cur, base, ev, e.rotBytes, e.fields)
}

// DespawnSize is the size of a despawn record without its NetID gap.
const DespawnSize = 2 // the mask varint of mDespawn

// Despawn appends a despawn record for netID: the entity is gone as of this
// tick. Same ordering and limits as Add. The baseline need not hold the
// entity: a server may despawn an entity the client heard of only in a
// tick it never acknowledged.
func (e *Encoder) Despawn(netID uint32) error {
	return e.add(netID, nil, nil, Despawn)
}

func (e *Encoder) add(id uint32, cur, base *Record, ev Flags) error {
	if !e.open {
		return fmt.Errorf("%w: record added outside Begin…Finish", ErrOrder)
	}
	if e.any && id <= e.last {
		return fmt.Errorf("%w: NetID %d added after %d (NetIDs must increase)", ErrOrder, id, e.last)
	}
	if e.full {
		return e.fullErr
	}
	if len(e.parts) == 0 {
		if err := e.newPart(id); err != nil {
			return err
		}
	}
	for attempt := 0; ; attempt++ {
		i := len(e.parts) - 1
		p := e.parts[i]
		mark := len(p)
		gap := uint32(uint64(id) - e.next)
		if ev&Despawn != 0 {
			p = appendDespawn(p, gap)
		} else {
			p = appendRecord(p, gap, cur, base, ev, e.rotBytes, e.fields)
		}
		if len(p) <= e.cfg.MaxPacket && e.count < 0xffff {
			e.parts[i] = p
			break
		}
		e.parts[i] = p[:mark]
		if attempt > 0 {
			// Cannot happen: an empty part always has room for one record.
			return fmt.Errorf("%w: NetID %d: record does not fit in an empty packet of %d bytes", ErrLimit, id, e.cfg.MaxPacket)
		}
		if err := e.newPart(id); err != nil {
			return err
		}
	}
	e.count++
	e.next = uint64(id) + 1
	e.last, e.any = id, true
	e.records++
	return nil
}

// checkFields refuses a record with a custom field step outside its
// spec's range, or a nonzero one beyond the fields declared.
func checkFields(r *Record, fields []FieldSpec) error {
	for i, v := range r.Fields {
		if i >= len(fields) {
			if v != 0 {
				return fmt.Errorf("%w: NetID %d: Fields[%d] = step %d, but only %d fields are declared", ErrRange, r.NetID, i, v, len(fields))
			}
			continue
		}
		if !fields[i].inRange(v) {
			return fmt.Errorf("%w: NetID %d: Fields[%d] = step %d, outside 0..%d", ErrRange, r.NetID, i, v, fields[i].Steps())
		}
	}
	return nil
}

// newPart closes the current part and starts the next one, for the record
// of NetID id.
func (e *Encoder) newPart(id uint32) error {
	n := len(e.parts)
	if n == e.cfg.MaxParts {
		e.full = true
		return e.fullErr
	}
	if n > 0 {
		binary.LittleEndian.PutUint16(e.parts[n-1][HeaderSize+snapCount:], uint16(e.count))
	}
	var buf []byte
	if n < cap(e.parts) {
		buf = e.parts[:n+1][n][:0]
	}
	if need := e.cfg.MaxPacket + MaxRecordSize; cap(buf) < need {
		buf = make([]byte, 0, need)
	}
	h := e.hdr
	h.Seq += uint16(n)
	buf = AppendHeader(buf, &h)
	var flags uint8
	if e.info.HasInputAck {
		flags |= snapHasAck
	}
	if e.info.Delta {
		flags |= snapDelta
	}
	if e.info.HasControlled {
		flags |= snapControlled
	}
	buf = binary.LittleEndian.AppendUint32(buf, e.info.Tick)
	buf = append(buf, flags)
	buf = binary.LittleEndian.AppendUint16(buf, uint16(n))
	buf = append(buf, 0, 0, 0, 0, 0, 0, 0, 0) // parts, count and hash, patched later
	if e.info.HasInputAck {
		buf = binary.LittleEndian.AppendUint32(buf, e.info.InputAck)
	}
	if e.info.Delta {
		buf = appendUvarint(buf, e.info.Tick-e.info.Baseline)
	}
	if e.info.HasControlled {
		buf = appendUvarint(buf, e.info.Controlled)
	}
	e.parts = append(e.parts, buf)
	e.count, e.next = 0, 0
	return nil
}

// Diff adds a record for every entity of cur that differs from its record
// in base, or that base does not hold, and a despawn for every entity of
// base that cur does not hold; base nil means a full snapshot (every
// entity of cur). It returns an error wrapping [ErrLimit] when MaxParts
// ran out: what did not fit is left out, and the snapshot must not be
// finished as complete.
func (e *Encoder) Diff(base, cur *Table) error {
	var b []Record
	if base != nil {
		b = base.recs
	}
	c := cur.recs
	i, j := 0, 0
	for i < len(b) || j < len(c) {
		var err error
		switch {
		case j == len(c) || (i < len(b) && b[i].NetID < c[j].NetID):
			err = e.Despawn(b[i].NetID)
			i++
		case i == len(b) || c[j].NetID < b[i].NetID:
			err = e.Add(&c[j], nil, 0)
			j++
		default:
			if c[j] != b[i] {
				err = e.Add(&c[j], &b[i], 0)
			}
			i++
			j++
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Finish ends the snapshot and returns its parts, at least one even with no
// records (the tick, its completeness and the input ack still travel).
// complete is the claim that the parts name every entity that changed
// since the baseline; Finish ignores it (and marks the snapshot
// incomplete) if the snapshot ran out of parts. hash is the state hash of
// the table the client holds once it has every part ([Table.Hash] of the
// baseline with the records added applied; see [SnapshotInfo.Hash]).
func (e *Encoder) Finish(complete bool, hash uint32) ([][]byte, error) {
	if !e.open {
		return e.parts, fmt.Errorf("%w: Finish before Begin", ErrOrder)
	}
	e.open = false
	if len(e.parts) == 0 {
		if err := e.newPart(0); err != nil {
			return e.parts, err
		}
	}
	le := binary.LittleEndian
	le.PutUint16(e.parts[len(e.parts)-1][HeaderSize+snapCount:], uint16(e.count))
	complete = complete && !e.full
	for _, p := range e.parts {
		le.PutUint16(p[HeaderSize+snapParts:], uint16(len(e.parts)))
		le.PutUint32(p[HeaderSize+snapHash:], hash)
		if complete {
			p[HeaderSize+snapFlags] |= snapComplete
		}
	}
	return e.parts, nil
}

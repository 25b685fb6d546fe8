package wire

import (
	"encoding/binary"
	"fmt"
)

// Snapshot body: fixed fields first, so that the encoder can patch the part
// count, record count and flags once it knows them.
const (
	snapTick   = 0  // uint32
	snapFlags  = 4  // uint8
	snapPart   = 5  // uint16
	snapParts  = 7  // uint16
	snapCount  = 9  // uint16
	snapHash   = 11 // uint32
	snapFixed  = 15 // then input ack (uint32, with snapHasAck), baseline distance (uvarint, with snapDelta), controlled NetID (uvarint, with snapControlled)
	snapMaxHdr = HeaderSize + snapFixed + 4 + 2*maxVarint32

	snapComplete   = 1 << 0
	snapHasAck     = 1 << 1
	snapDelta      = 1 << 2
	snapControlled = 1 << 3
	snapKnownFlags = snapComplete | snapHasAck | snapDelta | snapControlled
)

// SnapshotInfo describes one part of one tick's snapshot.
type SnapshotInfo struct {
	// Tick is the server tick the snapshot shows.
	Tick uint32
	// Baseline is the tick the records are delta-encoded against, valid
	// with Delta. Without Delta the snapshot is full: records are relative
	// to the zero record and the client needs no earlier state.
	Baseline uint32
	// Delta says the snapshot is delta-encoded against Baseline.
	Delta bool
	// Part is this packet's index among the tick's Parts packets.
	Part, Parts int
	// Complete says that the tick's parts together name every entity that
	// changed since the baseline (every entity, for a full snapshot):
	// entities left out are unchanged, or, in a full snapshot, do not
	// exist. It is a claim about the whole tick, usable once every part
	// has arrived.
	Complete bool
	// InputAck is the newest input sequence number the server has applied
	// for this client, valid with HasInputAck: the Ack that prediction
	// reconciles against.
	InputAck    uint32
	HasInputAck bool
	// Controlled is the NetID of the entity the server has assigned this
	// client to control, valid with HasControlled (and then never 0). The
	// server sends it in every snapshot while the assignment holds; a
	// snapshot without it says the server assigns nothing (the client
	// controls what it configured, or nothing).
	Controlled    uint32
	HasControlled bool
	// Hash is the state hash ([Table.Hash]) of what the server holds for
	// this client once the tick's parts are all applied: the tick's table.
	// A decoder that assembles another state does not take the tick as a
	// baseline (see [Snapshot.Diverged]).
	Hash uint32
}

// parseSnapshot reads the snapshot fields of body (after the header) and
// returns them with the record count and a reader positioned on the first
// record.
func parseSnapshot(body []byte, c *Config) (SnapshotInfo, int, reader, error) {
	var s SnapshotInfo
	r := reader{b: body}
	if len(body) < snapFixed {
		return s, 0, r, fmt.Errorf("%w: snapshot fields need %d bytes, body has %d", ErrTruncated, snapFixed, len(body))
	}
	le := binary.LittleEndian
	s.Tick = le.Uint32(body[snapTick:])
	flags := body[snapFlags]
	if flags&^snapKnownFlags != 0 {
		return s, 0, r, fmt.Errorf("%w: tick %d: snapshot flags %#02x has unknown bits", ErrMalformed, s.Tick, flags)
	}
	s.Complete = flags&snapComplete != 0
	s.HasInputAck = flags&snapHasAck != 0
	s.Delta = flags&snapDelta != 0
	s.HasControlled = flags&snapControlled != 0
	s.Part = int(le.Uint16(body[snapPart:]))
	s.Parts = int(le.Uint16(body[snapParts:]))
	count := int(le.Uint16(body[snapCount:]))
	s.Hash = le.Uint32(body[snapHash:])
	if s.Parts == 0 || s.Parts > c.MaxParts {
		return s, 0, r, fmt.Errorf("%w: tick %d: %d parts, want 1..%d (MaxParts)", ErrLimit, s.Tick, s.Parts, c.MaxParts)
	}
	if s.Part >= s.Parts {
		return s, 0, r, fmt.Errorf("%w: tick %d: part index %d of %d parts", ErrMalformed, s.Tick, s.Part, s.Parts)
	}
	r.off = snapFixed
	var err error
	if s.HasInputAck {
		if s.InputAck, err = r.u32("input ack"); err != nil {
			return s, 0, r, err
		}
	}
	if s.Delta {
		d, err := r.uvarint("baseline distance", 0xffffffff)
		if err != nil {
			return s, 0, r, err
		}
		if d == 0 {
			return s, 0, r, fmt.Errorf("%w: tick %d: delta against itself (baseline distance 0)", ErrMalformed, s.Tick)
		}
		s.Baseline = s.Tick - d
	}
	if s.HasControlled {
		if s.Controlled, err = r.uvarint("controlled NetID", 0xffffffff); err != nil {
			return s, 0, r, err
		}
		if s.Controlled == 0 {
			return s, 0, r, fmt.Errorf("%w: tick %d: controlled NetID flag set with NetID 0 (no assignment is sent as no flag)", ErrMalformed, s.Tick)
		}
	}
	// Every record takes at least two bytes (NetID gap and mask).
	if count > r.remaining()/2 {
		return s, 0, r, fmt.Errorf("%w: tick %d part %d: %d records cannot fit in %d bytes", ErrMalformed, s.Tick, s.Part, count, r.remaining())
	}
	return s, count, r, nil
}

package wire

import (
	"encoding/binary"
	"fmt"
)

// Record field mask bits, in the order the fields follow the mask. The mask
// is a varint: the seven most frequent fields fit its first byte.
const (
	mPosX = 1 << iota
	mPosY
	mPosZ
	mRot
	mVelX
	mVelY
	mVelZ
	mState
	mEpoch
	mVelFlip // HasVelocity differs from the reference
	mSpawn
	mDespawn
	mTeleport
	mFields // custom fields differ: a field mask and their deltas follow

	maskLimit = 1<<14 - 1
)

// MaxRecordSize bounds the bytes of one encoded record, whatever it holds:
// NetID gap 5, mask 2, position 3×5, rotation 8, velocity 3×5, state 3,
// epoch 1, custom fields: mask 1 and 5 for each of at most MaxFields.
const MaxRecordSize = 5 + 2 + 15 + 8 + 15 + 3 + 1 + 1 + MaxFields*5

// fieldMask returns the mask of the custom fields (of the first nf) in
// which cur differs from ref.
func fieldMask(cur, ref *Record, nf int) uint32 {
	var m uint32
	for i := range nf {
		if cur.Fields[i] != ref.Fields[i] {
			m |= 1 << i
		}
	}
	return m
}

// recordMask returns the field mask of cur's record relative to ref with
// the given events: a bit for every field that differs.
func recordMask(cur, ref *Record, ev Flags) uint32 {
	// The position written out axis by axis, the velocity only tested
	// axis by axis when it changed: every record a server sends is
	// masked, and a loop over the axes cost more than the tests.
	var mask uint32
	if cur.Pos[0] != ref.Pos[0] {
		mask |= mPosX
	}
	if cur.Pos[1] != ref.Pos[1] {
		mask |= mPosY
	}
	if cur.Pos[2] != ref.Pos[2] {
		mask |= mPosZ
	}
	if cur.Vel != ref.Vel {
		for i := range 3 {
			if cur.Vel[i] != ref.Vel[i] {
				mask |= mVelX << i
			}
		}
	}
	if cur.Rot != ref.Rot {
		mask |= mRot
	}
	if cur.State != ref.State {
		mask |= mState
	}
	if cur.Epoch != ref.Epoch {
		mask |= mEpoch
	}
	if cur.Fields != ref.Fields {
		mask |= mFields
	}
	return mask | flagBits(cur, ref, ev)
}

// flagBits returns the mask bits that name no bytes of the record: the
// velocity flag changed, and the events.
func flagBits(cur, ref *Record, ev Flags) uint32 {
	var mask uint32
	if (cur.Flags^ref.Flags)&HasVelocity != 0 {
		mask |= mVelFlip
	}
	if ev&Spawn != 0 {
		mask |= mSpawn
	}
	if ev&Teleport != 0 {
		mask |= mTeleport
	}
	return mask
}

// recordSize returns the bytes appendRecord writes for cur relative to
// ref with events ev, after the NetID gap: the mask and the fields it
// names. It tests each field once, adding its bytes as it builds the
// mask, since a server weighs every candidate record by it, every tick.
func recordSize(cur, ref *Record, ev Flags, rotBytes int, fields []FieldSpec) int {
	var mask uint32
	n := 0
	if d := cur.Pos[0] - ref.Pos[0]; d != 0 {
		mask |= mPosX
		n += UvarintLen(zigzag(d))
	}
	if d := cur.Pos[1] - ref.Pos[1]; d != 0 {
		mask |= mPosY
		n += UvarintLen(zigzag(d))
	}
	if d := cur.Pos[2] - ref.Pos[2]; d != 0 {
		mask |= mPosZ
		n += UvarintLen(zigzag(d))
	}
	if cur.Vel != ref.Vel {
		for i := range 3 {
			if d := cur.Vel[i] - ref.Vel[i]; d != 0 {
				mask |= mVelX << i
				n += UvarintLen(zigzag(d))
			}
		}
	}
	if cur.Rot != ref.Rot {
		mask |= mRot
		n += rotBytes
	}
	if cur.State != ref.State {
		mask |= mState
		n += UvarintLen(uint32(cur.State))
	}
	if cur.Epoch != ref.Epoch {
		mask |= mEpoch
		n++
	}
	mask |= flagBits(cur, ref, ev)
	if cur.Fields != ref.Fields {
		mask |= mFields
		n++
		for i, f := range fields {
			if cur.Fields[i] != ref.Fields[i] {
				n += UvarintLen(zigzag(f.delta(cur.Fields[i], ref.Fields[i])))
			}
		}
	}
	return n + UvarintLen(mask)
}

// appendRecord appends the record of cur relative to ref (the baseline's
// record, or the zero record) with the given events. gap is the NetID's
// distance from the one expected after the previous record.
// fields are the custom fields declared: the record must hold no others
// (the encoder checks).
func appendRecord(b []byte, gap uint32, cur, ref *Record, ev Flags, rotBytes int, fields []FieldSpec) []byte {
	mask := recordMask(cur, ref, ev)
	b = appendUvarint(b, gap)
	b = appendUvarint(b, mask)
	b = appendDelta(b, mask, mPosX, cur.Pos[0], ref.Pos[0])
	b = appendDelta(b, mask, mPosY, cur.Pos[1], ref.Pos[1])
	b = appendDelta(b, mask, mPosZ, cur.Pos[2], ref.Pos[2])
	if mask&mRot != 0 {
		var tmp [8]byte
		binary.LittleEndian.PutUint64(tmp[:], cur.Rot)
		b = append(b, tmp[:rotBytes]...)
	}
	if mask&(mVelX|mVelY|mVelZ) != 0 {
		b = appendDelta(b, mask, mVelX, cur.Vel[0], ref.Vel[0])
		b = appendDelta(b, mask, mVelY, cur.Vel[1], ref.Vel[1])
		b = appendDelta(b, mask, mVelZ, cur.Vel[2], ref.Vel[2])
	}
	if mask&mState != 0 {
		b = appendUvarint(b, uint32(cur.State))
	}
	if mask&mEpoch != 0 {
		b = append(b, cur.Epoch)
	}
	if mask&mFields != 0 {
		b = append(b, byte(fieldMask(cur, ref, len(fields))))
		for i, f := range fields {
			if cur.Fields[i] != ref.Fields[i] {
				b = appendUvarint(b, zigzag(f.delta(cur.Fields[i], ref.Fields[i])))
			}
		}
	}
	return b
}

// appendDelta appends the delta from ref to cur if mask has bit: the
// axes written out one by one, as every record a server sends is.
func appendDelta(b []byte, mask, bit uint32, cur, ref int32) []byte {
	if mask&bit == 0 {
		return b
	}
	return appendUvarint(b, zigzag(cur-ref))
}

// appendDespawn appends a despawn record.
func appendDespawn(b []byte, gap uint32) []byte {
	b = appendUvarint(b, gap)
	return appendUvarint(b, mDespawn)
}

// readRecordHead reads a record's NetID gap and mask. next is the NetID
// expected after the previous record; the NetID read is returned.
func readRecordHead(r *reader, next uint64) (netID uint32, mask uint32, err error) {
	gap, err := r.uvarint("record NetID", 0xffffffff)
	if err != nil {
		return 0, 0, err
	}
	id := next + uint64(gap)
	if id > 0xffffffff {
		return 0, 0, fmt.Errorf("%w: record NetID %d + gap %d overflows uint32 (NetIDs must increase)", ErrMalformed, next, gap)
	}
	mask, err = r.uvarint("record mask", maskLimit)
	if err != nil {
		return 0, 0, err
	}
	if mask&mDespawn != 0 && mask != mDespawn {
		return 0, 0, fmt.Errorf("%w: NetID %d: despawn record with other fields (mask %#x)", ErrMalformed, id, mask)
	}
	return uint32(id), mask, nil
}

// readRecordBody reads the fields named by mask into rec, which holds the
// reference record on entry. The event flags are returned. q must be
// normalised. The encoding is canonical: a field is present if and only if
// it differs from the reference, so a present field equal to it is refused.
func readRecordBody(r *reader, mask uint32, rec *Record, q *Quantizer, rotBytes int) (Flags, error) {
	for i := range 3 {
		if mask&(mPosX<<i) != 0 {
			d, err := r.uvarint(axisNames[0][i], 0xffffffff)
			if err != nil {
				return 0, err
			}
			if d == 0 {
				return 0, unchanged(axisNames[0][i])
			}
			rec.Pos[i] += unzigzag(d)
		}
	}
	if mask&mRot != 0 {
		raw, err := r.bytes("rotation", rotBytes)
		if err != nil {
			return 0, err
		}
		var tmp [8]byte
		copy(tmp[:], raw)
		p := binary.LittleEndian.Uint64(tmp[:])
		if err := q.checkRotation(p); err != nil {
			return 0, fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		if p == rec.Rot {
			return 0, unchanged("rotation")
		}
		rec.Rot = p
	}
	for i := range 3 {
		if mask&(mVelX<<i) != 0 {
			d, err := r.uvarint(axisNames[1][i], 0xffffffff)
			if err != nil {
				return 0, err
			}
			if d == 0 {
				return 0, unchanged(axisNames[1][i])
			}
			rec.Vel[i] += unzigzag(d)
		}
	}
	if mask&mState != 0 {
		s, err := r.uvarint("state", 0xffff)
		if err != nil {
			return 0, err
		}
		if uint16(s) == rec.State {
			return 0, unchanged("state")
		}
		rec.State = uint16(s)
	}
	if mask&mEpoch != 0 {
		e, err := r.u8("epoch")
		if err != nil {
			return 0, err
		}
		if e == rec.Epoch {
			return 0, unchanged("epoch")
		}
		rec.Epoch = e
	}
	if mask&mFields != 0 {
		if err := readFields(r, rec, q.Fields); err != nil {
			return 0, err
		}
	}
	if mask&mVelFlip != 0 {
		rec.Flags ^= HasVelocity
	}
	var ev Flags
	if mask&mSpawn != 0 {
		ev |= Spawn
	}
	if mask&mTeleport != 0 {
		ev |= Teleport
	}
	return ev, nil
}

// readFields reads a record's custom field section into rec, which holds
// the reference: the field mask (nonzero, naming declared fields only) and
// a zigzag varint difference per field it names, which must be nonzero,
// the short way round for a wrapping field, and land in the field's range.
func readFields(r *reader, rec *Record, fields []FieldSpec) error {
	m, err := r.u8("field mask")
	if err != nil {
		return err
	}
	if m == 0 || m>>len(fields) != 0 {
		return fmt.Errorf("%w: field mask %#x with %d fields declared", ErrMalformed, m, len(fields))
	}
	for i, f := range fields {
		if m&(1<<i) == 0 {
			continue
		}
		d, err := r.uvarint(fieldNames[i], 0xffffffff)
		if err != nil {
			return err
		}
		if d == 0 {
			return unchanged(fieldNames[i])
		}
		s, ok := f.apply(rec.Fields[i], unzigzag(d))
		if !ok {
			return fmt.Errorf("%w: %s = step %d%+d, outside 0..%d (or not the short way round)", ErrRange, fieldNames[i], rec.Fields[i], unzigzag(d), f.Steps())
		}
		rec.Fields[i] = s
	}
	return nil
}

// fieldNames name the fields in errors.
var fieldNames = func() (n [MaxFields]string) {
	for i := range n {
		n[i] = fmt.Sprintf("Fields[%d]", i)
	}
	return n
}()

func unchanged(field string) error {
	return fmt.Errorf("%w: %s present but equal to the reference (fields are sent only when changed)", ErrMalformed, field)
}

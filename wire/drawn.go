package wire

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Bounds of a [Drawn]'s late entities.
const (
	DefaultMaxLate = 6
	MaxLateLimit   = 64
	// DrawnUnit is the resolution of drawn times: 1/256 of a tick.
	DrawnUnit = 1.0 / 256
)

// Drawn is what a client drew when it made an input, so that the server
// can judge the input (a shot) against exactly that: lag compensation.
// A client draws remote entities in the past, at its render time; an
// entity sent less often is drawn later still, by its own lag.
type Drawn struct {
	// Time is the render time, in 1/256 of a server tick, modulo 2^32:
	// [DrawnTime] of the pipeline's render tick.
	Time uint32
	// Late lists the entities drawn at another time than Time, each with
	// how far behind it, in ascending NetID order, at most Config.MaxLate.
	Late []Late
}

// Late is an entity a client drew otherwise than at its render time
// between two consecutive ticks' samples: later (an entity sent less
// often is drawn behind by its lag), or between samples more than a tick
// apart (an entity sent less often, or snapshots lost), which the client
// joins by a straight line where the entity's true path may have turned.
type Late struct {
	NetID uint32
	// Behind is how far behind the render time the entity was drawn, in
	// 1/256 of a tick (its lag, up to 256 ticks): at its own time, Time
	// minus Behind.
	Behind uint16
	// Span, when 2 or more, says the client drew the entity between its
	// samples of ticks From and From+Span, where From is the whole tick
	// of its own time minus Back (Back at most Span): the server then
	// joins its records of those two ticks the same way. 0 means the
	// client drew it from consecutive ticks' samples (or held or
	// extrapolated it), and the server takes its record at its own time.
	Span, Back uint8
}

// From returns the tick of the first sample l's entity was drawn from,
// for a record of drawn time time, modulo 2^24 (as drawn times are):
// meaningful when Span is 2 or more.
func (l *Late) From(time uint32) uint32 {
	return ((time-uint32(l.Behind))>>8 - uint32(l.Back)) & (1<<24 - 1)
}

// DrawnTime converts a render time in ticks (the pipeline clock's render
// tick) to a Drawn's Time.
func DrawnTime(tick float64) uint32 {
	return uint32(int64(math.Round(math.Mod(tick, 1<<24) * 256)))
}

// Tick returns the render time v.Time names, in ticks, taking the one
// nearest near (the server's current tick): drawn times wrap every 2^24
// ticks.
func (v *Drawn) Tick(near uint32) float64 {
	d := int32(v.Time - near<<8) // near in 1/256 ticks, modulo 2^32
	return float64(near) + float64(d)*DrawnUnit
}

// appendDrawn appends v's encoding: its time (4 bytes, or, after the first
// of a packet, a zigzag varint from prev), the count of late entities
// and each one's NetID (a varint gap from the previous one's, plus one),
// Behind (a varint) and Span (a byte), followed by Back (a byte) when Span
// is 2 or more.
func appendDrawn(dst []byte, v *Drawn, prev uint32, first bool) []byte {
	if first {
		dst = binary.LittleEndian.AppendUint32(dst, v.Time)
	} else {
		dst = appendUvarint(dst, zigzag(int32(v.Time-prev)))
	}
	dst = append(dst, byte(len(v.Late)))
	next := uint32(0)
	for _, l := range v.Late {
		dst = appendUvarint(dst, l.NetID-next)
		dst = appendUvarint(dst, uint32(l.Behind))
		dst = append(dst, l.Span)
		if l.Span >= 2 {
			dst = append(dst, l.Back)
		}
		next = l.NetID + 1
	}
	return dst
}

// checkDrawn refuses drawn records that cannot be encoded: their count must match
// the inputs', their late entities within maxLate, in ascending NetID
// order.
func checkDrawn(p *InputPacket, maxLate int) error {
	if p.Drawn == nil {
		return nil
	}
	if len(p.Drawn) != len(p.Inputs) {
		return fmt.Errorf("%w: %d drawn records for %d inputs", ErrRange, len(p.Drawn), len(p.Inputs))
	}
	for i := range p.Drawn {
		late := p.Drawn[i].Late
		if len(late) > maxLate {
			return fmt.Errorf("%w: drawn record %d names %d late entities > MaxLate %d", ErrLimit, i, len(late), maxLate)
		}
		for j := range late {
			if j > 0 && late[j].NetID <= late[j-1].NetID {
				return fmt.Errorf("%w: drawn record %d: late NetIDs %d then %d (they must increase)", ErrOrder, i, late[j-1].NetID, late[j].NetID)
			}
			if err := late[j].check(ErrRange); err != nil {
				return fmt.Errorf("drawn record %d: %w", i, err)
			}
		}
	}
	return nil
}

// readDrawn reads a drawn record into v, its late entities appended to buf, which
// it returns.
func readDrawn(r *reader, v *Drawn, prev uint32, first bool, maxLate int, buf []Late) ([]Late, error) {
	var err error
	if first {
		if v.Time, err = r.u32("drawn time"); err != nil {
			return buf, err
		}
	} else {
		d, err := r.uvarint("drawn time delta", 0xffffffff)
		if err != nil {
			return buf, err
		}
		v.Time = prev + uint32(unzigzag(d))
	}
	n, err := r.u8("late count")
	if err != nil {
		return buf, err
	}
	if int(n) > maxLate {
		return buf, fmt.Errorf("%w: %d late entities > MaxLate %d", ErrLimit, n, maxLate)
	}
	start := len(buf)
	next := uint64(0)
	for range int(n) {
		gap, err := r.uvarint("late NetID", 0xffffffff)
		if err != nil {
			return buf, err
		}
		id := next + uint64(gap)
		if id > math.MaxUint32 {
			return buf, fmt.Errorf("%w: late NetID %d + gap %d overflows uint32", ErrMalformed, next, gap)
		}
		behind, err := r.uvarint("late behind", 0xffff)
		if err != nil {
			return buf, err
		}
		l := Late{NetID: uint32(id), Behind: uint16(behind)}
		if l.Span, err = r.u8("late span"); err != nil {
			return buf, err
		}
		if l.Span >= 2 {
			if l.Back, err = r.u8("late back"); err != nil {
				return buf, err
			}
		}
		if err := l.check(ErrMalformed); err != nil {
			return buf, err
		}
		buf = append(buf, l)
		next = id + 1
	}
	v.Late = buf[start:len(buf):len(buf)]
	return buf, nil
}

// check refuses a late record whose Span and Back contradict each other:
// a Span of 1 (consecutive samples need none), a Back beyond the Span, or
// a Back without a Span. The error wraps kind: [ErrRange] for a record
// being encoded, [ErrMalformed] for one being decoded.
func (l *Late) check(kind error) error {
	if l.Span == 1 || (l.Span >= 2 && l.Back > l.Span) || (l.Span == 0 && l.Back != 0) {
		return fmt.Errorf("%w: late NetID %d: Span %d, Back %d (want Span 0 with Back 0, or Span >= 2 with Back <= Span)", kind, l.NetID, l.Span, l.Back)
	}
	return nil
}

// maxDrawnSize bounds an encoded drawn record with maxLate late entities.
func maxDrawnSize(maxLate int) int { return 4 + 1 + maxLate*(maxVarint32+3+2) }

package wire

import "fmt"

// Decoder is a client's side of the snapshot stream: it turns snapshot
// packets into entity states in world units, reconstructing delta records
// from the baseline they name, and keeps what is needed for that: the
// state tables of the last Config.History ticks it completely received,
// the ticks being assembled from parts, and the set of entities it has
// reported alive.
//
// For each packet, [Decoder.Decode] returns the packet's entities at once
// (a lost part of the same tick does not hold the others back) and reports
// when the packet completes its tick ([Snapshot.Done]). A completed tick
// becomes a baseline the client acknowledges: put [Decoder.Acked] in every
// input packet, so the server delta-encodes against it.
//
// A Decoder is not safe for concurrent use. After the first few ticks it
// does not allocate, given a dst slice with room.
type Decoder struct {
	cfg      Config
	q        Quantizer
	rotBytes int
	zero     Record
	rot      rotConsts

	history *History
	pend    []pending
	started uint64 // ticks started assembling, for pend's order
	empty   Table

	// diverged is set when a tick's assembled state differed from the
	// server's (its hash), until a full snapshot is assembled right.
	diverged bool
	divergeN uint64

	scratch []scratchRec
	spare   []Record
	live    []liveEntry
	spareL  []liveEntry
}

// scratchRec is a decoded record of the packet being decoded, before it is
// applied to its tick's table.
type scratchRec struct {
	rec  Record // full state; Flags holds HasVelocity, or Despawn
	idx  int32  // position in the reference table, -1 if absent
	live int32  // position in the live set, -1 if absent
	ev   Flags  // the record's events
}

// pending is a tick being assembled from its parts.
type pending struct {
	used  bool
	tick  uint32
	order uint64 // when its first part arrived, in parts started
	info  SnapshotInfo
	table Table
	got   []uint64
	n     int
}

// liveEntry is an entity the decoder has reported alive, with the newest
// tick it was named at.
type liveEntry struct {
	netID, tick uint32
}

// Snapshot describes a decoded snapshot packet.
type Snapshot struct {
	// Header is the packet's header: feed it to the client's Receipts.
	Header Header
	SnapshotInfo
	// Records is the number of entity records the packet carried (the
	// first Records entities Decode appended).
	Records int
	// Done says this packet was the last missing part of its tick: every
	// part has now arrived, the tick is a baseline the client acknowledges
	// (unless it is older than every tick held), and, if Complete, Decode
	// also appended a Despawn for every entity it had reported alive that
	// the tick no longer holds.
	Done bool
	// Diverged says this packet was the last missing part of its tick, but
	// the state assembled differs from the server's (its hash, see
	// [Table.Hash]): the tick is not a baseline, the delta's baseline is
	// dropped, and until a full snapshot is assembled right the decoder
	// reports [Decoder.Diverged], which the client's input packets carry
	// as a request for one ([InputPacket.Resync]). The entities already
	// decoded from the tick's parts stand until the full snapshot
	// replaces them.
	Diverged bool
}

// NewDecoder returns a decoder for cfg, which is validated and must match
// the server's Quantizer, with limits at least the server's (and History at
// least the server session's).
func NewDecoder(cfg Config) (*Decoder, error) {
	c, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	return &Decoder{
		cfg:      c,
		q:        c.Quantizer,
		rotBytes: c.Quantizer.rotationBytes(),
		zero:     c.Quantizer.Zero(0),
		rot:      c.Quantizer.rotConsts(),
		history:  NewHistory(c.History),
		pend:     make([]pending, c.MaxPendingTicks),
	}, nil
}

// Config returns the decoder's configuration with defaults filled in.
func (d *Decoder) Config() Config { return d.cfg }

// Acked returns the newest tick completely received: the AckedTick of the
// client's next input packet.
func (d *Decoder) Acked() (uint32, bool) { return d.history.Newest() }

// State returns the state table of a completely received tick, or nil. It
// is the decoder's own baseline: read it, do not modify it.
func (d *Decoder) State(tick uint32) *Table { return d.history.Get(tick) }

// Reset forgets every tick and every entity, as for a new connection.
func (d *Decoder) Reset() {
	d.history.Reset()
	for i := range d.pend {
		d.pend[i].used = false
	}
	d.live = d.live[:0]
	d.diverged = false
}

// Diverged reports whether the decoder's state drifted from the server's
// (see [Snapshot.Diverged]) and no full snapshot has been assembled since:
// the client should ask for one ([InputPacket.Resync]).
func (d *Decoder) Diverged() bool { return d.diverged }

// Divergences returns how many ticks were assembled with a state that
// differs from the server's.
func (d *Decoder) Divergences() uint64 { return d.divergeN }

// Decode decodes one snapshot packet and appends its entities to dst, in
// NetID order: each with its full state in world units, its HasVelocity
// flag and the events Spawn, Teleport or Despawn (a despawn carries only
// the NetID). All entities are at s.Tick. When the packet completes a tick
// marked Complete, Despawn entities for the entities that tick no longer
// holds follow (see [Snapshot.Done]).
//
// A packet is decoded entirely or not at all: on error, dst is returned
// unchanged and the decoder's state is as before. Errors wrap
// [ErrTruncated], [ErrMagic], [ErrVersion], [ErrType], [ErrLimit],
// [ErrMalformed], [ErrNoBaseline] (the baseline is not held: drop the
// packet) or [ErrDuplicate] (a duplicated packet: drop it).
func (d *Decoder) Decode(packet []byte, dst []Entity) (Snapshot, []Entity, error) {
	var s Snapshot
	count, r, err := d.parse(packet, &s)
	if err != nil {
		return s, dst, err
	}
	info := &s.SnapshotInfo
	p, ref, err := d.reference(info)
	if err != nil {
		return s, dst, err
	}
	n0 := len(dst)
	dst, grow, err := d.decodeRecords(info, count, &r, ref, dst)
	if err != nil {
		return s, dst[:n0], err
	}
	if n := ref.Len() + grow; n > d.cfg.MaxEntities {
		return s, dst[:n0], fmt.Errorf("%w: tick %d would hold %d entities > MaxEntities %d", ErrLimit, info.Tick, n, d.cfg.MaxEntities)
	}
	if err := d.updateLive(info.Tick); err != nil {
		return s, dst[:n0], err
	}
	s.Records = count
	dst = d.assemble(p, ref, &s, dst)
	return s, dst, nil
}

// parse reads packet's header and snapshot fields into s, and returns the
// record count and a reader on the first record. It refuses oversized
// packets, other packet types and parts of ticks already completely
// received.
func (d *Decoder) parse(packet []byte, s *Snapshot) (int, reader, error) {
	if len(packet) > d.cfg.MaxPacket {
		return 0, reader{}, fmt.Errorf("%w: snapshot packet of %d bytes > MaxPacket %d", ErrLimit, len(packet), d.cfg.MaxPacket)
	}
	h, body, err := ParseHeader(packet)
	s.Header = h
	if err != nil {
		return 0, reader{}, err
	}
	if h.Type != TypeSnapshot {
		return 0, reader{}, fmt.Errorf("%w: %v packet, want snapshot", ErrType, h.Type)
	}
	info, count, r, err := parseSnapshot(body, &d.cfg)
	s.SnapshotInfo = info
	if err != nil {
		return 0, r, err
	}
	if d.history.Get(info.Tick) != nil {
		return 0, r, fmt.Errorf("%w: part %d of tick %d, a tick already completely received", ErrDuplicate, info.Part, info.Tick)
	}
	return count, r, nil
}

// reference returns the tick under assembly the part belongs to (nil for
// the first part seen of its tick, or for a part that contradicts the
// earlier ones, which starts the tick afresh) and the table its records are
// relative to: the tick under assembly, the delta's baseline, or the empty
// table of a full snapshot.
func (d *Decoder) reference(info *SnapshotInfo) (*pending, *Table, error) {
	p := d.findPending(info.Tick)
	if p != nil && !p.agrees(info) {
		// The part contradicts the earlier parts of its tick (a restarted
		// or confused server, or garbage that got there first): the latest
		// word wins, and the tick is assembled afresh from this part.
		p.used, p = false, nil
	}
	switch {
	case p != nil:
		if p.has(info.Part) {
			return nil, nil, fmt.Errorf("%w: part %d of tick %d already received", ErrDuplicate, info.Part, info.Tick)
		}
		return p, &p.table, nil
	case info.Delta:
		ref := d.history.Get(info.Baseline)
		if ref == nil {
			newest, ok := d.history.Newest()
			return nil, nil, fmt.Errorf("%w: tick %d part %d is a delta against tick %d (newest held: %d, any: %v)",
				ErrNoBaseline, info.Tick, info.Part, info.Baseline, newest, ok)
		}
		return nil, ref, nil
	}
	return nil, &d.empty, nil
}

// decodeRecords decodes the packet's count records against ref into
// d.scratch and appends their entities to dst. It returns how many
// entities the tick gains (negative when it loses some). On error, the
// caller truncates dst back.
func (d *Decoder) decodeRecords(info *SnapshotInfo, count int, r *reader, ref *Table, dst []Entity) ([]Entity, int, error) {
	d.scratch = d.scratch[:0]
	grow := 0
	next := uint64(0)
	cursor := 0
	for range count {
		id, mask, err := readRecordHead(r, next)
		if err != nil {
			return dst, 0, fmt.Errorf("tick %d part %d: %w", info.Tick, info.Part, err)
		}
		next = uint64(id) + 1
		idx, ok := seek(ref.recs, cursor, id)
		cursor = idx
		sr := scratchRec{idx: -1}
		if ok {
			if ref.recs[idx].Flags&touched != 0 {
				return dst, 0, fmt.Errorf("%w: NetID %d named in two parts of tick %d", ErrMalformed, id, info.Tick)
			}
			sr.idx = int32(idx)
		}
		if mask == mDespawn {
			// A despawn of an entity the baseline does not hold is
			// allowed: the client may know it from a tick it never
			// completely received.
			sr.rec, sr.ev = Record{NetID: id, Flags: Despawn}, Despawn
			dst = append(dst, Entity{NetID: id, Flags: Despawn})
			if ok {
				grow--
			}
		} else {
			if ok {
				sr.rec = ref.recs[idx]
				sr.rec.Flags &= HasVelocity
			} else {
				sr.rec = d.zero
				sr.rec.NetID = id
				grow++
			}
			ev, err := readRecordBody(r, mask, &sr.rec, &d.q, d.rotBytes)
			if err != nil {
				return dst, 0, fmt.Errorf("tick %d part %d NetID %d: %w", info.Tick, info.Part, id, err)
			}
			sr.ev = ev
			dst = append(dst, Entity{})
			d.entity(&dst[len(dst)-1], &sr.rec, ev)
		}
		d.scratch = append(d.scratch, sr)
	}
	if r.remaining() != 0 {
		return dst, 0, fmt.Errorf("%w: tick %d part %d: %d trailing bytes after %d records", ErrMalformed, info.Tick, info.Part, r.remaining(), count)
	}
	return dst, grow, nil
}

// assemble applies the decoded records to their tick under assembly p
// (starting one from ref when p is nil) and sets s.Done when this part was
// the tick's last: then the tick becomes a baseline and, if it is
// complete, the Despawns of its sweep are appended to dst. A tick whose
// assembled state differs from the server's sets s.Diverged instead.
func (d *Decoder) assemble(p *pending, ref *Table, s *Snapshot, dst []Entity) []Entity {
	info := &s.SnapshotInfo
	if p == nil {
		if p = d.allocPending(info.Tick); p == nil {
			return dst // not newer than the newest tick held: not tracked
		}
		d.started++
		p.used, p.tick, p.order, p.info, p.n = true, info.Tick, d.started, *info, 0
		p.info.Part = 0
		p.table.CopyFrom(ref)
		words := (info.Parts + 63) / 64
		p.got = append(p.got[:0], make([]uint64, words)...)
	}
	d.apply(&p.table)
	p.got[info.Part/64] |= 1 << (info.Part % 64)
	p.n++
	if p.n < p.info.Parts {
		return dst
	}
	p.used = false
	recs := p.table.recs
	for i := range recs {
		recs[i].Flags &^= touched
	}
	if p.table.Hash() != p.info.Hash {
		// Built on a baseline the server does not hold as it is here (or
		// from parts that were not the server's): neither the tick nor
		// that baseline can be built on.
		d.diverged = true
		d.divergeN++
		if p.info.Delta {
			d.history.Drop(p.info.Baseline)
		}
		s.Diverged = true
		return dst
	}

	// Every part has arrived and the state is the server's: the tick
	// becomes a baseline.
	s.Done = true
	if !p.info.Delta {
		d.diverged = false
	}
	if p.info.Complete {
		dst = d.sweep(p.tick, &p.table, dst)
	}
	if slot := d.history.Put(p.tick); slot != nil {
		slot.recs, p.table.recs = p.table.recs, slot.recs[:0]
		slot.hash, p.table.hash = p.table.hash, 0
	}
	return dst
}

// agrees reports whether a part's tick-wide fields match the earlier
// parts'.
func (p *pending) agrees(s *SnapshotInfo) bool {
	a := p.info
	return a.Delta == s.Delta && (!a.Delta || a.Baseline == s.Baseline) && a.Parts == s.Parts &&
		a.Complete == s.Complete && a.HasInputAck == s.HasInputAck && a.InputAck == s.InputAck &&
		a.HasControlled == s.HasControlled && a.Controlled == s.Controlled && a.Hash == s.Hash
}

func (p *pending) has(part int) bool { return p.got[part/64]&(1<<(part%64)) != 0 }

func (d *Decoder) findPending(tick uint32) *pending {
	for i := range d.pend {
		if p := &d.pend[i]; p.used && p.tick == tick {
			return p
		}
	}
	return nil
}

// allocPending returns a slot for assembling tick: a free one, else, of the
// ticks it may abandon, the one whose first part arrived longest ago. A
// tick may abandon an older tick, or one more than MaxReorderTicks ahead
// of it: parts of ticks that far ahead never complete in a server's
// stream (they are forged or corrupt), and must not hold the slots
// against the ticks that follow. It returns nil when there is no such
// slot (a late part of an abandoned tick does not abandon a newer one),
// and for a tick not newer than the newest tick completely received,
// which would be of no use as a baseline.
func (d *Decoder) allocPending(tick uint32) *pending {
	if newest, ok := d.history.Newest(); ok && !tickBefore(newest, tick) {
		return nil
	}
	var victim *pending
	for i := range d.pend {
		p := &d.pend[i]
		if !p.used {
			return p
		}
		if !tickBefore(p.tick, tick) && !tickBefore(tick+MaxReorderTicks, p.tick) {
			continue // a newer tick, within reach of this one
		}
		if victim == nil || p.order < victim.order {
			victim = p
		}
	}
	return victim
}

// apply writes the scratch records into t, marking them touched: in place
// when they only update existing entries, by a merge when they insert or
// remove.
func (d *Decoder) apply(t *Table) {
	if len(d.scratch) == 0 {
		return
	}
	inPlace := true
	for i := range d.scratch {
		if sr := &d.scratch[i]; sr.idx < 0 || sr.rec.Flags&Despawn != 0 {
			inPlace = false
			break
		}
	}
	for i := range d.scratch {
		sr := &d.scratch[i]
		if sr.idx >= 0 {
			t.hash ^= t.recs[sr.idx].Hash()
		}
		if sr.rec.Flags&Despawn == 0 {
			t.hash ^= sr.rec.Hash()
		}
	}
	if inPlace {
		for i := range d.scratch {
			sr := &d.scratch[i]
			sr.rec.Flags |= touched
			t.recs[sr.idx] = sr.rec
		}
		return
	}
	// Merge from the first position the records touch: the entries before
	// it stay where they are, those after it are moved aside first. A part
	// that only appends (the parts of a full snapshot, in order) copies
	// nothing.
	first, _ := seek(t.recs, 0, d.scratch[0].rec.NetID)
	tail := append(d.spare[:0], t.recs[first:]...)
	out := t.recs[:first]
	j := 0
	for i := range d.scratch {
		sr := &d.scratch[i]
		for j < len(tail) && tail[j].NetID < sr.rec.NetID {
			out = append(out, tail[j])
			j++
		}
		if j < len(tail) && tail[j].NetID == sr.rec.NetID {
			j++ // replaced or removed
		}
		if sr.rec.Flags&Despawn == 0 {
			sr.rec.Flags |= touched
			out = append(out, sr.rec)
		}
	}
	t.recs = append(out, tail[j:]...)
	d.spare = tail[:0]
}

// updateLive records the scratch records, named at tick, in the live set:
// named entities are alive as of tick (or later), despawned ones are gone
// unless named at a later tick. It fails without changing anything if the
// set would exceed MaxEntities.
func (d *Decoder) updateLive(tick uint32) error {
	grow, change := 0, false
	cursor := 0
	for i := range d.scratch {
		sr := &d.scratch[i]
		j, ok := seek(d.live, cursor, sr.rec.NetID)
		cursor = j
		sr.live = -1
		if ok {
			sr.live = int32(j)
		}
		if sr.rec.Flags&Despawn != 0 {
			change = change || ok
		} else if !ok {
			grow++
			change = true
		}
	}
	if n := len(d.live) + grow; n > d.cfg.MaxEntities {
		return fmt.Errorf("%w: tick %d: %d entities alive > MaxEntities %d", ErrLimit, tick, n, d.cfg.MaxEntities)
	}
	if !change {
		// Every named entity is already alive, none is despawned.
		for i := range d.scratch {
			if j := d.scratch[i].live; j >= 0 {
				if e := &d.live[j]; tickBefore(e.tick, tick) {
					e.tick = tick
				}
			}
		}
		return nil
	}
	out := d.spareL[:0]
	j := 0
	for i := range d.scratch {
		sr := &d.scratch[i]
		for j < len(d.live) && d.live[j].netID < sr.rec.NetID {
			out = append(out, d.live[j])
			j++
		}
		e := liveEntry{netID: sr.rec.NetID, tick: tick}
		if j < len(d.live) && d.live[j].netID == sr.rec.NetID {
			old := d.live[j]
			j++
			if tickBefore(tick, old.tick) {
				out = append(out, old) // named at a later tick: still alive
				continue
			}
		}
		if sr.rec.Flags&Despawn == 0 {
			out = append(out, e)
		}
	}
	out = append(out, d.live[j:]...)
	d.spareL, d.live = d.live[:0], out
	return nil
}

// netIDed is a record kept sorted by NetID.
type netIDed interface{ Record | liveEntry }

// netIDOf returns x's NetID.
func netIDOf[T netIDed](x *T) uint32 {
	switch v := any(x).(type) {
	case *Record:
		return v.NetID
	case *liveEntry:
		return v.netID
	}
	return 0
}

// seek finds id in xs (sorted by NetID) at or after position from,
// galloping forward and then bisecting: cheap for the ascending NetIDs of
// a packet, dense or sparse. It returns the position of id, or where it
// would be inserted.
func seek[T netIDed](xs []T, from int, id uint32) (int, bool) {
	lo, hi, step := from, from, 1
	for hi < len(xs) && netIDOf(&xs[hi]) < id {
		lo = hi + 1
		hi += step
		step <<= 1
	}
	hi = min(hi, len(xs))
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if netIDOf(&xs[m]) < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(xs) && netIDOf(&xs[lo]) == id
}

// MaxReorderTicks is how far after a complete tick an entity may have been
// named and still survive that tick's sweep when the tick does not hold
// it: parts of the next few ticks may arrive before a tick completes, but
// an entity named only at a tick further ahead than this is not a
// server's (forged or corrupt data) and goes.
const MaxReorderTicks = 64

// sweep appends a Despawn for every live entity that the complete table of
// tick does not hold and that was not named after tick (up to
// MaxReorderTicks after it), and forgets them.
func (d *Decoder) sweep(tick uint32, t *Table, dst []Entity) []Entity {
	out := d.live[:0]
	j := 0
	for _, e := range d.live {
		for j < len(t.recs) && t.recs[j].NetID < e.netID {
			j++
		}
		held := j < len(t.recs) && t.recs[j].NetID == e.netID
		if !held && (tickBefore(e.tick, tick) || tickBefore(tick+MaxReorderTicks, e.tick)) {
			dst = append(dst, Entity{NetID: e.netID, Flags: Despawn})
			continue
		}
		out = append(out, e)
	}
	d.live = out
	return dst
}

// entity writes a decoded record (its rotation checked) in world units,
// with the events ev, to e.
func (d *Decoder) entity(e *Entity, r *Record, ev Flags) {
	e.NetID, e.State, e.Epoch, e.Flags = r.NetID, r.State, r.Epoch, r.Flags&HasVelocity|ev
	ps, vs := float64(d.q.PosStep), float64(d.q.VelStep)
	e.Pos = [3]float32{float32(float64(r.Pos[0]) * ps), float32(float64(r.Pos[1]) * ps), float32(float64(r.Pos[2]) * ps)}
	e.Vel = [3]float32{float32(float64(r.Vel[0]) * vs), float32(float64(r.Vel[1]) * vs), float32(float64(r.Vel[2]) * vs)}
	e.Rot = d.rot.unpack(r.Rot)
	for i, f := range d.q.Fields {
		e.Fields[i] = f.Value(r.Fields[i])
	}
}

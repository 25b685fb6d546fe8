package server

import (
	"fmt"
	"math"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/wire"
)

// Defaults of [HistoryConfig].
const (
	DefaultHistoryWindow = time.Second
	DefaultMaxDrawnDelay = 900 * time.Millisecond
)

// HistoryConfig turns on lag compensation: the session keeps, for the
// last Window, the pose of every entity that has a hit shape
// ([Session.SetShape]), so that a shot is judged against what the
// shooter saw ([Session.Rewind], [Session.Raycast]). The zero value of
// every field means its default.
type HistoryConfig struct {
	// Window is how far back poses are kept (default 1 s, at least one
	// tick). Memory: 24 bytes per entity slot per tick of the window.
	Window time.Duration
	// MaxDrawnDelay is how much further back than its round trip a
	// client's drawn time may be (default 900 ms: the pipeline's longest
	// interpolation delay, 400 ms, and the longest lag of an entity sent
	// less often, 500 ms). An older claim is clamped and counted.
	MaxDrawnDelay time.Duration
	// MaxSpeed, if set, is the fastest any shaped entity moves, in world
	// units a second: with interest management, ray casts then look only
	// at the grid cells the ray passes near (widened by how far an entity
	// could have moved since), not at every shaped entity.
	MaxSpeed float32
}

func (h HistoryConfig) normalize(tickRate float64) (HistoryConfig, int, error) {
	if h.Window == 0 {
		h.Window = DefaultHistoryWindow
	}
	if h.MaxDrawnDelay == 0 {
		h.MaxDrawnDelay = DefaultMaxDrawnDelay
	}
	if h.Window < 0 || h.MaxDrawnDelay < 0 || h.MaxSpeed < 0 || math.IsNaN(float64(h.MaxSpeed)) {
		return h, 0, configErr("History %+v: durations and MaxSpeed must not be negative", h)
	}
	frames := int(math.Ceil(h.Window.Seconds()*tickRate)) + 2
	if frames > 1<<16 {
		return h, 0, configErr("History.Window %v holds %d ticks, at most 65536", h.Window, frames)
	}
	return h, frames, nil
}

// ShapeKind says what a hit shape is.
type ShapeKind uint8

const (
	// NoShape: the entity cannot be hit (the zero Shape).
	NoShape ShapeKind = iota
	// Sphere of Radius around the entity's position.
	Sphere
	// Capsule: the points within Radius of the segment from -Half·Axis to
	// +Half·Axis, in the entity's own frame (rotated with it).
	Capsule
	// Box with half-sizes Extents along the entity's own axes.
	Box
)

// Shape is an entity's hit shape, in its own frame: centred on its
// position, rotated with it.
type Shape struct {
	Kind    ShapeKind
	Radius  float32    // Sphere, Capsule
	Half    float32    // Capsule: half its segment's length
	Axis    mgl32.Vec3 // Capsule: its segment's direction (default +Y)
	Extents mgl32.Vec3 // Box: half-sizes along x, y, z
}

// bound is the radius of the sphere around the position that holds the
// shape.
func (s *Shape) bound() float32 {
	switch s.Kind {
	case Sphere:
		return s.Radius
	case Capsule:
		return s.Radius + s.Half
	case Box:
		return s.Extents.Len()
	}
	return 0
}

func (s Shape) valid() bool {
	ok := func(v float32) bool { return v >= 0 && !math.IsInf(float64(v), 0) }
	switch s.Kind {
	case NoShape:
		return true
	case Sphere:
		return s.Radius > 0 && ok(s.Radius)
	case Capsule:
		return s.Radius > 0 && ok(s.Radius) && ok(s.Half) && finite3(s.Axis)
	case Box:
		return finite3(s.Extents) && s.Extents[0] >= 0 && s.Extents[1] >= 0 && s.Extents[2] >= 0 && s.Extents.Len() > 0
	}
	return false
}

// pose is an entity's recorded state at one tick: what its clients were
// sent, quantised.
type pose struct {
	netID uint32
	pos   [3]int32
	rot   uint64
}

// frame is every shaped entity's pose at one tick, by world slot.
type frame struct {
	tick  uint32
	valid bool
	poses []pose
}

// history is lag compensation's record: a ring of frames.
type history struct {
	cfg    HistoryConfig
	frames []frame
	shapes []Shape // by world slot
}

// SetShape gives an entity of the world a hit shape (the zero Shape
// takes it away), from this tick on. A despawned entity loses its shape.
// It reports whether the world holds the entity; it does nothing without
// SessionConfig.History, or for a shape that is not valid (a
// negative or non-finite size).
func (s *Session) SetShape(netID uint32, shape Shape) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	slot, ok := s.world.slot(netID)
	if !ok || s.hist == nil || !shape.valid() {
		return false
	}
	h := s.hist
	if int(slot) >= len(h.shapes) {
		h.shapes = append(h.shapes, make([]Shape, int(slot)+1-len(h.shapes))...)
	}
	if shape.Kind == Capsule && shape.Axis == (mgl32.Vec3{}) {
		shape.Axis = mgl32.Vec3{0, 1, 0}
	}
	if shape.Kind == Capsule {
		shape.Axis = shape.Axis.Normalize()
	}
	h.shapes[slot] = shape
	return true
}

// capture records the poses of the current tick's shaped entities, before
// the next tick begins.
func (s *Session) capture() {
	h := s.hist
	if h == nil || !s.started {
		return
	}
	f := &h.frames[s.tick%uint32(len(h.frames))]
	f.tick, f.valid = s.tick, true
	n := len(s.world.ents)
	if cap(f.poses) < n {
		f.poses = make([]pose, n, n+n/4)
	}
	f.poses = f.poses[:n]
	for slot := range n {
		we := &s.world.ents[slot]
		if !we.alive || slot >= len(h.shapes) || h.shapes[slot].Kind == NoShape {
			f.poses[slot] = pose{}
			continue
		}
		f.poses[slot] = pose{netID: we.rec.NetID, pos: we.rec.Pos, rot: we.rec.Rot}
	}
}

// forget drops the shape of a slot being freed.
func (h *history) forget(slot int32) {
	if int(slot) < len(h.shapes) {
		h.shapes[slot] = Shape{}
	}
}

// Rewind is the time a shot is judged at: what a client saw when it made
// an input, as far as the server trusts it (see [Session.Rewind]).
type Rewind struct {
	// Tick is the render time, in ticks.
	Tick float64
	// Clamped says the client claimed an older (or newer) time than the
	// server allows, and Tick is the bound.
	Clamped bool
	late    [wire.MaxLateLimit]wire.Late
	nLate   int
}

// Late returns the entities drawn later than Tick, with how far behind
// (1/256 tick), as the server accepted them.
func (r *Rewind) Late() []wire.Late { return r.late[:r.nLate] }

// judged is when and how an entity is judged: at time t, from the
// records of ticks from and from+span when span is 2 or more (joined as
// the client joined its samples), else from the records around t.
type judged struct {
	t    float64
	from uint32
	span uint8
}

// of returns how entity netID is judged.
func (r *Rewind) of(netID uint32) judged {
	lo, hi := 0, r.nLate
	for lo < hi {
		m := (lo + hi) / 2
		if r.late[m].NetID < netID {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < r.nLate && r.late[lo].NetID == netID {
		l := &r.late[lo]
		t := r.Tick - float64(l.Behind)*wire.DrawnUnit
		return judged{t: t, from: uint32(int64(math.Floor(t)) - int64(l.Back)), span: l.Span}
	}
	return judged{t: r.Tick}
}

// Rewind returns the time to judge client id's input at, from what it
// says it drew (Input.Drawn): its render time, and the entities it drew
// later. The server bounds what it believes: a time older than the
// client's measured round trip plus HistoryConfig.MaxDrawnDelay allows,
// older than the history holds, or newer than the current tick is clamped
// to the bound and counted (ClientStats.DrawnClamped), so that a cheater
// gains at most a look that far back and nothing the client could not have
// seen. It fails without SessionConfig.History, or for a client not
// connected.
func (s *Session) Rewind(id ClientID, v *wire.Drawn) (Rewind, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.peer(id)
	if err != nil {
		return Rewind{}, err
	}
	if s.hist == nil {
		return Rewind{}, fmt.Errorf("server: Rewind without SessionConfig.History")
	}
	now := float64(s.tick)
	rtt := 0.0
	if c.stats.HasRTT {
		rtt = float64(c.stats.RTT) / 1000
	}
	earliest := now - (rtt+s.hist.cfg.MaxDrawnDelay.Seconds())*s.cfg.TickRate - 1
	earliest = max(earliest, now-float64(len(s.hist.frames)-2))
	r := Rewind{Tick: v.Tick(s.tick)}
	switch {
	case r.Tick > now:
		r.Tick, r.Clamped = now, true
	case r.Tick < earliest:
		r.Tick, r.Clamped = earliest, true
	}
	clamped := r.Clamped
	for _, l := range v.Late {
		if r.nLate == len(r.late) {
			break
		}
		t := r.Tick - float64(l.Behind)*wire.DrawnUnit
		if t < earliest {
			l.Behind = uint16(max(0, (r.Tick-earliest)/wire.DrawnUnit))
			t = r.Tick - float64(l.Behind)*wire.DrawnUnit
			r.Clamped = true
		}
		// A span must lie within what the server allows (the entity's
		// time lies on it: Back is at most Span); a clamped time has no
		// span.
		if l.Span >= 2 {
			from := math.Floor(t) - float64(l.Back)
			if clamped || from < math.Floor(earliest) || from+float64(l.Span) > now {
				l.Span, l.Back = 0, 0
				r.Clamped = true
			}
		}
		r.late[r.nLate] = l
		r.nLate++
	}
	if r.Clamped {
		c.stats.DrawnClamped++
	}
	return r, nil
}

// Hit is what a ray struck.
type Hit struct {
	NetID    uint32
	Distance float32    // from the ray's origin, world units
	Point    mgl32.Vec3 // where, on the shape's surface
}

// Raycast casts a ray from origin along dir (any length: it is
// normalised), up to maxDist, against the hit shapes as they were at r
// (each entity at the time its client drew it, interpolated between the
// recorded ticks), and returns the nearest hit, skipping entity ignore
// (the shooter). A maxDist of +Inf reaches across the whole world (any
// distance two positions the wire carries can be apart). It does not
// allocate.
func (s *Session) Raycast(r *Rewind, origin, dir mgl32.Vec3, maxDist float32, ignore uint32) (Hit, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if math.IsInf(float64(maxDist), 1) {
		maxDist = worldSpan * s.q.PosStep
	}
	if s.hist == nil || dir.Len() == 0 || !(maxDist > 0) || !finite3(origin) || !finite3(dir) {
		return Hit{}, false
	}
	dir = dir.Normalize()
	best := Hit{Distance: maxDist}
	found := false
	try := func(slot int32) {
		var e rewoundEntity
		if !s.rewound(r, slot, ignore, &e) {
			return
		}
		// Bounding sphere first, before the rotation is unpacked: most
		// entities are nowhere near the ray.
		if _, near := raySphere(origin, dir, best.Distance, e.pos, e.shape.bound()); !near {
			return
		}
		d, ok := rayShape(origin, dir, best.Distance, e.pos, e.rot(s), e.shape)
		// The nearest hit; of equal ones, the lowest NetID, whatever the
		// order the entities were looked at in.
		if ok && (!found || d < best.Distance || e.id < best.NetID) {
			best = Hit{NetID: e.id, Distance: d, Point: origin.Add(dir.Mul(d))}
			found = true
		}
	}
	s.candidates(r, origin, dir, maxDist, try)
	return best, found
}

// Pose returns where entity netID was at r (at the time its client drew
// it, interpolated between the recorded ticks, in world units): what
// Raycast and Overlap test its shape at. A game draws it to show a shot's
// judgement (the hit shapes as the server rewound them). It reports false
// for an entity without a shape or without a recorded pose at that time.
func (s *Session) Pose(r *Rewind, netID uint32) (mgl32.Vec3, mgl32.Quat, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hist == nil {
		return mgl32.Vec3{}, mgl32.Quat{}, false
	}
	slot, ok := s.world.slot(netID)
	if !ok || int(slot) >= len(s.hist.shapes) || s.hist.shapes[slot].Kind == NoShape {
		return mgl32.Vec3{}, mgl32.Quat{}, false
	}
	a, b, f, ok := s.posesAt(slot, netID, r.of(netID))
	if !ok {
		return mgl32.Vec3{}, mgl32.Quat{}, false
	}
	return s.lerpPos(&a, &b, f), s.lerpRot(&a, &b, f), true
}

// rewoundEntity is a shaped entity as a query at a Rewind finds it: its
// shape and its position then, with the two recorded poses around that
// time for its rotation, which a query unpacks only for the entities
// near enough to need it.
type rewoundEntity struct {
	id    uint32
	shape *Shape
	a, b  pose
	f     float64
	pos   mgl32.Vec3
}

// rot is the entity's rotation at the Rewind's time.
func (e *rewoundEntity) rot(s *Session) mgl32.Quat { return s.lerpRot(&e.a, &e.b, e.f) }

// rewound sets e to the entity in slot as it was at r, and reports false
// for a slot without a shape, the entity ignore, or one without a
// recorded pose at that time.
func (s *Session) rewound(r *Rewind, slot int32, ignore uint32, e *rewoundEntity) bool {
	if e.shape = &s.hist.shapes[slot]; e.shape.Kind == NoShape {
		return false
	}
	if e.id = s.world.ents[slot].rec.NetID; e.id == ignore {
		return false
	}
	var ok bool
	if e.a, e.b, e.f, ok = s.posesAt(slot, e.id, r.of(e.id)); !ok {
		return false
	}
	e.pos = s.lerpPos(&e.a, &e.b, e.f)
	return true
}

// candidates calls try for every shaped slot a ray might strike: those of
// the grid cells near the ray when the grid and MaxSpeed allow it, else
// every slot.
func (s *Session) candidates(r *Rewind, origin, dir mgl32.Vec3, maxDist float32, try func(int32)) {
	n := int32(min(len(s.world.ents), len(s.hist.shapes)))
	if s.grid == nil || s.hist.cfg.MaxSpeed == 0 {
		for slot := range n {
			try(slot)
		}
		return
	}
	// Anything the ray could strike was, at the drawn time, within the
	// largest shape's bound of the segment, and has moved at most
	// MaxSpeed times the age of that time since.
	age := float32(float64(s.tick)-r.Tick+float64(wire.MaxLateLimit)) / float32(s.cfg.TickRate)
	margin := s.hist.maxBound() + s.hist.cfg.MaxSpeed*max(age, 0)
	mid := origin.Add(dir.Mul(maxDist / 2))
	center := s.stepsOf(mid)
	radius := (maxDist/2 + margin) / s.q.PosStep
	s.cand = s.grid.query(&center, int64(math.Ceil(reach(float64(radius)))), s.cand[:0])
	for _, slot := range s.cand {
		if slot < n {
			try(slot)
		}
	}
}

// maxBound is the largest bound of any shape.
func (h *history) maxBound() float32 {
	b := float32(0)
	for i := range h.shapes {
		b = max(b, h.shapes[i].bound())
	}
	return b
}

// posesAt returns entity id's (in slot) recorded poses to join for j and
// where j.t lies between them (0..1): the records of j.from and
// j.from+j.span when the client drew the entity across a span, else those
// around j.t, the current tick's state for a time after the last
// recorded one.
func (s *Session) posesAt(slot int32, id uint32, j judged) (a, b pose, f float64, ok bool) {
	if j.span >= 2 {
		a, ok1 := s.recorded(slot, id, j.from)
		b, ok2 := s.recorded(slot, id, j.from+uint32(j.span))
		if ok1 && ok2 {
			return a, b, min(max((j.t-float64(j.from))/float64(j.span), 0), 1), true
		}
	}
	t0 := uint32(math.Floor(j.t))
	a, ok = s.recorded(slot, id, t0)
	if !ok {
		return a, a, 0, false
	}
	f = j.t - math.Floor(j.t)
	if f == 0 {
		return a, a, 0, true
	}
	if b, ok = s.recorded(slot, id, t0+1); !ok {
		return a, a, 0, true
	}
	return a, b, f, true
}

// lerpPos interpolates the positions of two poses, in world units.
func (s *Session) lerpPos(a, b *pose, f float64) mgl32.Vec3 {
	step := float64(s.q.PosStep)
	var pos mgl32.Vec3
	for i := range 3 {
		pa, pb := float64(a.pos[i]), float64(b.pos[i])
		pos[i] = float32((pa + (pb-pa)*f) * step)
	}
	return pos
}

// lerpRot interpolates the rotations of two poses (shortest path).
func (s *Session) lerpRot(a, b *pose, f float64) mgl32.Quat {
	ra, err := s.q.UnpackRotation(a.rot)
	if err != nil {
		ra = mgl32.QuatIdent()
	}
	if b.rot == a.rot {
		return ra
	}
	rb, err := s.q.UnpackRotation(b.rot)
	if err != nil {
		rb = ra
	}
	if ra.Dot(rb) < 0 {
		rb = rb.Scale(-1)
	}
	return mgl32.QuatNlerp(ra, rb, float32(f))
}

// recorded returns entity id's pose at tick t: from its frame, or, for the
// current tick, from the world.
func (s *Session) recorded(slot int32, id uint32, t uint32) (pose, bool) {
	if t == s.tick {
		we := &s.world.ents[slot]
		return pose{netID: id, pos: we.rec.Pos, rot: we.rec.Rot}, we.alive && we.rec.NetID == id
	}
	f := &s.hist.frames[t%uint32(len(s.hist.frames))]
	if !f.valid || f.tick != t || int(slot) >= len(f.poses) || f.poses[slot].netID != id {
		return pose{}, false
	}
	return f.poses[slot], true
}

// worldSpan is, in steps, a distance no two positions the wire carries
// (each within ±2^31 steps) can exceed.
const worldSpan = 1 << 33

// rayShape returns the distance along the ray (origin, unit dir) at which
// it enters shape sh posed at pos, rot, if it does before maxDist.
func rayShape(origin, dir mgl32.Vec3, maxDist float32, pos mgl32.Vec3, rot mgl32.Quat, sh *Shape) (float32, bool) {
	// Bounding sphere first: most entities are nowhere near the ray.
	if _, ok := raySphere(origin, dir, maxDist, pos, sh.bound()); !ok {
		return 0, false
	}
	switch sh.Kind {
	case Sphere:
		return raySphere(origin, dir, maxDist, pos, sh.Radius)
	case Capsule:
		axis := rot.Rotate(sh.Axis).Mul(sh.Half)
		return rayCapsule(origin, dir, maxDist, pos.Sub(axis), pos.Add(axis), sh.Radius)
	case Box:
		inv := rot.Conjugate()
		o := inv.Rotate(origin.Sub(pos))
		d := inv.Rotate(dir)
		return rayBox(o, d, maxDist, sh.Extents)
	}
	return 0, false
}

// raySphere intersects a ray with a sphere; a ray starting inside hits at
// distance 0.
func raySphere(origin, dir mgl32.Vec3, maxDist float32, center mgl32.Vec3, radius float32) (float32, bool) {
	m := origin.Sub(center)
	b := m.Dot(dir)
	c := m.Dot(m) - radius*radius
	if c <= 0 {
		return 0, true
	}
	if b > 0 {
		return 0, false
	}
	disc := b*b - c
	if disc < 0 {
		return 0, false
	}
	t := -b - float32(math.Sqrt(float64(disc)))
	return t, t <= maxDist
}

// rayCapsule intersects a ray with the capsule of radius around segment
// a-b: its cylindrical side first, then, outside the segment's span, the
// sphere capping that end. A ray starting inside hits at distance 0.
func rayCapsule(origin, dir mgl32.Vec3, maxDist float32, a, b mgl32.Vec3, radius float32) (float32, bool) {
	ba := b.Sub(a)
	oa := origin.Sub(a)
	baba := ba.Dot(ba)
	if baba == 0 {
		return raySphere(origin, dir, maxDist, a, radius)
	}
	baoa := ba.Dot(oa)
	if u := max(0, min(1, baoa/baba)); oa.Sub(ba.Mul(u)).Len() <= radius {
		return 0, true
	}
	bard := ba.Dot(dir)
	k2 := baba - bard*bard
	if k2 > 1e-9*baba {
		k1 := baba*dir.Dot(oa) - baoa*bard
		k0 := baba*oa.Dot(oa) - baoa*baoa - radius*radius*baba
		h := k1*k1 - k2*k0
		if h < 0 {
			return 0, false
		}
		t := (-k1 - float32(math.Sqrt(float64(h)))) / k2
		if y := baoa + t*bard; y > 0 && y < baba {
			return t, t >= 0 && t <= maxDist
		}
	}
	ta, okA := raySphere(origin, dir, maxDist, a, radius)
	tb, okB := raySphere(origin, dir, maxDist, b, radius)
	switch {
	case okA && okB:
		return min(ta, tb), true
	case okA:
		return ta, true
	}
	return tb, okB
}

// rayBox intersects a ray (in the box's frame) with the box of half-sizes
// e centred at the origin (slab method).
func rayBox(o, d mgl32.Vec3, maxDist float32, e mgl32.Vec3) (float32, bool) {
	tmin, tmax := float32(0), maxDist
	for i := range 3 {
		if d[i] == 0 {
			if o[i] < -e[i] || o[i] > e[i] {
				return 0, false
			}
			continue
		}
		t1 := (-e[i] - o[i]) / d[i]
		t2 := (e[i] - o[i]) / d[i]
		if t1 > t2 {
			t1, t2 = t2, t1
		}
		tmin, tmax = max(tmin, t1), min(tmax, t2)
		if tmin > tmax {
			return 0, false
		}
	}
	return tmin, true
}

// Overlap appends to dst every shaped entity (but ignore) within radius
// of center at r, the pose each had when its client drew it: an
// explosion, a melee swing. It does not allocate given room in dst.
func (s *Session) Overlap(r *Rewind, center mgl32.Vec3, radius float32, ignore uint32, dst []uint32) []uint32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hist == nil || !(radius >= 0) || !finite3(center) {
		return dst
	}
	try := func(slot int32) {
		var e rewoundEntity
		if !s.rewound(r, slot, ignore, &e) || e.pos.Sub(center).Len() > radius+e.shape.bound() {
			return
		}
		if sphereShape(center, radius, e.pos, e.rot(s), e.shape) {
			dst = append(dst, e.id)
		}
	}
	s.candidates(r, center, mgl32.Vec3{1, 0, 0}, max(radius, 1e-3), try)
	return dst
}

// sphereShape reports whether the sphere (center, radius) touches shape
// sh posed at pos, rot.
func sphereShape(center mgl32.Vec3, radius float32, pos mgl32.Vec3, rot mgl32.Quat, sh *Shape) bool {
	switch sh.Kind {
	case Sphere:
		return center.Sub(pos).Len() <= radius+sh.Radius
	case Capsule:
		axis := rot.Rotate(sh.Axis).Mul(sh.Half)
		a, b := pos.Sub(axis), pos.Add(axis)
		ab := b.Sub(a)
		u := float32(0)
		if l := ab.Dot(ab); l > 0 {
			u = max(0, min(1, center.Sub(a).Dot(ab)/l))
		}
		return center.Sub(a.Add(ab.Mul(u))).Len() <= radius+sh.Radius
	case Box:
		p := rot.Conjugate().Rotate(center.Sub(pos))
		var q mgl32.Vec3
		for i := range 3 {
			q[i] = max(-sh.Extents[i], min(sh.Extents[i], p[i]))
		}
		return p.Sub(q).Len() <= radius
	}
	return false
}

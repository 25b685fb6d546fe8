package scenario

import (
	"github.com/netsmooth/netsmooth/internal/clockfeed"
	"github.com/netsmooth/netsmooth/internal/sampling"
	"sort"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/timeline"
)

// latest draws the newest snapshot received, as it arrives: no buffer.
type latest struct {
	rate float64
	last map[components.NetID]systems.Message
}

func newLatest(rate float64) *latest {
	return &latest{rate: rate, last: map[components.NetID]systems.Message{}}
}

func (c *latest) Receive(msgs []systems.Message) {
	for _, m := range msgs {
		if m.Kind == systems.Despawn {
			delete(c.last, m.NetID)
			continue
		}
		if old, ok := c.last[m.NetID]; !ok || m.Tick > old.Tick {
			c.last[m.NetID] = m
		}
	}
}

func (c *latest) Frame(float64) {}

func (c *latest) Draw(id components.NetID) (mgl32.Vec3, float64, bool, bool) {
	m, ok := c.last[id]
	return m.Pos, float64(m.Tick) / c.rate, false, ok
}

// DampedBuffer is the object-per-entity baseline, written the way a
// TypeScript snapshot buffer is: a map from NetID to a pointer per entity,
// each with a slice of snapshots (times in milliseconds) appended and sorted
// on every push and trimmed from the front, sampled every frame by a linear
// scan with mathgl method chains. Past the newest snapshot it extrapolates
// from the two newest with a velocity damped linearly to zero over 120 ms,
// then holds.
//
// Its render clock is, by default, per entity: re-anchored to 100 ms before
// the entity's newest snapshot on every snapshot and advanced by frame time
// in between. [NewDampedBufferOn] gives every entity a shared
// [timeline.Clock] instead, so that it draws what netsmooth draws (the
// benchmarks compare the two doing the same work).
//
// Snapshots handed over are applied at the next frame.
type DampedBuffer struct {
	rate     float64
	clock    *timeline.Clock  // nil: per-entity clocks
	feed     clockfeed.Feeder // clock's
	before   float64          // the shared clock's server tick before this frame
	seen     int              // messages received, for sampling waits
	pending  []systems.Message
	entities map[components.NetID]*bufferedEntity
}

// Settings of [DampedBuffer].
const (
	dampedCapacity = 32  // snapshots kept per entity
	dampedDelay    = 100 // ms behind the newest snapshot, per-entity clock
	dampedMaxExt   = 120 // ms of extrapolation, damped to zero
)

type bufferedSnapshot struct {
	ms  float64 // server time, milliseconds
	pos mgl32.Vec3
	rot mgl32.Quat
}

type bufferedEntity struct {
	buf        []bufferedSnapshot
	renderTime float64 // ms

	// What the last frame drew.
	pos       mgl32.Vec3
	rot       mgl32.Quat
	presented float64 // s
	under     bool
}

// NewDampedBuffer returns the baseline with per-entity render clocks, for
// snapshots at rate Hz.
func NewDampedBuffer(rate float64) *DampedBuffer {
	return &DampedBuffer{rate: rate, entities: map[components.NetID]*bufferedEntity{}}
}

// NewDampedBufferOn returns the baseline drawing every entity at clock's
// render time (the clock is fed every snapshot's tick).
func NewDampedBufferOn(clock *timeline.Clock) *DampedBuffer {
	d := NewDampedBuffer(clock.TickRate())
	d.clock, d.feed = clock, clockfeed.Of(clock)
	return d
}

// Receive implements [Client]: it queues msgs for the next frame.
func (d *DampedBuffer) Receive(msgs []systems.Message) { d.pending = append(d.pending, msgs...) }

// Frame implements [Client]: it applies the queued snapshots, advances the
// render clock by dt and samples every entity.
func (d *DampedBuffer) Frame(dt float64) {
	d.Ingest(dt)
	shared := 0.0
	if d.clock != nil {
		shared = d.clock.RenderTick() / d.rate * 1000
	}
	for _, e := range d.entities {
		if d.clock != nil {
			e.renderTime = shared
		} else {
			e.renderTime += dt * 1000
		}
		e.sample()
	}
}

// Ingest runs the receiving part of a frame of dt seconds alone: the
// queued snapshots are applied and the shared clock, if any, advanced;
// nothing is sampled. Benchmarks measure it on its own.
func (d *DampedBuffer) Ingest(dt float64) {
	if d.clock != nil {
		d.before = d.clock.ServerTick()
		d.feed.BeginFrame(dt)
	}
	for i := range d.pending {
		d.push(&d.pending[i])
		d.seen++
	}
	d.pending = d.pending[:0]
	if d.clock != nil {
		d.feed.Advance()
	}
}

// push inserts one message into its entity's buffer.
func (d *DampedBuffer) push(m *systems.Message) {
	if m.Kind == systems.Despawn {
		delete(d.entities, m.NetID)
		return
	}
	e := d.entities[m.NetID]
	if e == nil {
		e = &bufferedEntity{}
		d.entities[m.NetID] = e
	}
	if d.clock != nil && len(e.buf) > 0 {
		// Report the entity's wait as netsmooth's pipeline does.
		if d.seen%sampling.Every == 0 {
			d.feed.AddWait(d.before - e.buf[len(e.buf)-1].ms*d.rate/1000)
		}
	}
	e.buf = append(e.buf, bufferedSnapshot{ms: float64(m.Tick) / d.rate * 1000, pos: m.Pos, rot: m.Rot.Normalize()})
	sort.Slice(e.buf, func(i, j int) bool { return e.buf[i].ms < e.buf[j].ms })
	for len(e.buf) > dampedCapacity {
		e.buf = e.buf[1:]
	}
	if d.clock != nil {
		d.feed.ObserveN(m.Tick, 1)
	} else {
		// The newest snapshot re-anchors the entity's clock.
		e.renderTime = e.buf[len(e.buf)-1].ms - dampedDelay
	}
}

// Draw implements [Client].
func (d *DampedBuffer) Draw(id components.NetID) (mgl32.Vec3, float64, bool, bool) {
	e := d.entities[id]
	if e == nil {
		return mgl32.Vec3{}, 0, false, false
	}
	return e.pos, e.presented, e.under, true
}

// sample draws the entity at its render time.
func (e *bufferedEntity) sample() {
	rt := e.renderTime
	oldest, newest := &e.buf[0], &e.buf[len(e.buf)-1]
	switch {
	case rt <= oldest.ms:
		e.pos, e.rot, e.presented, e.under = oldest.pos, oldest.rot, oldest.ms/1000, false
		return
	case rt >= newest.ms:
		e.extrapolate(rt)
		return
	}
	e.pos, e.rot, e.presented, e.under = newest.pos, newest.rot, rt/1000, false
	for i := 0; i+1 < len(e.buf); i++ {
		a, b := &e.buf[i], &e.buf[i+1]
		if rt >= a.ms && rt <= b.ms {
			t := float32((rt - a.ms) / (b.ms - a.ms))
			e.pos = a.pos.Add(b.pos.Sub(a.pos).Mul(t))
			e.rot = mgl32.QuatNlerp(a.rot, b.rot, t)
			return
		}
	}
}

// extrapolate draws the entity rt ms, past its newest snapshot: moving on
// at the velocity between the two newest snapshots, damped to zero over
// dampedMaxExt, then held.
func (e *bufferedEntity) extrapolate(rt float64) {
	newest := &e.buf[len(e.buf)-1]
	ahead := rt - newest.ms
	e.rot, e.presented, e.under = newest.rot, rt/1000, true
	if ahead >= dampedMaxExt {
		e.pos = newest.pos
		return
	}
	v := mgl32.Vec3{}
	if len(e.buf) > 1 {
		p := &e.buf[len(e.buf)-2]
		v = newest.pos.Sub(p.pos).Mul(float32(1000 / (newest.ms - p.ms)))
	}
	damp := float32(1 - ahead/dampedMaxExt)
	e.pos = newest.pos.Add(v.Mul(float32(ahead/1000) * damp))
}

// deadReckoning stamps snapshots with their local arrival time and draws
// 100 ms in the past by that clock, dead reckoning from the last two
// snapshots up to 150 ms and holding beyond; a snapshot landing more than
// 400 units from what is drawn snaps to it.
type deadReckoning struct {
	rate     float64
	now      float64 // local ms
	entities map[components.NetID]*reckonedEntity
}

type arrival struct {
	at   float64 // local arrival time, ms
	tick float64 // server tick time, s (for the presented time)
	pos  mgl32.Vec3
}

type reckonedEntity struct {
	snaps     []arrival
	drawn     mgl32.Vec3
	presented float64
	under     bool
}

const (
	reckonDelay   = 100 // ms
	reckonMaxExt  = 150 // ms
	reckonSnapLen = 400 // units
)

func newDeadReckoning(rate float64) *deadReckoning {
	return &deadReckoning{rate: rate, entities: map[components.NetID]*reckonedEntity{}}
}

func (c *deadReckoning) Receive(msgs []systems.Message) {
	for _, m := range msgs {
		if m.Kind == systems.Despawn {
			delete(c.entities, m.NetID)
			continue
		}
		e := c.entities[m.NetID]
		if e == nil {
			e = &reckonedEntity{drawn: m.Pos}
			c.entities[m.NetID] = e
		}
		if len(e.snaps) > 0 && m.Pos.Sub(e.drawn).Len() > reckonSnapLen {
			e.snaps = e.snaps[:0] // snapping: drop the history
			e.drawn = m.Pos
		}
		e.snaps = append(e.snaps, arrival{at: c.now, tick: float64(m.Tick) / c.rate, pos: m.Pos})
		for len(e.snaps) > 2 && e.snaps[0].at < c.now-1000 {
			e.snaps = e.snaps[1:]
		}
	}
}

func (c *deadReckoning) Frame(dt float64) {
	c.now += dt * 1000
	target := c.now - reckonDelay
	for _, e := range c.entities {
		e.draw(target)
	}
}

// draw places the entity at local time target (ms).
func (e *reckonedEntity) draw(target float64) {
	if len(e.snaps) < 2 {
		if len(e.snaps) == 1 {
			e.drawn, e.presented = e.snaps[0].pos, e.snaps[0].tick
		}
		return
	}
	for i := 0; i+1 < len(e.snaps); i++ {
		a, b := &e.snaps[i], &e.snaps[i+1]
		if a.at <= target && target <= b.at {
			t := 0.0
			if b.at > a.at {
				t = (target - a.at) / (b.at - a.at)
			}
			e.drawn = a.pos.Add(b.pos.Sub(a.pos).Mul(float32(t)))
			e.presented = a.tick + (b.tick-a.tick)*t
			e.under = false
			return
		}
	}
	n := len(e.snaps)
	a, b := &e.snaps[n-2], &e.snaps[n-1]
	if b.at <= a.at {
		e.drawn, e.presented = b.pos, b.tick
		return
	}
	vel := b.pos.Sub(a.pos).Mul(float32(1 / (b.at - a.at))) // per ms
	ahead := max(0, min(target-b.at, reckonMaxExt))
	e.drawn = b.pos.Add(vel.Mul(float32(ahead)))
	e.presented = b.tick + ahead/1000*(b.tick-a.tick)/((b.at-a.at)/1000)
	e.under = target > b.at
}

func (c *deadReckoning) Draw(id components.NetID) (mgl32.Vec3, float64, bool, bool) {
	e := c.entities[id]
	if e == nil || len(e.snaps) == 0 {
		return mgl32.Vec3{}, 0, false, false
	}
	return e.drawn, e.presented, e.under, true
}

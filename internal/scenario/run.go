package scenario

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/systems"
)

// Result is the measured quality of one client in one scenario.
type Result struct {
	Scenario, Client string
	// Frames the client ran; EntityFrames measured (entity drawn).
	Frames, EntityFrames int
	// RMS and Max error against the ground truth at the presented time,
	// in world units.
	RMS, Max float64
	// MaxJump is the largest per-frame movement of a drawn entity divided
	// by its true per-frame movement (1: never faster than the truth).
	MaxJump float64
	// Underrun is the share of entity-frames drawn past the newest data.
	Underrun float64
	// MeanDelay and P99Delay are the presentation delay (true server time
	// now minus the presented time), in seconds.
	MeanDelay, P99Delay float64
	// Backward counts entity-frames that moved against the true direction.
	Backward int
	// Recovery is the time, in seconds after the disturbance ended, until
	// error and delay were back to their level before it; NaN without a
	// disturbance, +Inf if they never were.
	Recovery float64
	// Delivered is how many messages the link delivered to the client.
	Delivered int
	// Groups breaks the figures down by send rate when the scenario sends
	// some entities less often (Scenario.SlowEvery): entities sent every
	// tick first, then the others.
	Groups []Group
	// Trace holds per-frame series for plots.
	Trace Trace
}

// Group is the part of a Result for a group of entities.
type Group struct {
	Name string
	// EntityFrames, Underrun, MaxJump, MeanDelay and Backward as in
	// [Result].
	EntityFrames int
	Underrun     float64
	MaxJump      float64
	MeanDelay    float64
	Backward     int
}

// Trace is per-frame data of a run, for plots.
type Trace struct {
	// Time is the client's local time of each frame, in seconds.
	Time []float64
	// Delay is the presentation delay of the frame (mean over entities);
	// BufferDelay and Ahead what an Observer client reports (its actual
	// interpolation delay, and samples buffered ahead).
	Delay, BufferDelay, Ahead []float64
	// Drawn and Truth follow entity slot 0: where it was drawn, and the
	// truth at the presented time, at local times DrawnT. Snap are its
	// received samples, at their local arrival times SnapT.
	DrawnT, DrawnX, DrawnY, TruthX, TruthY []float64
	SnapT, SnapX, SnapY                    []float64
}

// packet is what the server sends.
type packet []systems.Message

// Run plays sc against the client made by f and measures it.
func Run(scIn Scenario, f Factory) Result {
	sc := scIn.withDefaults()
	client := f.New(&sc)
	link, err := netsim.NewLink[packet](sc.Link, sc.Seed)
	if err != nil {
		panic(err)
	}
	res := &Result{Scenario: sc.Name, Client: f.Name, Recovery: math.NaN()}
	sl := newSlots(sc.Entities)
	meter := &remoteMeter{sc: &sc, slots: sl, slot0: sl.ids[0], client: client, res: res,
		prevPos: map[components.NetID][3]float64{}, prevPres: map[components.NetID]float64{}}
	if sc.SlowEvery > 1 {
		meter.groups = []Group{{Name: "sent every tick"}, {Name: fmt.Sprintf("sent every %d ticks", sc.SlowEvery)}}
	}
	transport := &remoteTransport{client: client, slot0: sl.ids[0], res: res}
	loop := Loop[packet]{
		FPS:       sc.FPS,
		Link:      link,
		Server:    &truthServer{sc: &sc, slots: sl},
		Transport: transport,
		Client:    client,
		Meter:     meter,
		Suspends:  sc.Link.Suspends,
	}
	loop.Run(sc.Seconds)
	meter.finish()
	if sc.Disturbance.To == 0 && sc.Link.Burst.Enter > 0 {
		// Random bursts: the slowest recovery over every silence.
		for _, w := range transport.gaps {
			r := recovery(meter.frameTime, meter.frameRMS, meter.frameDel, w)
			if math.IsNaN(res.Recovery) || r > res.Recovery {
				res.Recovery = r
			}
		}
	}
	return *res
}

// truthServer moves the scenario's entities along their true paths and
// sends a snapshot of every entity every tick, with the churn's lifecycle
// messages and the teleports.
type truthServer struct {
	sc        *Scenario
	slots     *slots
	tick      uint32
	churnAcc  float64
	nextChurn int
}

// Serve implements [Server]: every tick due by f in the server's
// (drifting) clock.
func (s *truthServer) Serve(f Instant, dst []packet) []packet {
	sc := s.sc
	for float64(s.tick)/sc.TickRate/(1+sc.Drift) <= f.T {
		ts := float64(s.tick) / sc.TickRate
		lifecycle := s.churn(ts)
		teleport := sc.teleportBetween(float64(s.tick-1)/sc.TickRate, ts) && s.tick > 0
		var p packet
		for k := 0; k < sc.Entities; k++ {
			if !sc.sentAt(k, s.tick, ts) && !teleport {
				continue
			}
			kind := systems.Snapshot
			if teleport {
				kind = systems.Teleport
			}
			p = append(p, systems.Message{Kind: kind, NetID: s.slots.ids[k], Tick: s.tick, Pos: sc.truth(k, ts)})
			if len(p) == sc.PerPacket {
				dst = append(dst, p)
				p = nil
			}
		}
		if sc.StopGo > 0 {
			// The tick's snapshot named everything that moved.
			p = append(p, systems.Message{Kind: systems.Complete, Tick: s.tick})
		}
		if len(p) > 0 {
			dst = append(dst, p)
		}
		if len(lifecycle) > 0 {
			dst = append(dst, lifecycle) // lifecycle messages travel like the rest
		}
		s.tick++
	}
	return dst
}

// churn replaces the tick's share of entities (at server time ts) with new
// NetIDs and returns the despawn and spawn messages that say so.
func (s *truthServer) churn(ts float64) packet {
	sc, sl := s.sc, s.slots
	var lifecycle packet
	s.churnAcc += sc.ChurnPerSecond * float64(sc.Entities) / sc.TickRate
	for s.churnAcc >= 1 {
		s.churnAcc--
		k := s.nextChurn % sc.Entities
		s.nextChurn++
		lifecycle = append(lifecycle, systems.Message{Kind: systems.Despawn, NetID: sl.ids[k], Tick: s.tick})
		sl.ids[k] = sl.nextID
		sl.nextID++
		sl.born[k] = ts
		lifecycle = append(lifecycle, systems.Message{Kind: systems.Spawn, NetID: sl.ids[k], Tick: s.tick, Pos: sc.truth(k, ts)})
	}
	return lifecycle
}

// remoteTransport hands everything that arrived in a frame to the client
// at once, tracing the samples of the entity first in slot 0, and notes
// every gap in arrivals of gapMin or more.
type remoteTransport struct {
	client Client
	slot0  components.NetID
	res    *Result
	inbox  []systems.Message
	last   float64         // local time of the last arrival
	gaps   []netsim.Window // silences of gapMin or more
}

// gapMin is the shortest silence counted as a disturbance in scenarios
// without a fixed one (burst loss): longer than the default extrapolation
// limit.
const gapMin = 0.3

// Arrive implements [Transport].
func (t *remoteTransport) Arrive(f Instant, packets []packet) {
	tr := &t.res.Trace
	t.inbox = t.inbox[:0]
	for _, p := range packets {
		t.inbox = append(t.inbox, p...)
		for _, m := range p {
			if m.NetID == t.slot0 && m.Kind != systems.Despawn {
				tr.SnapT = append(tr.SnapT, f.T)
				tr.SnapX = append(tr.SnapX, float64(m.Pos[0]))
				tr.SnapY = append(tr.SnapY, float64(m.Pos[1]))
			}
		}
	}
	t.res.Delivered += len(t.inbox)
	if len(t.inbox) > 0 {
		if t.last > 0 && f.T-t.last >= gapMin {
			t.gaps = append(t.gaps, netsim.Window{From: seconds(t.last), To: seconds(f.T)})
		}
		t.last = f.T
	}
	t.client.Receive(t.inbox)
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// Depart implements [Transport]: nothing goes back.
func (t *remoteTransport) Depart(Instant) {}

// remoteMeter compares what the client draws with the truth at the time it
// presents, every frame, for every live entity.
type remoteMeter struct {
	sc     *Scenario
	slots  *slots
	slot0  components.NetID // the NetID traced: slot 0's first
	client Client
	res    *Result

	sumSq     float64
	delays    []float64
	groups    []Group // by send rate; nil without SlowEvery
	prevPos   map[components.NetID][3]float64
	prevPres  map[components.NetID]float64
	frameRMS  []float64
	frameDel  []float64
	frameTime []float64

	// This frame's true server time and sums over entities.
	serverNow  float64
	fSum, fDel float64
	fN         int
}

// Measure implements [Meter].
func (m *remoteMeter) Measure(f Instant) {
	m.res.Frames++
	m.serverNow = f.T * (1 + m.sc.Drift)
	m.fSum, m.fDel, m.fN = 0, 0, 0
	for k, id := range m.slots.ids {
		m.entity(f, k, id)
	}
	var bufDelay, ahead float64
	if o, ok := m.client.(Observer); ok {
		bufDelay, ahead = o.Buffer()
	}
	m.frameTime = append(m.frameTime, f.T)
	if m.fN > 0 {
		m.frameRMS = append(m.frameRMS, math.Sqrt(m.fSum/float64(m.fN)))
		m.frameDel = append(m.frameDel, m.fDel/float64(m.fN))
	} else {
		m.frameRMS = append(m.frameRMS, math.NaN())
		m.frameDel = append(m.frameDel, math.NaN())
	}
	tr := &m.res.Trace
	tr.Time = append(tr.Time, f.T)
	tr.Delay = append(tr.Delay, m.frameDel[len(m.frameDel)-1])
	tr.BufferDelay = append(tr.BufferDelay, bufDelay)
	tr.Ahead = append(tr.Ahead, ahead)
}

// entity measures slot k, NetID id, in frame f.
func (m *remoteMeter) entity(f Instant, k int, id components.NetID) {
	sc, res := m.sc, m.res
	pos, presented, under, ok := m.client.Draw(id)
	if !ok || presented < m.slots.born[k] {
		return
	}
	truth := sc.truth(k, presented)
	d := float64(pos.Sub(truth).Len())
	m.sumSq += d * d
	m.fSum += d * d
	res.Max = math.Max(res.Max, d)
	delay := m.serverNow - presented
	m.delays = append(m.delays, delay)
	m.fDel += delay
	m.fN++
	res.EntityFrames++
	if under {
		res.Underrun++
	}
	var g *Group
	if m.groups != nil {
		g = &m.groups[k%2]
		g.EntityFrames++
		g.MeanDelay += delay
		if under {
			g.Underrun++
		}
	}
	speedDt := sc.speed(k) / sc.FPS
	if pp, ok := m.prevPos[id]; ok && !f.Resumed && !sc.teleportBetween(m.prevPres[id], presented) {
		dx, dy := float64(pos[0])-pp[0], float64(pos[1])-pp[1]
		move := math.Hypot(dx, dy)
		res.MaxJump = math.Max(res.MaxJump, move/speedDt)
		if g != nil {
			g.MaxJump = math.Max(g.MaxJump, move/speedDt)
		}
		dir := sc.direction(k, presented)
		if dx*float64(dir[0])+dy*float64(dir[1]) < -0.05*speedDt {
			res.Backward++
			if g != nil {
				g.Backward++
			}
		}
	}
	m.prevPos[id] = [3]float64{float64(pos[0]), float64(pos[1]), float64(pos[2])}
	m.prevPres[id] = presented
	if id == m.slot0 {
		tr := &res.Trace
		tr.DrawnT = append(tr.DrawnT, f.T)
		tr.DrawnX = append(tr.DrawnX, float64(pos[0]))
		tr.DrawnY = append(tr.DrawnY, float64(pos[1]))
		tr.TruthX = append(tr.TruthX, float64(truth[0]))
		tr.TruthY = append(tr.TruthY, float64(truth[1]))
	}
}

// finish turns the sums into the result's figures.
func (m *remoteMeter) finish() {
	res := m.res
	if res.EntityFrames > 0 {
		res.RMS = math.Sqrt(m.sumSq / float64(res.EntityFrames))
		res.Underrun /= float64(res.EntityFrames)
	}
	res.MeanDelay, res.P99Delay = meanAndP99(m.delays)
	for _, g := range m.groups {
		if g.EntityFrames > 0 {
			g.Underrun /= float64(g.EntityFrames)
			g.MeanDelay /= float64(g.EntityFrames)
		}
		res.Groups = append(res.Groups, g)
	}
	if m.sc.Disturbance.To > 0 {
		res.Recovery = recovery(m.frameTime, m.frameRMS, m.frameDel, m.sc.Disturbance)
	}
}

// meanAndP99 returns the mean and 99th percentile of xs (sorting it).
func meanAndP99(xs []float64) (mean, p99 float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	slices.Sort(xs)
	return mean / float64(len(xs)), xs[min(len(xs)-1, int(0.99*float64(len(xs))))]
}

// recovery returns how long after the disturbance the per-frame RMS error
// and presentation delay stayed, for a whole second, within their levels of
// the three seconds before it (twice the error or 0.05 units; 10% more
// delay plus 20 ms).
func recovery(times, rms, delay []float64, w netsim.Window) float64 {
	from, to := w.From.Seconds(), w.To.Seconds()
	var baseErr, baseDel float64
	n := 0
	for i, t := range times {
		if t >= from-3 && t < from && !math.IsNaN(rms[i]) {
			baseErr += rms[i]
			baseDel += delay[i]
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	baseErr, baseDel = baseErr/float64(n), baseDel/float64(n)
	okErr := math.Max(2*baseErr, 0.05)
	okDel := 1.1*baseDel + 0.02
	start := -1.0
	for i, t := range times {
		if t < to {
			continue
		}
		good := !math.IsNaN(rms[i]) && rms[i] <= okErr && delay[i] <= okDel
		switch {
		case !good:
			start = -1
		case start < 0:
			start = t
		case t-start >= 1:
			return start - to
		}
	}
	return math.Inf(1)
}

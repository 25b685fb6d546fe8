package scenario

import (
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
	// Trace holds per-frame series for plots.
	Trace Trace
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
	res := Result{Scenario: sc.Name, Client: f.Name, Recovery: math.NaN()}
	sl := newSlots(sc.Entities)
	frameDt := 1 / sc.FPS
	frames := int(sc.Seconds * sc.FPS)
	var (
		tick      uint32
		churnAcc  float64
		nextChurn int
		arrived   []packet
		inbox     []systems.Message
		skipped   float64
		sumSq     float64
		delays    []float64
		prevPos   = make(map[components.NetID][3]float64)
		prevPres  = make(map[components.NetID]float64)
		frameRMS  []float64
		frameDel  []float64
		frameTime []float64
		slot0     = sl.ids[0]
	)
	speedDt := Speed * frameDt
	for fr := 0; fr < frames; fr++ {
		t := float64(fr) * frameDt
		now := time.Duration(t * float64(time.Second))
		// Server: every tick due by now in its (drifting) clock.
		for float64(tick)/sc.TickRate/(1+sc.Drift) <= t {
			ts := float64(tick) / sc.TickRate
			var lifecycle []systems.Message
			churnAcc += sc.ChurnPerSecond * float64(sc.Entities) / sc.TickRate
			for churnAcc >= 1 {
				churnAcc--
				k := nextChurn % sc.Entities
				nextChurn++
				lifecycle = append(lifecycle, systems.Message{Kind: systems.Despawn, NetID: sl.ids[k], Tick: tick})
				sl.ids[k] = sl.nextID
				sl.nextID++
				sl.born[k] = ts
				lifecycle = append(lifecycle, systems.Message{Kind: systems.Spawn, NetID: sl.ids[k], Tick: tick, Pos: sc.truth(k, ts)})
			}
			teleport := sc.teleportBetween(float64(tick-1)/sc.TickRate, ts) && tick > 0
			var p packet
			for k := 0; k < sc.Entities; k++ {
				kind := systems.Snapshot
				if teleport {
					kind = systems.Teleport
				}
				p = append(p, systems.Message{Kind: kind, NetID: sl.ids[k], Tick: tick, Pos: sc.truth(k, ts)})
				if len(p) == sc.PerPacket || k == sc.Entities-1 {
					link.Send(now, p)
					p = nil
				}
			}
			if len(lifecycle) > 0 {
				link.Send(now, lifecycle) // lifecycle messages travel like the rest
			}
			tick++
		}
		// Network to client.
		arrived = link.Deliver(now, arrived[:0])
		inbox = inbox[:0]
		for _, p := range arrived {
			inbox = append(inbox, p...)
			for _, m := range p {
				if m.NetID == slot0 && m.Kind != systems.Despawn {
					res.Trace.SnapT = append(res.Trace.SnapT, t)
					res.Trace.SnapX = append(res.Trace.SnapX, float64(m.Pos[0]))
					res.Trace.SnapY = append(res.Trace.SnapY, float64(m.Pos[1]))
				}
			}
		}
		res.Delivered += len(inbox)
		client.Receive(inbox)
		if suspended(&sc, now) {
			skipped += frameDt
			continue
		}
		dt := frameDt + skipped
		resumed := skipped > 0
		skipped = 0
		client.Frame(dt)
		res.Frames++

		// Measure every live entity.
		serverNow := t * (1 + sc.Drift)
		var fSum, fDel float64
		fN := 0
		for k, id := range sl.ids {
			pos, presented, under, ok := client.Draw(id)
			if !ok || presented < sl.born[k] {
				continue
			}
			truth := sc.truth(k, presented)
			d := float64(pos.Sub(truth).Len())
			sumSq += d * d
			fSum += d * d
			res.Max = math.Max(res.Max, d)
			delay := serverNow - presented
			delays = append(delays, delay)
			fDel += delay
			fN++
			res.EntityFrames++
			if under {
				res.Underrun++
			}
			if pp, ok := prevPos[id]; ok && !resumed && !sc.teleportBetween(prevPres[id], presented) {
				dx, dy := float64(pos[0])-pp[0], float64(pos[1])-pp[1]
				move := math.Hypot(dx, dy)
				res.MaxJump = math.Max(res.MaxJump, move/speedDt)
				dir := direction(k, presented)
				if dx*float64(dir[0])+dy*float64(dir[1]) < -0.05*speedDt {
					res.Backward++
				}
			}
			prevPos[id] = [3]float64{float64(pos[0]), float64(pos[1]), float64(pos[2])}
			prevPres[id] = presented
			if id == slot0 {
				res.Trace.DrawnT = append(res.Trace.DrawnT, t)
				res.Trace.DrawnX = append(res.Trace.DrawnX, float64(pos[0]))
				res.Trace.DrawnY = append(res.Trace.DrawnY, float64(pos[1]))
				res.Trace.TruthX = append(res.Trace.TruthX, float64(truth[0]))
				res.Trace.TruthY = append(res.Trace.TruthY, float64(truth[1]))
			}
		}
		var bufDelay, ahead float64
		if o, ok := client.(Observer); ok {
			bufDelay, ahead = o.Buffer()
		}
		frameTime = append(frameTime, t)
		if fN > 0 {
			frameRMS = append(frameRMS, math.Sqrt(fSum/float64(fN)))
			frameDel = append(frameDel, fDel/float64(fN))
		} else {
			frameRMS = append(frameRMS, math.NaN())
			frameDel = append(frameDel, math.NaN())
		}
		res.Trace.Time = append(res.Trace.Time, t)
		res.Trace.Delay = append(res.Trace.Delay, frameDel[len(frameDel)-1])
		res.Trace.BufferDelay = append(res.Trace.BufferDelay, bufDelay)
		res.Trace.Ahead = append(res.Trace.Ahead, ahead)
	}
	if res.EntityFrames > 0 {
		res.RMS = math.Sqrt(sumSq / float64(res.EntityFrames))
		res.Underrun /= float64(res.EntityFrames)
	}
	res.MeanDelay, res.P99Delay = meanAndP99(delays)
	if sc.Disturbance.To > 0 {
		res.Recovery = recovery(frameTime, frameRMS, frameDel, sc.Disturbance)
	}
	return res
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

func suspended(sc *Scenario, now time.Duration) bool {
	for _, w := range sc.Link.Suspends {
		if now >= w.From && now < w.To {
			return true
		}
	}
	return false
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

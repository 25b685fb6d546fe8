package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/systems"
)

// result is what a run measured.
type result struct {
	frames, entityFrames int
	sumErr, maxErr       float64 // world units, over the visible entity-frames
	sumSpeed             float64 // the entities' true speed, units per second, over the same
	sumDelay             float64 // how far behind the server each frame was drawn, seconds
	metrics              systems.Metrics
	link                 netsim.Stats
	updateTime           time.Duration
	delay                float64   // the interpolation delay at the end, seconds
	worst                []float64 // each entity's largest error, by NetID-1
	trails               *trails   // of the entities options.trailIDs names
}

// print writes the run's table and its verdict.
func (r *result) print(w io.Writer, o options) {
	m := &r.metrics
	row := func(name, format string, args ...any) {
		fmt.Fprintf(w, "| %-37s | %s |\n", name, fmt.Sprintf(format, args...))
	}
	fmt.Fprintf(w, "crowd: %d entities, %.0f s at %.0f Hz snapshots, %.0f FPS; link %v ± %v, %.0f%% loss, %.0f%% reorder, %.0f%% duplicates; %s extrapolation; seed %d\n\n",
		o.entities, o.seconds, o.tickRate, o.fps, o.latency, o.jitter, o.loss*100, o.reorder*100, o.duplicate*100, o.extrapolation, o.seed)
	fmt.Fprintf(w, "| %-37s | %s |\n|%s|%s|\n", "measure", "value", "---------------------------------------", "----------------")
	row("entities", "%d", m.Entities)
	row("frames measured (from 1 s)", "%d", r.frames)
	row("interpolation delay, last frame", "%.0f ms (buffering; averaged in the verdict)", r.delay*1000)
	row("samples buffered ahead (mean)", "%.2f", m.AheadMean)
	if r.entityFrames > 0 {
		row("mean error vs true path (from 1 s)", "%.4f units", r.sumErr/float64(r.entityFrames))
	}
	row("max error vs true path (from 1 s)", "%.4f units", r.maxErr)
	row("frames with an entity past its newest", "%d of %d (each lost packet leaves some short)", m.UnderrunFrames, r.frames)
	ef := float64(r.frames) * float64(max(m.Entities, 1))
	row("extrapolated entity-frames", "%d (%.2f%%)", m.Extrapolated, 100*float64(m.Extrapolated)/ef)
	row("held entity-frames", "%d (%.2f%%)", m.Held, 100*float64(m.Held)/ef)
	row("corrections smoothed", "%d (max %.3f units)", m.Corrections, m.MaxCorrection)
	row("snaps", "%d", m.Snaps)
	row("packets sent / lost", "%d / %d", r.link.Sent, r.link.Lost)
	row("snapshots accepted", "%d", m.Accepted)
	for reason := systems.RejectReason(0); reason < systems.NumRejectReasons; reason++ {
		if n := m.Rejected[reason]; n > 0 {
			row("snapshots rejected: "+reason.String(), "%d", n)
		}
	}
	if m.RejectedTotal() == 0 {
		row("snapshots rejected", "0")
	}
	row("pipeline cost per entity per frame", "%.1f ns (%.2f ms per frame)", r.nsPerEntity(), float64(r.updateTime.Nanoseconds())/float64(max(r.frames, 1))/1e6)
	fmt.Fprintln(w)
	r.verdict(w, o)
}

// worstEntities returns the NetIDs of the n entities with the largest
// errors, the largest first.
func (r *result) worstEntities(n int) []components.NetID {
	ids := make([]components.NetID, len(r.worst))
	for k := range ids {
		ids[k] = components.NetID(k + 1)
	}
	slices.SortStableFunc(ids, func(a, b components.NetID) int { return cmp.Compare(r.worst[b-1], r.worst[a-1]) })
	return ids[:min(n, len(ids))]
}

// nsPerEntity is the pipeline's cost per entity and frame.
func (r *result) nsPerEntity() float64 {
	return float64(r.updateTime.Nanoseconds()) / (float64(max(r.frames, 1)) * float64(max(r.metrics.Entities, 1)))
}

// verdict writes what the run means, in four lines a newcomer can read:
// how close the drawing was (in units, and as a share of the distance an
// entity moves in a second), how late (against the link's latency), how
// often entities ran past their newest snapshot, and what it cost.
func (r *result) verdict(w io.Writer, o options) {
	if r.entityFrames == 0 || r.frames == 0 {
		fmt.Fprintln(w, "Verdict: nothing was drawn.")
		return
	}
	mean := r.sumErr / float64(r.entityFrames)
	speed := r.sumSpeed / float64(r.entityFrames)
	delay := r.sumDelay / float64(r.frames)
	latency := o.latency.Seconds()
	m := &r.metrics
	ef := float64(r.frames) * float64(max(m.Entities, 1))
	extrapolated, held := float64(m.Extrapolated)/ef, float64(m.Held)/ef
	fmt.Fprintf(w, "Verdict: %s\n", r.summary(mean/speed, extrapolated+held))
	fmt.Fprintf(w, "  error:     %.4f units on average, %.2f at worst: %.3f%% (%.1f%% at worst) of the %.1f units an entity moves in a second\n",
		mean, r.maxErr, 100*mean/speed, 100*r.maxErr/speed, speed)
	fmt.Fprintf(w, "  delay:     drawn %.0f ms behind the server on average: the link's %.0f ms one-way latency plus %.0f ms of buffering (the interpolation delay, averaged)\n",
		delay*1000, latency*1000, (delay-latency)*1000)
	fmt.Fprintf(w, "  underruns: %.2f%% of entity-frames ran past the newest snapshot (extrapolated %.2f%%, held %.2f%%), in %d of %d frames\n",
		100*(extrapolated+held), 100*extrapolated, 100*held, m.UnderrunFrames, r.frames)
	fmt.Fprintf(w, "  cost:      %.1f ns per entity and frame (%.2f ms a frame for %d entities)\n",
		r.nsPerEntity(), r.nsPerEntity()*float64(m.Entities)/1e6, m.Entities)
}

// summary judges a run from its mean error as a share of a second's
// travel and its share of entity-frames past the newest snapshot.
func (r *result) summary(errShare, underrun float64) string {
	switch {
	case errShare < 0.01 && underrun < 0.02:
		return "smooth and close to the truth: the entities were drawn within a hundredth of a second's travel of their true paths, rarely past their data."
	case errShare < 0.05 && underrun < 0.1:
		return "close to the truth, with visible corrections where the network lost data."
	}
	return "the network was too bad for this delay: entities often ran past their data (try a longer -delay, or 0 to adapt it)."
}

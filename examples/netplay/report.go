package main

import (
	"fmt"
	"io"
	"time"

	"github.com/netsmooth/netsmooth/session"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/transport"
)

// warmUp is left out of the drawn error: the first second, while the
// clock settles and the first snapshots fill the buffers.
const warmUp = time.Second

// report is what the client measured.
type report struct {
	elapsed      time.Duration
	frames       int
	rms, maxErr  float64
	samples      int
	metrics      systems.Metrics
	sync         session.Sync
	synced       bool
	trueOffset   float64 // server clock - client clock, known in one process
	hasTruth     bool
	session      session.ClientStats
	transport    transport.ClientStats
	server       transport.ServerStats
	serverClient session.Stats // the server's session stats of this client
	hasServer    bool
}

// report gathers the client's measures after run; srv is the server when
// it ran in this process.
func (c *gameClient) report(elapsed time.Duration, srv *gameServer) *report {
	r := &report{elapsed: elapsed, frames: len(c.frames), metrics: *c.pipe.Metrics(),
		session: c.cli.Session().Stats(), transport: c.cli.Stats()}
	if len(c.frames) > 0 {
		r.rms, r.maxErr, r.samples = c.drawnError(c.frames[0].at.Add(warmUp))
	}
	r.sync, r.synced = c.cli.Session().Sync()
	if srv != nil {
		r.trueOffset = float64(int32(srv.srv.Now() - c.cli.Now()))
		r.hasTruth = true
		r.server = srv.srv.Stats()
		if ids := srv.srv.Clients(nil); len(ids) > 0 {
			r.serverClient, r.hasServer = srv.srv.Session().Stats(ids[0])
		}
	}
	return r
}

func row(w io.Writer, name, format string, args ...any) {
	fmt.Fprintf(w, "| %-38s | %s |\n", name, fmt.Sprintf(format, args...))
}

func header(w io.Writer) {
	fmt.Fprintf(w, "| %-38s | %s |\n|%s|%s|\n", "measure", "value", "----------------------------------------", "--------------------------------")
}

// print writes the metrics table.
func (r *report) print(w io.Writer, o *options) {
	secs := r.elapsed.Seconds()
	m := &r.metrics
	fmt.Fprintf(w, "\nudp client: %.1f s, %d entities (%.0f%% moving) at %d Hz, %.0f FPS, delta %v; simulated link %v ± %v each way, %.0f%% loss\n\n",
		secs, o.entities, o.moving*100, tickRate, o.fps, !o.full, o.latency, o.jitter, o.loss*100)
	header(w)
	row(w, "frames", "%d", r.frames)
	row(w, "entities drawn", "%d", m.Entities)
	row(w, "drawn error vs truth: RMS / max", "%.4f / %.3f units (after %v)", r.rms, r.maxErr, warmUp)
	row(w, "interpolation delay: target / actual", "%.1f / %.1f ms", m.Delay*1000, m.ActualDelay*1000)
	row(w, "presentation delay (latency + delay)", "%.1f ms", m.PresentationDelay*1000)
	row(w, "underrun frames", "%d of %d", m.UnderrunFrames, m.Frames)
	row(w, "entity-frames extrapolated / held", "%d / %d", m.Extrapolated, m.Held)
	row(w, "corrections smoothed / snaps", "%d / %d", m.Corrections, m.Snaps)
	row(w, "player: reconciles / hard cuts", "%d / %d", m.Reconciles, m.HardCuts)
	row(w, "player: max prediction error", "%.4f units", m.MaxPredictionError)
	switch {
	case m.ServerTickRate == 0:
		row(w, "server tick rate: measured / configured", "not yet / %g Hz", m.TickRate)
	case m.TickRateMismatch:
		row(w, "server tick rate: measured / configured", "%.2f / %g Hz: MISMATCH", m.ServerTickRate, m.TickRate)
	default:
		row(w, "server tick rate: measured / configured", "%.2f / %g Hz", m.ServerTickRate, m.TickRate)
	}
	if r.synced {
		row(w, "RTT (median) / min RTT", "%.1f / %.0f ms", r.sync.RTT, r.sync.MinRTT)
		row(w, "one-way latency from the server", "%.1f ms", r.sync.Latency)
		if r.hasTruth {
			row(w, "server clock offset: measured / true", "%.1f / %.0f ms", r.sync.Offset, r.trueOffset)
		} else {
			row(w, "server clock offset", "%.1f ms", r.sync.Offset)
		}
	}
	st := &r.session
	row(w, "down: bytes/s, packets/s", "%.0f B/s, %.1f/s", float64(st.BytesReceived)/secs, float64(st.PacketsReceived)/secs)
	row(w, "up: bytes/s, packets/s", "%.0f B/s, %.1f/s", float64(st.BytesSent)/secs, float64(st.PacketsSent)/secs)
	row(w, "down: packets lost (seq gaps)", "%d of %d", st.PacketsLost, st.PacketsLost+st.PacketsReceived)
	row(w, "up: packets unacknowledged", "%d of %d", st.PacketsUnacked, st.PacketsAcked+st.PacketsUnacked)
	row(w, "ticks complete / no baseline / dup", "%d / %d / %d", st.Ticks, st.NoBaseline, st.DuplicatePackets)
	row(w, "messages pushed / counted by pipeline", "%d / %d", st.Pushed+st.Own, m.Received())
	row(w, "server restarts seen", "%d", st.Restarts)
	if r.hasServer {
		sc := &r.serverClient
		row(w, "server: snapshots full / total", "%d / %d", sc.FullSnapshots, sc.Snapshots)
		row(w, "server: inputs applied / lost", "%d / %d", sc.InputsApplied, sc.InputsLost)
	}
}

// printServer writes the server's counters (for -role server).
func printServer(w io.Writer, o *options, g *gameServer) {
	st := g.srv.Stats()
	fmt.Fprintf(w, "\nudp server: %d ticks, %d entities\n\n", g.tick, o.entities)
	header(w)
	row(w, "clients connected / connects / refused", "%d / %d / %d", st.Clients, st.Connects, st.Refused)
	row(w, "packets sent / received", "%d / %d", st.PacketsSent, st.PacketsReceived)
	row(w, "bytes sent / received", "%d / %d", st.BytesSent, st.BytesReceived)
	row(w, "bad packets / stray", "%d / %d", st.BadPackets, st.Stray)
	if st.Link.Sent > 0 {
		row(w, "simulated link: sent / lost", "%d / %d", st.Link.Sent, st.Link.Lost)
	}
}

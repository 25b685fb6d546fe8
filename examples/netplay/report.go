package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/netsmooth/netsmooth/client"
	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/systems"
)

// warmUp is left out of the drawn error: the first second, while the
// clock settles and the first snapshots fill the buffers.
const warmUp = time.Second

// report is what the client measured.
type report struct {
	elapsed     time.Duration
	frames      int
	rms, maxErr float64
	samples     int
	metrics     systems.Metrics
	sync        client.Sync
	synced      bool
	trueOffset  float64 // server clock - client clock, known in one process
	hasTruth    bool
	// session and uplink sum the counters of every connection the client
	// made; despawned counts the Despawn messages the client pushed itself
	// when a connection ended.
	session   client.Stats
	uplink    linkStats
	despawned uint64
	conns     int
	ends      []connEnd
	over      error // why the client stopped early, if it did
	lostAtEnd bool  // the run ended while the client was reconnecting
	netID     components.NetID
	spectator bool
	// The server's view, when it ran in this process: its counters, its
	// session's counters of this client, and its time in SendSnapshots.
	server       server.Stats
	serverClient server.ClientStats
	hasServer    bool
	sendMean     time.Duration
	sendMax      time.Duration
}

// linkStats is what the simulated uplink did.
type linkStats struct{ sent, lost uint64 }

// report gathers the client's measures after run; srv is the server when
// it ran in this process.
func (c *gameClient) report(elapsed time.Duration, srv *gameServer) *report {
	r := &report{elapsed: elapsed, frames: len(c.frames), metrics: *c.pipe.Metrics(), despawned: c.despawned,
		conns: len(c.conns), ends: c.ends, over: c.over, lostAtEnd: c.lostAtEnd, spectator: c.o.spectate}
	if len(c.frames) > 0 {
		r.rms, r.maxErr, r.samples = c.drawnError(c.frames[0].at.Add(warmUp))
	}
	for _, cli := range c.conns {
		addStats(&r.session, cli.Session().Stats())
		l := cli.Stats().Link
		r.uplink.sent += l.Sent
		r.uplink.lost += l.Lost
	}
	last := c.conns[len(c.conns)-1]
	r.sync, r.synced = last.Session().Sync()
	r.netID = last.Session().NetID()
	if srv != nil {
		r.trueOffset = float64(int32(srv.srv.Now() - last.Now()))
		r.hasTruth = true
		r.server = srv.srv.Stats()
		r.serverClient, r.hasServer = srv.srv.Session().Stats(server.ClientID(last.Welcome().ClientID))
		_, r.sendMean, r.sendMax = srv.tickStats()
	}
	return r
}

// addStats adds a connection's session counters to sum.
func addStats(sum *client.Stats, s client.Stats) {
	sum.PacketsReceived += s.PacketsReceived
	sum.BytesReceived += s.BytesReceived
	sum.Snapshots += s.Snapshots
	sum.DuplicatePackets += s.DuplicatePackets
	sum.NoBaseline += s.NoBaseline
	sum.SeqJumps += s.SeqJumps
	sum.BadPackets += s.BadPackets
	sum.PacketsLost += s.PacketsLost
	sum.Ticks += s.Ticks
	sum.Diverged += s.Diverged
	sum.Pushed += s.Pushed
	sum.Own += s.Own
	sum.PacketsSent += s.PacketsSent
	sum.BytesSent += s.BytesSent
	sum.PacketsAcked += s.PacketsAcked
	sum.PacketsUnacked += s.PacketsUnacked
	sum.InputsQueued += s.InputsQueued
	sum.InputsExpired += s.InputsExpired
	sum.Restarts += s.Restarts
	sum.Reassigned += s.Reassigned
}

// row writes a row of a metrics table.
func row(w io.Writer, name, format string, args ...any) {
	fmt.Fprintf(w, "| %-38s | %s |\n", name, fmt.Sprintf(format, args...))
}

// header writes the head of a metrics table.
func header(w io.Writer) {
	fmt.Fprintf(w, "| %-38s | %s |\n|%s|%s|\n", "measure", "value", "----------------------------------------", "--------------------------------")
}

// print writes the metrics table.
func (r *report) print(w io.Writer, o *options) {
	secs := r.elapsed.Seconds()
	m := &r.metrics
	fmt.Fprintf(w, "\nnetplay client: %.1f s, %d entities (%.0f%% moving) at %d Hz, %.0f FPS, delta %v; simulated link %v ± %v each way, %.0f%% loss\n\n",
		secs, o.entities, o.moving*100, tickRate, o.fps, !o.full, o.latency, o.jitter, o.loss*100)
	header(w)
	switch {
	case r.spectator:
		row(w, "role", "spectator")
	case r.netID != 0:
		row(w, "role", "player, NetID %d (the server's choice)", r.netID)
	default:
		row(w, "role", "player, no NetID assigned yet")
	}
	row(w, "connections / disconnections", "%d / %d", r.conns, len(r.ends))
	if len(r.ends) > 0 {
		why := make([]string, len(r.ends))
		for i, e := range r.ends {
			why[i] = e.reason.String()
		}
		row(w, "disconnected by", "%s", strings.Join(why, ", "))
	}
	if r.over != nil {
		row(w, "stopped early", "%v", r.over)
	}
	if r.lostAtEnd {
		row(w, "at the end", "disconnected for %.1f s, still reconnecting", time.Since(r.ends[len(r.ends)-1].at).Seconds())
	}
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
	row(w, "messages pushed / counted by pipeline", "%d / %d", st.Pushed+st.Own+r.despawned, m.Received())
	if r.hasServer {
		sc := &r.serverClient
		row(w, "server: snapshots full / total", "%d / %d", sc.FullSnapshots, sc.Snapshots)
		row(w, "server: inputs applied / lost / throttled", "%d / %d / %d", sc.InputsApplied, sc.InputsLost, sc.InputsThrottled)
		row(w, "server: SendSnapshots mean / max", "%.3f / %.3f ms", ms(r.sendMean), ms(r.sendMax))
	}
}

// ms converts d to milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// printServer writes the server's counters (for -role server).
func printServer(w io.Writer, o *options, g *gameServer) {
	st := g.srv.Stats()
	ticks, mean, most := g.tickStats()
	fmt.Fprintf(w, "\nnetplay server: %d ticks, %d entities\n\n", ticks, o.entities)
	header(w)
	row(w, "clients connected / joins / leaves", "%d / %d / %d", st.Clients, st.Joins, st.Leaves)
	row(w, "refused: bad token / full / busy", "%d / %d / %d", st.BadTokens, st.Full, st.Busy+st.Listener.Busy)
	row(w, "handshakes timed out / bad hello", "%d / %d", st.Listener.TimedOut, st.Listener.BadHello)
	t := g.totals()
	row(w, "snapshot packets / bytes sent", "%d / %d", t.packetsSent, t.bytesSent)
	row(w, "input packets / bytes received", "%d / %d", t.packetsReceived, t.bytesReceived)
	row(w, "SendSnapshots mean / max", "%.3f / %.3f ms", ms(mean), ms(most))
}

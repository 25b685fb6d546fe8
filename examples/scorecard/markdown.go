package main

import (
	"bufio"
	"fmt"
	"io"

	"github.com/netsmooth/netsmooth/internal/scenario"
)

type plotRef struct{ title, path string }

// writeGroups adds, for clients whose result is broken down by send rate,
// a line per group.
func writeGroups(w io.Writer, results []scenario.Result) error {
	for _, r := range results {
		for _, g := range r.Groups {
			if _, err := fmt.Fprintf(w, "\n- %s, entities %s: underrun %.2f%%, max jump %.2f× true motion, mean delay %.0f ms, %d backward frames", r.Client, g.Name, 100*g.Underrun, g.MaxJump, 1000*g.MeanDelay, g.Backward); err != nil {
				return err
			}
		}
	}
	if len(results) > 0 && len(results[0].Groups) > 0 {
		_, err := fmt.Fprintln(w)
		return err
	}
	return nil
}

func writeMarkdown(w io.Writer, c card, plots []plotRef, quick bool) error {
	b := bufio.NewWriter(w)
	fmt.Fprintln(b, "# netsmooth motion-quality scorecard")
	fmt.Fprintln(b)
	fmt.Fprintln(b, "Written by `go run ./examples/scorecard` (nothing here is typed by hand). Every scenario is seeded and runs on virtual time, so these numbers are the same on every machine. A simulated server moves entities along known paths (circles at 10 units/s) and sends 20 Hz snapshots through `netsim`; each client draws at 60 FPS; what it draws is compared with the true path at the time it says it presents.")
	if quick {
		fmt.Fprintln(b, "\nThis is a quick run: the drift scenario lasted one minute instead of ten.")
	}
	fmt.Fprintln(b, `
Columns:

- **RMS / max error**: distance between the drawn position and the true position at the presented time, in world units.
- **max jump × true motion**: the largest distance an entity moved in one frame, divided by the distance it truly moves in a frame (1.00 = never faster than the truth; 3.00 = a 20 Hz step every third frame).
- **underrun**: share of entity-frames drawn past the newest data (extrapolating or holding).
- **mean / p99 delay**: presentation delay, true server time now minus the presented time (includes the 50 ms network latency).
- **backward frames**: entity-frames that moved against the true direction of motion.
- **recovery**: after the disturbance ends, time until error and delay stay within their pre-disturbance level for a second ("—": no disturbance).

Clients: **netsmooth** with its default configuration (adaptive delay, Coast extrapolation, smoothed corrections); **latest snapshot** draws the newest snapshot as soon as it arrives (no buffer); **fixed 100 ms lerp** interpolates 100 ms in the past with no extrapolation; **uncapped extrapolation** draws 100 ms in the past and extrapolates linearly without a cap, closing corrections by 25% a tick; **damped buffer** keeps a sorted snapshot buffer per entity, with a render clock re-anchored to 100 ms behind the newest snapshot on every snapshot and damped extrapolation capped at 120 ms; **dead reckoning** stamps snapshots with their arrival time, draws 100 ms behind that clock, extrapolates from the last two snapshots up to 150 ms, then holds, and snaps beyond 400 units.`)
	for _, sr := range c.remote {
		fmt.Fprintf(b, "\n## %s\n\n%s.\n\n", sr.name, sr.about)
		if err := scenario.WriteTable(b, sr.results); err != nil {
			return err
		}
		if err := writeGroups(b, sr.results); err != nil {
			return err
		}
	}
	if len(c.rough) > 0 {
		fmt.Fprintln(b, "\n## Rough edges\n\nSlow and sharply turning motion, where a small unevenness in the drawing is a large share of a frame's true motion: 8 entities unless said otherwise, on circles of radius 10–14 at 3–5 units/s (each its own) and on zig-zags at 4 units/s along x and 4 units/s in y that flip y every 0.7–1.0 s. Max jump and backward frames are measured against each entity's own speed and direction. Goals: after a 3 s suspend, max jump at most 1.5×; at 10 Hz with ±40 ms jitter and 5% loss, mean delay at most 243 ms at a max jump of at most 1.5×, with 8 entities and with 2000; through burst loss on zig-zags, max jump at most 3× and no backward frames.")
		for _, sr := range c.rough {
			fmt.Fprintf(b, "\n### %s\n\n%s.\n\n", sr.name, sr.about)
			if err := scenario.WriteTable(b, sr.results); err != nil {
				return err
			}
		}
	}
	if len(c.frontiers) > 0 {
		fmt.Fprintf(b, "\n## Delay frontier\n\nEvery scenario again (at most %d s each) with fixed-delay lerps from 50 to 300 ms in steps of 25 ms: netsmooth's own timeline at a fixed delay, holding instead of extrapolating. A fixed delay *dominates* netsmooth's default if it gives both a lower mean delay and a max jump and underrun share no worse. The plots are below.\n\n", frontierSeconds)
		if err := writeFrontierTable(b, c.frontiers); err != nil {
			return err
		}
	}
	fmt.Fprintf(b, "\n## %s\n\n%s. Error is measured against the server's authoritative trajectory at the tick the client draws; the baseline applies the same reconciliation but draws each correction at once.\n\n", c.predicted.name, c.predicted.about)
	if err := scenario.WriteTable(b, c.predicted.results); err != nil {
		return err
	}
	writeNetwork(b, c.network)
	fmt.Fprintln(b, "\n## Plots")
	for _, p := range plots {
		fmt.Fprintf(b, "\n### %s\n\n![%s](%s)\n", p.title, p.title, p.path)
	}
	return b.Flush()
}

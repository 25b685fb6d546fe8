package main

import (
	"fmt"
	"io"

	"github.com/netsmooth/netsmooth/internal/budgetscene"
	"github.com/netsmooth/netsmooth/internal/lagcomp"
)

// network is what the scorecard measures of the server side end to end:
// a budget squeezing many entities, and lag compensation.
type network struct {
	squeeze budgetscene.Result
	lagcomp []lagcomp.Result
}

func measureNetwork(log io.Writer) (network, error) {
	var n network
	var err error
	fmt.Fprintln(log, "scenario motion under a budget")
	if n.squeeze, err = budgetscene.Run(budgetscene.Default()); err != nil {
		return n, err
	}
	for _, c := range lagcomp.Scenarios() {
		fmt.Fprintf(log, "scenario lag compensation, %s\n", c.Name)
		r, err := lagcomp.Run(c)
		if err != nil {
			return n, err
		}
		n.lagcomp = append(n.lagcomp, r)
	}
	return n, nil
}

func writeNetwork(w io.Writer, n network) {
	r := n.squeeze
	fmt.Fprintf(w, `
## Motion under a budget

%d entities moving on circles at %.0f units/s, all within the client's view, through a server session with interest management and a budget of %d bytes a second (%.0f kbit/s) to the client, over a %v ± %v link losing %.0f%%; far entities may wait up to %v, and the client draws them up to %.1f s later to match. Without a budget the same world costs %.0f B/s. Near: entities within %d units of the viewer; far: beyond %d.

| entities | count | mean interval | mean lag | max jump × true motion | backward frames | underrun |
|---|---|---|---|---|---|---|
`, r.Entities, budgetscene.Speed, r.Config.BytesPerSecond, float64(r.Config.BytesPerSecond)*8/1000,
		r.Link.Latency, r.Link.Jitter, 100*r.Link.Loss, r.MaxInterval, r.MaxLag, r.Unbudgeted, budgetscene.Near, budgetscene.Far)
	for _, g := range []struct {
		name string
		g    budgetscene.Group
	}{{"near", r.NearGroup}, {"far", r.FarGroup}, {"all", r.All}} {
		fmt.Fprintf(w, "| %s | %d | %.0f ms | %.0f ms | %.2f | %d | %.2f%% |\n",
			g.name, g.g.Entities, 1000*g.g.Interval, 1000*g.g.Lag, g.g.MaxJump, g.g.Backward, 100*g.g.Underrun)
	}
	fmt.Fprintf(w, "\nSent: %.0f B/s on average, %.0f B/s in the busiest second.\n", r.BytesPerSecond, r.PeakBytesPerSecond)

	fmt.Fprintf(w, `
## Lag compensation

%d targets zig-zag at 5 to 10 units/s (turning every 0.25 to 0.75 s) with a %.1f-unit hit sphere, 20 Hz snapshots; each tick the client fires straight at the centre of a target as it draws it (netsmooth's default pipeline), and the server judges the shot three ways: against what the client drew (`+"`server.Session.Rewind`"+`), against the present (no compensation), and Source-style, at the command's tick minus a fixed 100 ms interpolation delay. Share of shots confirmed; residual is the distance between where the client drew the target and where the server rewound it (median / 99th percentile / largest); an extrapolated target is one drawn past its newest snapshot, judged where it truly was.

| network | shots | compensated | no compensation | Source-style 100 ms | residual | extrapolated (confirmed) | client delay |
|---|---|---|---|---|---|---|---|
`, n.lagcomp[0].Targets, lagcomp.Radius)
	for _, c := range n.lagcomp {
		fmt.Fprintf(w, "| %s | %d | %.2f%% | %.2f%% | %.2f%% | %.3f / %.3f / %.2f | %d (%d) | %.0f ms |\n",
			c.Name, c.Shots, c.Rate(c.Compensated), c.Rate(c.Present), c.Rate(c.Source),
			c.Residual[0], c.Residual[1], c.Residual[2], c.Extrapolated, c.ExtrapolatedConfirmed, c.Delay)
	}
}

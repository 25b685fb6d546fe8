package main

import (
	"fmt"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/netsmooth/netsmooth/internal/pngfile"
	"github.com/netsmooth/netsmooth/internal/scenario"
)

// frontierSeconds caps a scenario's length in the frontier sweep, which
// runs every scenario a dozen times (the 10-minute drift scenario runs for
// one minute there).
const frontierSeconds = 60

// sweepFrontiers runs netsmooth's default and the fixed-delay lerps at
// every delay of scenario.FrontierDelays in every remote scenario.
func sweepFrontiers(log io.Writer) []scenario.Frontier {
	var fs []scenario.Frontier
	for _, sc := range scenario.Standard() {
		if sc.Seconds > frontierSeconds {
			sc.Seconds = frontierSeconds
		}
		fmt.Fprintf(log, "frontier %s\n", sc.Name)
		fs = append(fs, scenario.SweepFrontier(sc, scenario.FrontierDelays()))
	}
	return fs
}

// writeFrontierTable writes, per scenario, netsmooth's default next to the
// fixed delays that come closest to it, and whether any fixed delay gives
// both less delay and equal-or-better smoothness.
func writeFrontierTable(w io.Writer, fs []scenario.Frontier) error {
	if _, err := fmt.Fprintln(w, "| scenario | netsmooth: mean delay | max jump | underrun | fastest fixed lerp at least as smooth | fixed lerps with less delay | dominated by |"); err != nil {
		return err
	}
	fmt.Fprintln(w, "|---|---:|---:|---:|---|---|---|")
	for _, f := range fs {
		n := f.NetSmooth
		smooth, faster := "none", "none"
		for _, p := range f.Fixed {
			if p.MaxJump <= n.MaxJump+0.005 && p.Underrun <= n.Underrun+0.00005 {
				smooth = fmt.Sprintf("%s: %.0f ms", p.Client, 1000*p.MeanDelay)
				break
			}
		}
		var parts []string
		for _, p := range f.Fixed {
			if p.MeanDelay < n.MeanDelay {
				parts = append(parts, fmt.Sprintf("%s: %.2f×, %.2f%%", p.Client, p.MaxJump, 100*p.Underrun))
			}
		}
		if len(parts) > 0 {
			faster = joinMax(parts, 2)
		}
		dom := "nothing"
		if by := f.DominatedBy(); len(by) > 0 {
			dom = by[0].Client
		}
		if _, err := fmt.Fprintf(w, "| %s | %.0f ms | %.2f | %.2f%% | %s | %s | %s |\n",
			f.Scenario, 1000*n.MeanDelay, n.MaxJump, 100*n.Underrun, smooth, faster, dom); err != nil {
			return err
		}
	}
	return nil
}

// joinMax joins the last max of parts (the fixed delays closest below
// netsmooth's), with an ellipsis before them if some were left out.
func joinMax(parts []string, max int) string {
	s := ""
	if len(parts) > max {
		s = "…; "
		parts = parts[len(parts)-max:]
	}
	for i, p := range parts {
		if i > 0 {
			s += "; "
		}
		s += p
	}
	return s
}

// frontierPlot draws one tile per scenario: the fixed-delay lerps' max
// jump (left axis) and underrun share (as a second series, scaled into
// the same tile) against mean delay, and netsmooth's default as one marker
// per metric.
func frontierPlot(fs []scenario.Frontier, metric string, path string) error {
	const cols = 4
	rows := (len(fs) + 1 + cols - 1) / cols // one more tile for the legend
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
		for c := range grid[r] {
			grid[r][c] = plot.New()
			grid[r][c].HideAxes()
		}
	}
	for i, f := range fs {
		p := plot.New()
		p.Title.Text = f.Scenario
		p.Title.TextStyle.Font.Size = vg.Points(9)
		p.X.Label.Text = "mean delay (ms)"
		p.Y.Min = 0
		value := func(pt scenario.Point) float64 {
			if metric == "jump" {
				return pt.MaxJump
			}
			return 100 * pt.Underrun
		}
		if metric == "jump" {
			p.Y.Label.Text = "max jump × true motion"
		} else {
			p.Y.Label.Text = "underrun (%)"
		}
		var fixed plotter.XYs
		maxY := value(f.NetSmooth)
		for _, pt := range f.Fixed {
			fixed = append(fixed, plotter.XY{X: 1000 * pt.MeanDelay, Y: value(pt)})
			maxY = math.Max(maxY, value(pt))
		}
		p.Y.Max = math.Max(maxY*1.1, 0.1)
		l, lp, err := plotter.NewLinePoints(fixed)
		if err != nil {
			return err
		}
		l.Color, lp.Color, lp.Radius = grey, grey, vg.Points(2)
		p.Add(l, lp)
		ours, err := plotter.NewScatter(plotter.XYs{{X: 1000 * f.NetSmooth.MeanDelay, Y: value(f.NetSmooth)}})
		if err != nil {
			return err
		}
		ours.GlyphStyle.Color, ours.GlyphStyle.Shape, ours.GlyphStyle.Radius = blue, draw.PyramidGlyph{}, vg.Points(5)
		p.Add(ours)
		grid[i/cols][i%cols] = p
		if i == 0 {
			// The legend gets the tile after the last scenario.
			key := grid[len(fs)/cols][len(fs)%cols]
			key.Legend.Add("fixed-delay lerp, 50–300 ms", l, lp)
			key.Legend.Add("netsmooth default", ours)
			key.Legend.Top, key.Legend.Left = true, true
			key.Legend.TextStyle.Font.Size = vg.Points(10)
		}
	}
	width, height := 30*vg.Centimeter, vg.Length(rows)*7*vg.Centimeter
	img := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(110))
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: 4 * vg.Millimeter, PadY: 4 * vg.Millimeter,
		PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 2 * vg.Millimeter}
	canvases := plot.Align(grid, tiles, draw.New(img))
	for r := range grid {
		for c := range grid[r] {
			grid[r][c].Draw(canvases[r][c])
		}
	}
	return pngfile.Write(path, vgimg.PngCanvas{Canvas: img})
}

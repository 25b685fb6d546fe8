package main

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/netsmooth/netsmooth/internal/perf"
	"github.com/netsmooth/netsmooth/internal/pngfile"
)

// Size and resolution of the plot.
const (
	plotWidth  = 16 * vg.Centimeter
	plotHeight = 10 * vg.Centimeter
	plotDPI    = 144
)

// series is one line of the plot.
type series struct {
	label  string
	c      string // case
	impl   string
	color  color.Color
	dashed bool
	glyph  draw.GlyphDrawer
}

var (
	blue   = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	orange = color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}
	green  = color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}
	red    = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	purple = color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}
	grey   = color.RGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff}
)

// plotSeries lists the plot's lines: netsmooth solid, the lower bound on
// arche (and for ingest the checked lower bound) dashed in the same
// colour, the plain lower bound's frame dashed in grey.
func plotSeries() []series {
	return []series{
		{"netsmooth frame", caseFrame, perf.NetSmooth, blue, false, draw.CircleGlyph{}},
		{"lower bound on arche frame", caseFrame, perf.MinimumOnArcheName, blue, true, draw.CircleGlyph{}},
		{"plain lower bound frame", caseFrame, perf.MinimumName, grey, true, draw.RingGlyph{}},
		{"netsmooth frame, 2 workers", caseTwoWorkers, perf.NetSmooth, purple, false, draw.PyramidGlyph{}},
		{"naive frame", caseFrame, perf.NaiveName, red, false, draw.BoxGlyph{}},
		{"netsmooth interpolate", caseInterpolate, perf.NetSmooth, green, false, draw.TriangleGlyph{}},
		{"lower bound on arche interpolate", caseInterpolate, perf.MinimumOnArcheName, green, true, draw.TriangleGlyph{}},
		{"netsmooth ingest (ns/snapshot)", caseIngest, perf.NetSmooth, orange, false, draw.CrossGlyph{}},
		{"lower bound ingest", caseIngest, perf.MinimumName, orange, true, draw.CrossGlyph{}},
		{"checked lower bound ingest", caseIngest, perf.MinimumCheckedName, orange, true, draw.PlusGlyph{}},
	}
}

// newPlot draws ns/entity against the entity count, both logarithmic.
func newPlot(results map[key]measurement, ns []int) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "netsmooth: cost per entity, steady scenario"
	p.X.Label.Text = "entities"
	p.Y.Label.Text = "ns/entity per frame"
	p.X.Scale = plot.LogScale{}
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	var ticks plot.ConstantTicks
	for _, n := range ns {
		ticks = append(ticks, plot.Tick{Value: float64(n), Label: countLabel(n)})
	}
	p.X.Tick.Marker = ticks
	p.X.Min, p.X.Max = float64(ns[0])/1.5, float64(ns[len(ns)-1])*1.5
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	yMin, yMax := math.Inf(1), math.Inf(-1)
	for _, s := range plotSeries() {
		var pts plotter.XYs
		for _, n := range ns {
			if m, ok := results[key{s.c, s.impl, n}]; ok && m.Value > 0 {
				pts = append(pts, plotter.XY{X: float64(n), Y: m.Value})
				yMin, yMax = min(yMin, m.Value), max(yMax, m.Value)
			}
		}
		if len(pts) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, fmt.Errorf("plot %s: %v", s.label, err)
		}
		line.Color, points.Color = s.color, s.color
		line.Width = vg.Points(1.5)
		if s.dashed {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		points.Shape = s.glyph
		points.Radius = vg.Points(2.5)
		p.Add(line, points)
		p.Legend.Add(s.label, line, points)
	}
	if yMin > yMax {
		return nil, fmt.Errorf("plot: nothing measured")
	}
	// Whole decades, with one more above the data for the legend.
	p.Y.Min = math.Pow(10, math.Floor(math.Log10(yMin)))
	p.Y.Max = math.Pow(10, math.Ceil(math.Log10(yMax))+1)
	return p, nil
}

// writePlot writes the plot as a PNG file, creating its directory.
func writePlot(path string, results map[key]measurement, ns []int) error {
	p, err := newPlot(results, ns)
	if err != nil {
		return err
	}
	c := vgimg.NewWith(vgimg.UseWH(plotWidth, plotHeight), vgimg.UseDPI(plotDPI))
	p.Draw(draw.New(c))
	return pngfile.Write(path, vgimg.PngCanvas{Canvas: c})
}

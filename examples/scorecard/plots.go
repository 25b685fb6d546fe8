package main

import (
	"fmt"
	"image/color"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/netsmooth/netsmooth/internal/pngfile"
	"github.com/netsmooth/netsmooth/internal/scenario"
)

var (
	black  = color.RGBA{A: 0xff}
	blue   = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	orange = color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}
	grey   = color.RGBA{R: 0x88, G: 0x88, B: 0x88, A: 0xff}
)

type plotFile struct{ title, path string }

func find(c card, name string) (scenarioResults, bool) {
	for _, sr := range c.remote {
		if sr.name == name {
			return sr, true
		}
	}
	return scenarioResults{}, false
}

func client(sr scenarioResults, name string) (scenario.Result, bool) {
	for _, r := range sr.results {
		if r.Client == name {
			return r, true
		}
	}
	return scenario.Result{}, false
}

func writePlots(c card, dir string) ([]plotFile, error) {
	var files []plotFile
	add := func(title, name string, draw func(string) error) error {
		path := filepath.Join(dir, name)
		if err := draw(path); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		files = append(files, plotFile{title: title, path: path})
		return nil
	}
	if sr, ok := find(c, "300 ms burst loss"); ok {
		if err := add("Trail through a 300 ms burst loss (entity 1, 7.6–9.2 s)", "trail-burst-loss.png",
			func(p string) error { return trailPlot(sr, 7.6, 9.2, p) }); err != nil {
			return nil, err
		}
	}
	if sr, ok := find(c, "1% clock drift, 10 min"); ok {
		if err := add("Delay and buffered samples under 1% clock drift", "drift.png",
			func(p string) error { return timelinePlot(sr, 0, 1e9, 60, "minutes", p) }); err != nil {
			return nil, err
		}
	}
	if len(c.frontiers) > 0 {
		if err := add("Delay frontier: max jump against mean delay, fixed-delay lerps and netsmooth's default", "frontier-jump.png",
			func(p string) error { return frontierPlot(c.frontiers, "jump", p) }); err != nil {
			return nil, err
		}
		if err := add("Delay frontier: underruns against mean delay, fixed-delay lerps and netsmooth's default", "frontier-underrun.png",
			func(p string) error { return frontierPlot(c.frontiers, "underrun", p) }); err != nil {
			return nil, err
		}
	}
	if sr, ok := find(c, "3 s suspend"); ok {
		if err := add("Delay and buffered samples around a 3 s client suspend (8–11 s)", "suspend.png",
			func(p string) error { return timelinePlot(sr, 6, 14, 1, "seconds", p) }); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// trailPlot draws slot 0's true path, the snapshots received and the trails
// drawn by netsmooth and by dead reckoning, between local times from and to.
func trailPlot(sr scenarioResults, from, to float64, path string) error {
	p := plot.New()
	p.Title.Text = sr.name + ": what is drawn"
	p.X.Label.Text = "x (units)"
	p.Y.Label.Text = "y (units)"
	p.Legend.Top = true
	ours, _ := client(sr, "netsmooth")
	window := func(ts, xs, ys []float64) plotter.XYs {
		var pts plotter.XYs
		for i, t := range ts {
			if t >= from && t <= to && i < len(xs) {
				pts = append(pts, plotter.XY{X: xs[i], Y: ys[i]})
			}
		}
		return pts
	}
	truth := window(ours.Trace.DrawnT, ours.Trace.TruthX, ours.Trace.TruthY)
	if l, err := plotter.NewLine(truth); err == nil {
		l.Color, l.Width = grey, vg.Points(4)
		p.Add(l)
		p.Legend.Add("true path", l)
	}
	snaps := window(ours.Trace.SnapT, ours.Trace.SnapX, ours.Trace.SnapY)
	if s, err := plotter.NewScatter(snaps); err == nil {
		s.GlyphStyle.Color, s.GlyphStyle.Shape, s.GlyphStyle.Radius = black, draw.CircleGlyph{}, vg.Points(2.5)
		p.Add(s)
		p.Legend.Add("snapshots received", s)
	}
	for _, c := range []struct {
		name  string
		color color.Color
		dash  bool
	}{{"netsmooth", blue, false}, {"dead reckoning", orange, true}} {
		r, ok := client(sr, c.name)
		if !ok {
			continue
		}
		trail := window(r.Trace.DrawnT, r.Trace.DrawnX, r.Trace.DrawnY)
		l, lp, err := plotter.NewLinePoints(trail)
		if err != nil {
			continue
		}
		l.Color, lp.Color, lp.Radius = c.color, c.color, vg.Points(1)
		if c.dash {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		p.Add(l, lp)
		p.Legend.Add(c.name+" (one point per frame)", l, lp)
	}
	return save(path, 16*vg.Centimeter, 12*vg.Centimeter, p)
}

// timelinePlot draws, for netsmooth, the presentation delay and the actual
// interpolation delay (top) and the samples buffered ahead of the render
// time (bottom) between local times from and to, time divided by unit.
func timelinePlot(sr scenarioResults, from, to, unit float64, unitName, path string) error {
	r, ok := client(sr, "netsmooth")
	if !ok {
		return fmt.Errorf("no netsmooth result")
	}
	// Frames are averaged over windows of `every` seconds.
	w := window{times: r.Trace.Time, from: from, to: to, every: 1.0 / 6, unit: unit}
	if to-from > 120 {
		w.every = 1
	}
	top := plot.New()
	top.Title.Text = sr.name + ": netsmooth's timeline"
	top.Y.Label.Text = "delay (ms)"
	top.Y.Min = 0
	addLines(top, w.segments(r.Trace.Delay, 1000), blue, false, "presentation delay (incl. 50 ms latency)")
	addLines(top, w.segments(r.Trace.BufferDelay, 1000), orange, true, "interpolation delay (actual)")
	bottom := plot.New()
	bottom.X.Label.Text = fmt.Sprintf("time (%s; averages over %.2g s)", unitName, w.every)
	bottom.Y.Label.Text = "samples ahead of render time"
	bottom.Y.Min = 0
	addLines(bottom, w.segments(r.Trace.Ahead, 1), black, false, "")
	const width, height = 16 * vg.Centimeter, 14 * vg.Centimeter
	img := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(144))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadX: vg.Millimeter, PadY: vg.Millimeter, PadTop: vg.Millimeter, PadBottom: vg.Millimeter, PadLeft: vg.Millimeter, PadRight: vg.Millimeter}
	canvases := plot.Align([][]*plot.Plot{{top}, {bottom}}, tiles, dc)
	top.Draw(canvases[0][0])
	bottom.Draw(canvases[1][0])
	return pngfile.Write(path, vgimg.PngCanvas{Canvas: img})
}

// window averages per-frame series at local times between from and to
// over buckets of every seconds, x divided by unit.
type window struct {
	times                 []float64
	from, to, every, unit float64
}

// segments returns the bucket averages of ys (times scale), as lines that
// break where the client ran no frames (a suspend).
func (w window) segments(ys []float64, scale float64) []plotter.XYs {
	var segs []plotter.XYs
	var cur plotter.XYs
	var sum float64
	n, bucket, last := 0, -1.0, -1.0
	flush := func() {
		if n > 0 {
			cur = append(cur, plotter.XY{X: (bucket + w.every/2) / w.unit, Y: sum / float64(n) * scale})
		}
		sum, n = 0, 0
	}
	for i, t := range w.times {
		if t < w.from || t > w.to || i >= len(ys) || ys[i] != ys[i] {
			continue
		}
		if last >= 0 && t-last > 0.1 { // a gap: start a new segment
			flush()
			if len(cur) > 0 {
				segs = append(segs, cur)
			}
			cur = nil
		}
		if b := w.from + w.every*float64(int((t-w.from)/w.every)); b != bucket {
			flush()
			bucket = b
		}
		sum += ys[i]
		n++
		last = t
	}
	flush()
	if len(cur) > 0 {
		segs = append(segs, cur)
	}
	return segs
}

// addLines adds the segments to p as one series, labelled once.
func addLines(p *plot.Plot, segs []plotter.XYs, c color.Color, dashed bool, label string) {
	for i, seg := range segs {
		l, err := plotter.NewLine(seg)
		if err != nil {
			continue
		}
		l.Color = c
		if dashed {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		p.Add(l)
		if i == 0 && label != "" {
			p.Legend.Add(label, l)
		}
	}
}

// save draws p on a w×h canvas at 144 DPI and writes it as a PNG file.
func save(path string, w, h vg.Length, p *plot.Plot) error {
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(144))
	p.Draw(draw.New(img))
	return pngfile.Write(path, vgimg.PngCanvas{Canvas: img})
}

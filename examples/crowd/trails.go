package main

import (
	"image"
	"image/color"
	"image/png"
	"math"
	"os"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/components"
)

// trailEntities is how many entities the scene keeps trails of, for -png.
const trailEntities = 9

// trailPoint is one entity in one frame: where it was drawn, where it
// truly was at the presented time, and how.
type trailPoint struct {
	drawn, truth mgl32.Vec3
	err          float64
	shown        bool // drawn at all this frame
	extrapolated bool
}

// trails are some entities' trailPoints, frame by frame.
type trails struct {
	ids    []components.NetID // at most trailEntities
	frames [][trailEntities]trailPoint
}

// newTrails keeps the trails of the entities ids names.
func newTrails(ids []components.NetID) *trails {
	return &trails{ids: ids[:min(len(ids), trailEntities)]}
}

// slot returns where in a frame's points entity id's go, if it has a
// trail.
func (t *trails) slot(id components.NetID) (int, bool) {
	for k, want := range t.ids {
		if id == want {
			return k, true
		}
	}
	return 0, false
}

// frame starts a frame and returns its points, to fill in.
func (t *trails) frame() []trailPoint {
	if len(t.ids) == 0 {
		return nil
	}
	t.frames = append(t.frames, [trailEntities]trailPoint{})
	return t.frames[len(t.frames)-1][:len(t.ids)]
}

// Colours of the picture.
var (
	paper   = color.RGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff}
	frame   = color.RGBA{R: 0xc0, G: 0xc0, B: 0xc0, A: 0xff}
	truthC  = color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}
	drawnC  = color.RGBA{R: 0xe3, G: 0x37, B: 0xa2, A: 0xff}
	extrapC = color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}
	worstC  = color.RGBA{A: 0xff}
	scaleC  = color.RGBA{R: 0x60, G: 0x60, B: 0x60, A: 0xff}
)

const (
	panelSize = 300 // pixels per panel side
	window    = 12  // frames either side of an entity's worst one
	ringSize  = 9   // pixels: the radius of the ring around the worst frame
)

// writePNG draws a panel per entity, in a grid of three: the frames
// around the one of its largest error, zoomed to fit.
func (t *trails) writePNG(path string) error {
	cols := 3
	rows := (len(t.ids) + cols - 1) / cols
	img := image.NewRGBA(image.Rect(0, 0, cols*panelSize, max(rows, 1)*panelSize))
	fill(img, img.Bounds(), paper)
	for k := range t.ids {
		panel := image.Rect(k%cols*panelSize, k/cols*panelSize, (k%cols+1)*panelSize, (k/cols+1)*panelSize)
		t.drawPanel(img, panel.Inset(6), k)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// drawPanel draws entity k's trails into r of img.
func (t *trails) drawPanel(img *image.RGBA, r image.Rectangle, k int) {
	worst := 0
	for i := range t.frames {
		if t.frames[i][k].err > t.frames[worst][k].err {
			worst = i
		}
	}
	lo, hi := max(worst-window, 0), min(worst+window+1, len(t.frames))
	view := t.bounds(k, lo, hi)
	at := func(p mgl32.Vec3) (int, int) { return view.pixel(r, p) }
	for i := lo; i < hi; i++ {
		if p := &t.frames[i][k]; p.shown {
			x, y := at(p.drawn)
			c := drawnC
			if p.extrapolated {
				c = extrapC
			}
			dot(img, x, y, 2, c)
		}
	}
	for i := lo + 1; i < hi; i++ {
		a, b := &t.frames[i-1][k], &t.frames[i][k]
		if a.shown && b.shown {
			x0, y0 := at(a.truth)
			x1, y1 := at(b.truth)
			for d := -1; d <= 1; d++ {
				line(img, x0, y0+d, x1, y1+d, truthC)
			}
		}
	}
	if p := &t.frames[worst][k]; p.shown {
		x0, y0 := at(p.drawn)
		x1, y1 := at(p.truth)
		line(img, x0, y0, x1, y1, worstC)
		ring(img, x0, y0, ringSize, worstC)
	}
	t.drawScale(img, r, view)
	outline(img, r.Inset(-3), frame)
}

// drawScale draws a bar one world unit long at the foot of panel r, with
// a tick at each end, so that distances in panels zoomed differently
// compare: view is the panel's square of world space. A panel too small
// or too large for the bar to show (wider than the panel, or under 4
// pixels) has none.
func (t *trails) drawScale(img *image.RGBA, r image.Rectangle, view viewBox) {
	px := float64(r.Dx()-1) / view.side
	if px < 4 || px > float64(r.Dx()-16) {
		return
	}
	n := int(px)
	x0, y := r.Min.X+8, r.Max.Y-8
	for d := 0; d < 2; d++ {
		line(img, x0, y-d, x0+n, y-d, scaleC)
	}
	line(img, x0, y-5, x0, y+2, scaleC)
	line(img, x0+n, y-5, x0+n, y+2, scaleC)
}

// viewBox is the square of world space a panel shows.
type viewBox struct{ x, y, side float64 }

// bounds returns the square around entity k's points of frames lo to hi,
// with a margin.
func (t *trails) bounds(k, lo, hi int) viewBox {
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i := lo; i < hi; i++ {
		p := &t.frames[i][k]
		if !p.shown {
			continue
		}
		for _, v := range []mgl32.Vec3{p.drawn, p.truth} {
			minX, maxX = math.Min(minX, float64(v[0])), math.Max(maxX, float64(v[0]))
			minY, maxY = math.Min(minY, float64(v[1])), math.Max(maxY, float64(v[1]))
		}
	}
	if minX > maxX {
		return viewBox{side: 1}
	}
	side := math.Max(math.Max(maxX-minX, maxY-minY)*1.1, 1e-3)
	return viewBox{x: (minX + maxX - side) / 2, y: (minY + maxY - side) / 2, side: side}
}

// pixel maps world point p into r (y up).
func (v viewBox) pixel(r image.Rectangle, p mgl32.Vec3) (int, int) {
	fx := (float64(p[0]) - v.x) / v.side
	fy := (float64(p[1]) - v.y) / v.side
	return r.Min.X + int(fx*float64(r.Dx()-1)), r.Max.Y - 1 - int(fy*float64(r.Dy()-1))
}

// fill paints r of img with c.
func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, c)
		}
	}
}

// outline paints the border of r.
func outline(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	line(img, r.Min.X, r.Min.Y, r.Max.X-1, r.Min.Y, c)
	line(img, r.Min.X, r.Max.Y-1, r.Max.X-1, r.Max.Y-1, c)
	line(img, r.Min.X, r.Min.Y, r.Min.X, r.Max.Y-1, c)
	line(img, r.Max.X-1, r.Min.Y, r.Max.X-1, r.Max.Y-1, c)
}

// line paints a straight line from (x0, y0) to (x1, y1).
func line(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	steps := max(abs(x1-x0), abs(y1-y0), 1)
	for i := 0; i <= steps; i++ {
		img.SetRGBA(x0+(x1-x0)*i/steps, y0+(y1-y0)*i/steps, c)
	}
}

// ring paints a circle of radius r around (x, y).
func ring(img *image.RGBA, x, y, r int, c color.RGBA) {
	for a := range 8 * r {
		angle := 2 * math.Pi * float64(a) / float64(8*r)
		px, py := x+int(math.Round(float64(r)*math.Cos(angle))), y+int(math.Round(float64(r)*math.Sin(angle)))
		if (image.Point{px, py}).In(img.Bounds()) {
			img.SetRGBA(px, py, c)
		}
	}
}

// dot paints a filled square of radius r around (x, y).
func dot(img *image.RGBA, x, y, r int, c color.RGBA) {
	fill(img, image.Rect(x-r, y-r, x+r+1, y+r+1).Intersect(img.Bounds()), c)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

package main

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"strings"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/ebitenutil"
	"github.com/hajimehoshi/ebiten/v2/inpututil"
	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/examples/arena/arenanet"
	"github.com/netsmooth/netsmooth/internal/scenario"
)

// The screen: the arena at pxPerUnit pixels a unit.
const (
	pxPerUnit        = 8
	screenW, screenH = arenanet.WorldW * pxPerUnit, arenanet.WorldH * pxPerUnit
	spriteSize       = 32 // the circle sprite's side, pixels
)

// Colours of what the arena draws.
var (
	background   = color.RGBA{0x0d, 0x11, 0x17, 0xff}
	gridColour   = [4]float32{0.12, 0.15, 0.2, 1}
	botColour    = [4]float32{0.35, 0.65, 1, 1}     // interpolated
	extrapColour = [4]float32{1, 0.6, 0.15, 1}      // past the newest sample: extrapolated
	heldColour   = [4]float32{1, 0.25, 0.25, 1}     // past the newest sample: held
	snapColour   = [4]float32{1, 1, 1, 1}           // snapped or teleported this frame
	otherColour  = [4]float32{0.3, 0.95, 0.45, 1}   // another client's player
	meColour     = [4]float32{1, 0.85, 0.2, 1}      // the predicted player
	ghostColour  = [4]float32{1, 0.85, 0.2, 0.35}   // the server's latest state of it
	truthColour  = [4]float32{0.3, 0.95, 0.45, 0.7} // trails: the true path
	drawnColour  = [4]float32{1, 0.35, 0.8, 0.9}    // trails: the drawn path
)

// shot asks the game to save the screen after a number of frames and
// exit: the screenshot mode. With gif set it also records the last
// gifFrames frames (every other one) as an animated GIF.
type shot struct {
	path      string
	frames    int
	gif       string
	gifFrames int
}

// active reports whether the game ends after shot.frames.
func (s shot) active() bool { return s.path != "" || s.gif != "" }

// game is the arena's Ebitengine game: it reads the keyboard, steps the
// client and draws what the client holds.
type game struct {
	c      *arenanet.Client
	other  *arenanet.Client // compare mode: the same arena, interpolation off
	canvas *ebiten.Image    // compare mode: one client's arena, full size
	rec    *recorder
	sprite *ebiten.Image
	white  *ebiten.Image
	verts  []ebiten.Vertex
	idx    []uint16
	last   time.Time
	shot   shot
	drawn  int
	done   error // ends the game: ebiten.Termination after a screenshot
	stopCh chan error
	help   bool
	// autopilot drives the player instead of the keys (for screenshots
	// and recordings).
	autopilot bool
	start     time.Time
	// steadyAt and steadyFrom: the time and frame count one second in,
	// from which the screenshot mode reports the frame rate.
	steadyAt   time.Time
	steadyFrom int
	report     func(frames int, elapsed time.Duration, s arenanet.Stats)
}

// newGame returns the game for client c; with other set, the compare
// mode: c (interpolation on) and other (off) side by side.
func newGame(c, other *arenanet.Client, sh shot) *game {
	if other != nil {
		c.SetTrailEvery(8)
		other.SetTrailEvery(8)
	}
	g := &game{c: c, other: other, shot: sh, sprite: circleSprite(spriteSize), white: ebiten.NewImage(3, 3), help: true, stopCh: make(chan error, 1)}
	g.white.Fill(color.White)
	if other != nil {
		g.canvas = ebiten.NewImage(screenW, screenH)
	}
	if sh.gif != "" {
		g.rec = &recorder{}
	}
	return g
}

// circleSprite is a white disc with a soft edge, n pixels wide.
func circleSprite(n int) *ebiten.Image {
	img := image.NewRGBA(image.Rect(0, 0, n, n))
	r := float64(n) / 2
	for y := range n {
		for x := range n {
			d := math.Hypot(float64(x)+0.5-r, float64(y)+0.5-r)
			a := max(0, min(1, r-d))
			img.SetRGBA(x, y, color.RGBA{uint8(255 * a), uint8(255 * a), uint8(255 * a), uint8(255 * a)})
		}
	}
	return ebiten.NewImageFromImage(img)
}

// Update reads the keys and steps the client.
func (g *game) Update() error {
	select {
	case err := <-g.stopCh:
		g.done = err
	default:
	}
	if g.done != nil {
		return g.done
	}
	now := time.Now()
	if g.last.IsZero() {
		g.last, g.start = now, now
	}
	dt := now.Sub(g.last).Seconds()
	g.last = now
	if err := g.keys(); err != nil {
		return err
	}
	st := stick()
	if g.autopilot {
		st = autopilot(now.Sub(g.start))
	}
	g.c.Step(dt, st)
	if g.other != nil {
		g.other.Step(dt, st)
	}
	return nil
}

// stick is the movement keys' direction: arrows or WASD, y up.
func stick() scenario.Stick {
	var s scenario.Stick
	if ebiten.IsKeyPressed(ebiten.KeyArrowLeft) || ebiten.IsKeyPressed(ebiten.KeyA) {
		s.X--
	}
	if ebiten.IsKeyPressed(ebiten.KeyArrowRight) || ebiten.IsKeyPressed(ebiten.KeyD) {
		s.X++
	}
	if ebiten.IsKeyPressed(ebiten.KeyArrowUp) || ebiten.IsKeyPressed(ebiten.KeyW) {
		s.Y++
	}
	if ebiten.IsKeyPressed(ebiten.KeyArrowDown) || ebiten.IsKeyPressed(ebiten.KeyS) {
		s.Y--
	}
	return s
}

// autopilot is the player's stick at time t after the start: a square
// with rounded corners, 1.5 s a side.
func autopilot(t time.Duration) scenario.Stick {
	switch int(t.Seconds()/1.5) % 4 {
	case 0:
		return scenario.Stick{X: 1}
	case 1:
		return scenario.Stick{Y: 1}
	case 2:
		return scenario.Stick{X: -1}
	}
	return scenario.Stick{Y: -1}
}

// keys applies the toggles pressed this frame.
func (g *game) keys() error {
	s := g.c.Settings()
	pressed := inpututil.IsKeyJustPressed
	switch {
	case pressed(ebiten.KeyI):
		s.Interp = !s.Interp
	case pressed(ebiten.KeyQ):
		s.Delay = (s.Delay + 1) % len(arenanet.Delays)
	case pressed(ebiten.KeyE):
		s.Policy = (s.Policy + 1) % len(arenanet.Policies)
	case pressed(ebiten.KeyK):
		s.Latency = (s.Latency + 1) % len(arenanet.Latencies)
	case pressed(ebiten.KeyJ):
		s.Jitter = (s.Jitter + 1) % len(arenanet.Jitters)
	case pressed(ebiten.KeyL):
		s.Loss = (s.Loss + 1) % len(arenanet.Losses)
	case pressed(ebiten.KeyB):
		s.Burst = !s.Burst
	case pressed(ebiten.KeyT):
		s.Trails = !s.Trails
	case pressed(ebiten.KeyO):
		s.Overlay = !s.Overlay
	case pressed(ebiten.KeyH):
		g.help = !g.help
		return nil
	default:
		return nil
	}
	if g.other == nil {
		return g.c.Apply(s)
	}
	// Compare mode: the left side interpolates, the right does not.
	on, off := s, s
	on.Interp, off.Interp = true, false
	return errors.Join(g.c.Apply(on), g.other.Apply(off))
}

// Draw draws the arena (or, in the compare mode, both arenas) and the
// overlay, and in the screenshot mode saves the screen after the asked
// number of frames.
func (g *game) Draw(screen *ebiten.Image) {
	if g.other == nil {
		g.drawArena(screen, g.c)
		if g.c.Settings().Overlay {
			g.drawOverlay(screen)
		}
	} else {
		g.drawCompare(screen)
	}
	g.drawn++
	if g.steadyAt.IsZero() && !g.start.IsZero() && time.Since(g.start) >= time.Second {
		g.steadyAt, g.steadyFrom = time.Now(), g.drawn
	}
	if !g.shot.active() || g.done != nil {
		return
	}
	if g.rec != nil && g.drawn > g.shot.frames-2*g.shot.gifFrames && g.drawn%2 == 0 {
		g.rec.capture(screen, time.Now())
	}
	if g.drawn < g.shot.frames {
		return
	}
	var err error
	if g.shot.path != "" {
		err = savePNG(screen, g.shot.path)
	}
	if err == nil && g.rec != nil {
		err = g.rec.save(g.shot.gif)
	}
	if err == nil {
		err = ebiten.Termination
	}
	g.done = err
	if g.report != nil {
		var frames int
		var elapsed time.Duration
		if !g.steadyAt.IsZero() {
			frames, elapsed = g.drawn-g.steadyFrom, time.Since(g.steadyAt)
		}
		g.report(frames, elapsed, g.c.Stats())
	}
}

// drawArena draws client c's view: the grid, the trails, the entities.
func (g *game) drawArena(dst *ebiten.Image, c *arenanet.Client) {
	dst.Fill(background)
	g.drawGrid(dst)
	if c.Settings().Trails {
		g.drawTrails(dst, c)
	}
	g.drawEntities(dst, c)
}

// The compare mode shows the middle of the arena, zoomed in, once per
// client: compareW × compareH pixels, each half a zoomed window on it.
const (
	compareW, compareH = screenW, screenH / 2
	compareZoom        = 2
)

// drawCompare draws the two clients side by side with their labels.
func (g *game) drawCompare(screen *ebiten.Image) {
	half := compareW / 2
	for i, c := range []*arenanet.Client{g.c, g.other} {
		g.drawArena(g.canvas, c)
		dst := screen.SubImage(image.Rect(i*half, 0, (i+1)*half, compareH)).(*ebiten.Image)
		op := &ebiten.DrawImageOptions{}
		op.GeoM.Translate(-screenW/2, -screenH/2)
		op.GeoM.Scale(compareZoom, compareZoom)
		op.GeoM.Translate(float64(i*half+half/2), compareH/2)
		op.Filter = ebiten.FilterLinear
		dst.DrawImage(g.canvas, op)
		label := "interpolation ON: " + arenanet.Delays[c.Settings().Delay].Name + " delay"
		if !c.Settings().Interp {
			label = "interpolation OFF: the newest snapshot"
		}
		st := c.Stats()
		label += fmt.Sprintf("\n%s\npast the newest snapshot: %.1f%% of entity-frames", c.Settings().Network(), st.PastNewestPct)
		g.panel(screen, label, i*half+6, 4)
	}
	g.verts, g.idx = g.verts[:0], g.idx[:0]
	g.line(float32(half), 0, float32(half), compareH, 2, [4]float32{1, 1, 1, 1})
	g.flush(screen, g.white)
	g.panel(screen, "blue: interpolated  orange: extrapolated  red: held, waiting for a snapshot  green/pink: true/drawn path", 6, compareH-18)
}

// Layout implements ebiten.Game: the arena's fixed size (half as high in
// the compare mode), scaled to the window.
func (g *game) Layout(int, int) (int, int) {
	if g.other != nil {
		return compareW, compareH
	}
	return screenW, screenH
}

// toScreen maps world units (y up) to pixels (y down).
func toScreen(x, y float32) (float32, float32) {
	return x * pxPerUnit, screenH - y*pxPerUnit
}

func (g *game) drawGrid(screen *ebiten.Image) {
	g.verts, g.idx = g.verts[:0], g.idx[:0]
	for x := float32(0); x <= arenanet.WorldW; x += 8 {
		g.line(x*pxPerUnit, 0, x*pxPerUnit, screenH, 1, gridColour)
	}
	for y := float32(0); y <= arenanet.WorldH; y += 8 {
		g.line(0, y*pxPerUnit, screenW, y*pxPerUnit, 1, gridColour)
	}
	g.flush(screen, g.white)
}

// drawTrails draws each trailed entity's true path (green, bots and the
// server's state of the player) and drawn path (pink).
func (g *game) drawTrails(screen *ebiten.Image, c *arenanet.Client) {
	g.verts, g.idx = g.verts[:0], g.idx[:0]
	for _, t := range c.Trails() {
		for i := 1; i < t.Len(); i++ {
			t0, d0 := t.At(i - 1)
			t1, d1 := t.At(i)
			if t.HasTruth && !far(t0, t1) {
				ax, ay := toScreen(t0[0], t0[1])
				bx, by := toScreen(t1[0], t1[1])
				g.line(ax, ay, bx, by, 4, truthColour)
			}
			if !far(d0, d1) {
				ax, ay := toScreen(d0[0], d0[1])
				bx, by := toScreen(d1[0], d1[1])
				g.line(ax, ay, bx, by, 1.5, drawnColour)
			}
			if len(g.verts) > 60000 {
				g.flush(screen, g.white)
			}
		}
	}
	g.flush(screen, g.white)
}

// far: a jump no Trail should draw a line across (a teleport).
func far(a, b [2]float32) bool {
	dx, dy := a[0]-b[0], a[1]-b[1]
	return dx*dx+dy*dy > 10*10
}

// drawEntities draws every visible remote entity and the player, one
// batch of sprites.
func (g *game) drawEntities(screen *ebiten.Image, c *arenanet.Client) {
	g.verts, g.idx = g.verts[:0], g.idx[:0]
	c.EachRemote(func(id uint32, r *components.Render) {
		x, y := toScreen(r.Pos[0], r.Pos[1])
		if id > arenanet.PlayerBase {
			g.disc(x, y, 14, otherColour)
		} else {
			g.disc(x, y, 9, botColourOf(r.Flags))
		}
		if len(g.verts) > 65000 {
			g.flush(screen, g.sprite)
		}
	})
	if r, server, ok := c.Player(); ok {
		x, y := toScreen(server[0], server[1])
		g.disc(x, y, 14, ghostColour)
		x, y = toScreen(r.Pos[0], r.Pos[1])
		g.disc(x, y, 16, meColour)
	}
	g.flush(screen, g.sprite)
}

// botColourOf tells how a bot was drawn this frame.
func botColourOf(f components.RenderFlags) [4]float32 {
	switch {
	case f&(components.Snapped|components.Teleported) != 0:
		return snapColour
	case f&components.Held != 0:
		return heldColour
	case f&components.Extrapolated != 0:
		return extrapColour
	}
	return botColour
}

// disc adds a sprite quad of diameter d pixels centred on (x, y).
func (g *game) disc(x, y, d float32, c [4]float32) {
	h := d / 2
	g.quad([4][2]float32{{x - h, y - h}, {x + h, y - h}, {x - h, y + h}, {x + h, y + h}}, spriteSize, c)
}

// line adds a segment of width w pixels.
func (g *game) line(x0, y0, x1, y1, w float32, c [4]float32) {
	dx, dy := x1-x0, y1-y0
	l := float32(math.Hypot(float64(dx), float64(dy)))
	if l == 0 {
		return
	}
	nx, ny := -dy/l*w/2, dx/l*w/2
	g.quad([4][2]float32{{x0 + nx, y0 + ny}, {x1 + nx, y1 + ny}, {x0 - nx, y0 - ny}, {x1 - nx, y1 - ny}}, 1, c)
}

// quad adds four corners (top-left, top-right, bottom-left, bottom-right
// of the source) over a source of side src pixels, premultiplied colour c.
func (g *game) quad(p [4][2]float32, src float32, c [4]float32) {
	base := uint16(len(g.verts))
	uv := [4][2]float32{{0, 0}, {src, 0}, {0, src}, {src, src}}
	if src == 1 {
		uv = [4][2]float32{{1, 1}, {2, 1}, {1, 2}, {2, 2}} // the white image's inside
	}
	for i := range 4 {
		g.verts = append(g.verts, ebiten.Vertex{
			DstX: p[i][0], DstY: p[i][1], SrcX: uv[i][0], SrcY: uv[i][1],
			ColorR: c[0] * c[3], ColorG: c[1] * c[3], ColorB: c[2] * c[3], ColorA: c[3],
		})
	}
	g.idx = append(g.idx, base, base+1, base+2, base+1, base+3, base+2)
}

// flush draws the batch with src.
func (g *game) flush(screen, src *ebiten.Image) {
	if len(g.idx) > 0 {
		op := &ebiten.DrawTrianglesOptions{}
		op.ColorScaleMode = ebiten.ColorScaleModePremultipliedAlpha
		screen.DrawTriangles(g.verts, g.idx, src, op)
	}
	g.verts, g.idx = g.verts[:0], g.idx[:0]
}

// drawOverlay prints the metrics and, unless hidden, the keys.
func (g *game) drawOverlay(screen *ebiten.Image) {
	s := g.c.Stats()
	set := g.c.Settings()
	var b strings.Builder
	interp := "ON"
	if !set.Interp {
		interp = "OFF (newest snapshot, held)"
	}
	fmt.Fprintf(&b, "netsmooth arena   FPS %.0f   you: %s\n", ebiten.ActualFPS(), player(s.NetID))
	fmt.Fprintf(&b, "netsmooth %.2f ms/frame (peak %.2f) for %d entities\n", ms(s.Cost), ms(s.Peak), s.Entities+int(min(s.NetID, 1)))
	if s.Err != nil {
		fmt.Fprintf(&b, "%v\n", s.Err)
	}
	fmt.Fprintf(&b, "interpolation %s   delay %s   extrapolation %v\n", interp, arenanet.Delays[set.Delay].Name, arenanet.Policies[set.Policy])
	fmt.Fprintf(&b, "delay %.0f ms (shown %.0f ms old)   past newest: %.2f%% of entity-frames, %.1f%% of frames\n", s.Delay, s.Present, s.PastNewestPct, s.UnderrunPct)
	fmt.Fprintf(&b, "corrections %d   prediction error %.3f   hard cuts %d   snaps %d\n", s.Corrections, s.PredErr, s.HardCuts, s.Snaps)
	rtt := "-"
	if !math.IsNaN(s.RTT) {
		rtt = fmt.Sprintf("%.0f ms", s.RTT)
	}
	fmt.Fprintf(&b, "RTT %s   down %.1f kB/s   up %.1f kB/s   lost %d down, %d up\n", rtt, s.Down, s.Up, s.LostDown, s.LostUp)
	fmt.Fprintf(&b, "network (each way): %s\n", set.Network())
	if g.help {
		b.WriteString("\nmove: arrows/WASD  I interp  Q delay  E extrapolation\nK latency  J jitter  L loss  B bursts  T trails  O overlay  H keys\n")
		b.WriteString("blue: interpolated  orange: extrapolated  red: held  white: snapped\ngreen line: true path  pink line: drawn path")
	}
	g.panel(screen, b.String(), 6, 4)
}

// panel prints text at (x, y) on a dark panel: the debug font is 6×16
// pixels.
func (g *game) panel(screen *ebiten.Image, text string, x, y int) {
	width := 0
	for _, l := range strings.Split(text, "\n") {
		width = max(width, len(l))
	}
	lines := strings.Count(text, "\n") + 1
	op := &ebiten.DrawImageOptions{}
	op.GeoM.Scale(float64(width*6+12)/3, float64(lines*16+8)/3)
	op.GeoM.Translate(float64(x-6), float64(y-4))
	op.ColorScale.Scale(0, 0, 0, 0.7)
	screen.DrawImage(g.white, op)
	ebitenutil.DebugPrintAt(screen, text, x, y)
}

func player(id components.NetID) string {
	if id == 0 {
		return "waiting for the server"
	}
	return fmt.Sprintf("player %d", id-arenanet.PlayerBase)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// savePNG writes the screen to path.
func savePNG(screen *ebiten.Image, path string) error {
	img := image.NewRGBA(screen.Bounds())
	screen.ReadPixels(img.Pix)
	return writeFile(path, func(w io.Writer) error { return png.Encode(w, img) })
}

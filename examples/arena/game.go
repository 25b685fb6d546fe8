package main

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"log"
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

// The screen: 128 × 80 units of the world around the player at
// pxPerUnit pixels a unit (the whole of the small world, a tenth of the
// big one's area).
const (
	pxPerUnit        = 8
	screenW, screenH = 1024, 640
	viewW, viewH     = screenW / pxPerUnit, screenH / pxPerUnit // in units
	spriteSize       = 32                                       // the circle sprite's side, pixels
)

// Colours of what the arena draws.
var (
	background   = color.RGBA{0x0d, 0x11, 0x17, 0xff}
	outside      = color.RGBA{0x04, 0x05, 0x07, 0xff} // beyond the world's walls
	gridColour   = [4]float32{0.12, 0.15, 0.2, 1}
	wallColour   = [4]float32{0.3, 0.36, 0.45, 1}
	areaColour   = [4]float32{0.55, 0.8, 1, 0.5}     // the edge of the client's area (interest management)
	mapColour    = [4]float32{0.1, 0.13, 0.18, 1}    // the minimap's background
	everyColour  = [4]float32{0.35, 0.65, 1, 0.22}   // the minimap: a bot the client does not hold
	botColour    = [4]float32{0.35, 0.65, 1, 1}      // interpolated
	extrapColour = [4]float32{1, 0.6, 0.15, 1}       // past the newest sample: extrapolated
	heldColour   = [4]float32{1, 0.25, 0.25, 1}      // past the newest sample: held
	snapColour   = [4]float32{1, 1, 1, 1}            // snapped or teleported this frame
	otherColour  = [4]float32{0.3, 0.95, 0.45, 1}    // another client's player
	meColour     = [4]float32{1, 0.85, 0.2, 1}       // the predicted player
	ghostColour  = [4]float32{1, 0.85, 0.2, 0.35}    // the server's latest state of it
	truthColour  = [4]float32{0.3, 0.95, 0.45, 0.7}  // trails: the true path
	drawnColour  = [4]float32{1, 0.35, 0.8, 0.9}     // trails: the drawn path
	tracerColour = [4]float32{1, 1, 0.75, 0.9}       // a shot, from the player to the bot aimed at
	hitColour    = [4]float32{0.3, 1, 0.4, 1}        // a shot the server confirmed
	missColour   = [4]float32{1, 0.3, 0.3, 0.9}      // a shot the server judged a miss
	fullColour   = [4]float32{0.2, 0.9, 0.2, 1}      // a health bar, full
	emptyColour  = [4]float32{1, 0.15, 0.1, 1}       // a health bar, near empty
	barBack      = [4]float32{0.3, 0.04, 0.04, 0.85} // a health bar's empty part
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
	bars   []bar  // this frame's health bars, drawn after the discs
	cam    camera // of the arena being drawn
	// every is the minimap's dim dots: every bot where it truly is,
	// drawn anew every everyFrames frames (last at frame everyAt).
	every   *ebiten.Image
	everyAt int
	last    time.Time
	shot    shot
	drawn   int
	done    error // ends the game: ebiten.Termination after a screenshot
	stopCh  chan error
	help    bool
	lost    bool // the connection's end was logged
	// autopilot drives the player instead of the keys (for screenshots
	// and recordings); autofire holds the trigger.
	autopilot bool
	autofire  bool
	marks     []arenanet.ShotMark
	// logShots logs the shots' counts when they change, at most once a
	// second (the browser version: its console shows them; shotsAt is
	// when it last did, shotsSeen what).
	logShots  bool
	shotsAt   time.Time
	shotsSeen arenanet.ShotStats
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
	trigger := g.autofire || trigger()
	g.c.SetTrigger(trigger)
	g.c.Step(dt, st)
	if g.other != nil {
		g.other.SetTrigger(trigger)
		g.other.Step(dt, st)
	}
	if g.logShots {
		g.logShotCounts(now)
	}
	if err := g.c.Err(); err != nil && !g.lost {
		g.lost = true
		log.Printf("arena: %s", arenanet.Disconnected(err))
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

// trigger reports whether the player holds the trigger: space, a mouse
// button or a touch.
func trigger() bool {
	return ebiten.IsKeyPressed(ebiten.KeySpace) || ebiten.IsMouseButtonPressed(ebiten.MouseButtonLeft) ||
		ebiten.IsMouseButtonPressed(ebiten.MouseButtonRight) || len(ebiten.AppendTouchIDs(nil)) > 0
}

// logShotCounts logs the shots' counts (shotLine) when they have changed,
// at most once a second.
func (g *game) logShotCounts(now time.Time) {
	st := g.c.ShotStats()
	if st == g.shotsSeen || now.Sub(g.shotsAt) < time.Second {
		return
	}
	g.shotsSeen, g.shotsAt = st, now
	log.Printf("arena: %s", shotLine(st))
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
	case pressed(ebiten.KeyN):
		s.Interest = !s.Interest
	case pressed(ebiten.KeyC):
		s.LagComp = !s.LagComp
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
		g.drawMinimap(screen, g.c)
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

// drawArena draws client c's view, around its player: the ground, the
// edge of its area, the trails, the entities.
func (g *game) drawArena(dst *ebiten.Image, c *arenanet.Client) {
	g.cam = cameraFor(c)
	dst.Fill(outside)
	g.drawGround(dst, c.Rules())
	g.drawArea(dst, c)
	if c.Settings().Trails {
		g.drawTrails(dst, c)
	}
	g.drawEntities(dst, c)
	g.drawShots(dst, c)
}

// drawShots draws the client's recent shots: a tracer from the player to
// the bot aimed at, fading in a quarter of a second, then the server's
// verdict where the bot was drawn: a green ring that widens for a
// confirmed hit, a small red cross for a miss.
func (g *game) drawShots(dst *ebiten.Image, c *arenanet.Client) {
	g.marks = c.ShotMarks(g.marks[:0])
	if len(g.marks) == 0 {
		return
	}
	g.verts, g.idx = g.verts[:0], g.idx[:0]
	for _, m := range g.marks {
		ax, ay := g.cam.toScreen(m.From[0], m.From[1])
		bx, by := g.cam.toScreen(m.To[0], m.To[1])
		if m.Age < 0.25 {
			col := tracerColour
			col[3] *= float32(1 - m.Age/0.25)
			g.line(ax, ay, bx, by, 2, col)
		}
		if m.VerdictAge >= 0.6 {
			continue
		}
		fade := float32(1 - m.VerdictAge/0.6)
		switch m.Verdict {
		case arenanet.Confirmed:
			col := hitColour
			col[3] *= fade
			g.ring(bx, by, 8+float32(m.VerdictAge)*30, 3, 24, false, col)
		case arenanet.Missed:
			col := missColour
			col[3] *= fade
			g.line(bx-5, by-5, bx+5, by+5, 2, col)
			g.line(bx-5, by+5, bx+5, by-5, 2, col)
		}
	}
	g.flush(dst, g.white)
}

// camera shows the world on the screen: (x0, y0) is the world's point at
// the screen's bottom-left corner.
type camera struct{ x0, y0 float32 }

// cameraFor follows client c's player (drawn where it is predicted),
// within the world's walls: a world no larger than the screen stays put,
// centred.
func cameraFor(c *arenanet.Client) camera {
	r := c.Rules()
	x, y := r.W/2, r.H/2
	if d, _, ok := c.Player(); ok {
		x, y = d.Pos[0], d.Pos[1]
	}
	return camera{x0: follow(x, viewW, r.W), y0: follow(y, viewH, r.H)}
}

// follow is where a window of size view starts on an axis of size world
// to show p in its middle, kept within the axis.
func follow(p, view, world float32) float32 {
	if world <= view {
		return (world - view) / 2
	}
	return max(0, min(world-view, p-view/2))
}

// toScreen maps world units (y up) to pixels (y down).
func (k camera) toScreen(x, y float32) (float32, float32) {
	return (x - k.x0) * pxPerUnit, screenH - (y-k.y0)*pxPerUnit
}

// shows reports whether the screen shows (x, y), give or take margin
// units.
func (k camera) shows(x, y, margin float32) bool {
	return x >= k.x0-margin && x <= k.x0+viewW+margin && y >= k.y0-margin && y <= k.y0+viewH+margin
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

// drawGround draws the world within its walls and a grid every 8 units,
// where the screen shows them.
func (g *game) drawGround(screen *ebiten.Image, r arenanet.Rules) {
	g.verts, g.idx = g.verts[:0], g.idx[:0]
	x0, y0 := g.cam.toScreen(0, r.H)
	x1, y1 := g.cam.toScreen(r.W, 0)
	g.box(x0, y0, x1, y1, rgba(background))
	lo := func(v float32) float32 { return max(0, float32(math.Ceil(float64(v)/8))*8) }
	for x := lo(g.cam.x0); x <= min(r.W, g.cam.x0+viewW); x += 8 {
		sx, _ := g.cam.toScreen(x, 0)
		g.line(sx, max(0, y0), sx, min(screenH, y1), 1, gridColour)
	}
	for y := lo(g.cam.y0); y <= min(r.H, g.cam.y0+viewH); y += 8 {
		_, sy := g.cam.toScreen(0, y)
		g.line(max(0, x0), sy, min(screenW, x1), sy, 1, gridColour)
	}
	// The walls, where the world is larger than the screen (a world of
	// one screen is all wall).
	if r.W > viewW || r.H > viewH {
		g.rect(x0, y0, x1, y1, 2, wallColour)
	}
	g.flush(screen, g.white)
}

// rgba is c as premultiplied-ready floats, opaque.
func rgba(c color.RGBA) [4]float32 {
	return [4]float32{float32(c.R) / 255, float32(c.G) / 255, float32(c.B) / 255, float32(c.A) / 255}
}

// rect adds the outline of a rectangle, lines w pixels wide.
func (g *game) rect(x0, y0, x1, y1, w float32, c [4]float32) {
	g.line(x0, y0, x1, y0, w, c)
	g.line(x1, y0, x1, y1, w, c)
	g.line(x1, y1, x0, y1, w, c)
	g.line(x0, y1, x0, y0, w, c)
}

// ring adds a circle of radius r pixels around (x, y) in n segments,
// lines w pixels wide; dashed draws every other segment.
func (g *game) ring(x, y, r, w float32, n int, dashed bool, c [4]float32) {
	for i := range n {
		if dashed && i%2 == 1 {
			continue
		}
		a0, a1 := 2*math.Pi*float64(i)/float64(n), 2*math.Pi*float64(i+1)/float64(n)
		g.line(x+r*float32(math.Cos(a0)), y+r*float32(math.Sin(a0)), x+r*float32(math.Cos(a1)), y+r*float32(math.Sin(a1)), w, c)
	}
}

// drawArea draws the edge of the client's area, the circle of Rules.View
// around its player on the server, from which the server sends it
// entities: dashed while the client asks for every entity.
func (g *game) drawArea(screen *ebiten.Image, c *arenanet.Client) {
	r := c.Rules()
	_, server, ok := c.Player()
	if r.View <= 0 || !ok {
		return
	}
	g.verts, g.idx = g.verts[:0], g.idx[:0]
	x, y := g.cam.toScreen(server[0], server[1])
	g.ring(x, y, r.View*pxPerUnit, 1.5, 128, !c.Settings().Interest, areaColour)
	g.flush(screen, g.white)
}

// drawTrails draws each trailed entity's true path (green, bots and the
// server's state of the player) and drawn path (pink).
func (g *game) drawTrails(screen *ebiten.Image, c *arenanet.Client) {
	g.verts, g.idx = g.verts[:0], g.idx[:0]
	for _, t := range c.Trails() {
		if n := t.Len(); n == 0 {
			continue
		} else if _, d := t.At(n - 1); !g.cam.shows(d[0], d[1], 40) {
			continue // 2 s of a bot's or a player's path is shorter than 40 units
		}
		for i := 1; i < t.Len(); i++ {
			t0, d0 := t.At(i - 1)
			t1, d1 := t.At(i)
			if t.HasTruth && !far(t0, t1) {
				ax, ay := g.cam.toScreen(t0[0], t0[1])
				bx, by := g.cam.toScreen(t1[0], t1[1])
				g.line(ax, ay, bx, by, 4, truthColour)
			}
			if !far(d0, d1) {
				ax, ay := g.cam.toScreen(d0[0], d0[1])
				bx, by := g.cam.toScreen(d1[0], d1[1])
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

// botDiameter is a bot's disc at size 1, in pixels; its health bar is
// barW × barH pixels, barGap above the disc.
const (
	botDiameter        = 9
	barW, barH, barGap = 12, 2, 3
)

// bar is a bot's health bar: the middle of its bottom edge, on the
// screen, and the health it shows.
type bar struct {
	x, y, health float32
}

// drawEntities draws every visible remote entity on the screen and the
// player, one batch of sprites, then the bots' health bars: each bot's
// disc as large as its size and its bar as full as its health, both as
// the pipeline draws them from the server's fields.
func (g *game) drawEntities(screen *ebiten.Image, c *arenanet.Client) {
	g.verts, g.idx, g.bars = g.verts[:0], g.idx[:0], g.bars[:0]
	c.EachRemote(func(id uint32, r *components.Render, look arenanet.Look) {
		if !g.cam.shows(r.Pos[0], r.Pos[1], 2) {
			return
		}
		x, y := g.cam.toScreen(r.Pos[0], r.Pos[1])
		if id > arenanet.PlayerBase {
			g.disc(x, y, 14, otherColour)
		} else {
			d := botDiameter * look.Size
			g.disc(x, y, d, botColourOf(r.Flags))
			g.bars = append(g.bars, bar{x, y - d/2 - barGap, look.Health})
		}
		if len(g.verts) > 65000 {
			g.flush(screen, g.sprite)
		}
	})
	if r, server, ok := c.Player(); ok {
		x, y := g.cam.toScreen(server[0], server[1])
		g.disc(x, y, 14, ghostColour)
		x, y = g.cam.toScreen(r.Pos[0], r.Pos[1])
		g.disc(x, y, 16, meColour)
	}
	g.flush(screen, g.sprite)
	for _, b := range g.bars {
		g.healthBar(b)
		if len(g.verts) > 65000 {
			g.flush(screen, g.white)
		}
	}
	g.flush(screen, g.white)
}

// healthBar adds bot health bar b: a dark back, and over it from the left
// a part as long as the health, from green (full) to red (empty).
func (g *game) healthBar(b bar) {
	f := max(0, min(1, b.health/arenanet.MaxHealth))
	x0, y0 := b.x-barW/2, b.y-barH
	g.box(x0-1, y0-1, x0+barW+1, b.y+1, barBack)
	var col [4]float32
	for i := range col {
		col[i] = emptyColour[i] + (fullColour[i]-emptyColour[i])*f
	}
	g.box(x0, y0, x0+barW*f, b.y, col)
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
	fmt.Fprintf(&b, "netsmooth arena   FPS %.0f   you: %s over %v\n", ebiten.ActualFPS(), player(s.NetID), s.Via)
	fmt.Fprintf(&b, "netsmooth %.2f ms/frame (peak %.2f) for %d entities\n", ms(s.Cost), ms(s.Peak), s.Entities+int(min(s.NetID, 1)))
	if s.Err != nil {
		fmt.Fprintf(&b, "%s\n", arenanet.Disconnected(s.Err))
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
	b.WriteString(scaleLines(s))
	b.WriteString(shotLine(g.c.ShotStats()))
	b.WriteString("\n")
	if g.help {
		b.WriteString("\nmove: arrows/WASD  fire: space/click  C lag compensation  I interp  Q delay\nE extrapolation  N interest  K latency  J jitter  L loss  B bursts  T trails  O overlay  H keys\n")
		b.WriteString("blue: interpolated  orange: extrapolated  red: held  white: snapped\ngreen line: true path  pink line: drawn path  bar: health")
	}
	g.panel(screen, b.String(), 6, 4)
}

// scaleLines are the overlay's lines about the server at scale: the
// world, how many entities the client holds of it, what it receives
// against its budget, whether it asks for its area only (interest
// management, key N), and the same numbers measured the other way.
func scaleLines(s arenanet.Stats) string {
	var b strings.Builder
	r := s.Rules
	fmt.Fprintf(&b, "world %.0f×%.0f units, %d bots", r.W, r.H, r.Bots)
	budget := "no budget"
	if r.Budget > 0 {
		budget = fmt.Sprintf("budget %.1f kB/s", float64(r.Budget)/1000)
	}
	if r.View > 0 {
		fmt.Fprintf(&b, "   your area: radius %.0f   %s\n", r.View, budget)
	} else {
		fmt.Fprintf(&b, "   every entity to every client   %s\n", budget)
	}
	switch {
	case r.View <= 0:
		b.WriteString("interest management: none on this server")
	case s.Interest:
		b.WriteString("interest management ON (your area only)")
	default:
		b.WriteString("interest management OFF (every entity)")
	}
	fmt.Fprintf(&b, "   holds %d entities   down %.1f kB/s", s.Entities, s.Down)
	if r.Budget > 0 {
		fmt.Fprintf(&b, " = %.0f%% of budget", 100*s.Down*1000/float64(r.Budget))
	}
	b.WriteString("\n")
	if o := s.Other; o.OK && r.View > 0 {
		other := "OFF"
		if !s.Interest {
			other = "ON"
		}
		fmt.Fprintf(&b, "  with interest management %s: held %d entities, down %.1f kB/s\n", other, o.Entities, o.Down)
	}
	return b.String()
}

// shotLine is the overlay's line about the shots: whether the server
// judges them against what the client drew (lag compensation, key C) or
// against its present, and for each the shots claimed (fired at a bot
// drawn in the line of fire) and confirmed by the server.
func shotLine(s arenanet.ShotStats) string {
	mode := func(i int) string {
		if s.Claimed[i] == 0 {
			return "no shots"
		}
		pct := ""
		if s.Ruled[i] > 0 {
			pct = fmt.Sprintf(" (%.0f%%)", 100*float64(s.Confirmed[i])/float64(s.Ruled[i]))
		}
		return fmt.Sprintf("claimed %d, confirmed %d%s", s.Claimed[i], s.Confirmed[i], pct)
	}
	on := "ON (as you saw them)"
	if !s.LagComp {
		on = "OFF (the server's present)"
	}
	return fmt.Sprintf("lag compensation %s   shots with it: %s   without: %s", on, mode(1), mode(0))
}

// everyFrames is how often the minimap's dim dots move: 10 times a
// second at 60 FPS, a pixel at most each time.
const everyFrames = 6

// drawMinimap draws, when the world is larger than the screen, the whole
// world small in the screen's bottom-right corner, at most mapW × mapH
// pixels: a dim dot for every bot where it truly is (the client knows
// their paths, not what the server does not send it), a bright one for
// every entity the client holds, its player, the edge of its area and
// what the screen shows.
func (g *game) drawMinimap(screen *ebiten.Image, c *arenanet.Client) {
	const mapW, mapH = 240, 150
	r := c.Rules()
	if r.W <= viewW && r.H <= viewH {
		return
	}
	scale := min(mapW/r.W, mapH/r.H)
	w, h := r.W*scale, r.H*scale
	left, top := screenW-w-10, screenH-h-10
	at := func(x, y float32) (float32, float32) { return left + x*scale, top + h - y*scale }
	g.verts, g.idx = g.verts[:0], g.idx[:0]
	g.box(left-3, top-3, left+w+3, top+h+3, mapColour)
	g.rect(left, top, left+w, top+h, 1, wallColour)
	g.flush(screen, g.white)
	g.drawEvery(screen, c, left, top, scale)
	c.EachRemote(func(id uint32, e *components.Render, _ arenanet.Look) {
		x, y := at(e.Pos[0], e.Pos[1])
		if id > arenanet.PlayerBase {
			g.box(x-1.5, y-1.5, x+1.5, y+1.5, otherColour)
		} else {
			g.box(x-0.75, y-0.75, x+0.75, y+0.75, botColour)
		}
		if len(g.verts) > 65000 {
			g.flush(screen, g.white)
		}
	})
	x0, y0 := at(g.cam.x0, g.cam.y0+viewH)
	x1, y1 := at(g.cam.x0+viewW, g.cam.y0)
	g.rect(max(left, x0), max(top, y0), min(left+w, x1), min(top+h, y1), 1, [4]float32{1, 1, 1, 0.7})
	if d, server, ok := c.Player(); ok {
		if r.View > 0 {
			x, y := at(server[0], server[1])
			g.ring(x, y, r.View*scale, 1, 48, !c.Settings().Interest, areaColour)
		}
		x, y := at(d.Pos[0], d.Pos[1])
		g.box(x-2.5, y-2.5, x+2.5, y+2.5, meColour)
	}
	g.flush(screen, g.white)
	g.panel(screen, "every bot; bright: what you hold", int(left)-3, int(top)-21)
}

// drawEvery draws the minimap's dim dots, every bot where it truly is,
// with the world's bottom-left corner at (left, top+h) and scale pixels
// a unit. They are drawn into an image of their own once every
// everyFrames frames: a quad a frame instead of thousands.
func (g *game) drawEvery(screen *ebiten.Image, c *arenanet.Client, left, top, scale float32) {
	r := c.Rules()
	w, h := int(math.Ceil(float64(r.W*scale))), int(math.Ceil(float64(r.H*scale)))
	if g.every == nil || g.every.Bounds().Dx() != w || g.every.Bounds().Dy() != h {
		g.every, g.everyAt = ebiten.NewImage(w, h), -everyFrames
	}
	if g.drawn-g.everyAt >= everyFrames || g.drawn < g.everyAt {
		g.everyAt = g.drawn
		g.every.Clear()
		rt := c.RenderTick()
		for k := range r.Bots {
			p, _, _ := r.BotAt(k, rt)
			x, y := p[0]*scale, float32(h)-p[1]*scale
			g.box(x-0.75, y-0.75, x+0.75, y+0.75, everyColour)
			if len(g.verts) > 65000 {
				g.flush(g.every, g.white)
			}
		}
		g.flush(g.every, g.white)
	}
	op := &ebiten.DrawImageOptions{}
	op.GeoM.Translate(float64(left), float64(top))
	screen.DrawImage(g.every, op)
}

// box adds a filled rectangle.
func (g *game) box(x0, y0, x1, y1 float32, c [4]float32) {
	g.quad([4][2]float32{{x0, y0}, {x1, y0}, {x0, y1}, {x1, y1}}, 1, c)
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

//go:build !js

package main

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/netsmooth/netsmooth/examples/arena/internal/arenatest"
)

// buildArena builds the command into a temporary directory.
func buildArena(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "arena")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// The screenshot mode opens a real window, renders the frames asked,
// saves the screen and exits. The picture holds the arena: many bots
// (blue discs, or orange and red where drawn past their newest
// snapshot) and the player (yellow), on the dark background, with the
// overlay's text. In the big world (the default) the screen shows the
// player's surroundings, the client holds its area only (a few hundred
// of 5,000 bots), and the minimap in the bottom-right corner shows them;
// the small world (-small) fits the screen with 1000 bots. The trigger
// is held (-autofire): the player fires at the bots it faces, and the
// report (the overlay's line) counts shots claimed and confirmed by the
// server with lag compensation.
func TestScreenshotMode(t *testing.T) {
	arenatest.Needs(t, "an X display ($DISPLAY)", os.Getenv("DISPLAY") != "")
	bin := buildArena(t)
	for _, tc := range []struct {
		name string
		args []string
		// minBots is the least bot pixels the screen must show, and the
		// held entities the report must give are within held.
		minBots int
		held    [2]int
		minimap bool
	}{
		// Some 400 bots in the player's area, 60% or more of them on the
		// screen (the circle is taller than the screen; a wall may cut
		// it), discs of some 40 pixels minus the overlay and overlaps.
		{"big world", nil, 150 * 10, [2]int{150, 1200}, true},
		// 1000 discs of 9 px: some 40 pixels each at full colour, minus
		// overlaps and the overlay.
		{"small world", []string{"-small", "-bots", "1000"}, 1000 * 10, [2]int{1000, 1000}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img, out := screenshot(t, bin, tc.args...)
			if b := img.Bounds(); b.Dx() != screenW || b.Dy() != screenH {
				t.Fatalf("screenshot is %v, want %dx%d", b, screenW, screenH)
			}
			counts := arenatest.Colours(img)
			if len(counts) < 20 {
				t.Errorf("screenshot has %d colours: not the arena", len(counts))
			}
			bots := 0
			for _, c := range [][4]float32{botColour, extrapColour, heldColour} {
				bots += arenatest.Near(img, rgb(c), 40)
			}
			me := arenatest.Near(img, rgb(meColour), 40)
			if bots < tc.minBots {
				t.Errorf("%d pixels in the bots' colours, want at least %d", bots, tc.minBots)
			}
			if me < 50 {
				t.Errorf("%d pixels in the player's yellow, want the player drawn", me)
			}
			// The minimap, 234 × 150 pixels of its background in the
			// bottom-right corner (less its dots and lines), in the big
			// world only.
			corner := subImage(img, image.Rect(screenW-260, screenH-170, screenW, screenH))
			ground := arenatest.Near(corner, over(mapColour, background), 3)
			if tc.minimap && ground < 234*150/2 || !tc.minimap && ground > 500 {
				t.Errorf("%d pixels of the minimap's background in the bottom-right corner, want %v a minimap", ground, tc.minimap)
			}
			m := regexp.MustCompile(`([0-9.]+) FPS`).FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no frame rate reported:\n%s", out)
			}
			fps, _ := strconv.ParseFloat(m[1], 64)
			h := regexp.MustCompile(`held ([0-9]+) remote entities, received ([0-9.]+) kB/s`).FindStringSubmatch(out)
			if h == nil {
				t.Fatalf("no entities held reported:\n%s", out)
			}
			held, _ := strconv.Atoi(h[1])
			if held < tc.held[0] || held > tc.held[1] {
				t.Errorf("the client held %d remote entities, want %d..%d", held, tc.held[0], tc.held[1])
			}
			sh := regexp.MustCompile(`shots with it: claimed ([0-9]+), confirmed ([0-9]+)`).FindStringSubmatch(out)
			if sh == nil {
				t.Fatalf("no shots reported:\n%s", out)
			}
			claimed, _ := strconv.Atoi(sh[1])
			confirmed, _ := strconv.Atoi(sh[2])
			if claimed == 0 || confirmed == 0 {
				t.Errorf("%d shots claimed, %d confirmed: want the player firing, and hits confirmed", claimed, confirmed)
			}
			// The health bars: a short bar above each bot, green at full
			// health (most of them), and nearly all their pixels with a
			// bot's disc a few pixels below (not those over a disc dimmed
			// by the overlay, say).
			bars, above := barsAboveBots(img)
			if bars < tc.minBots/2 || above < bars*9/10 {
				t.Errorf("%d pixels of full health bars, %d of them above a bot: want at least %d, 90%% above a bot", bars, above, tc.minBots/2)
			}
			t.Logf("%.1f FPS, %d bot pixels, %d player pixels, %d pixels of the minimap's background, %d of full health bars (%d above a bot); held %s entities, received %s kB/s; shots claimed %d, confirmed %d",
				fps, bots, me, ground, bars, above, h[1], h[2], claimed, confirmed)
		})
	}
}

// screenshot runs the arena's screenshot mode with args (240 frames, on
// free ports, the trigger held) and returns the picture and what the command printed.
func screenshot(t *testing.T, bin string, args ...string) (image.Image, string) {
	t.Helper()
	shot := filepath.Join(t.TempDir(), "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"-screenshot", shot, "-frames", "240", "-addr", "127.0.0.1:0", "-http", "", "-autofire"}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("arena -screenshot: %v\n%s", err, out.String())
	}
	t.Logf("%s", out.String())
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img, out.String()
}

// barsAboveBots counts the pixels of img in a full health bar's green,
// and those of them with a pixel in a bot's colours at most 14 pixels
// below and 4 aside (a bar is drawn barGap pixels above its bot's disc,
// a little wider).
func barsAboveBots(img image.Image) (bars, above int) {
	near := func(x, y int, c [4]float32, tol int) bool {
		r, g, b, _ := img.At(x, y).RGBA()
		want := rgb(c)
		for i, v := range [3]uint32{r >> 8, g >> 8, b >> 8} {
			if d := int(v) - want[i]; d > tol || d < -tol {
				return false
			}
		}
		return true
	}
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			if !near(x, y, fullColour, 25) {
				continue
			}
			bars++
		below:
			for dy := 2; dy <= 14 && y+dy < bd.Max.Y; dy++ {
				for dx := -4; dx <= 4; dx++ {
					if near(x+dx, y+dy, botColour, 40) || near(x+dx, y+dy, extrapColour, 40) || near(x+dx, y+dy, heldColour, 40) {
						above++
						break below
					}
				}
			}
		}
	}
	return bars, above
}

// subImage is the part r of img.
func subImage(img image.Image, r image.Rectangle) image.Image {
	if s, ok := img.(interface {
		SubImage(image.Rectangle) image.Image
	}); ok {
		return s.SubImage(r)
	}
	return img
}

// over is colour c (alpha included) drawn over bg, 0..255 per channel.
func over(c [4]float32, bg color.RGBA) [3]int {
	mix := func(v float32, b uint8) int { return int(v*255*c[3] + float32(b)*(1-c[3]) + 0.5) }
	return [3]int{mix(c[0], bg.R), mix(c[1], bg.G), mix(c[2], bg.B)}
}

// rgb is colour c in 0..255 per channel.
func rgb(c [4]float32) [3]int { return [3]int{int(c[0] * 255), int(c[1] * 255), int(c[2] * 255)} }

//go:build !js

package main

import (
	"bytes"
	"context"
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
// (blue discs) and the player (yellow), on the dark background, with the
// overlay's text.
func TestScreenshotMode(t *testing.T) {
	arenatest.Needs(t, "an X display ($DISPLAY)", os.Getenv("DISPLAY") != "")
	bin := buildArena(t)
	shot := filepath.Join(t.TempDir(), "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-screenshot", shot, "-frames", "240", "-bots", "1000",
		"-addr", "127.0.0.1:0", "-http", "")
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
	if b := img.Bounds(); b.Dx() != screenW || b.Dy() != screenH {
		t.Fatalf("screenshot is %v, want %dx%d", b, screenW, screenH)
	}
	counts := arenatest.Colours(img)
	if len(counts) < 20 {
		t.Errorf("screenshot has %d colours: not the arena", len(counts))
	}
	bots := arenatest.Near(img, rgb(botColour), 40)
	me := arenatest.Near(img, rgb(meColour), 40)
	// 1000 discs of 9 px: some 40 pixels each at full colour, minus
	// overlaps and the overlay.
	if bots < 1000*10 {
		t.Errorf("%d pixels in the bots' blue, want at least 10000 (1000 bots)", bots)
	}
	if me < 50 {
		t.Errorf("%d pixels in the player's yellow, want the player drawn", me)
	}
	m := regexp.MustCompile(`([0-9.]+) FPS`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no frame rate reported:\n%s", out.String())
	}
	fps, _ := strconv.ParseFloat(m[1], 64)
	t.Logf("1000 bots: %.1f FPS, %d bot pixels, %d player pixels", fps, bots, me)
}

// rgb is colour c in 0..255 per channel.
func rgb(c [4]float32) [3]int { return [3]int{int(c[0] * 255), int(c[1] * 255), int(c[2] * 255)} }

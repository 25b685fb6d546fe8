// Package arenatest holds what the arena's tests share: skipping a test
// whose display or browser is missing (unless CI requires them), and
// reading a picture the way a person would check it.
package arenatest

import (
	"image"
	"os"
	"testing"
)

// Needs skips t when what it needs is missing, unless the environment
// variable ARENA_REQUIRE (set by .ci/run) asks for every such test to
// run: then a missing display or browser fails it.
func Needs(t *testing.T, what string, ok bool) {
	t.Helper()
	if ok {
		return
	}
	if os.Getenv("ARENA_REQUIRE") != "" {
		t.Fatalf("%s is missing and ARENA_REQUIRE is set", what)
	}
	t.Skipf("%s is missing (see the README: the arena's tests)", what)
}

// Colours returns how many pixels img has of each colour.
func Colours(img image.Image) map[[4]uint32]int {
	counts := map[[4]uint32]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			counts[[4]uint32{r >> 8, g >> 8, bl >> 8, a >> 8}]++
		}
	}
	return counts
}

// Near counts the pixels of img within tol (per channel, 0..255) of the
// colour rgb.
func Near(img image.Image, rgb [3]int, tol int) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			got := [3]int{int(r >> 8), int(g >> 8), int(bl >> 8)}
			ok := true
			for i := range 3 {
				if d := got[i] - rgb[i]; d > tol || d < -tol {
					ok = false
				}
			}
			if ok {
				n++
			}
		}
	}
	return n
}

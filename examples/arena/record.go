package main

import (
	"image"
	"image/color"
	"image/gif"
	"io"
	"os"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
)

// recorder keeps frames of the screen for an animated GIF.
type recorder struct {
	frames []*image.Paletted
	at     []time.Time // when each frame was drawn
	pal    color.Palette
	index  map[color.RGBA]uint8 // colours seen, to their palette index
	pix    []byte
}

// capture adds the screen as a frame drawn at now.
func (r *recorder) capture(screen *ebiten.Image, now time.Time) {
	if r.pal == nil {
		r.pal = arenaPalette()
		r.index = map[color.RGBA]uint8{}
	}
	b := screen.Bounds()
	if len(r.pix) != 4*b.Dx()*b.Dy() {
		r.pix = make([]byte, 4*b.Dx()*b.Dy())
	}
	screen.ReadPixels(r.pix)
	img := image.NewPaletted(image.Rect(0, 0, b.Dx(), b.Dy()), r.pal)
	for i := range len(img.Pix) {
		c := color.RGBA{r.pix[4*i], r.pix[4*i+1], r.pix[4*i+2], 255}
		k, ok := r.index[c]
		if !ok {
			k = uint8(r.pal.Index(c))
			r.index[c] = k
		}
		img.Pix[i] = k
	}
	r.frames = append(r.frames, img)
	r.at = append(r.at, now)
}

// save writes the frames, looping, each shown as long as it was on the
// screen (a GIF counts in hundredths of a second: the rounding is
// carried over, so the whole plays in real time).
func (r *recorder) save(path string) error {
	anim := &gif.GIF{Image: r.frames, Delay: make([]int, len(r.frames))}
	var shown, carry time.Duration
	for i := range anim.Delay {
		d := 33 * time.Millisecond
		if i+1 < len(r.at) {
			d = r.at[i+1].Sub(r.at[i])
		}
		carry += d
		cs := int((carry - shown) / (10 * time.Millisecond))
		anim.Delay[i] = max(cs, 2) // browsers show shorter delays as 100 ms
		shown += time.Duration(anim.Delay[i]) * 10 * time.Millisecond
	}
	return writeFile(path, func(w io.Writer) error { return gif.EncodeAll(w, anim) })
}

// writeFile creates path and writes it with encode, reporting the first
// error, the close's included.
func writeFile(path string, encode func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := encode(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// arenaPalette is 256 colours for what the arena draws: each of its
// colours blended over the background in 16 steps (the discs' and lines'
// soft edges), and greys for the text.
func arenaPalette() color.Palette {
	pal := color.Palette{}
	seen := map[color.RGBA]bool{}
	add := func(c color.RGBA) {
		if !seen[c] && len(pal) < 256 {
			seen[c] = true
			pal = append(pal, c)
		}
	}
	bg := background
	add(bg)
	for _, c := range [][4]float32{botColour, extrapColour, heldColour, snapColour, otherColour, meColour, truthColour, drawnColour, gridColour} {
		for a := 16; a >= 1; a-- {
			f := float32(a) / 16
			mix := func(v float32, b uint8) uint8 { return uint8(v*255*f + float32(b)*(1-f) + 0.5) }
			add(color.RGBA{mix(c[0], bg.R), mix(c[1], bg.G), mix(c[2], bg.B), 255})
		}
	}
	for v := 0; v < 256 && len(pal) < 256; v += 3 {
		add(color.RGBA{uint8(v), uint8(v), uint8(v), 255})
	}
	return pal
}

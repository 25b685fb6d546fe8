// Package pngfile writes an encoded image, such as a plot rendered by
// gonum's vgimg.PngCanvas, to a file. It is shared by the commands that
// write plots (examples/scorecard and bench/cmd/report, modules of their
// own), and knows nothing of gonum, so that netsmooth's module does not
// depend on it.
package pngfile

import (
	"io"
	"os"
	"path/filepath"
)

// Write creates path, and its directory if need be, and writes img into
// it: any io.WriterTo that encodes an image, such as
// vgimg.PngCanvas{Canvas: c}.
func Write(path string, img io.WriterTo) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := img.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

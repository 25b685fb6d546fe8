package pngfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

type failing struct{}

func (failing) WriteTo(io.Writer) (int64, error) { return 0, errors.New("encoder failed") }

func TestWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plots", "a.png")
	if err := Write(path, bytes.NewBufferString("\x89PNG")); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "\x89PNG" {
		t.Fatalf("read back %q, %v", got, err)
	}
	if err := Write(path, failing{}); err == nil || err.Error() != "encoder failed" {
		t.Fatalf("err = %v, want the encoder's", err)
	}
}

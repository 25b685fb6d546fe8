package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/netsmooth/netsmooth/components"
)

// TestGeneratedFilesUpToDate fails when a generated file on disk differs
// from what ringgen renders for the current RingCapacity, e.g. after
// RingCapacity or the templates changed without regenerating.
func TestGeneratedFilesUpToDate(t *testing.T) {
	for _, name := range names() {
		out := outputs[name]
		path := filepath.Join("..", "..", out.dir, out.name)
		want, err := render(out, components.RingCapacity)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s/%s: %v; run `go generate ./...` at the module root", out.dir, out.name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s/%s is stale (RingCapacity = %d): run `go generate ./...` at the module root",
				out.dir, out.name, components.RingCapacity)
		}
	}
}

// TestRenderOtherSizes checks that the templates produce valid Go for ring
// sizes other than the current one, so that changing RingCapacity needs
// nothing but go generate.
func TestRenderOtherSizes(t *testing.T) {
	for _, n := range []int{1, 2, 8, 32} {
		for _, name := range names() {
			src, err := render(outputs[name], n)
			if err != nil {
				t.Fatalf("n=%d: %v", n, err)
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ParseComments)
			if err != nil {
				t.Fatalf("n=%d: %s: %v", n, name, err)
			}
			if !bytes.HasPrefix(src, []byte(header)) {
				t.Errorf("n=%d: %s does not start with the generated-code header", n, name)
			}
			if markers := f.Decls[1].(*ast.GenDecl).Specs; len(markers) != n {
				t.Errorf("n=%d: %s declares %d markers, want %d", n, name, len(markers), n)
			}
		}
	}
	if _, err := render(outputs["columns_gen.go"], 0); err == nil {
		t.Error("render with 0 slots: no error")
	}
}

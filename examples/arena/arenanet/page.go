//go:build !js

package arenanet

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// Page builds the arena for the browser (GOOS=js GOARCH=wasm) and
// serves it: the page, Go's wasm_exec.js and the module (gzipped for the
// browsers that accept it: 16 MB become about 4). The build runs once, in
// the background, when the server starts, with the go command on the
// PATH (the one `go run` found); until it is done the page says so and
// reloads.
type Page struct {
	src      string // the arena's source directory
	prebuilt string // a .wasm file to serve instead of building

	mu     sync.Mutex
	done   bool
	err    error
	wasm   []byte
	wasmGz []byte
	glue   []byte
	ready  chan struct{}
}

// NewPage prepares a build of the arena's sources; prebuilt, if set, is
// a .wasm file to serve instead.
func NewPage(prebuilt string) (*Page, error) {
	if prebuilt != "" {
		if _, err := os.Stat(prebuilt); err != nil {
			return nil, fmt.Errorf("arena: -wasm: %w", err)
		}
	}
	return &Page{src: sourceDir(), prebuilt: prebuilt, ready: make(chan struct{})}, nil
}

// sourceDir is the directory of the arena's command: the parent of this
// file's, as the compiler saw it, or the working directory's
// examples/arena.
func sourceDir() string {
	if _, file, _, ok := runtime.Caller(0); ok {
		dir := filepath.Dir(filepath.Dir(file))
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
	}
	return filepath.Join("examples", "arena")
}

// WasmSize is the size of the built module in bytes (0 before it is
// built).
func (b *Page) WasmSize() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.wasm)
}

// Build compiles the wasm module (in a temporary directory, removed
// afterwards) and reads wasm_exec.js from the Go installation; Wait and
// the handlers see the result. Cancelling ctx stops the compiler.
func (b *Page) Build(ctx context.Context) {
	wasm, glue, err := b.compile(ctx)
	var gz []byte
	if err == nil {
		gz, err = gzipped(wasm)
	}
	b.mu.Lock()
	b.done, b.err, b.wasm, b.wasmGz, b.glue = true, err, wasm, gz, glue
	b.mu.Unlock()
	close(b.ready)
}

func (b *Page) compile(ctx context.Context) (wasm, glue []byte, err error) {
	goroot, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output()
	if err != nil {
		return nil, nil, fmt.Errorf("arena: go env GOROOT: %w (the browser build needs the Go toolchain)", err)
	}
	root := strings.TrimSpace(string(goroot))
	if glue, err = os.ReadFile(filepath.Join(root, "lib", "wasm", "wasm_exec.js")); err != nil {
		if glue, err = os.ReadFile(filepath.Join(root, "misc", "wasm", "wasm_exec.js")); err != nil {
			return nil, nil, fmt.Errorf("arena: wasm_exec.js not found in %s: %w", root, err)
		}
	}
	if b.prebuilt != "" {
		wasm, err = os.ReadFile(b.prebuilt)
		return wasm, glue, err
	}
	dir, err := os.MkdirTemp("", "arena-web-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "arena.wasm")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, ".")
	cmd.Dir = b.src
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, nil, fmt.Errorf("arena: building the browser version in %s: %w\n%s", b.src, err, stderr.String())
	}
	wasm, err = os.ReadFile(out)
	return wasm, glue, err
}

// gzipped compresses b.
func gzipped(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Wait blocks until the build is done or ctx ends, and returns its error.
func (b *Page) Wait(ctx context.Context) error {
	select {
	case <-b.ready:
	case <-ctx.Done():
		return ctx.Err()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// register adds the page's handlers to mux.
func (b *Page) register(mux *http.ServeMux) {
	mux.HandleFunc("/{$}", b.serveIndex)
	mux.HandleFunc("/index.html", b.serveIndex)
	mux.HandleFunc("/wasm_exec.js", func(w http.ResponseWriter, r *http.Request) {
		b.serveFile(w, r, "text/javascript", func() ([]byte, []byte) { return b.glue, nil })
	})
	mux.HandleFunc("/arena.wasm", func(w http.ResponseWriter, r *http.Request) {
		b.serveFile(w, r, "application/wasm", func() ([]byte, []byte) { return b.wasm, b.wasmGz })
	})
}

func (b *Page) state() (done bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.done, b.err
}

func (b *Page) serveIndex(w http.ResponseWriter, r *http.Request) {
	done, err := b.state()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	switch {
	case err != nil:
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, "<!doctype html><title>netsmooth arena</title><pre>%s</pre>", htmlEscape(err.Error()))
	case !done:
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, buildingPage)
	default:
		fmt.Fprint(w, indexPage)
	}
}

// serveFile serves the body pick returns, or its gzipped form (the
// second, if not nil) to a browser that accepts it.
func (b *Page) serveFile(w http.ResponseWriter, r *http.Request, typ string, pick func() (body, gz []byte)) {
	b.mu.Lock()
	done, err := b.done, b.err
	body, gz := pick()
	b.mu.Unlock()
	if !done || err != nil {
		http.Error(w, "the browser build is not ready", http.StatusServiceUnavailable)
		return
	}
	h := w.Header()
	h.Set("Content-Type", typ)
	h.Set("Cache-Control", "no-cache") // revalidate: a restarted server may serve another build
	h.Set("Vary", "Accept-Encoding")
	if gz != nil && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		body = gz
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

const buildingPage = `<!doctype html>
<meta charset="utf-8"><title>netsmooth arena</title>
<meta http-equiv="refresh" content="2">
<body style="background:#111;color:#ddd;font:16px sans-serif">
<p>Building the browser version of the arena (GOOS=js GOARCH=wasm)... this page reloads by itself.</p>`

// indexPage loads the wasm module; Ebitengine makes the canvas. The
// module learns the WebSocket address from the page's location.
const indexPage = `<!doctype html>
<meta charset="utf-8"><title>netsmooth arena</title>
<style>html,body{margin:0;background:#0d1117;height:100%;overflow:hidden}</style>
<script src="wasm_exec.js"></script>
<script>
const go = new Go();
WebAssembly.instantiateStreaming(fetch("arena.wasm"), go.importObject)
  .then(r => go.run(r.instance))
  .catch(e => { document.body.innerText = "arena: " + e; document.body.style.color = "#f66"; });
</script>`

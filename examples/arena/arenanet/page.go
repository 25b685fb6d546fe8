//go:build !js

package arenanet

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Page builds the arena for the browser (GOOS=js GOARCH=wasm) and
// serves it: the page, Go's wasm_exec.js and the module. The build runs
// once, in the background, when the server starts, with the Go toolchain
// that runs the server; until it is done the page says so and reloads.
type Page struct {
	dir string // where the build writes
	src string // the arena's source directory

	mu    sync.Mutex
	done  bool
	err   error
	wasm  []byte
	glue  []byte
	took  time.Duration
	ready chan struct{}
}

// NewPage prepares a build of the arena's sources into a temporary
// directory; prebuilt, if set, is a .wasm file to serve instead.
func NewPage(prebuilt string) (*Page, error) {
	dir, err := os.MkdirTemp("", "arena-web-")
	if err != nil {
		return nil, err
	}
	b := &Page{dir: dir, src: sourceDir(), ready: make(chan struct{})}
	if prebuilt != "" {
		b.src = ""
		b.wasm, err = os.ReadFile(prebuilt)
		if err != nil {
			return nil, err
		}
	}
	return b, nil
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

// Build compiles the wasm module and reads wasm_exec.js from the Go
// installation; Wait and the handlers see the result.
func (b *Page) Build(ctx context.Context) {
	start := time.Now()
	err := b.compile(ctx)
	b.mu.Lock()
	b.done, b.err, b.took = true, err, time.Since(start)
	b.mu.Unlock()
	close(b.ready)
}

func (b *Page) compile(ctx context.Context) error {
	goroot, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("arena: go env GOROOT: %w (the browser build needs the Go toolchain)", err)
	}
	root := strings.TrimSpace(string(goroot))
	glue, err := os.ReadFile(filepath.Join(root, "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		if glue, err = os.ReadFile(filepath.Join(root, "misc", "wasm", "wasm_exec.js")); err != nil {
			return fmt.Errorf("arena: wasm_exec.js not found in %s: %w", root, err)
		}
	}
	b.glue = glue
	if b.wasm != nil {
		return nil // prebuilt
	}
	out := filepath.Join(b.dir, "arena.wasm")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, ".")
	cmd.Dir = b.src
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("arena: building the browser version in %s: %w\n%s", b.src, err, stderr.String())
	}
	wasm, err := os.ReadFile(out)
	if err != nil {
		return err
	}
	b.wasm = wasm
	return nil
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

// Close removes the build's files.
func (b *Page) Close() error { return os.RemoveAll(b.dir) }

// register adds the page's handlers to mux.
func (b *Page) register(mux *http.ServeMux) {
	mux.HandleFunc("/{$}", b.serveIndex)
	mux.HandleFunc("/wasm_exec.js", func(w http.ResponseWriter, r *http.Request) {
		b.serveFile(w, r, "text/javascript", func() []byte { return b.glue })
	})
	mux.HandleFunc("/arena.wasm", func(w http.ResponseWriter, r *http.Request) {
		b.serveFile(w, r, "application/wasm", func() []byte { return b.wasm })
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

func (b *Page) serveFile(w http.ResponseWriter, _ *http.Request, typ string, body func() []byte) {
	done, err := b.state()
	if !done || err != nil {
		http.Error(w, "the browser build is not ready", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", typ)
	w.Header().Set("Cache-Control", "no-store")
	w.Write(body())
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

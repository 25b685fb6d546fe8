//go:build !js

package arenanet

import (
	"bytes"
	"context"
	"image/png"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/netsmooth/netsmooth/examples/arena/internal/arenatest"
)

// The browser version, as a person uses it: the server builds it for
// js/wasm and serves it; headless Chromium loads the page, which joins
// over WebSocket and gets a player; holding D moves that player right on
// the server; the canvas shows the arena (not one colour); a second tab
// is a second player; a third tab, served over HTTPS by a TLS-terminating
// reverse proxy in front of the server (as README suggests for the
// internet), joins with wss:// through it and is a third player.
func TestBrowser(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	arenatest.Needs(t, "Chromium (Debian's chromium package)", err == nil)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()

	page, err := NewPage("")
	if err != nil {
		t.Fatal(err)
	}
	srv, stop := runServer(t, ctx, 300, page)
	defer stop()
	start := time.Now()
	page.Build(ctx)
	if err := page.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("browser build: %.1f s, %d kB", time.Since(start).Seconds(), page.WasmSize()/1000)

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.NoSandbox,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1024, 640),
		// WebGL on the CPU: there is no GPU here.
		chromedp.Flag("use-angle", "swiftshader"),
		chromedp.Flag("enable-unsafe-swiftshader", true),
		chromedp.Flag("ignore-gpu-blocklist", true),
		// Nothing but the page: this machine has no network.
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		// The HTTPS proxy's certificate is the test's own.
		chromedp.Flag("ignore-certificate-errors", true),
	)
	alloc, closeAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer closeAlloc()
	tab, closeTab := chromedp.NewContext(alloc, chromedp.WithLogf(t.Logf))
	defer closeTab()
	url := "http://" + srv.WebAddr() + "/"
	if err := chromedp.Do(tab, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("canvas"))); err != nil {
		t.Fatalf("loading %s: %v", url, err)
	}
	first := waitPlayers(t, srv, 1, 30*time.Second)[0]

	// Hold D for two seconds: the player moves right on the server.
	key := func(typ input.DispatchKeyEventType) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, input.DispatchKeyEvent, input.DispatchKeyEventParams{
				Type: typ, Key: "d", Code: "KeyD", WindowsVirtualKeyCode: 68, NativeVirtualKeyCode: 68})
			return err
		})
	}
	if err := chromedp.Do(tab, key(input.DispatchKeyEventTypeKeyDown), chromedp.Sleep(2*time.Second),
		key(input.DispatchKeyEventTypeKeyUp), chromedp.Sleep(500*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	var now PlayerInfo
	for _, p := range srv.Players() {
		if p.NetID == first.NetID {
			now = p
		}
	}
	if dx := now.State.Pos[0] - first.State.Pos[0]; !(dx > 10) {
		t.Errorf("holding D for 2 s moved player %d by %.1f units right on the server (from %v to %v), want more than 10",
			first.NetID, dx, first.State.Pos, now.State.Pos)
	}

	// What the canvas shows.
	shot, err := chromedp.Run(tab, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(arenatest.Colours(img)); n < 20 {
		t.Errorf("the page shows %d colours: not the arena", n)
	}
	if bots := arenatest.Near(img, [3]int{89, 166, 255}, 40); bots < 300*10 {
		t.Errorf("%d pixels in the bots' blue, want at least 3000 (300 bots)", bots)
	}
	if dir := os.Getenv("ARENA_SHOTS"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "browser.png"), shot, 0o644)
	}

	// A second tab is a second player.
	tab2, closeTab2 := chromedp.NewContext(tab)
	defer closeTab2()
	if err := chromedp.Do(tab2, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("canvas"))); err != nil {
		t.Fatal(err)
	}
	ps := waitPlayers(t, srv, 2, 30*time.Second)
	if ps[0].NetID == ps[1].NetID {
		t.Errorf("two tabs share NetID %d", ps[0].NetID)
	}

	// Over HTTPS through a reverse proxy, which keeps the Host header (as
	// Caddy's does by default): the page takes wss:// and joins.
	web, err := neturl.Parse("http://" + srv.WebAddr())
	if err != nil {
		t.Fatal(err)
	}
	proxy := httptest.NewTLSServer(httputil.NewSingleHostReverseProxy(web))
	defer proxy.Close()
	tab3, closeTab3 := chromedp.NewContext(tab)
	defer closeTab3()
	tab3, cancel3 := context.WithTimeout(tab3, time.Minute) // without a connection, no canvas ever shows
	defer cancel3()
	if err := chromedp.Do(tab3, chromedp.Navigate(proxy.URL+"/"), chromedp.WaitVisible(chromedp.CSS("canvas"))); err != nil {
		t.Fatalf("loading %s through the HTTPS proxy: %v", proxy.URL, err)
	}
	waitPlayers(t, srv, 3, 30*time.Second)
}

// waitPlayers waits until the server has n players and returns them.
func waitPlayers(t *testing.T, srv *Server, n int, d time.Duration) []PlayerInfo {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if ps := srv.Players(); len(ps) == n {
			return ps
		}
	}
	t.Fatalf("the server has %d players after %v, want %d", len(srv.Players()), d, n)
	return nil
}

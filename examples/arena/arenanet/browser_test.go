//go:build !js

package arenanet

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/netsmooth/netsmooth/examples/arena/internal/arenatest"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/transport"
)

// The browser version, as a person uses it: the server builds it for
// js/wasm and serves it, in the big world with interest management and
// a budget (browserRules); headless Chromium loads the page, which
// fetches a ticket and joins over WebTransport (trusting the server's
// self-signed certificate by its hash) and gets a player; holding D
// moves that player right on the server; the canvas shows the arena (not
// one colour: the bots around the player); pressing N asks the server
// for every entity (the server then sends the page all of them, within
// the same budget) and N again for its area only; a second tab, told to
// (?transport=ws), joins over the WebSocket fallback instead and is a
// second player, which D moves too; a third tab, served
// over HTTPS by a TLS-terminating reverse proxy in front of the server
// (as README suggests for the internet), joins with wss:// through it and
// is a third player. Then, in the first tab, holding space fires at the
// bots the player faces: the page's overlay (which it logs) counts shots
// claimed and confirmed by the server with lag compensation, and after C
// the server judges them against its present.
func TestBrowser(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	arenatest.Needs(t, "Chromium (Debian's chromium package)", err == nil)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()

	page, err := NewPage("")
	if err != nil {
		t.Fatal(err)
	}
	srv, stop := runServer(t, ctx, browserRules(), page)
	defer stop()
	start := time.Now()
	page.Build(ctx)
	if err := page.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("browser build: %.1f s, %d kB", time.Since(start).Seconds(), page.WasmSize()/1000)

	// The HTTPS proxy, which keeps the Host header (as Caddy's does by
	// default). The browser trusts its key, and no other certificate:
	// the arena's own is trusted by its hash, as a page asks.
	web, err := neturl.Parse("http://" + srv.WebAddr())
	if err != nil {
		t.Fatal(err)
	}
	proxy := httptest.NewTLSServer(httputil.NewSingleHostReverseProxy(web))
	defer proxy.Close()
	spki := sha256.Sum256(proxy.Certificate().RawSubjectPublicKeyInfo)

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
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("ignore-certificate-errors-spki-list", base64.StdEncoding.EncodeToString(spki[:])),
	)
	alloc, closeAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer closeAlloc()
	var console1, console2 consoleLog
	tab, closeTab := chromedp.NewContext(alloc, chromedp.WithLogf(t.Logf), chromedp.WithListener(console1.listen))
	defer closeTab()
	url := "http://" + srv.WebAddr() + "/"
	first := openTab(t, tab, srv, url, nil, transport.KindWebTransport, "WebTransport")
	holdD(t, tab, srv, first)

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
	// The bots' blue, or, if the page stalled while the screenshot was
	// taken (a software-rendered canvas under load), the orange and red
	// of bots drawn past their newest snapshot.
	bots := 0
	for _, c := range [][3]int{{89, 166, 255}, {255, 153, 38}, {255, 63, 63}} {
		bots += arenatest.Near(img, c, 40)
	}
	if bots < 100*10 {
		t.Errorf("%d pixels in the bots' colours, want at least 1000 (100 bots around the player)", bots)
	}
	if dir := os.Getenv("ARENA_SHOTS"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "browser.png"), shot, 0o644)
	}
	pressN(t, tab, srv, first)

	// A second tab, on the WebSocket fallback, is a second player.
	tab2, closeTab2 := chromedp.NewContext(tab, chromedp.WithListener(console2.listen))
	defer closeTab2()
	second := openTab(t, tab2, srv, url+"?transport=ws", []PlayerInfo{first}, transport.KindMessage, "WebSocket")
	holdD(t, tab2, srv, second)

	// Over HTTPS through the reverse proxy: the page takes wss:// and
	// joins.
	tab3, closeTab3 := chromedp.NewContext(tab)
	defer closeTab3()
	tab3, cancel3 := context.WithTimeout(tab3, time.Minute) // without a connection, no canvas ever shows
	defer cancel3()
	openTab(t, tab3, srv, proxy.URL+"/?transport=ws", []PlayerInfo{first, second}, transport.KindMessage, "WebSocket")

	// The first player fires, with lag compensation and without.
	fire(t, tab, srv, first, &console1)

	// Kicked, the first two players learn it: the page logs what its
	// overlay shows. Over the WebSocket the server's Close message says
	// why; over WebTransport its Close datagram does, ahead of the
	// session's close, whose code and reason Chromium drops when
	// webtransport-go v0.13.0 resets the CONNECT stream in the same packet
	// (quic-go/webtransport-go#242).
	for _, p := range []PlayerInfo{first, second} {
		if err := srv.Kick(p.Client, "testing kicks"); err != nil {
			t.Fatal(err)
		}
	}
	const kicked = "disconnected by the server: kicked: testing kicks"
	for end := time.Now().Add(30 * time.Second); !console1.has(kicked) || !console2.has(kicked); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("30 s after the kicks, the WebTransport page logged %q, the WebSocket page %q; want %q from both",
				console1.all(), console2.all(), kicked)
		}
	}
}

// browserRules are the default rules with fewer bots and a smaller
// budget: three pages in software-rendered canvases and a server under
// the race detector share two cores. A page holds some 150 bots within
// 8 kB/s (400 bytes a tick); with N, all 2,000, within the same budget.
func browserRules() Rules {
	r := DefaultRules()
	r.Bots, r.Budget = 2000, 8000
	return r
}

// consoleLog keeps what a page writes to its console.
type consoleLog struct {
	mu    sync.Mutex
	lines []string
}

// listen is a chromedp listener that keeps the console's messages.
func (c *consoleLog) listen(ev any) {
	e, ok := ev.(*runtime.EventConsoleAPICalled)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, a := range e.Args {
		var s string
		if json.Unmarshal(a.Value, &s) == nil {
			c.lines = append(c.lines, s)
		}
	}
}

// has reports whether a message held text.
func (c *consoleLog) has(text string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.ContainsFunc(c.lines, func(l string) bool { return strings.Contains(l, text) })
}

// last is the newest message re matches, "" if none.
func (c *consoleLog) last(re *regexp.Regexp) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.lines) - 1; i >= 0; i-- {
		if re.MatchString(c.lines[i]) {
			return c.lines[i]
		}
	}
	return ""
}

// all is every message so far.
func (c *consoleLog) all() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.lines, " | ")
}

// openTab loads url in tab and waits for the new player it brings to the
// server (besides those already there), over kind; the page's title
// names the transport (via).
func openTab(t *testing.T, tab context.Context, srv *Server, url string, before []PlayerInfo, kind transport.Kind, via string) PlayerInfo {
	t.Helper()
	if err := chromedp.Do(tab, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("canvas"))); err != nil {
		t.Fatalf("loading %s: %v", url, err)
	}
	ps := waitPlayers(t, srv, len(before)+1, 30*time.Second)
	var p PlayerInfo
	for _, q := range ps {
		if !slices.ContainsFunc(before, func(b PlayerInfo) bool { return b.NetID == q.NetID }) {
			p = q
		}
	}
	if p.Via != kind {
		t.Errorf("the page at %s joined over %v, want %v", url, p.Via, kind)
	}
	// The page joins before its game loop starts, and a software-rendered
	// canvas takes a while to draw its first frames: wait for the input
	// packets of a running game.
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if st, _ := srv.srv.Session().Stats(p.Client); st.PacketsReceived >= 10 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the page at %s sent no input packets for 30 s after joining", url)
		}
	}
	title, err := chromedp.Run(tab, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(title, via) {
		t.Errorf("the page at %s is titled %q, want it to name %s", url, title, via)
	}
	return p
}

// key is a key event in a page: letter (a..z) going down or up.
func key(typ input.DispatchKeyEventType, letter byte) chromedp.Action[chromedp.Void] {
	code := int64(letter - 'a' + 'A') // the virtual key code of a letter is its capital
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, input.DispatchKeyEvent, input.DispatchKeyEventParams{
			Type: typ, Key: string(letter), Code: "Key" + string(rune(code)), WindowsVirtualKeyCode: code, NativeVirtualKeyCode: code})
		return err
	})
}

// space is the space bar going down or up in a page.
func space(typ input.DispatchKeyEventType) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, input.DispatchKeyEvent, input.DispatchKeyEventParams{
			Type: typ, Key: " ", Code: "Space", WindowsVirtualKeyCode: 32, NativeVirtualKeyCode: 32})
		return err
	})
}

// fire holds space in tab for three seconds: player p fires at the bots
// it faces (right, after holdD). The page logs its overlay's count of
// shots claimed and confirmed with lag compensation, both above zero, and
// the server's counts agree. C then switches compensation off: the
// server judges the next shots against its present.
func fire(t *testing.T, tab context.Context, srv *Server, p PlayerInfo, console *consoleLog) {
	t.Helper()
	if err := chromedp.Do(tab, space(input.DispatchKeyEventTypeKeyDown), chromedp.Sleep(3*time.Second),
		space(input.DispatchKeyEventTypeKeyUp)); err != nil {
		t.Fatal(err)
	}
	counts := regexp.MustCompile(`shots with it: claimed ([0-9]+), confirmed ([0-9]+)`)
	var line string
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		line = console.last(counts)
		if m := counts.FindStringSubmatch(line); m != nil && m[1] != "0" && m[2] != "0" {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("20 s after holding space, the page logged %q; want shots claimed and confirmed", console.all())
		}
	}
	t.Logf("the page: %s; the server: %+v", line, playerInfo(srv, p).Shots)
	if err := chromedp.Do(tab, key(input.DispatchKeyEventTypeKeyDown, 'c'), chromedp.Sleep(time.Second),
		key(input.DispatchKeyEventTypeKeyUp, 'c')); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(20 * time.Second); playerInfo(srv, p).LagComp; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("20 s after C, the server still judges the page's shots with lag compensation")
		}
	}
	if err := chromedp.Do(tab, space(input.DispatchKeyEventTypeKeyDown), chromedp.Sleep(2*time.Second),
		space(input.DispatchKeyEventTypeKeyUp), chromedp.Sleep(time.Second)); err != nil {
		t.Fatal(err)
	}
	s := playerInfo(srv, p).Shots
	t.Logf("after C, the server: %+v", s)
	if s.Judged[1] == 0 || s.Confirmed[1] == 0 || s.Judged[0] == 0 {
		t.Errorf("the server judged %d shots with compensation (%d confirmed), %d without: want some of each, and hits with it",
			s.Judged[1], s.Confirmed[1], s.Judged[0])
	}
	if s.Refused != 0 {
		t.Errorf("the server refused %d of the page's shots, want none", s.Refused)
	}
}

// pressN presses N twice in tab, for player p: the first asks the server
// for every entity, which it then sends within the same budget, each
// less often, the second for the player's area only again. The key is
// held a second: a page drawing few frames a second under load must see
// it down.
func pressN(t *testing.T, tab context.Context, srv *Server, p PlayerInfo) {
	t.Helper()
	budget := float64(srv.Rules().Budget) / TickRate // a tick
	sess := srv.srv.Session()
	for _, on := range []bool{false, true} {
		if err := chromedp.Do(tab, key(input.DispatchKeyEventTypeKeyDown, 'n'), chromedp.Sleep(time.Second),
			key(input.DispatchKeyEventTypeKeyUp, 'n')); err != nil {
			t.Fatal(err)
		}
		for end := time.Now().Add(20 * time.Second); playerInfo(srv, p).Interest != on; time.Sleep(100 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("20 s after N, the server has interest management %v for the page's player, want %v", !on, on)
			}
		}
		time.Sleep(time.Second) // the spawns or the despawns
		// Bytes a tick, not a second: a server slowed down (under the
		// race detector, say) sends fewer a second.
		st0, tick0 := sessStats(sess, p.Client)
		time.Sleep(2 * time.Second)
		st1, tick1 := sessStats(sess, p.Client)
		perTick := float64(st1.BytesSent-st0.BytesSent) / float64(max(1, tick1-tick0))
		t.Logf("interest management %v for the page: the server sends it %.0f B a tick (budget %.0f)", on, perTick, budget)
		if perTick > 1.1*budget {
			t.Errorf("interest management %v: the server sends the page %.0f B a tick, want within the budget of %.0f",
				on, perTick, budget)
		}
	}
}

// sessStats returns client id's counters and the session's tick.
func sessStats(sess *server.Session, id server.ClientID) (server.ClientStats, uint32) {
	st, _ := sess.Stats(id)
	return st, sess.Tick()
}

// playerInfo is the server's record of player p now.
func playerInfo(srv *Server, p PlayerInfo) PlayerInfo {
	for _, q := range srv.Players() {
		if q.NetID == p.NetID {
			return q
		}
	}
	return p
}

// holdD holds D for two seconds in tab: player p moves right on the
// server.
func holdD(t *testing.T, tab context.Context, srv *Server, p PlayerInfo) {
	t.Helper()
	before := playerInfo(srv, p)
	if err := chromedp.Do(tab, key(input.DispatchKeyEventTypeKeyDown, 'd'), chromedp.Sleep(2*time.Second),
		key(input.DispatchKeyEventTypeKeyUp, 'd'), chromedp.Sleep(500*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	now := playerInfo(srv, p)
	if dx := now.State.Pos[0] - before.State.Pos[0]; !(dx > 10) {
		t.Errorf("holding D for 2 s moved player %d (over %v) by %.1f units right on the server (from %v to %v), want more than 10",
			p.NetID, p.Via, dx, before.State.Pos, now.State.Pos)
	}
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

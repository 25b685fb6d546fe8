//go:build !js

package arenanet

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/internal/scenario"
)

// testServer starts an arena server on free loopback ports, with the
// WebSocket endpoint but no browser build, stopped with the test.
func testServer(t *testing.T, bots int) *Server {
	t.Helper()
	srv, stop := runServer(t, context.Background(), bots, nil)
	t.Cleanup(stop)
	return srv
}

// runServer starts a server with bots (and page, if not nil) and runs it
// until stop, which waits for it to end.
func runServer(t *testing.T, ctx context.Context, bots int, page *Page) (srv *Server, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	srv, err := StartServer(ctx, bots, "127.0.0.1:0", "127.0.0.1:0", page)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Run(ctx); err != nil {
			t.Errorf("server: %v", err)
		}
	}()
	var once sync.Once
	return srv, func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
}

// testClient joins srv over UDP (or WebSocket, with ws) under the given
// Settings.
func testClient(t *testing.T, srv *Server, ws bool, set Settings) *Client {
	t.Helper()
	udp, url := srv.UDPAddr(), ""
	if ws {
		udp, url = "", "ws://"+srv.WebAddr()+"/ws"
	}
	c, err := Connect(context.Background(), set, udp, url, 7)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// play steps the clients at 60 FPS for d, each with its stick.
func play(d time.Duration, clients []*Client, sticks []scenario.Stick) {
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	last := time.Now()
	for end := last.Add(d); time.Now().Before(end); {
		now := <-tick.C
		for i, c := range clients {
			c.Step(now.Sub(last).Seconds(), sticks[i])
		}
		last = now
	}
}

// drawnAt returns where client c draws remote entity id, false if it does
// not.
func drawnAt(c *Client, id components.NetID) (components.Render, bool) {
	q := c.remote.Query(&c.world)
	defer q.Close()
	for q.Next() {
		nid, r, _ := q.Get()
		if *nid == id && r.Flags&components.Visible != 0 {
			return *r, true
		}
	}
	return components.Render{}, false
}

// Two clients, one over UDP and one over WebSocket, each under a lossy
// simulated network: the server gives each its own player, each predicts
// its own and draws the other's where the server has it, and draws the
// bots on their true paths.
func TestTwoPlayersSeeEachOther(t *testing.T) {
	srv := testServer(t, 200)
	set := DefaultSettings()
	set.Loss = 2 // 10%
	a := testClient(t, srv, false, set)
	b := testClient(t, srv, true, set)
	play(3*time.Second, []*Client{a, b}, []scenario.Stick{{X: 1}, {Y: 1}})

	if a.meID == 0 || b.meID == 0 || a.meID == b.meID {
		t.Fatalf("players: UDP client %d, WebSocket client %d: want two different NetIDs from the server", a.meID, b.meID)
	}
	players := srv.Players()
	if len(players) != 2 {
		t.Fatalf("server has %d players, want 2", len(players))
	}
	for _, p := range players {
		if p.Moved < 10 {
			t.Errorf("player %d moved %.1f units on the server in 3 s of input, want at least 10", p.NetID, p.Moved)
		}
	}
	for _, pair := range [][2]*Client{{a, b}, {b, a}} {
		viewer, other := pair[0], pair[1]
		r, ok := drawnAt(viewer, other.meID)
		if !ok {
			t.Fatalf("client %d does not draw player %d", viewer.meID, other.meID)
		}
		// The other player is drawn a little in the past: within its
		// speed times the presentation delay of where it is now.
		var truth scenario.Mover
		for _, p := range srv.Players() {
			if components.NetID(p.NetID) == other.meID {
				truth = p.State
			}
		}
		d := math.Hypot(float64(r.Pos[0]-truth.Pos[0]), float64(r.Pos[1]-truth.Pos[1]))
		if limit := PlayerSpeed * 0.5; d > limit {
			t.Errorf("client %d draws player %d %.2f units from the server's position, want within %.1f", viewer.meID, other.meID, d, limit)
		}
		st := viewer.Stats()
		if st.Entities != 201 {
			t.Errorf("client %d holds %d remote entities, want 200 bots and 1 player", viewer.meID, st.Entities)
		}
		if !(st.RTT > 80 && st.RTT < 250) {
			t.Errorf("client %d: RTT %.0f ms, want about 100 (50 ms each way)", viewer.meID, st.RTT)
		}
		if e := botError(viewer); e > 0.2 {
			t.Errorf("client %d: bots drawn %.3f units (RMS) from their true paths, want under 0.2", viewer.meID, e)
		}
	}
}

// botError is the RMS distance of the drawn bots from their true paths at
// the render time.
func botError(c *Client) float64 {
	rt := c.pipe.Metrics().RenderTick
	var sum float64
	var n int
	q := c.remote.Query(&c.world)
	for q.Next() {
		id, r, span := q.Get()
		if r.Flags&components.Visible == 0 || uint32(*id) > PlayerBase {
			continue
		}
		p, _, _ := BotAt(int(*id)-1, rt-float64(span.Lag))
		dx, dy := float64(r.Pos[0]-p[0]), float64(r.Pos[1]-p[1])
		sum += dx*dx + dy*dy
		n++
	}
	if n == 0 {
		return math.Inf(1)
	}
	return math.Sqrt(sum / float64(n))
}

// Interpolation off draws the newest snapshot: under loss the bots are
// visibly further from their true paths than with interpolation on.
func TestInterpolationOffIsWorseUnderLoss(t *testing.T) {
	srv := testServer(t, 200)
	set := DefaultSettings()
	set.Loss = 3 // 20%
	on := testClient(t, srv, false, set)
	set.Interp = false
	off := testClient(t, srv, false, set)
	play(time.Second, []*Client{on, off}, []scenario.Stick{{}, {}}) // buffers filled
	var errOn, errOff float64
	for range 30 {
		play(100*time.Millisecond, []*Client{on, off}, []scenario.Stick{{}, {}})
		errOn += botError(on)
		errOff += botError(off)
	}
	// Off is measured against the true path at its own render time,
	// which runs at the newest tick: what it lacks is the motion between
	// snapshots.
	if !(errOff > 3*errOn) {
		t.Errorf("mean bot error: interpolation on %.3f, off %.3f units: want off at least 3 times on", errOn/30, errOff/30)
	}
	t.Logf("mean bot error under 20%% loss: interpolation on %.3f units, off %.3f", errOn/30, errOff/30)
}

// The Settings keys change the pipeline and the network while it runs.
func TestSettingsApplyLive(t *testing.T) {
	srv := testServer(t, 50)
	c := testClient(t, srv, false, DefaultSettings())
	play(time.Second, []*Client{c}, []scenario.Stick{{}})
	s := c.set
	s.Policy, s.Delay = 1, 2 // Hold, fixed 100 ms
	if err := c.Apply(s); err != nil {
		t.Fatal(err)
	}
	play(2*time.Second, []*Client{c}, []scenario.Stick{{}})
	if got := c.pipe.Config().Interpolate.Extrapolation; got != Policies[1] {
		t.Errorf("extrapolation %v, want %v", got, Policies[1])
	}
	if d := c.pipe.Metrics().Delay; math.Abs(d-0.1) > 1e-9 {
		t.Errorf("delay %v s, want 0.1", d)
	}
	before := c.link.Traffic()
	s.Loss = 4 // 30%
	if err := c.Apply(s); err != nil {
		t.Fatal(err)
	}
	play(2*time.Second, []*Client{c}, []scenario.Stick{{}})
	after := c.link.Traffic()
	if after.lostDown-before.lostDown < 10 {
		t.Errorf("30%% loss dropped %d packets down in 2 s, want some tens", after.lostDown-before.lostDown)
	}
}

// A WebSocket player whose server goes away is told so (the overlay shows
// Stats.Err); while the server runs there is no error.
func TestLostWebSocketShows(t *testing.T) {
	srv, stop := runServer(t, context.Background(), 10, nil)
	defer stop()
	c := testClient(t, srv, true, DefaultSettings())
	still := []scenario.Stick{{}}
	play(500*time.Millisecond, []*Client{c}, still)
	if err := c.Stats().Err; err != nil {
		t.Fatalf("Err while the server runs: %v", err)
	}
	stop()
	for end := time.Now().Add(5 * time.Second); c.Stats().Err == nil; {
		if time.Now().After(end) {
			t.Fatal("no error 5 s after the server went away")
		}
		play(100*time.Millisecond, []*Client{c}, still)
	}
}

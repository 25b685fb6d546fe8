//go:build !js

package arenanet

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/netsmooth/netsmooth/client"
	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/transport"
	"github.com/netsmooth/netsmooth/wire"
)

// testServer starts an arena server under rules on free loopback ports,
// with the WebSocket endpoint and the tickets but no browser build,
// stopped with the test. prepare, if given, changes it before it runs.
func testServer(t *testing.T, rules Rules, prepare ...func(*Server)) *Server {
	t.Helper()
	srv, stop := runServer(t, context.Background(), rules, nil, prepare...)
	t.Cleanup(stop)
	return srv
}

// small is the small arena (one screen, every entity to every client, no
// budget) with bots bots.
func small(bots int) Rules {
	r := SmallRules()
	r.Bots = bots
	return r
}

// runServer starts a server under rules (and page, if not nil), lets
// prepare change it, and runs it until stop, which waits for it to end.
func runServer(t *testing.T, ctx context.Context, rules Rules, page *Page, prepare ...func(*Server)) (srv *Server, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	srv, err := StartServer(ctx, rules, "127.0.0.1:0", "127.0.0.1:0", page)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	for _, f := range prepare {
		f(srv)
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

// testClient joins srv over tr under the given Settings, with a ticket
// from the server's backend.
func testClient(t *testing.T, srv *Server, tr Transport, set Settings) *Client {
	t.Helper()
	tk, err := srv.Ticket(false)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Connect(context.Background(), set, tk, tr, 7)
	if err != nil {
		t.Fatalf("joining over %v: %v", tr, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// play steps the clients at 60 FPS for d, each with its stick. Each
// frame's dt is the wall time since the client's previous frame, in this
// call or an earlier one, as a game loop measures it: the time a test
// spends between two calls (and a slow frame, under load) counts, so
// that the client's clock keeps pace with the server's.
func play(d time.Duration, clients []*Client, sticks []scenario.Stick) {
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	for end := time.Now().Add(d); time.Now().Before(end); {
		<-tick.C
		for i, c := range clients {
			now := time.Now()
			last, ok := stepped[c]
			if !ok {
				last = now.Add(-time.Second / 60)
			}
			c.Step(now.Sub(last).Seconds(), sticks[i])
			stepped[c] = now
		}
	}
}

// stepped is when play last stepped each client.
var stepped = map[*Client]time.Time{}

// drawnAt returns where client c draws remote entity id, false if it does
// not.
func drawnAt(c *Client, id components.NetID) (components.Render, bool) {
	q := c.remote.Query(&c.world)
	for q.Next() {
		nid, r, _ := q.Get()
		if *nid == id && r.Flags&components.Visible != 0 {
			q.Close() // a query run to its end closes itself
			return *r, true
		}
	}
	return components.Render{}, false
}

// Three clients, over QUIC, WebTransport and a WebSocket, each under a
// lossy simulated network: the server gives each its own player, each
// predicts its own and draws the others' where the server has them, and
// draws the bots on their true paths.
func TestPlayersSeeEachOther(t *testing.T) {
	srv := testServer(t, small(200))
	set := DefaultSettings()
	set.Loss = 2 // 10%
	vias := []Transport{QUIC, WebTransport, WebSocket}
	var clients []*Client
	for _, tr := range vias {
		clients = append(clients, testClient(t, srv, tr, set))
	}
	play(3*time.Second, clients, []scenario.Stick{{X: 1}, {Y: 1}, {X: -1}})

	ids := map[components.NetID]bool{}
	for i, c := range clients {
		if c.meID == 0 || ids[c.meID] {
			t.Fatalf("the %v client's player is %d: want a NetID of its own from the server", vias[i], c.meID)
		}
		ids[c.meID] = true
		if got := c.Stats().Via; got != vias[i] {
			t.Errorf("client %d says it is over %v, want %v", c.meID, got, vias[i])
		}
	}
	players := srv.Players()
	if len(players) != len(clients) {
		t.Fatalf("server has %d players, want %d", len(players), len(clients))
	}
	kinds := map[transport.Kind]bool{}
	for _, p := range players {
		kinds[p.Via] = true
		if p.Moved < 10 {
			t.Errorf("player %d moved %.1f units on the server in 3 s of input, want at least 10", p.NetID, p.Moved)
		}
	}
	if !kinds[transport.KindQUIC] || !kinds[transport.KindWebTransport] || !kinds[transport.KindMessage] {
		t.Errorf("the server's players come over %v, want QUIC, WebTransport and message (WebSocket)", kinds)
	}
	for _, viewer := range clients {
		for _, other := range clients {
			if other == viewer {
				continue
			}
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
		}
		st := viewer.Stats()
		if st.Entities != 200+len(clients)-1 {
			t.Errorf("client %d holds %d remote entities, want 200 bots and %d players", viewer.meID, st.Entities, len(clients)-1)
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
// the render time. A bot teleporting within two ticks of it is left out:
// its true place jumps between ticks, where the server's snapshots and
// so what is drawn jump at one (which one is not the pipeline's error),
// and a single jump of some tens of units would weigh more than every
// other bot's error.
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
		at := rt - float64(span.Lag)
		_, _, before := c.rules.BotAt(int(*id)-1, at-2)
		p, _, epoch := c.rules.BotAt(int(*id)-1, at)
		if _, _, after := c.rules.BotAt(int(*id)-1, at+2); before != epoch || after != epoch {
			continue
		}
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
	srv := testServer(t, small(200))
	set := DefaultSettings()
	set.Loss = 3 // 20%
	on := testClient(t, srv, QUIC, set)
	set.Interp = false
	off := testClient(t, srv, QUIC, set)
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
	srv := testServer(t, small(50))
	c := testClient(t, srv, QUIC, DefaultSettings())
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

// A player whose server shuts down is told so, with the server's reason
// (the overlay shows Stats.Err), over every transport; while the server
// runs there is no error.
func TestServerShutdownShows(t *testing.T) {
	srv, stop := runServer(t, context.Background(), small(10), nil)
	defer stop()
	vias := []Transport{QUIC, WebTransport, WebSocket}
	var clients []*Client
	for _, tr := range vias {
		clients = append(clients, testClient(t, srv, tr, DefaultSettings()))
	}
	still := make([]scenario.Stick, len(clients))
	play(500*time.Millisecond, clients, still)
	for i, c := range clients {
		if err := c.Stats().Err; err != nil {
			t.Fatalf("%v: Err while the server runs: %v", vias[i], err)
		}
	}
	stop()
	for i, c := range clients {
		for end := time.Now().Add(5 * time.Second); c.Stats().Err == nil; {
			if time.Now().After(end) {
				t.Fatalf("%v: no error 5 s after the server went away", vias[i])
			}
			play(100*time.Millisecond, clients, still)
		}
		var ce *transport.CloseError
		if err := c.Stats().Err; !errors.As(err, &ce) || ce.Reason != wire.ReasonShutdown || !ce.Remote {
			t.Errorf("%v: Err %v, want the server's shutdown", vias[i], err)
		}
		t.Logf("%v: %s", vias[i], Disconnected(c.Stats().Err))
	}
}

// A kicked player learns why, over every transport, and its player is
// despawned for the others.
func TestKickShows(t *testing.T) {
	srv := testServer(t, small(10))
	vias := []Transport{QUIC, WebTransport, WebSocket}
	var clients []*Client
	for _, tr := range vias {
		clients = append(clients, testClient(t, srv, tr, DefaultSettings()))
	}
	still := make([]scenario.Stick, len(clients)+1)
	watcher := testClient(t, srv, QUIC, DefaultSettings())
	all := append(clients[:len(clients):len(clients)], watcher)
	play(time.Second, all, still)
	for i, c := range clients {
		var id server.ClientID
		for _, p := range srv.Players() {
			if components.NetID(p.NetID) == c.meID {
				id = p.Client
			}
		}
		if id == 0 {
			t.Fatalf("%v: player %d not on the server", vias[i], c.meID)
		}
		if _, ok := drawnAt(watcher, c.meID); !ok {
			t.Fatalf("the watcher does not draw the %v player %d", vias[i], c.meID)
		}
		if err := srv.Kick(id, "testing kicks"); err != nil {
			t.Fatal(err)
		}
		for end := time.Now().Add(5 * time.Second); c.Err() == nil; {
			if time.Now().After(end) {
				t.Fatalf("%v: no error 5 s after the kick", vias[i])
			}
			play(100*time.Millisecond, all, still)
		}
		want := "disconnected by the server: kicked: testing kicks"
		if got := Disconnected(c.Err()); got != want {
			t.Errorf("%v: kicked player shows %q, want %q", vias[i], got, want)
		}
		play(time.Second, all, still)
		if _, ok := drawnAt(watcher, c.meID); ok {
			t.Errorf("the watcher still draws the kicked %v player %d", vias[i], c.meID)
		}
	}
	if n := len(srv.Players()); n != 1 {
		t.Errorf("%d players left on the server, want the watcher's", n)
	}
}

// A client sending 64 inputs a tick (a speed hack), or skipping 63
// sequence numbers at a time, moves no faster on the server than an
// honest client sending one: the server steps a player once per input
// the session hands out. (In a world wide enough that no player meets a
// wall in 2 s.)
func TestSpeedHackBounded(t *testing.T) {
	srv := testServer(t, Rules{W: 400, H: 256})
	join := func() *client.Client {
		tk, err := srv.Ticket(false)
		if err != nil {
			t.Fatal(err)
		}
		cc, err := clientConfig(tk.Ticket, client.SessionConfig{Wire: arenaWire(), Inbox: systems.NewInbox(0), OnOwn: func(client.Own) {}}, netsim.Config{}, 1)
		if err != nil {
			t.Fatal(err)
		}
		c, err := client.Dial(context.Background(), tk.Addr, cc)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	honest, flood, skip := join(), join(), join()
	right := encodeInput(nil, scenario.Stick{X: 1}, 0)
	var seqHonest, seqFlood, seqSkip uint32
	tick := time.NewTicker(time.Second / TickRate)
	defer tick.Stop()
	for range 2 * TickRate {
		<-tick.C
		seqHonest++
		honest.Session().QueueInput(seqHonest, right)
		for range 64 {
			seqFlood++
			flood.Session().QueueInput(seqFlood, right)
			flood.SendInputs()
		}
		seqSkip += 64
		skip.Session().QueueInput(seqSkip, right)
		for _, c := range []*client.Client{honest, flood, skip} {
			c.SendInputs()
		}
	}
	moved := map[components.NetID]float32{}
	for _, p := range srv.Players() {
		moved[components.NetID(p.NetID)] = p.Moved
	}
	h := moved[honest.Session().NetID()]
	if h < 10 {
		t.Fatalf("the honest player moved %.1f units in 2 s, want more than 10", h)
	}
	for name, c := range map[string]*client.Client{"64 inputs a tick": flood, "63 skipped a time": skip} {
		if m := moved[c.Session().NetID()]; m > h*1.15 {
			t.Errorf("%s: moved %.1f units, the honest player %.1f: want no faster", name, m, h)
		}
	}
	t.Logf("moved in 2 s: honest %.1f, 64 inputs a tick %.1f, 63 skipped %.1f units", h, moved[flood.Session().NetID()], moved[skip.Session().NetID()])
}

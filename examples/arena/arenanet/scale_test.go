//go:build !js

package arenanet

import (
	"context"
	"flag"
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/server"
)

// The arena at scale, as its default rules have it: a client whose
// player stands near a corner of the big world holds its area only, a
// few hundred of the 5,000 bots, none far away, and receives no more
// than its budget; asking the server for every entity (key N) makes it
// hold all 5,000 within the same budget, each sent less often; asking
// for its area again brings it back. The overlay's comparison is
// measured on the way.
func TestClientHoldsItsArea(t *testing.T) {
	rules := DefaultRules()
	corner := mgl32.Vec2{50, 50}
	srv := testServer(t, rules, func(s *Server) {
		s.spawn = func(uint32) scenario.Mover { return scenario.Mover{Pos: corner} }
	})
	// Over HTTP, as a player joins: the ticket brings the rules.
	c, err := Join(context.Background(), DefaultSettings(), srv.TicketURL(), QUIC, "", 7)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if c.Rules() != rules {
		t.Fatalf("the client plays by %v, want the server's %v", c.Rules(), rules)
	}
	still := []scenario.Stick{{}}
	play(3*time.Second, []*Client{c}, still)
	id := clientOf(t, srv, c)

	// Its area: the bots truly within 90% of the radius, all held (but
	// those that teleported there in the last two seconds); none held
	// further than the radius and its hysteresis (10%), give or take how
	// far a bot goes while the client draws it a little in the past.
	inner, area := 0, 0
	rt := c.pipe.Metrics().RenderTick
	for k := range rules.Bots {
		p, _, epoch := rules.BotAt(k, rt)
		d := p.Sub(corner).Len()
		if d < rules.View {
			area++
		}
		if _, _, before := rules.BotAt(k, rt-2*TickRate); d < 0.9*rules.View && before == epoch {
			inner++
			if _, ok := drawnAt(c, components.NetID(k+1)); !ok {
				t.Errorf("bot %d is %.1f units from the player, within its area, and not drawn", k+1, d)
			}
		}
	}
	held, far := 0, 0
	c.EachRemote(func(id uint32, r *components.Render, _ Look) {
		held++
		if d := (mgl32.Vec2{r.Pos[0], r.Pos[1]}).Sub(corner).Len(); d > 1.1*rules.View+4 {
			far++
			t.Errorf("entity %d drawn %.1f units from the player: outside its area", id, d)
		}
	})
	st := c.Stats()
	t.Logf("interest on: holds %d entities (%d drawn, %d bots within the radius, %d within 90%%), none far: %v", st.Entities, held, area, inner, far == 0)
	if st.Entities < 100 || st.Entities > 1000 || st.Entities > 2*area {
		t.Errorf("interest on: holds %d entities, want its area's few hundred (%d bots within the radius)", st.Entities, area)
	}

	// The budget, measured by the client (what arrived) and the server
	// (what it sent) over three seconds.
	down, sent, perTick := rates(t, srv, c, id, 3*time.Second)
	t.Logf("interest on: the client received %.1f kB/s, the server sent %.1f kB/s; budget %.1f kB/s", down/1000, sent/1000, float64(rules.Budget)/1000)
	if limit := 1.1 * float64(rules.Budget); down > limit || sent > limit {
		t.Errorf("interest on: received %.0f B/s, sent %.0f B/s: want within the budget of %d B/s (+10%%)", down, sent, rules.Budget)
	}
	if down < 0.3*float64(rules.Budget) {
		t.Errorf("interest on: received %.0f B/s of a %d B/s budget: a few hundred moving bots should use most of it", down, rules.Budget)
	}

	// Key N: every entity.
	set := c.Settings()
	set.Interest = false
	if err := c.Apply(set); err != nil {
		t.Fatal(err)
	}
	took := playUntil(t, c, 20*time.Second, func() bool { return !playerOf(t, srv, c).Interest && c.Stats().Entities == rules.Bots })
	t.Logf("interest off: the server heard and the client held every bot %.1f s after N", took.Seconds())
	play(settleTime, []*Client{c}, still) // the first burst over, the overlay's numbers in
	offDown, offSent, offPerTick := rates(t, srv, c, id, 2*time.Second)
	off := c.Stats()
	t.Logf("interest off: holds %d entities; the client received %.1f kB/s, the server sent %.1f kB/s (%.0f B a tick, against %.0f with interest on)",
		off.Entities, offDown/1000, offSent/1000, offPerTick, perTick)
	if off.Entities != rules.Bots {
		t.Errorf("interest off: holds %d entities, want all %d bots", off.Entities, rules.Bots)
	}
	// Per tick: a server slowed down (under the race detector, say)
	// sends fewer bytes a second, not fewer a tick. The budget holds for
	// every entity too: each is sent less often.
	if limit := 1.1 * float64(rules.Budget) / TickRate; offPerTick > limit {
		t.Errorf("interest off: the server sent %.0f B a tick, want within the budget of %.0f (+10%%)", offPerTick, limit/1.1)
	}
	if o := off.Other; !o.OK || math.Abs(float64(o.Entities-st.Entities)) > 0.2*float64(st.Entities) {
		t.Errorf("interest off: the overlay's comparison with interest on is %+v, want about %d entities", o, st.Entities)
	}

	// Key N again: its area only.
	switched := time.Now()
	set.Interest = true
	if err := c.Apply(set); err != nil {
		t.Fatal(err)
	}
	took = playUntil(t, c, 20*time.Second, func() bool { return playerOf(t, srv, c).Interest && c.Stats().Entities <= 2*area })
	back := c.Stats()
	t.Logf("interest on again: the server heard and the client held its area %.1f s after N", took.Seconds())
	t.Logf("interest on again: holds %d entities; the overlay compares with %+v", back.Entities, back.Other)
	if back.Entities > 2*area {
		t.Errorf("interest on again: holds %d entities, want its area's (%d bots within the radius)", back.Entities, area)
	}
	if o := back.Other; !o.OK || o.Entities != rules.Bots {
		t.Errorf("interest on again: the overlay's comparison with interest off is %+v, want %d entities", o, rules.Bots)
	}
	// Every bot that left the area is despawned by the server: none stays
	// frozen where the client last heard of it. The despawns of the
	// thousands that left share the budget, and a slow machine (the race
	// detector) acknowledges late, so they may take a few seconds.
	// A bot left frozen counts only once frozenAfter has passed: none is
	// accepted as gone before then.
	start := time.Now()
	for {
		play(200*time.Millisecond, []*Client{c}, still)
		n, oldest := frozenBots(c)
		if n == 0 && time.Since(switched) > frozenAfter+time.Second {
			t.Logf("interest on again: no bot held without a record for %v, %.1f s after the area was held", frozenAfter, time.Since(start).Seconds())
			break
		}
		if n > 0 && time.Since(start) > 15*time.Second {
			t.Fatalf("interest on again: %d bots held with no record for over %v (the oldest %.1f s), 15 s on: they left the area without a despawn", n, frozenAfter, oldest)
		}
	}
}

// frozenAfter is how long a held bot may go without a record: four times
// the 500 ms within which the server sends every relevant entity
// (server.DefaultMaxInterval), and bots always move.
const frozenAfter = 2 * time.Second

// frozenBots counts the bots c holds whose newest sample is older than
// frozenAfter at its render time, and the age of the oldest in seconds.
func frozenBots(c *Client) (n int, oldest float64) {
	rt := c.pipe.Metrics().RenderTick
	q := c.remote.Query(&c.world)
	for q.Next() {
		id, _, span := q.Get()
		if uint32(*id) > PlayerBase {
			continue // a player standing still is not sent
		}
		if newest, ok := span.Ring.NewestTick(); ok {
			if age := (rt - float64(newest)) / TickRate; age > frozenAfter.Seconds() {
				n++
				oldest = max(oldest, age)
			}
		}
	}
	return n, oldest
}

// A spectator has no player, so no view: on a server with interest
// management it is sent every entity (within its budget), not nothing.
func TestSpectatorSeesEverything(t *testing.T) {
	rules := DefaultRules()
	rules.Bots = 500
	srv := testServer(t, rules)
	tk, err := srv.Ticket(true)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Connect(context.Background(), DefaultSettings(), tk, QUIC, 7)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	play(2*time.Second, []*Client{c}, []scenario.Stick{{}})
	if st := c.Stats(); st.NetID != 0 || st.Entities != rules.Bots {
		t.Errorf("a spectator (player %d) holds %d entities, want no player and all %d bots", st.NetID, st.Entities, rules.Bots)
	}
}

// playUntil plays client c (standing still) until done says so, for d at
// most, and returns how long it took.
func playUntil(t *testing.T, c *Client, d time.Duration, done func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !done() {
		if time.Since(start) > d {
			t.Fatalf("not done after %v: the client holds %d entities", d, c.Stats().Entities)
		}
		play(100*time.Millisecond, []*Client{c}, []scenario.Stick{{}})
	}
	return time.Since(start)
}

// clientOf returns the server's ClientID of client c.
func clientOf(t *testing.T, srv *Server, c *Client) server.ClientID {
	t.Helper()
	return playerOf(t, srv, c).Client
}

// playerOf returns the server's record of client c's player.
func playerOf(t *testing.T, srv *Server, c *Client) PlayerInfo {
	t.Helper()
	for _, p := range srv.Players() {
		if components.NetID(p.NetID) == c.meID {
			return p
		}
	}
	t.Fatalf("client %d has no player on the server", c.meID)
	return PlayerInfo{}
}

// rates plays client c for d and returns the bytes a second it received
// and the server sent it (client id), and the bytes the server sent it a
// tick.
func rates(t *testing.T, srv *Server, c *Client, id server.ClientID, d time.Duration) (down, sent, perTick float64) {
	t.Helper()
	sess := srv.srv.Session()
	st0, _ := sess.Stats(id)
	t0, tick0, start := c.link.Traffic(), sess.Tick(), time.Now()
	play(d, []*Client{c}, []scenario.Stick{{}})
	st1, _ := sess.Stats(id)
	t1, tick1, el := c.link.Traffic(), sess.Tick(), time.Since(start).Seconds()
	bytes := float64(st1.BytesSent - st0.BytesSent)
	return float64(t1.down-t0.down) / el, bytes / el, bytes / float64(max(1, tick1-tick0))
}

// An input is the stick and the switches, and a server reads nothing
// else: a wrong length is no input, an axis beyond ±1 is clamped.
func TestInputWireForm(t *testing.T) {
	b := encodeInput(nil, scenario.Stick{X: -1, Y: 1}, inInterestOff)
	if s, sw, ok := decodeInput(b); !ok || s != (scenario.Stick{X: -1, Y: 1}) || sw != inInterestOff {
		t.Errorf("decodeInput(%v) = %v, %#x, %v", b, s, sw, ok)
	}
	if s, _, ok := decodeInput([]byte{100, 0x80, 0}); !ok || s != (scenario.Stick{X: 1, Y: -1}) {
		t.Errorf("an input of 100, -128: %v, want clamped to 1, -1", s)
	}
	for _, b := range [][]byte{nil, {1, 1}, {1, 1, 0, 0}} {
		if _, _, ok := decodeInput(b); ok {
			t.Errorf("decodeInput(%v): ok, want no input", b)
		}
	}
}

// The rules' flags: the big world by default, the small one with -small,
// each flag over either, and no impossible world.
func TestRulesFlags(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		small   bool
		want    Rules
		wantErr bool
	}{
		{nil, false, DefaultRules(), false},
		{[]string{"-small"}, false, SmallRules(), false},
		{nil, true, SmallRules(), false},
		{[]string{"-small", "-bots", "1000"}, false, Rules{W: 128, H: 80, Bots: 1000}, false},
		{[]string{"-world", "200x100", "-view", "0", "-budget", "0"}, false, Rules{W: 200, H: 100, Bots: 5000}, false},
		{[]string{"-world", "200"}, false, Rules{}, true},
		{[]string{"-bots", "20000"}, false, Rules{}, true},
		{[]string{"-budget", "100"}, false, Rules{}, true},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		rules := RulesFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		got, err := rules(tc.small)
		if (err != nil) != tc.wantErr || (err == nil && got != tc.want) {
			t.Errorf("%q (small %v): %v, %v; want %v (error: %v)", tc.args, tc.small, got, err, tc.want, tc.wantErr)
		}
	}
}

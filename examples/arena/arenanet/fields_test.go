//go:build !js

package arenanet

import (
	"math"
	"testing"

	"github.com/netsmooth/netsmooth/client"
	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/wire"
)

// fieldRun is a server session and a client's pipeline joined without a
// network: the server ticks at TickRate, the client draws at 60 FPS,
// each packet arrives at once and every tick the client acknowledges
// what it received. Its bots' health follows the server's rules
// (botHealth).
type fieldRun struct {
	rules  Rules
	srv    *server.Session
	cli    *client.Session
	c      *Client
	health botHealth
	tick   uint32
	bytes  int // snapshot bytes sent
	// sent is the health the server sent each tick, of the bot watched.
	sent map[uint32]float32
}

func newFieldRun(t *testing.T, rules Rules, wcfg wire.Config) *fieldRun {
	t.Helper()
	scfg := sessionConfig(rules)
	scfg.Wire = wcfg
	srv, err := server.NewSession(scfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Connect(1); err != nil {
		t.Fatal(err)
	}
	c, ccfg, err := newClient(rules)
	if err != nil {
		t.Fatal(err)
	}
	ccfg.Wire = wcfg
	cli, err := client.NewSession(ccfg)
	if err != nil {
		t.Fatal(err)
	}
	return &fieldRun{rules: rules, srv: srv, cli: cli, c: c, health: newBotHealth(rules.Bots), sent: map[uint32]float32{}}
}

// step runs one tick of the server (the bots' health healing, then the
// hits of this tick, which show from the next, as in Server.step), sent
// to the client, and acknowledged; watch is the bot whose sent health is
// kept.
func (r *fieldRun) step(t *testing.T, hit bool, watch int) {
	t.Helper()
	r.tick++
	now := r.tick * 1000 / TickRate
	if err := r.srv.BeginTick(r.tick); err != nil {
		t.Fatal(err)
	}
	r.health.heal()
	for k := range r.rules.Bots {
		if err := r.srv.SetEntity(r.rules.botEntity(k, r.tick, r.health[k])); err != nil {
			t.Fatal(err)
		}
	}
	r.sent[r.tick] = r.health[watch]
	if hit {
		r.health.hit(uint32(watch + 1))
	}
	packets, err := r.srv.Snapshot(1, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range packets {
		r.bytes += len(p)
		if err := r.cli.Receive(p, now); err != nil {
			t.Fatal(err)
		}
	}
	ack, err := r.cli.InputPacket(now, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.srv.Receive(1, ack, now); err != nil {
		t.Fatal(err)
	}
}

// look returns how the client draws bot k this frame.
func (r *fieldRun) look(k int) (Look, components.RenderFlags, bool) {
	var l Look
	var flags components.RenderFlags
	ok := false
	r.c.EachRemote(func(id uint32, rd *components.Render, look Look) {
		if id == uint32(k+1) {
			l, flags, ok = look, rd.Flags, true
		}
	})
	return l, flags, ok
}

// A bot's size and health as the client draws them follow the server's
// values smoothly. The size breathes: drawn within half a quantisation
// step of the true size at the render time, and no frame's change larger
// than the fastest true change over the frame's render time plus one
// step. The health: two confirmed hits a fifth of a second apart, then
// regeneration; drawn as the line between the values the server sent at
// the ticks around the render time, so each drop of HitDamage is spread
// over the frames of one tick (three at 60 FPS), never a step of it.
func TestBotFieldsSmooth(t *testing.T) {
	r := newFieldRun(t, small(40), arenaWire())
	const k = 3 // a bot that does not teleport (k%teleportEvery != 0)
	hits := map[uint32]bool{100: true, 104: true}
	maxSizeStep := sizeSwing * 2 * math.Pi / sizePeriod / TickRate // per tick, true
	var frames, checked, dropping int
	var prev Look
	var prevRT float64
	have := false
	minHealth, maxSizeErr, maxHealthErr := float32(MaxHealth), 0.0, 0.0
	var maxSizeRatio, maxHealthRatio float64
	for f := 0; f < 3*240; f++ { // 12 s
		if f%3 == 0 {
			r.step(t, hits[r.tick+1], k)
		}
		r.c.pipe.Update(1.0 / 60)
		frames++
		look, flags, ok := r.look(k)
		rt := r.c.RenderTick()
		if !ok || rt < 40 { // the first two seconds: the clock settles
			have = false
			continue
		}
		checked++
		// The size, against the truth at the render time.
		sizeErr := math.Abs(float64(look.Size - r.rules.BotSizeAt(k, rt)))
		maxSizeErr = max(maxSizeErr, sizeErr)
		if sizeErr > sizePrecision/2+0.002 {
			t.Errorf("render tick %.2f: size drawn %.4f, true %.4f: %.4f off, want within half a step (%v)", rt, look.Size, r.rules.BotSizeAt(k, rt), sizeErr, sizePrecision/2)
		}
		// The health, against the line between the values sent.
		t0 := uint32(math.Floor(rt))
		h0, ok0 := r.sent[t0]
		h1, ok1 := r.sent[t0+1]
		if ok0 && ok1 && flags&(components.Extrapolated|components.Held) == 0 {
			want := float64(h0) + (float64(h1)-float64(h0))*(rt-float64(t0))
			e := math.Abs(float64(look.Health) - want)
			maxHealthErr = max(maxHealthErr, e)
			if e > 0.01 {
				t.Errorf("render tick %.2f: health drawn %.3f, want %.3f (sent %v then %v)", rt, look.Health, want, h0, h1)
			}
			if h1 < h0-1 && look.Health < h0-0.01 && look.Health > h1+0.01 {
				dropping++ // between the values sent around a hit: a drop drawn in passing
			}
		}
		minHealth = min(minHealth, look.Health)
		// Each frame's change, against the true change over the frame's
		// render time.
		if have {
			drt := rt - prevRT
			if limit := (maxSizeStep+sizePrecision)*drt + 1e-4; math.Abs(float64(look.Size-prev.Size)) > limit {
				t.Errorf("render tick %.2f: size moved %.4f in a frame (%.3f ticks), want at most %.4f", rt, look.Size-prev.Size, drt, limit)
			}
			if drt > 0 {
				maxSizeRatio = max(maxSizeRatio, math.Abs(float64(look.Size-prev.Size))/drt/(maxSizeStep+sizePrecision))
			}
			// The health changes by at most a hit and a tick's healing
			// in a tick.
			perTick := float64(HitDamage) + regenPerTick
			if limit := perTick*drt + 0.01; math.Abs(float64(look.Health-prev.Health)) > limit {
				t.Errorf("render tick %.2f: health moved %.2f in a frame (%.3f ticks), want at most %.2f", rt, look.Health-prev.Health, drt, limit)
			}
			if drt > 0 {
				maxHealthRatio = max(maxHealthRatio, math.Abs(float64(look.Health-prev.Health))/drt/perTick)
			}
		}
		prev, prevRT, have = look, rt, true
	}
	t.Logf("%d frames, %d checked: size within %.4f of the truth; health within %.4f of the line between the values sent, lowest %.1f, %d frames drawn mid-drop; largest frame's change: size %.2f, health %.2f of what the true rates allow",
		frames, checked, maxSizeErr, maxHealthErr, minHealth, dropping, maxSizeRatio, maxHealthRatio)
	if checked < 400 {
		t.Fatalf("%d frames checked, want the bot drawn for most of 12 s", checked)
	}
	// Two hits and the healing of the four ticks between and the one
	// after: 100 - 2×25 + 5×0.5, or a little more drawn between ticks.
	if minHealth < 52.5 || minHealth > 53 {
		t.Errorf("lowest health drawn %.2f, want the two hits shown: 52.5 at the tick after", minHealth)
	}
	if dropping < 4 {
		t.Errorf("%d frames drawn between the values sent around the hits, want each drop spread over the frames of a tick", dropping)
	}
	if prev.Health != MaxHealth {
		t.Errorf("health drawn %.1f at the end, want healed to %d", prev.Health, MaxHealth)
	}
}

// The fields' cost on the wire, in the small world (every change every
// tick to every client): the bots breathing at full health against the
// same bots without fields. A breath changes a bot's size by a step
// every third tick or so; health at full costs nothing.
func TestBotFieldsBytes(t *testing.T) {
	rules := small(400)
	var perTick [2]float64
	for i, wcfg := range []wire.Config{{}, arenaWire()} {
		r := newFieldRun(t, rules, wcfg)
		for range 40 {
			r.step(t, false, 0)
		}
		r.bytes = 0
		for range 200 {
			r.step(t, false, 0)
		}
		perTick[i] = float64(r.bytes) / 200
	}
	extra := perTick[1]/perTick[0] - 1
	t.Logf("400 bots, every change every tick: %.0f B a tick without fields, %.0f with (size breathing, health full): +%.1f%%, %.2f B a bot a tick",
		perTick[0], perTick[1], 100*extra, (perTick[1]-perTick[0])/float64(rules.Bots))
	if extra > 0.25 {
		t.Errorf("the fields add %.1f%% to the snapshots, want at most 25%%", 100*extra)
	}
}

// The server's bot health: a hit takes HitDamage down to 0, a NetID that
// is no bot's (0, a player's, beyond the bots) changes nothing, and a tick
// heals regenPerTick up to MaxHealth.
func TestBotHealthRules(t *testing.T) {
	h := newBotHealth(3)
	for range 5 {
		h.hit(2)
	}
	for _, id := range []uint32{0, 4, PlayerBase + 1, math.MaxUint32} {
		h.hit(id)
	}
	if h[0] != MaxHealth || h[1] != 0 || h[2] != MaxHealth {
		t.Fatalf("after five hits on bot 2 and some on no bot: %v, want [100 0 100]", h)
	}
	h.heal()
	if h[1] != 0.5 || h[0] != MaxHealth {
		t.Errorf("after a tick's healing: %v, want [100 0.5 100]", h)
	}
	for range 2 * MaxHealth / RegenPerSecond * TickRate {
		h.heal()
	}
	if h[1] != MaxHealth {
		t.Errorf("after the time to heal fully: %v, want bot 2 at %d", h[1], MaxHealth)
	}
}

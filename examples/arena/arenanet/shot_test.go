//go:build !js

package arenanet

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/client"
	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/server"
	"github.com/netsmooth/netsmooth/systems"
)

// A shot's wire form survives the trip, its direction to a 65536th of a
// turn; an input carries one only with the inShot switch, at its length.
func TestShotWireForm(t *testing.T) {
	in := shot{no: 200, target: 4321, origin: mgl32.Vec2{12.5, 70.25}, angle: -2}
	b := appendShot(encodeInput(nil, scenario.Stick{X: 1}, inLagCompOff|inShot), &in)
	st, sw, ok := decodeInput(b)
	if !ok || st != (scenario.Stick{X: 1}) || sw != inLagCompOff|inShot {
		t.Fatalf("decodeInput(%v) = %v, %#x, %v", b, st, sw, ok)
	}
	out, ok := shotOf(b)
	if !ok || out.no != in.no || out.target != in.target || out.origin != in.origin {
		t.Fatalf("shotOf = %+v, %v; want %+v", out, ok, in)
	}
	if d := math.Abs(math.Remainder(float64(out.angle-in.angle), 2*math.Pi)); d > 2*math.Pi/65536 {
		t.Errorf("angle %v, sent %v: %v off", out.angle, in.angle, d)
	}
	for _, bad := range [][]byte{
		b[:inputSize], // inShot without the shot
		append(encodeInput(nil, scenario.Stick{}, 0), b[inputSize:]...), // a shot without inShot
		b[:len(b)-1],
		append(b[:len(b):len(b)], 0),
	} {
		if _, _, ok := decodeInput(bad); ok {
			t.Errorf("decodeInput(%v): ok, want no input", bad)
		}
	}
	nan := appendShot(encodeInput(nil, scenario.Stick{}, inShot), &shot{origin: mgl32.Vec2{float32(math.NaN()), 0}})
	if _, ok := shotOf(nan); ok {
		t.Error("a shot from a NaN origin: ok, want no shot")
	}
}

// The shot judgement: the server's bots on their paths, a client drawing
// them a simulated 3.3 ticks (165 ms: latency and interpolation delay)
// in the past and firing at a bot's drawn centre from 8 units away. With
// lag compensation (the client's drawn time, Rewind) the server confirms
// every shot; against its present it confirms few. A shot from further
// than a tick or two from the shooter is refused; a drawn time older than
// the server believes (with no round trip measured, 900 ms and a tick:
// 19 ticks) is clamped, and the shot judged as one drawn at that bound.
func TestShotJudgement(t *testing.T) {
	rules := small(12)
	sess, err := server.NewSession(server.SessionConfig{History: shotHistory()})
	if err != nil {
		t.Fatal(err)
	}
	const shooter = server.ClientID(1)
	if err := sess.Connect(shooter); err != nil {
		t.Fatal(err)
	}
	const delay = 3.3 // ticks
	var shots, confirmed, present, refused, clamped, stale, staleHit, asBound int
	for tick := uint32(1); tick <= 200; tick++ {
		if err := sess.BeginTick(tick); err != nil {
			t.Fatal(err)
		}
		for k := range rules.Bots {
			if err := sess.SetEntity(rules.botEntity(k, tick, MaxHealth)); err != nil {
				t.Fatal(err)
			}
			if tick == 1 {
				sess.SetShape(uint32(k+1), botShape)
			}
		}
		if tick < 30 {
			continue
		}
		rt := float64(tick) - delay
		for k := range rules.Bots {
			drawn, _, _ := rules.BotAt(k, rt)
			if teleports(rules, k, rt, float64(tick)) {
				continue // where it was drawn and where it is now are two places
			}
			// From 8 units away, across the bot's path (its heading is
			// along the circle), where no other bot is near the line.
			_, rot, _ := rules.BotAt(k, rt)
			heading := rot.Rotate(mgl32.Vec3{1, 0, 0})
			dir := mgl32.Vec2{-heading[1], heading[0]}
			origin := drawn.Sub(dir.Mul(8))
			if !clearLine(rules, k, origin, drawn, rt, float64(tick)) {
				continue
			}
			sh := shot{target: uint32(k + 1), origin: origin, angle: float32(math.Atan2(float64(dir[1]), float64(dir[0])))}
			d := client.DrawnNow(rt, nil)
			shots++
			if v, c := judgeShot(sess, shooter, 0, origin, &sh, &d, true); v == shotConfirmed && !c {
				confirmed++
			}
			if v, _ := judgeShot(sess, shooter, 0, origin, &sh, &d, false); v == shotConfirmed {
				present++
			}
			// Hostile: from 3 units beside the shooter's position, or
			// claiming to have drawn the bot 5 s ago.
			if v, _ := judgeShot(sess, shooter, 0, origin.Add(mgl32.Vec2{3, 0}), &sh, &d, true); v == shotRefused {
				refused++
			}
			then, _, _ := rules.BotAt(k, float64(tick)-100)
			sh.origin = then.Sub(dir.Mul(8))
			old := client.DrawnNow(float64(tick)-100, nil)
			stale++
			v, c := judgeShot(sess, shooter, 0, sh.origin, &sh, &old, true)
			if c {
				clamped++
			}
			if v == shotConfirmed {
				staleHit++
			}
			bound := client.DrawnNow(float64(tick)-19, nil)
			if w, c := judgeShot(sess, shooter, 0, sh.origin, &sh, &bound, true); w == v && !c {
				asBound++
			}
		}
	}
	if shots < 1000 {
		t.Fatalf("%d shots judged, want at least 1000", shots)
	}
	t.Logf("%d shots at the drawn centre, 165 ms behind: confirmed %d with compensation, %d against the present; "+
		"%d of %d shots from 3 units beside refused; %d of %d claiming 5 s ago clamped, %d of them confirmed (where the bot was 19 ticks ago)",
		shots, confirmed, present, refused, shots, clamped, stale, staleHit)
	if confirmed != shots {
		t.Errorf("with compensation, %d of %d shots confirmed (unclamped), want all", confirmed, shots)
	}
	if present > shots/10 {
		t.Errorf("against the present, %d of %d shots confirmed, want at most a tenth", present, shots)
	}
	if refused != shots {
		t.Errorf("%d of %d shots from 3 units beside the shooter refused, want all", refused, shots)
	}
	if clamped != stale || asBound != stale || staleHit > stale/2 {
		t.Errorf("shots claiming a drawn time 5 s ago: %d of %d clamped, %d judged as drawn 19 ticks ago (want all), %d confirmed (want at most half)",
			clamped, stale, asBound, staleHit)
	}
	if st, _ := sess.Stats(shooter); st.DrawnClamped != uint64(stale) {
		t.Errorf("the session counted %d clamped drawn times, want %d", st.DrawnClamped, stale)
	}
}

// teleports reports whether bot k jumps between ticks from and to.
func teleports(r Rules, k int, from, to float64) bool {
	_, _, a := r.BotAt(k, from-1)
	_, _, b := r.BotAt(k, to+1)
	return a != b
}

// clearLine reports whether no bot but k comes within 3 units of the line
// from origin to p, at time rt or now.
func clearLine(r Rules, k int, origin, p mgl32.Vec2, rt, now float64) bool {
	dir := p.Sub(origin)
	l := dir.Len()
	dir = dir.Mul(1 / l)
	for j := range r.Bots {
		if j == k {
			continue
		}
		for _, at := range []float64{rt, now} {
			q, _, _ := r.BotAt(j, at)
			d := q.Sub(origin)
			along := max(0, min(l, d.Dot(dir)))
			if d.Sub(dir.Mul(along)).Len() < 3 {
				return false
			}
		}
	}
	return true
}

// The arena's shots end to end: a client standing still over the
// simulated 50 ± 10 ms link with the trigger held fires at the bots it
// faces, at most one shot every ShotEvery ticks. The server, judging
// against what the client drew, confirms nearly every one (the misses
// are at bots drawn past their newest snapshot, which a machine under
// load makes common: the server judges them where they truly were);
// against its present (key C), far fewer. The client's counts (the
// overlay's) follow the server's verdicts.
func TestShotsLagCompensated(t *testing.T) {
	srv := testServer(t, small(400))
	set := DefaultSettings()
	c := testClient(t, srv, QUIC, set)
	play(time.Second, []*Client{c}, []scenario.Stick{{}})
	c.SetTrigger(true)
	play(4*time.Second, []*Client{c}, []scenario.Stick{{}})
	set.LagComp = false
	if err := c.Apply(set); err != nil {
		t.Fatal(err)
	}
	play(4*time.Second, []*Client{c}, []scenario.Stick{{}})
	c.SetTrigger(false)
	// The last verdicts.
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); {
		play(100*time.Millisecond, []*Client{c}, []scenario.Stick{{}})
		if st := c.ShotStats(); st.Ruled == st.Claimed {
			break
		}
	}
	st := c.ShotStats()
	var on ShotCounts
	for _, p := range srv.Players() {
		on = p.Shots
	}
	t.Logf("client: claimed %v, ruled %v, confirmed %v (without, with compensation); server: judged %v, confirmed %v, refused %d, clamped %d",
		st.Claimed, st.Ruled, st.Confirmed, on.Judged, on.Confirmed, on.Refused, on.Clamped)
	// 4 s at TickRate/ShotEvery shots a second: 20 each way at most.
	for i, name := range []string{"without compensation", "with compensation"} {
		if st.Claimed[i] < 8 || st.Claimed[i] > 4*TickRate/ShotEvery+1 {
			t.Errorf("%s: %d shots claimed in 4 s, want 8..%d", name, st.Claimed[i], 4*TickRate/ShotEvery+1)
		}
		if st.Ruled[i] != st.Claimed[i] {
			t.Errorf("%s: %d of %d shots ruled by the server, want all", name, st.Ruled[i], st.Claimed[i])
		}
		if st.Confirmed[i] != on.Confirmed[i] || st.Ruled[i] != on.Judged[i] {
			t.Errorf("%s: the client counts %d ruled, %d confirmed; the server %d judged, %d confirmed", name, st.Ruled[i], st.Confirmed[i], on.Judged[i], on.Confirmed[i])
		}
	}
	rate := func(i int) float64 { return float64(st.Confirmed[i]) / float64(max(1, st.Ruled[i])) }
	if rate(1) < 0.75 {
		t.Errorf("with compensation %.0f%% of shots confirmed, want at least 75%%", 100*rate(1))
	}
	if rate(0) > rate(1)-0.3 {
		t.Errorf("without compensation %.0f%% of shots confirmed, with %.0f%%: want at least 30 points fewer", 100*rate(0), 100*rate(1))
	}
	if on.Refused != 0 {
		t.Errorf("the server refused %d of an honest client's shots, want none", on.Refused)
	}
}

// A hostile client firing with every input, from its player's place, is
// judged at most once every ShotEvery inputs (the rest refused, counted);
// shots from elsewhere are refused; a drawn time 5 s old is clamped.
func TestShotsHostile(t *testing.T) {
	srv := testServer(t, small(50))
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
	for end := time.Now().Add(5 * time.Second); c.Session().NetID() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("no player 5 s after joining")
		}
	}
	at := srv.rules.spawnPoint(uint32(c.Session().NetID()))
	at = quantized(srv.q, uint32(c.Session().NetID()), at)
	tick := time.NewTicker(time.Second / TickRate)
	defer tick.Stop()
	const inputs = 3 * TickRate
	var seq uint32
	for i := range inputs {
		<-tick.C
		seq++
		sh := shot{no: uint8(seq), target: 1, origin: at.Pos}
		if i%10 == 9 {
			sh.origin = at.Pos.Add(mgl32.Vec2{0, 10}) // from elsewhere
		}
		now := float64(srv.srv.Session().Tick())
		if i%3 == 0 {
			now -= 5 * TickRate // drawn 5 s ago
		}
		if err := c.Session().SetDrawn(client.DrawnNow(now, nil)); err != nil {
			t.Fatal(err)
		}
		if err := c.Session().QueueInput(seq, appendShot(encodeInput(nil, scenario.Stick{}, inShot), &sh)); err != nil {
			t.Fatal(err)
		}
		c.SendInputs()
	}
	time.Sleep(300 * time.Millisecond)
	ps := srv.Players()
	if len(ps) != 1 {
		t.Fatalf("%d players, want 1", len(ps))
	}
	s := ps[0].Shots
	judged := s.Judged[0] + s.Judged[1]
	t.Logf("%d shots, one an input: judged %d, refused %d, clamped %d", inputs, judged, s.Refused, s.Clamped)
	if judged > inputs/ShotEvery+1 || judged < inputs/ShotEvery/2 {
		t.Errorf("%d of %d shots judged, want at most one every %d inputs (%d) and at least half that", judged, inputs, ShotEvery, inputs/ShotEvery)
	}
	if judged+s.Refused < inputs-2 {
		t.Errorf("judged %d and refused %d of %d shots: want every shot counted", judged, s.Refused, inputs)
	}
	if s.Clamped == 0 {
		t.Error("no shot clamped: want those claiming a drawn time 5 s old")
	}
}

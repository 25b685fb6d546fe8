package systems_test

import (
	"math"
	"testing"
	"time"

	"github.com/netsmooth/netsmooth/components"
	nsecs "github.com/netsmooth/netsmooth/ecs"
	"github.com/netsmooth/netsmooth/systems"
)

func TestInputHistoryOverflowPausesPrediction(t *testing.T) {
	cfg := nsecs.DefaultConfig().WithTickRate(60)
	cfg.Predict.InputCapacity = 4
	p := newPredRig(t, cfg)
	p.setInput(move{X: 1})
	for i := 0; i < 10; i++ {
		p.Frame(1.0 / 60)
	}
	m := p.Pipe.Metrics()
	if m.InputOverflows != 6 {
		t.Fatalf("input overflows = %d, want 6", m.InputOverflows)
	}
	want := float32(4 * playerSpeed / 60.0)
	if got := p.predicted().X; math.Abs(float64(got-want)) > 1e-4 {
		t.Fatalf("x = %v, want %v: only recorded inputs may move the player", got, want)
	}
	// The server catches up: everything acknowledged, prediction resumes.
	p.pr.Inbox().Push(systems.Authoritative[player]{NetID: 1, Tick: 4, Ack: 4, State: p.predicted()})
	p.Frame(1.0 / 60)
	if m.InputOverflows != 6 || p.predicted().X <= want {
		t.Fatalf("after the ack: overflows %d, x %v", m.InputOverflows, p.predicted().X)
	}
	// Every recorded input was sent, in order, once.
	sent := p.pr.Outbox().Drain(nil)
	for i, s := range sent {
		if s.Seq != uint32(i+1) {
			t.Fatalf("sent seq %d at %d", s.Seq, i)
		}
	}
	if len(sent) != 5 {
		t.Fatalf("sent %d inputs, want 5", len(sent))
	}
}

// TestFrameInterpolationMonotonic: a 144 Hz display of a 60 Hz simulation
// at constant velocity draws strictly increasing positions, each frame's
// step equal to the true motion of that frame.
func TestFrameInterpolationMonotonic(t *testing.T) {
	cfg := nsecs.DefaultConfig().WithTickRate(60)
	cfg.Predict.InputCapacity = components.MaxPendingInputs // no server here to acknowledge
	p := newPredRig(t, cfg)
	p.setInput(move{X: 1})
	const fps = 144.0
	for p.pr.Ticks() == 0 { // drawing trails the simulation by up to a tick
		p.Frame(1 / fps)
	}
	prev := p.drawnX()
	for f := 0; f < 3*fps; f++ {
		p.Frame(1 / fps)
		x := p.drawnX()
		if !(x > prev) {
			t.Fatalf("frame %d: drawn x %v after %v: not strictly increasing", f, x, prev)
		}
		if f > 1 && math.Abs(float64(x-prev)-playerSpeed/fps) > 1e-3 {
			t.Fatalf("frame %d: moved %v, want %v every frame", f, x-prev, playerSpeed/fps)
		}
		prev = x
	}
	if ticks := p.pr.Ticks(); ticks < 180 || ticks > 182 {
		t.Fatalf("ran %d ticks in about 3 s at 60 Hz", ticks)
	}
}

func TestSpiralOfDeathGuard(t *testing.T) {
	p := newPredRig(t, nsecs.DefaultConfig().WithTickRate(60))
	p.setInput(move{X: 1})
	p.Frame(1.0) // a one-second hitch: 60 ticks due, at most 8 run
	m := p.Pipe.Metrics()
	if p.pr.Ticks() != 8 || m.SkippedTicks != 52 {
		t.Fatalf("ticks %d, skipped %d; want 8 and 52", p.pr.Ticks(), m.SkippedTicks)
	}
}

// TestPredictionConcurrentTransport: a transport goroutine pushes
// authoritative states and another drains inputs while frames run.
func TestPredictionConcurrentTransport(t *testing.T) {
	p := newPredRig(t, nsecs.DefaultConfig().WithTickRate(60))
	p.setInput(move{X: 1})
	done := make(chan struct{})
	acks := make(chan uint32, 1024)
	go func() { // "server": acknowledges whatever it receives
		var server player
		for seq := range acks {
			server = stepPlayer(server, move{X: 1}, 1.0/60)
			p.pr.Inbox().Push(systems.Authoritative[player]{NetID: 1, Tick: seq, Ack: seq, State: server})
		}
		close(done)
	}()
	sent := 0
	var inputs []systems.SentInput[move]
	drained := make(chan []systems.SentInput[move])
	go func() { // "transport": drains the outbox concurrently with frames
		for i := 0; i < 200; i++ {
			drained <- p.pr.Outbox().Drain(nil)
			time.Sleep(100 * time.Microsecond)
		}
		close(drained)
	}()
	for batch := range drained {
		inputs = append(inputs, batch...)
		for _, in := range batch {
			acks <- in.Seq // the server goroutine pushes states while frames run
			sent++
		}
		p.Frame(1.0 / 60)
	}
	close(acks)
	<-done
	p.Frame(0)
	if sent == 0 {
		t.Fatal("no inputs sent")
	}
	for i, in := range inputs {
		if in.Seq != uint32(i+1) {
			t.Fatalf("input %d has seq %d: lost or reordered", i, in.Seq)
		}
	}
	if m := p.Pipe.Metrics(); m.Reconciles == 0 || m.HardCuts != 0 {
		t.Fatalf("reconciles %d, hard cuts %d", m.Reconciles, m.HardCuts)
	}
}

func TestPredictedNetIDReusableAfterRemoval(t *testing.T) {
	p := newPredRig(t, nsecs.DefaultConfig())
	p.World.RemoveEntity(p.e)
	if _, ok := p.Pipe.Lookup(1); ok {
		t.Fatal("Lookup found the removed player")
	}
	if _, err := p.pr.Spawn(&p.World, 1, player{X: 3}); err != nil {
		t.Fatalf("respawning the local player: %v", err)
	}
}

// TestOutboxAndInboxBounded: an outbox nobody drains keeps at most its
// capacity and counts the rest, without holding prediction back; states
// beyond the authoritative inbox's capacity are counted as rejected.
func TestOutboxAndInboxBounded(t *testing.T) {
	cfg := nsecs.DefaultConfig().WithTickRate(60)
	cfg.Predict.InboxCapacity = 2 // the outbox holds four times as many
	p := newPredRig(t, cfg)
	p.setInput(move{X: 1})
	for i := 0; i < 10; i++ {
		p.Frame(1.0 / 60)
	}
	m := p.Pipe.Metrics()
	if p.pr.Ticks() != 10 || m.OutboxDropped != 2 {
		t.Fatalf("ticks %d, outbox dropped %d; want 10 and 2", p.pr.Ticks(), m.OutboxDropped)
	}
	if want := float32(10 * playerSpeed / 60.0); math.Abs(float64(p.predicted().X-want)) > 1e-4 {
		t.Fatalf("x = %v, want %v: a full outbox must not pause prediction", p.predicted().X, want)
	}
	if sent := p.pr.Outbox().Drain(nil); len(sent) != 8 || sent[7].Seq != 8 {
		t.Fatalf("outbox held %d inputs, want the first 8", len(sent))
	}
	in := p.pr.Inbox()
	for _, ack := range []uint32{1, 2, 3} {
		if ok := in.Push(systems.Authoritative[player]{NetID: 1, Tick: ack, Ack: ack, State: p.predicted()}); ok != (ack <= 2) {
			t.Fatalf("push of ack %d returned %v", ack, ok)
		}
	}
	p.Frame(0)
	if m.Rejected[systems.RejectInboxFull] != 1 || m.Reconciles != 2 {
		t.Fatalf("inbox-full %d, reconciles %d; want 1 and 2", m.Rejected[systems.RejectInboxFull], m.Reconciles)
	}
	p.CheckCounted(3)
}

// TestPredictionSteadyStateDoesNotAllocate: once buffers have grown, a
// frame that runs a prediction tick, sends its input and reconciles an
// acknowledgement allocates nothing.
func TestPredictionSteadyStateDoesNotAllocate(t *testing.T) {
	p := newPredRig(t, nsecs.DefaultConfig().WithTickRate(60))
	p.setInput(move{X: 1})
	var server player
	var sent []systems.SentInput[move]
	step := func() {
		p.Frame(1.0 / 60)
		sent = p.pr.Outbox().Drain(sent)
		for _, in := range sent {
			server = stepPlayer(server, in.Input, 1.0/60)
			p.pr.Inbox().Push(systems.Authoritative[player]{NetID: 1, Tick: in.Seq, Ack: in.Seq, State: server})
		}
	}
	for i := 0; i < 60; i++ {
		step()
	}
	if allocs := testing.AllocsPerRun(100, step); allocs != 0 {
		t.Fatalf("a steady-state prediction frame allocates %v times", allocs)
	}
	if m := p.Pipe.Metrics(); m.Reconciles == 0 || m.RejectedTotal() != 0 {
		t.Fatalf("reconciles %d, rejected %v", m.Reconciles, m.Rejected)
	}
}

func TestNewPredictorRejectsBadSetup(t *testing.T) {
	good := systems.DefaultPredictConfig()
	for name, sim := range map[string]systems.Simulation[player, move]{
		"no Step":     {Position: playerSim.Position},
		"no Position": {Step: stepPlayer},
	} {
		if _, err := systems.NewPredictor(sim, good); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for _, mutate := range []func(*systems.PredictConfig){
		func(c *systems.PredictConfig) { c.MaxTicksPerFrame = -1 },
		func(c *systems.PredictConfig) { c.InputCapacity = -1 },
		func(c *systems.PredictConfig) { c.InputCapacity = components.MaxPendingInputs + 1 },
		func(c *systems.PredictConfig) { c.HardCutDistance = c.DeadZone },
		func(c *systems.PredictConfig) { c.HardCutDistance = float32(math.Inf(1)) },
		func(c *systems.PredictConfig) { c.InboxCapacity = -1 },
		func(c *systems.PredictConfig) { c.MaxAbs = -1 },
	} {
		cfg := good
		mutate(&cfg)
		if _, err := systems.NewPredictor(playerSim, cfg); err == nil {
			t.Errorf("NewPredictor with %+v accepted", cfg)
		}
	}
	if _, err := systems.NewPredictor(playerSim, good); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
	if _, err := systems.NewPredictor(playerSim, systems.PredictConfig{}); err != nil {
		t.Fatalf("a zero config: %v", err)
	}
}

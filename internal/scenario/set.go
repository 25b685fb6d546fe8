package scenario

import (
	"time"

	"github.com/netsmooth/netsmooth/netsim"
)

// base is the network every standard scenario starts from: 50 ms one way,
// ±10 ms jitter.
func base() netsim.Config {
	return netsim.Config{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond}
}

// Standard returns the scorecard's fixed, seeded set of scenarios for
// remote entities: 20 entities watched for 20 s with snapshots at 20 Hz,
// unless the scenario is about something else (the drift scenario runs 10
// minutes, the burst-loss one 200 entities for 60 s).
func Standard() []Scenario {
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	with := func(name string, f func(*Scenario)) Scenario {
		sc := Scenario{Name: name, Link: base(), Seed: 1}
		if f != nil {
			f(&sc)
		}
		return sc
	}
	return []Scenario{
		with("clean 20 Hz", nil),
		with("clean 60 Hz", func(s *Scenario) { s.TickRate = 60 }),
		with("10 Hz snapshots", func(s *Scenario) { s.TickRate = 10 }),
		with("jitter ±40 ms", func(s *Scenario) { s.Link.Latency, s.Link.Jitter = 80*time.Millisecond, 40*time.Millisecond }),
		with("5% random loss", func(s *Scenario) { s.Link.Loss = 0.05 }),
		with("300 ms burst loss", func(s *Scenario) {
			s.Link.Outages = []netsim.Window{{From: sec(8), To: sec(8.3)}}
			s.Disturbance = netsim.Window{From: sec(8), To: sec(8.3)}
		}),
		with("10% reorder", func(s *Scenario) { s.Link.Reorder = 0.1 }),
		with("5% duplication", func(s *Scenario) { s.Link.Duplicate = 0.05 }),
		with("1% clock drift, 10 min", func(s *Scenario) { s.Drift, s.Seconds = 0.01, 600 }),
		with("3 s suspend", func(s *Scenario) {
			s.Link.Suspends = []netsim.Window{{From: sec(8), To: sec(11)}}
			s.Disturbance = netsim.Window{From: sec(8), To: sec(11)}
		}),
		with("teleports every 2 s", func(s *Scenario) { s.TeleportEvery = 2 * time.Second }),
		with("spawn/despawn churn 20%/s", func(s *Scenario) { s.ChurnPerSecond = 0.2 }),
		with("half at 5 Hz", func(s *Scenario) { s.SlowEvery = 4 }),
		with("sent on change", func(s *Scenario) { s.StopGo = time.Second }),
		with("burst loss, 200 entities", func(s *Scenario) {
			// Gilbert–Elliott bursts of 12 snapshots (0.6 s) on average,
			// 8% of the time: longer than extrapolation covers.
			s.Entities, s.PerPacket, s.Seconds = 200, 200, 60
			s.Link.Burst = netsim.Burst{Enter: 0.08 / 0.92 / 12, Exit: 1.0 / 12}
		}),
	}
}

// RoughEdges returns the scorecard's scenarios of slow and sharply turning
// motion, where a small unevenness in the drawing is a large share of a
// frame's true motion: 8 entities (unless said otherwise) on circles of
// radius 10 to 14 at 3 to 5 units/s and on zig-zags.
func RoughEdges() []Scenario {
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	link := func(latency, jitter time.Duration, loss float64) netsim.Config {
		return netsim.Config{Latency: latency, Jitter: jitter, Loss: loss}
	}
	suspend := Scenario{Name: "slow paths: 3 s suspend", Entities: 8, Paths: Mixed, Seed: 1,
		Link: link(60*time.Millisecond, 10*time.Millisecond, 0), Disturbance: netsim.Window{From: sec(8), To: sec(11)}}
	suspend.Link.Suspends = []netsim.Window{suspend.Disturbance}
	bursts := Scenario{Name: "zig-zags: burst loss, 200 entities", Entities: 200, Paths: ZigZags, Seconds: 30, Seed: 1,
		Link: link(60*time.Millisecond, 10*time.Millisecond, 0)}
	bursts.Link.Burst = netsim.Burst{Enter: 0.02, Exit: 0.25}
	return []Scenario{
		suspend,
		{Name: "slow paths: 10 Hz, ±40 ms, 5% loss", Entities: 8, Paths: Mixed, TickRate: 10, Seed: 1,
			Link: link(50*time.Millisecond, 40*time.Millisecond, 0.05)},
		bursts,
		{Name: "circles: 2000 entities, 10 Hz, ±40 ms, 5% loss", Entities: 2000, Paths: VariedCircles, TickRate: 10, Seconds: 30, Seed: 1,
			Link: link(50*time.Millisecond, 40*time.Millisecond, 0.05)},
	}
}

// StandardPredicted returns the scorecard's predicted-player scenario:
// 100 ms round trip, 10% loss each way, 60 Hz ticks.
func StandardPredicted() PredictedScenario {
	link := netsim.Config{Latency: 50 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.1}
	return PredictedScenario{Name: "predicted player, 100 ms RTT, 10% loss", Seconds: 20, Link: link, Seed: 1}
}

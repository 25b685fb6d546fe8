// Package netsim is a seeded, deterministic network conditioner for testing
// netsmooth's client pipeline against a bad network on demand.
//
// It is a testing tool, and public because games use it too: the
// server's, client's and transport's configs take a [Config] to put a bad
// network in front of real connections (a demo of packet loss, a game's
// own tests of its netcode), and a game can drive its own client code
// through a [Link] in its tests as netsmooth's do.
//
// Put a [Link] between a simulated server and the client code under test:
// the server side calls [Link.Send] (or [Link.SendSized]), the client side
// calls [Link.Deliver] (or [Link.DeliverTimed] to learn each message's exact
// arrival time), and the link applies the impairments described by a
// [Config] in between.
//
// # Impairments
//
// A packet meets them in this order, from sender to receiver:
//
//   - Bandwidth cap: [Config.Bandwidth] serialises packets at a fixed byte
//     rate, one after another, so that bursts spread out and a sender that
//     exceeds the cap builds a queue; [Config.QueueBytes] bounds it
//     (drop-tail). Packet sizes come from [Link.SendSized] or
//     [Config.PacketSize].
//   - Scheduled outages: [Config.Outages] lose every packet sent during
//     fixed windows of time.
//   - Burst loss: [Config.Burst] is a Gilbert–Elliott good/bad Markov chain
//     that loses packets in clusters, as real links do; [NewBurst] derives
//     it from a mean burst length and a fraction of time spent in Bad.
//   - Random loss: [Config.Loss] drops packets independently (in the burst
//     chain's Good state).
//   - Duplication: [Config.Duplicate] delivers some packets twice.
//   - Latency and jitter: [Config.Latency] and [Config.Jitter] delay each
//     packet by a uniformly spread amount.
//   - Reordering: [Config.Reorder] holds some packets back so that later
//     ones overtake them.
//   - Receiver suspend: [Config.Suspends] freezes the receiving side for
//     fixed windows; everything that arrives meanwhile is handed over at
//     once when it resumes.
//
// [Stats] counts what each impairment did. Separately, [DriftClock] maps
// true time to a clock that runs slightly fast or slow, for simulating a
// server whose clock drifts against the client's.
//
// # Virtual clock
//
// A Link never reads the wall clock, never sleeps and never starts goroutines.
// Time is a [time.Duration] since an epoch the caller chooses (typically the
// start of the simulation), and every call passes the current virtual time
// explicitly. The caller owns the clock and advances it as fast as it likes,
// so an hour of bad network runs in milliseconds in a unit test.
//
// Virtual time is expected to be non-decreasing. If a call passes a time
// earlier than the latest one the link has seen, the link treats it as that
// latest time: it never panics, never delivers a message before it was sent,
// and never delivers out of arrival-time order.
//
// Event-driven callers that do not tick at a fixed rate can ask
// [Link.NextDelivery] when the next message is due and jump the clock there.
//
// # Changing the network while it runs
//
// [Link.SetConfig] replaces a link's configuration between two calls, for
// a scenario that degrades the network on a script or a demo whose keys
// raise the loss: the new impairments apply to packets sent from then on,
// while packets in flight keep their arrival times, the random streams and
// the burst chain's state carry on, and the bottleneck keeps its backlog.
// [Link.Config] returns the configuration in force, to change one field of
// it. Outage and suspend windows stay on the link's virtual time.
//
// # Determinism
//
// All randomness comes from PCG generators owned by the link and seeded
// from the seed passed to [NewLink]; the package uses no global random state
// and no floating-point operations whose results vary across platforms.
// The same seed, configuration and sequence of calls (SetConfig calls
// included) therefore yield exactly the same deliveries, at exactly the
// same virtual times, on every platform.
//
// Each random impairment draws from its own random stream, and every Send
// advances every stream, whether or not the packet is lost, duplicated or
// held back. The fate of the n-th sent packet with respect to one impairment
// therefore depends only on the seed, n and that impairment's settings:
// turning Loss on does not reshuffle which packets are duplicated or how
// much jitter each gets, which makes A/B comparisons between configurations
// meaningful. The remaining impairments draw nothing: outages, suspends and
// the bandwidth cap are deterministic functions of time and size, so adding
// them never changes a random decision either.
//
// Impairments do interact where they must, and only there: a packet that
// is lost (to an outage, burst or the queue) is not delivered or
// duplicated, whatever its other draws said; in the burst chain's Bad state
// [Config.Burst]'s own loss draw replaces the Loss draw, whose result is
// ignored for that packet; and the bandwidth cap shifts arrival times (the
// drawn delay is added to the moment transmission ends, not to the send
// time). The burst chain's streams are drawn only when it is enabled; they
// feed nothing else.
//
// # Using it in a test
//
// A typical test drives a server, a link and a client from one loop:
//
//	link, err := netsim.NewLink[Snapshot](netsim.Config{
//		Latency: 80 * time.Millisecond,
//		Jitter:  15 * time.Millisecond,
//		Loss:    0.02,
//	}, 42)
//	if err != nil {
//		t.Fatal(err)
//	}
//	var inbox []netsim.Timed[Snapshot]
//	for now := time.Duration(0); now < 10*time.Second; now += 16 * time.Millisecond {
//		link.Send(now, server.Snapshot(now))
//		inbox = link.DeliverTimed(now, inbox[:0])
//		for _, d := range inbox {
//			client.Receive(d.At, d.Msg)
//		}
//		// assert on the client's interpolated state here
//	}
//	t.Log(link.Stats())
//
// Because the run is deterministic, a failing seed reproduces exactly.
// [Link.Stats] reports what the link did, so a test can also assert that the
// impairment it asked for actually happened.
//
// # Scenarios: outages, suspends and drift
//
// Scorecard scenarios script events at fixed times so that every run, and
// every configuration being compared, meets them at the same moment. A
// 300 ms blackout at 5 s and a half-second client stall at 12 s are two
// windows in the Config; a server whose clock runs 0.1 % fast can be a
// DriftClock that the test loop uses to decide when the server ticks (the
// scorecard's own harness, internal/scenario, scales time by a plain rate
// factor instead):
//
//	link, err := netsim.NewLink[Snapshot](netsim.Config{
//		Latency:  60 * time.Millisecond,
//		Jitter:   10 * time.Millisecond,
//		Burst:    burst, // from netsim.NewBurst(6, 0.02)
//		Outages:  []netsim.Window{{From: 5 * time.Second, To: 5300 * time.Millisecond}},
//		Suspends: []netsim.Window{{From: 12 * time.Second, To: 12500 * time.Millisecond}},
//	}, seed)
//	serverClock := netsim.DriftClock{PPB: 1_000_000} // 0.1 % fast
//	tick := 0
//	for now := time.Duration(0); now < 20*time.Second; now += frame {
//		// Run every server tick whose time on the server's clock has come.
//		for serverClock.TrueTime(time.Duration(tick)*tickInterval) <= now {
//			at := serverClock.TrueTime(time.Duration(tick) * tickInterval)
//			link.Send(at, server.Tick(tick)) // stamped with server time
//			tick++
//		}
//		inbox = link.DeliverTimed(now, inbox[:0])
//		...
//	}
//
// The outage loses every snapshot sent in [5 s, 5.3 s), so the scorecard
// sees how the client extrapolates through a known gap and recovers after
// it; [Stats.OutageLost] confirms how many were lost. During the suspend,
// DeliverTimed returns nothing; at 12.5 s it returns everything that arrived
// in the meantime, all stamped 12.5 s, which is what a client coming back
// from a stall (a backgrounded tab, a long GC pause, a breakpoint) finds in
// its socket. The harness may skip client frames during the window or keep
// running them; either way nothing arrives until it ends. With the drifting
// server clock, the server's tick timestamps gain 1 ms per second on the
// client's clock, which tests that the client keeps re-estimating the
// server's clock rather than measuring it once.
package netsim

// Package netsim is a seeded, deterministic network conditioner for testing
// netsmooth's client pipeline against a bad network on demand.
//
// Put a [Link] between a simulated server and the client code under test:
// the server side calls [Link.Send], the client side calls [Link.Deliver] (or
// [Link.DeliverTimed] to learn each message's exact arrival time), and the
// link applies latency, jitter, loss, reordering and duplication in between,
// as described by a [Config].
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
// # Determinism
//
// All randomness comes from PCG generators owned by the link and seeded
// from the seed passed to [NewLink]; the package uses no global random state
// and no floating-point operations whose results vary across platforms.
// The same seed, configuration and sequence of calls therefore yield exactly
// the same deliveries, at exactly the same virtual times, on every platform.
//
// Each impairment draws from its own random stream, and every Send advances
// every stream, whether or not the packet is lost, duplicated or held back.
// The fate of the n-th sent packet with respect to one impairment therefore
// depends only on the seed, n and that impairment's settings: turning Loss on
// does not reshuffle which packets are duplicated or how much jitter each gets,
// which makes A/B comparisons between configurations meaningful.
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
package netsim

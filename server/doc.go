// Package server is the server side of netsmooth's network layer: a game
// server's network end ([Server]: QUIC and WebTransport on one UDP
// socket, a WebSocket fallback, connect tokens, joins and leaves) and the
// protocol state it keeps for every client ([Session]: delta-compressed
// snapshots, paced inputs, acknowledgements).
//
// A dedicated server links this package, the codec (package wire), the
// connect tokens (package token) and the transport, never the client
// pipeline: it does not import arche.
//
// # A server
//
//	srv, err := server.Listen(ctx, server.Config{
//		Addr:     "0.0.0.0:7777",
//		Tokens:   token.VerifierConfig{Keys: backendKeys, ProtocolID: game, Addrs: []string{"play.example.com:7777"}},
//		TickRate: 60,
//	})
//	for range ticker.C { // every 1/60 s
//		for _, ev := range srv.Events(events[:0]) {
//			switch ev.Kind {
//			case server.Join: // ev.Info.Player: who the backend says it is
//				srv.Session().Assign(ev.Client, spawnPlayer(ev)) // the server picks the entity
//			case server.Leave: // ev.Reason: left, kicked, timeout, ...
//				despawnPlayer(ev.Client)
//			}
//		}
//		for _, id := range players {
//			in, _ := srv.Session().NextInput(id, buf) // at most one a tick, paced
//			stepPlayer(id, in)
//		}
//		tick++
//		srv.Session().BeginTick(tick)
//		srv.Session().SetEntity(e) // every entity that changed
//		srv.SendSnapshots()        // each client's delta, never waiting for the network
//	}
//
// # Who gets in
//
// A client's first message, once QUIC's (or WebTransport's) encrypted
// handshake is done, is its connect token, issued by the game's backend
// for this server (package token). The server verifies it before it does
// anything else for the client: a token that is forged, expired, already
// used, for another server or another game is refused with
// wire.ReasonBadToken and the reason in words; beyond
// SessionConfig.MaxClients clients, with wire.ReasonFull. Until it is
// admitted, a client gets nothing but the handshake: QUIC validates its
// address first (a Retry, by default always) and sends at most three
// times what it received, and at most Config.MaxPending connections are
// being set up at once. A player (the token's ClientID) that connects
// again replaces its older connection.
//
// The server, never the client, decides what a client controls:
// [Session.Assign] gives it its entity, which every snapshot then names
// and carries with the input ack for the client's prediction. A
// spectator (it asked to watch, or its token allows nothing else)
// receives snapshots and controls nothing; its inputs are refused.
//
// # What a client can still do
//
// An admitted client is authenticated, not trusted. Its inputs' payloads
// are the game's to validate. NextInput paces every client to one input
// per tick on average (SessionConfig.MaxCatchUp at most in one tick, for
// a client whose inputs came late) and replays at most
// SessionConfig.MaxLostReplay lost inputs in a row, so that sending
// inputs faster, or jumping the sequence numbers, moves no entity faster.
// Every packet it sends is decoded without panicking, counted when
// refused ([ClientStats]), and none grows the server's memory beyond its
// bounds.
//
// # The session
//
// [Session] keeps, without I/O (a test drives it over a netsim.Link):
//
//   - The world: every entity's quantised state as of the current tick,
//     set with [Session.SetEntity] and [Session.Despawn] after
//     [Session.BeginTick], with the tick of each entity's latest Spawn and
//     Teleport events.
//   - Per client, what it holds after each of the last
//     SessionConfig.Wire.History ticks sent to it: the baseline tables.
//     The client acknowledges the newest tick it completely received; that
//     tick becomes the baseline of its next snapshots. Without one (first
//     contact, a client silent for that long, or a client that asked for
//     a resync) the snapshot is full. Memory: History tables of up to one
//     48-byte record per entity, per client (1.5 MB for 1000 entities at
//     the default 32).
//   - Per client, its inputs in a window of SessionConfig.InputWindow
//     sequence numbers: reordered, de-duplicated and paced, handed to the
//     simulation in order by [Session.NextInput]. The newest input applied
//     (or lost) is the ack every snapshot carries.
//   - Packet acknowledgements and the time echo (wire.Receipts), the round
//     trip, and [ClientStats].
//
// A snapshot holds a record for every entity that differs from what the
// client holds (new, changed, or carrying an event it has not received),
// a despawn for every entity it holds that is gone, and always the entity
// the client controls. Every part carries the state hash of what the
// client holds once it has them all, so that a client whose state drifted
// (a bug, a packet that was not the server's) notices and asks for a full
// snapshot instead of building on it. A [Filter] may leave changed
// entities out (interest management, lower send rates: [Every]); a
// snapshot that leaves a change out is not marked complete.
//
// # At scale
//
// With SessionConfig.Interest, each client is sent only the entities
// relevant to it: those within the radius of its [View] (with hysteresis,
// found through a uniform grid), those a rule or [Session.SetAlways]
// makes relevant, and its own. An entity entering is sent as a Spawn, one
// leaving as a Despawn. With SessionConfig.Budget, each client's
// snapshots fit a number of bytes a second: entities are chosen by
// priority (importance, by default nearness, accumulated while they
// wait), so far ones are sent less often and none waits longer than
// MaxInterval while the budget can carry them all that often; whatever a
// client acknowledges, it is sent no more than its budget beyond a burst.
// The client draws the rarely sent ones later, by their own lag,
// smoothly.
//
// # Lag compensation
//
// With SessionConfig.History, the session records the pose of every
// entity with a hit shape ([Session.SetShape]) each tick for a window (1 s
// by default). Every input of a client that calls client.Session.SetDrawn
// carries what the client drew when it made the input ([Input].Drawn):
// [Session.Rewind] turns that into the time each entity is judged at,
// within what the server believes of the client's delay, and
// [Session.Raycast], [Session.Overlap] and [Session.Pose] test the shapes
// there. Judge a tick's shots after setting its world, as the example of
// Session.Rewind does.
//
// # Concurrency and cost
//
// A Server and a Session are safe for concurrent use: the connections'
// goroutines hand packets to the Session while the tick goroutine runs
// the rest; every Session method takes one lock. Snapshot, Receive and
// NextInput do not allocate in steady state. SendSnapshots queues each
// client's packets without waiting for the network; a client whose link
// is slower than its snapshots loses the oldest ones queued, as it would
// at a congested router.
package server

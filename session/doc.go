// Package session is the server side of netsmooth's protocol: what a game
// server keeps per client to send it delta-compressed snapshots and to take
// its inputs, on top of the codec in package wire. It does no I/O: it
// produces snapshot packets and consumes input packets as byte slices, so
// any transport (UDP, WebSocket, a test's netsim.Link) carries them.
//
// # What it keeps
//
// The world: every entity's quantised state as of the current tick, set by
// the simulation with [Server.SetEntity] and [Server.Despawn] after
// [Server.BeginTick], with the tick of each entity's latest Spawn and
// Teleport events.
//
// Per client ([Server.Connect]):
//
//   - What the client holds after each of the last Config.Wire.History
//     ticks sent to it, if it received that tick: the baseline tables. The
//     client acknowledges the newest tick it completely received in every
//     input packet; that tick becomes the baseline of its next snapshots.
//     When the client has acknowledged nothing yet, or its last
//     acknowledgement is older than every table kept (it fell silent), the
//     snapshot is full. Memory: History tables of up to one 48-byte record
//     per entity, per client (1.5 MB for 1000 entities at the default 32).
//   - Its inputs, in a window of Config.InputWindow sequence numbers:
//     reordered, de-duplicated (a client repeats its unacknowledged inputs
//     in every packet), and handed to the simulation in order by
//     [Server.NextInput], which reports an input that never arrived before
//     a later one did as lost. The newest input applied (or lost) is the
//     ack every snapshot carries.
//   - The entity it controls: the one the server gave it with
//     [Server.Assign], or, until the server assigns one, the NetID its
//     input packets name (the server then takes the client's word for
//     it).
//   - Packet acknowledgements and the time echo for the headers
//     ([wire.Receipts]), the round-trip time, and [Stats].
//
// # A tick
//
//	srv.Receive(id, packet, nowMs)     // from the transport, any goroutine, any time
//
//	in, _ := srv.NextInput(id, buf)   // per client, for the simulation step
//	srv.BeginTick(tick)
//	srv.SetEntity(e)                  // for every entity that changed
//	srv.Despawn(netID)                // for every entity gone
//	packets, _ = srv.Snapshot(id, nowMs, packets[:0]) // per client: send them
//
// # What a snapshot holds
//
// A record for every entity that differs from what the client holds (new,
// changed, or carrying a Spawn or Teleport event the client has not
// received), a despawn for every entity it holds that the world no longer
// has and for every entity that died after the tick it acknowledged (it
// may know one from a tick it received only in part: the server remembers
// recent despawns until every client has acknowledged a later tick), and
// always the entity the client controls, so that each snapshot carries
// that entity's authoritative state together with the input ack. A
// [Filter] may leave changed entities out (interest management, lower
// send rates for far entities: [Every]); so may the packet limit
// (Config.Wire.MaxParts). The snapshot is marked complete only when
// nothing changed was left out: then the client may take every entity not
// named as unchanged. An entity left out stays
// changed and is offered again next tick.
//
// Events reach every client exactly once, at the first record of the
// entity it receives after them: a Teleport whose snapshot was lost is
// sent again with the next one, until a snapshot carrying it is
// acknowledged.
//
// # Who controls what
//
// By default the client names the entity it controls in every input
// packet and the server believes it: fine for a trusted client or a demo,
// not for a game whose players must not take over each other's entities.
// [Server.Assign] makes it the server's decision: every snapshot then names
// the assigned NetID (wire.SnapshotInfo.Controlled), the client's claims
// no longer change anything (a packet naming another entity is still taken
// for its inputs and acknowledgements, and counted in Stats.WrongNetID),
// and Assign with NetID 0 takes the entity away. The first Assign puts the
// client under the server's authority for the rest of its connection.
// A [Client] configured with NetID 0 learns its entity from the first
// snapshot that names it, before it pushes that snapshot's entities, and
// follows every later assignment ([Client.NetID]); one configured with a
// NetID of its own uses it until the server assigns another.
//
// The client side speaks the pipeline's [components.NetID], so that its
// NetID goes straight into the predictor; the server side, which never
// touches the pipeline, speaks the wire's uint32. Both are the same 32
// bits.
//
// # Concurrency and cost
//
// A [Server] is safe for concurrent use; every method takes one lock. A
// transport may call Receive from its receiving goroutine while the tick
// goroutine runs the rest; the Filter runs under the lock and must not
// call the Server. Snapshot, Receive and NextInput do not allocate in
// steady state (after the first History ticks of a client).
//
// # The client side
//
// [Client] is the other end, one per connection, with the same wire.Config:
// [Client.Receive] decodes each snapshot packet and pushes its entities into
// the pipeline's systems.Inbox (Kind from the record's flags; a
// systems.Complete after a complete tick), hands the client's own entity
// (its configured NetID, or the one the server assigned: [Client.NetID])
// to ClientConfig.OnOwn with the server's input ack ([Authoritative] turns
// it into the prediction's authoritative state), and notices a restarted
// server (full snapshots of ticks it already passed) to start afresh,
// forgetting the old server's assignment.
// [Client.QueueInput] (or [QueueInputs] from a predictor's outbox) and
// [Client.InputPacket] send the newest unacknowledged inputs in every
// packet, with the acked snapshot tick and the header's acks and time echo.
//
// [Client.Sync] estimates the round trip, the one-way latency and the
// server's clock offset from those same packets, with no ping protocol:
// the offset from the arrivals with the smallest round trips (Cristian's
// method), the latency as the median of arrival minus the server's send
// time, corrected by the offset. [Client.FeedLatency] gives it to the
// pipeline (ecs.Pipeline.SetLatency). Measured against netsim at 50 ms one way: within
// 2 ms (latency) and 1 ms (offset) at ±10 ms jitter after 5 s, within
// 3.5 ms and 2.5 ms at ±20 ms, within 6.5 ms and 5 ms at ±40 ms.
package session

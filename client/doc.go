// Package client is the client side of netsmooth's network layer: a game
// client's connection to its server ([Client]: QUIC natively,
// WebTransport in a browser, a WebSocket as the fallback) and the
// protocol state it keeps ([Session]), which decodes the server's
// snapshots into the pipeline's inbox and builds the input packets.
//
// # Connecting
//
// The game's backend gives the client a connect token for the server it
// picked (package token), with the server's address and, for a
// development server with a self-signed certificate, the certificate's
// hash. The client connects with it:
//
//	cli, err := client.Dial(ctx, "play.example.com:7777", client.Config{
//		Token:   tok,
//		Session: client.SessionConfig{Inbox: pipe.Inbox(), OnOwn: func(o client.Own) {
//			pred.Inbox().Push(client.Authoritative(o, stateOf(o.Entity)))
//		}},
//	})
//	// err: the server's refusal as a *transport.CloseError (a bad or
//	// expired token, a full server), or an error wrapping
//	// transport.ErrTimeout, or the certificate's.
//
// A browser build (js/wasm) uses [DialWebTransport] with the server's
// WebTransport URL, and [Handshake] over a WebSocket where WebTransport is
// missing. A spectator (Config.Spectator) receives snapshots and controls
// nothing.
//
// # A frame
//
//	for running {
//		if id := cli.Session().NetID(); me.IsZero() && id != 0 {
//			me, _ = pred.Spawn(&world, id, state{}) // the server assigned the player
//		}
//		cli.Session().FeedLatency(pipe)
//		pipe.Update(dt)
//		sent = pred.Outbox().Drain(sent)
//		client.QueueInputs(cli.Session(), sent, encodeInput)
//		cli.SendInputs() // the newest unacknowledged inputs, every packet
//		select {
//		case <-cli.Done(): // cli.Err() says why: kicked, server shut down, timeout
//		default:
//		}
//	}
//
// # The session
//
// [Session.Receive] decodes each snapshot packet and pushes its entities
// into the pipeline's systems.Inbox (Kind from the record's events; a
// systems.Complete after a complete tick), hands the record of the entity
// the server assigned the client ([Session.NetID]) to
// SessionConfig.OnOwn with the server's input ack ([Authoritative] turns
// it into the prediction's authoritative state), and notices a restarted
// server (full snapshots of ticks it already passed) to start afresh.
// [Session.QueueInput] (or [QueueInputs] from a predictor's outbox) and
// [Session.InputPacket] send the newest unacknowledged inputs in every
// packet, with the acked snapshot tick and the header's acks and time
// echo.
//
// The client trusts no packet. A sequence number far ahead of the
// server's stream is dropped before it is decoded; a time echo that is
// not the send time of a packet the client sent is not used; a tick whose
// assembled state differs from the server's (its state hash) is not built
// on, and the next input packets ask for a full snapshot until one
// arrives; parts of ticks that never complete cannot hold the decoder's
// slots. Nothing a packet says can panic the client or grow its memory
// beyond the codec's bounds (wire.Config).
//
// [Session.Sync] estimates the round trip, the one-way latency and the
// server's clock offset from those same packets, with no ping protocol:
// the offset from the arrivals with the smallest round trips (Cristian's
// method), the latency as the median of arrival minus the server's send
// time, corrected by the offset. [Session.FeedLatency] gives it to the
// pipeline's clock. How close the estimates come is measured by
// TestSyncAccuracy and recorded in DESIGN.md.
//
// For lag compensation, [Session.SetDrawn] attaches what the pipeline
// draws ([DrawnNow] of the clock's render tick, with [LateOf] for the
// entities a shot may strike) to every input queued after it, so that the
// server judges the input against exactly that (server.Session.Rewind).
//
// The client side speaks the pipeline's components.NetID; the server
// side, which never touches the pipeline, speaks the wire's uint32. Both
// are the same 32 bits.
package client

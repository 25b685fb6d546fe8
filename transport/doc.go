// Package transport carries netsmooth's protocol over UDP: a [Server]
// that owns a session.Server and one UDP socket, and a [Client] that owns
// a session.Client and a socket connected to the server, or any other
// connection that carries packets whole (a WebSocket in a browser; see
// [NewClient]). It uses the standard library only, besides netsmooth's
// packages.
//
// # Server
//
// [Listen] opens the socket (127.0.0.1 on a port the system picks, by
// default) and starts a goroutine that reads it. The first valid input
// packet from an address connects it: a new session.ClientID, up to the
// session's MaxClients (further addresses are refused and counted). A
// client silent for ServerConfig.Idle is disconnected. The game runs its
// own tick loop:
//
//	srv, err := transport.Listen(ctx, transport.ServerConfig{Addr: "127.0.0.1:7777"})
//	for range ticker.C {
//		for _, id := range srv.Clients(ids[:0]) {
//			in, _ := srv.Session().NextInput(id, buf) // the client's next input
//			...
//		}
//		srv.Session().BeginTick(tick)
//		srv.Session().SetEntity(e) // every entity that changed
//		srv.SendSnapshots()        // every client's snapshot of the tick
//	}
//
// # Client
//
// [Dial] connects a socket to the server and starts a goroutine that reads
// it: every snapshot packet goes (through ClientConfig.ImpairReceive, if
// set) to the session.Client, which pushes the entities into the
// pipeline's inbox (ClientConfig.Session.Inbox) and the controlled
// entity's records to OnOwn, both safe from that goroutine.
// The game's frame loop, on the world's goroutine:
//
//	cli, err := transport.Dial(ctx, transport.ClientConfig{Addr: addr, Session: session.ClientConfig{
//		Inbox: pipe.Inbox(), NetID: me, OnOwn: func(o session.Own) {
//			pred.Inbox().Push(session.Authoritative(o, stateOf(o.Entity)))
//		},
//	}})
//	for running {
//		cli.Session().FeedLatency(pipe)
//		pipe.Update(dt)
//		sent = pred.Outbox().Drain(sent)
//		session.QueueInputs(cli.Session(), sent, encode)
//		cli.SendInputs()
//	}
//
// The client learns the round trip, the one-way latency and the server's
// clock from the headers of the packets both ways (session.Client.Sync,
// ServerTick), and notices a restarted server by itself
// (session.Client.Receive): nothing to do but keep sending.
//
// # Impairment
//
// ServerConfig.Impair and ClientConfig.Impair put an [Impairment], a
// netsim.Link with a seed, in front of everything the end sends, on the
// wall clock: a packet sent at time t since the endpoint started enters
// the link at t; a goroutine sleeps until the link's next delivery time
// and writes every packet due then. Latency, jitter, loss, duplication,
// reordering, bandwidth and outages apply as netsim describes, to within
// the timer's resolution (about a millisecond); Outages and Suspends
// windows count from Dial or Listen. Its decisions follow the seed, but on
// the wall clock the run is not reproducible exactly (packets are sent at
// slightly different times every run).
//
// Impair impairs the sending side, so a test impairs both directions by
// setting it on both ends. A client can also model a bad downlink by
// itself: ClientConfig.ImpairReceive passes every packet the client reads
// through an Impairment of its own (seeded from Seed) before the session
// sees it, so the session stamps it with the time it comes out.
//
// The network can change while the game runs, for a demo's keys or a
// test's script: Client.SetImpair, Client.SetImpairReceive and
// Server.SetImpair take a new configuration for the packets sent from then
// on, or nil to let them pass untouched, safely while other goroutines
// send. Packets already held keep their delivery times, and the
// impairment's random streams, burst state and counters (ClientStats.Link
// and LinkReceive, ServerStats.Link) carry on; see netsim.Link.SetConfig.
//
// # Other connections
//
// A browser has no UDP. [NewClient] runs the same Client over any
// connection that carries packets whole, one per message: a [Conn] (read a
// packet, write a packet, close), such as a WebSocket. The game dials it
// and wraps it in a few lines; the Client does the rest as over UDP,
// impairments included (a reliable connection loses nothing by itself, so
// Impair and ImpairReceive are what make it lossy in a test or a demo),
// and Err reports a connection the server ended. With
// github.com/coder/websocket, which builds for js/wasm:
//
//	type wsConn struct{ c *websocket.Conn }
//
//	func (w wsConn) ReadPacket() ([]byte, error) {
//		_, b, err := w.c.Read(context.Background())
//		return b, err
//	}
//	func (w wsConn) WritePacket(b []byte) error {
//		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
//		defer cancel()
//		return w.c.Write(ctx, websocket.MessageBinary, b)
//	}
//	func (w wsConn) Close() error {
//		err := w.c.Close(websocket.StatusNormalClosure, "")
//		if errors.Is(err, net.ErrClosed) {
//			return nil // the server closed it first
//		}
//		return err
//	}
//
//	ws, _, err := websocket.Dial(ctx, "ws://127.0.0.1:8080/ws", nil)
//	cli, err := transport.NewClient(ctx, wsConn{ws}, transport.ClientConfig{Session: ...})
//
// This Close waits for the server to answer the closure, up to the
// library's 5 s timeouts when it is gone; examples/arena's wsConn bounds
// that wait to a second by cancelling the context its reads run under.
//
// The server end of such a connection drives a session.Server itself
// (Connect a client, Receive every message it sends, write it its Snapshot
// packets every tick): examples/arena serves WebSocket players beside UDP
// ones that way.
//
// [Impairment] is exported for transports of the game's own that need
// more: it needs only goroutines and timers, so it runs under js/wasm too.
//
//	down, err := transport.NewImpairment(netsim.Config{Latency: 80 * time.Millisecond}, seed,
//		func(b []byte, _ netip.AddrPort) { sess.Receive(b, now()) })
//	defer down.Close()
//	down.Send(msg, netip.AddrPort{}) // for every message read
//	cfg := down.Config()             // on a key press:
//	cfg.Loss = min(cfg.Loss+0.05, 1)
//	err = down.SetConfig(cfg)
//
// # Shutdown
//
// Close (or cancelling the context given to Listen, Dial or NewClient)
// closes the connection, stops the reading goroutine and the
// impairments', and waits for them: nothing is left running. Packets still
// held by an impairment are dropped.
package transport

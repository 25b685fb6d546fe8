// Package arenanet is the arena's game without a screen: the rules both
// ends know (the bots' paths, the players' movement, the inputs' wire
// form), the server (bots and players, UDP and WebSocket clients on one
// session.Server, the server assigning every client its player, the
// browser build served over HTTP) and the client (netsmooth's pipeline
// with a predicted player, over UDP or WebSocket through a simulated
// network that can change while it runs, with trails and the numbers the
// overlay shows). The arena command draws it with Ebitengine; the tests
// here play it headless, and drive the browser build in Chromium.
//
// A client's loop:
//
//	c, err := arenanet.Connect(ctx, arenanet.DefaultSettings(), "127.0.0.1:7777", "", seed)
//	for running {
//		c.Step(dt, stick)       // the pipeline, the prediction, the inputs out
//		c.EachRemote(draw)      // the bots and the other players
//		drawn, server, ok := c.Player()
//	}
//
// Everything a Client does runs on the caller's goroutine except the
// network's, which the session and transport packages make safe.
//
// The server has no TLS of its own: on the internet, serve it from
// behind a TLS-terminating reverse proxy that forwards WebSocket upgrades
// and keeps the Host header (the hub accepts same-origin pages only). The
// browser build joins with wss:// when its page came over HTTPS.
package arenanet

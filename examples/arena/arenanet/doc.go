// Package arenanet is the arena's game without a screen:
//
//   - the rules both ends know (Rules: the world's size, the bots'
//     paths, the players' movement, the view radius and the budget; the
//     server announces them in its tickets) and the inputs' wire form;
//   - the server: bots and players on a server.Server, desktop clients
//     over QUIC and browsers over WebTransport on one UDP port, browsers
//     without WebTransport over a WebSocket on the HTTP server that also
//     serves the browser build and the development backend's tickets.
//     It assigns every client its player when it joins, and sends each
//     client the entities around its player (interest management) within
//     its budget, or every entity when the client asks (key N). It keeps
//     the bots' history and judges each shot a client fires against the
//     bots as that client drew them (lag compensation: the client sends
//     what it drew with its inputs), or against its present when the
//     client asks (key C), treating the shot as the client's claim: at
//     most one every ShotEvery ticks, from where its player is;
//   - the client: netsmooth's pipeline with a predicted player, over QUIC,
//     WebTransport or a WebSocket through a simulated network that can
//     change while it runs, with trails and the numbers the overlay shows
//     (what it holds, what it receives against its budget, its shots
//     claimed and confirmed).
//
// The arena command draws it with Ebitengine; the tests here play it
// headless, and drive the browser build in Chromium.
//
// Every client joins with a connect token. The server's development
// backend (internal/devauth) makes a signing key at start and hands out
// tickets, JSON on its HTTP server at TicketPath: the server's address,
// its WebTransport and WebSocket endpoints, the hash of its self-signed
// certificate (which clients trust by that hash), a fresh token, and the
// arena's Rules (Ticket). A real game's backend authenticates the player
// first, over HTTPS.
//
// A client's loop:
//
//	c, err := arenanet.Join(ctx, arenanet.DefaultSettings(), "http://127.0.0.1:8080/ticket", arenanet.QUIC, "", seed)
//	for running {
//		c.Step(dt, stick)       // the pipeline, the prediction, the inputs out
//		c.EachRemote(draw)      // the bots and the other players
//		drawn, server, ok := c.Player()
//	}
//
// Everything a Client does runs on the caller's goroutine except the
// network's, which the client and transport packages make safe.
//
// On the internet, serve the HTTP server from behind a TLS-terminating
// reverse proxy that forwards WebSocket upgrades and keeps the Host
// header (the WebSocket endpoint accepts same-origin pages only); the
// browser build joins the WebSocket with wss:// when its page came over
// HTTPS. QUIC and WebTransport carry their own TLS: give the server a
// certificate for its public name instead of the self-signed one.
package arenanet

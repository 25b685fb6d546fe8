// Package token implements netsmooth's connect tokens: short-lived, signed,
// single-use credentials with which a game backend admits one client to one
// game server, in the model of netcode.io's connect tokens. It depends on
// the standard library only, and uses no cryptography of its own making:
// Ed25519 signatures (crypto/ed25519) and AES-256-GCM (crypto/aes,
// crypto/cipher).
//
// A token names the server addresses it is valid for, the player's identity
// in the backend (ClientID), the game it is for (ProtocolID), when it was
// issued and when it expires, whether the player may only spectate, and
// optional user data: public, or private (encrypted for the game servers).
//
//	// Backend, once:
//	is, _ := token.NewIssuer(token.IssuerConfig{SigningKey: priv, KeyID: 1, ProtocolID: game})
//	// Backend, per player, after matchmaking picked a server:
//	tok, err := is.Issue(token.Request{ClientID: accountID, Servers: []string{addr}})
//	// ...return addr and token.EncodeString(tok) to the client over HTTPS.
//
//	// Game server, once:
//	v, _ := token.NewVerifier(token.VerifierConfig{Keys: map[uint32]ed25519.PublicKey{1: pub},
//		ProtocolID: game, Addrs: []string{myPublicAddr}})
//	// Game server, per connection, on the client's first message:
//	t, err := v.Verify(firstMessage, time.Now())
//	// err != nil: log err, tell the client a short reason, close.
//	// else: admit t.ClientID, assign it a NetID, honour t.Spectator.
//
// A server that may still refuse a client with a valid token (full)
// verifies in two steps instead, Check and then Record once the client
// has a place, so that the refusal does not spend the token; package
// server does.
//
// # Trust model
//
// The backend (the service that authenticates players and runs
// matchmaking) holds the Ed25519 private key and is the only party that
// issues tokens. Game servers hold only the public key(s): they verify
// tokens but cannot mint them, so a compromised game server, or a leaked
// server image or config, does not let anyone into other servers. Clients
// are untrusted: everything a client can do to a token (alter any byte,
// truncate it, replay it, present it to another server, another game or
// later) is refused.
//
// A token is a bearer credential: whoever presents it first is admitted.
// The package therefore relies on the transport to keep it secret: the
// backend hands it out over HTTPS, and the client sends it inside the
// encrypted transport (QUIC, WebTransport, or WebSocket over TLS), never in
// clear. Tokens are short-lived (DefaultLifetime, 30 s, from issue to
// connection; verifiers refuse any lifetime above MaxLifetime, 5 min by
// default) and single use: a verifier admits each token once and refuses it
// afterwards (ErrReplayed), from any connection.
//
// The ClientID is the backend's statement of who the player is; a server
// uses it (and the UserData) to know whom it admits, and never takes an
// identity from the client. Nor does the client choose its entity: the
// server assigns the player's NetID after admitting it (package server's
// Session.Assign). If the same ClientID arrives twice (with two tokens), a
// netsmooth server replaces the older connection unless the game allows
// duplicates (server.Config.AllowDuplicates).
//
// # How a token travels
//
//  1. The client authenticates to the backend (its account, a platform
//     ticket) over HTTPS and asks to play.
//  2. The backend picks a server (or asks a matchmaker or allocator to)
//     and issues a token naming that server's public address.
//  3. The backend returns the address and the token (text form,
//     [EncodeString]) to the client. The client may read the token's
//     public fields with [ParseUnverified], for example to know when it
//     expires; the server trusts none of that.
//  4. The client connects to the address; once the transport's encrypted
//     handshake is done, its first message carries the token.
//  5. The server verifies the token before it admits the connection:
//     before it assigns a NetID, sends any snapshot or accepts any input.
//     A refused connection is closed, with the sentinel error's short text
//     as the reason if the transport carries one.
//
// # A fleet of servers
//
// Behind a matchmaker or an allocator such as Agones, the one that picks the
// server is the one that knows its address, so it is where the token is
// issued: the backend requests an allocation (with Agones, a
// GameServerAllocation, whose status gives the picked GameServer's address
// and port), issues a token naming exactly that address and port, and
// returns both to the client. A token naming one server can be used on no
// other, so a player cannot choose a server the allocator did not give
// them.
//
// Every game server is configured with the backend's public key(s), the
// ProtocolID of the build it runs, and its own public address(es): the
// address clients dial, exactly as the allocator reports it (with Agones,
// the game server reads it from the SDK's GameServer status, address and
// port). Behind NAT or a load balancer that is the public IP or DNS name
// and the public port, not the address the process listens on; if the
// backend might write the name in one token and the IP in another, list
// both. Addresses are compared after canonicalisation, with no name
// resolution: ports as decimal numbers without leading zeros, IP addresses
// as net/netip prints them (IPv4-mapped IPv6 as IPv4, IPv6 compressed in
// lower case, no zones), host names in lower case without a trailing dot.
// A token may name up to eight servers (fallbacks, say); it can then be
// used once on each, since every server keeps its own replay cache: name
// a single server when that matters.
//
// # Key rotation
//
// Every token names its signing key with KeyID. To rotate: generate a new
// key pair with a new KeyID; add its public key to every game server's
// VerifierConfig.Keys (servers hold the old and the new); switch the
// backend's IssuerConfig to the new key; once MaxLifetime has passed,
// remove the old public key from the servers. The private data key goes
// with the KeyID: give the servers the new one under the new KeyID in
// VerifierConfig.PrivateKeys (VerifierConfig.PrivateKey serves the KeyIDs
// not listed there) before the backend switches. Keys go in config files
// with [MarshalPrivateKey] and [MarshalPublicKey] (PEM, readable by
// OpenSSL).
//
// # Replay cache
//
// A [Verifier] remembers the ID of every token it admitted until the token
// expires; expired IDs are forgotten as time passes (an expired token is
// refused before its ID is looked up). The cache is bounded by
// VerifierConfig.ReplayCapacity (65536 by default): when it holds that many
// unexpired tokens, Verify refuses new tokens with ErrBusy until some
// expire, rather than forget an unexpired ID, which would allow a replay.
// Size it above the admissions a server can see within MaxLifetime: the
// default allows 218 admissions a second, sustained, with tokens of the
// default MaxLifetime, or 2184 with tokens of the default Lifetime.
// Memory is 50 to 80 bytes per admitted, unexpired token, under 5 MB when
// the default capacity is full; it grows with use rather than being
// allocated up front.
//
// Times come from two clocks: IssuedAt and Expires from the backend's,
// Verify's now from the server's; keep both on NTP. A token issued up to
// ClockSkew in the future by the server's clock is accepted; expiry gets
// no such allowance, so a server clock ahead of the backend's by d
// shortens every token's life by d. If the time passed to Verify goes
// backwards, a token the cache may already have forgotten is refused as
// expired rather than admitted again.
//
// The cache lives in the verifier's process: servers that must share one
// token's single use between processes need one Verifier in front of them,
// or tokens that name one process each. Restarting a server forgets its
// cache: a token it admitted before the restart can be presented again
// until it expires (as with netcode.io), one more reason to keep lifetimes
// short.
//
// # What a token does not protect
//
// A stolen token can be used once, by whoever presents it first, before it
// expires: keep lifetimes short, deliver tokens over HTTPS only, send them
// only inside the encrypted transport, and never log them whole. A token
// does not bind the connection that presents it to the client that
// received it (there is no proof of possession of a client key), nor does
// it encrypt its public fields: anyone holding it reads the ClientID, the
// servers, the times and the UserData, and the length of the private data.
// A server checks the token once, at admission; what the client does later
// on the connection is the game's business. The backend's signing key is
// the keystone: with it anyone can admit anyone anywhere, so it stays on the
// backend, readable by the backend only.
//
// Verify checks the signature before the other fields, so its errors
// describe what the backend actually issued (no attacker can make a server
// log "wrong server" for a token the backend never signed). An Ed25519
// verification costs less than the encrypted handshake before it
// (BenchmarkVerify times it), so the order adds no cheap denial of
// service.
//
// # Wire format
//
// A token is at most MaxSize (2048) bytes, all integers little-endian:
//
//	offset  size  field
//	0       1     Version (1): the format's magic and version
//	1       4     KeyID
//	5       8     ProtocolID
//	13      8     ClientID
//	21      16    ID, random
//	37      8     IssuedAt, Unix seconds, 0 to 253402300799 (year 9999)
//	45      8     Expires, the same
//	53      1     flags: bit 0 Spectator; the others must be 0
//	54      1     n, the number of servers: 1 to 8
//	55            n times: length (1 byte, 1 to 255), then the address
//	        2     u, the user data's length: 0 to 512
//	        u     user data
//	        2     s, the private data's length: 0 (none), or 17 to 528
//	        s     private data sealed with AES-256-GCM: the plaintext
//	              encrypted, then its 16-byte tag; the nonce is ID[0:12],
//	              the additional data every byte before it
//	        64    Ed25519 signature of every byte before it
//
// Parsing is strict: a token of another version, with a length, count or
// time out of its limits, unknown flag bits, or bytes between its last field
// and the signature is ErrMalformed. The text form is the bytes in base64url without
// padding.
//
// Private data nonces are random 96-bit values (the first 12 bytes of the
// random ID). Under one private data key, keep below 2^32 tokens with
// private data (NIST SP 800-38D's limit for random nonces): rotate the key
// well before, for example with every signing key.
package token

// Package wire is netsmooth's wire codec: the bytes of the packets a game
// server and its clients exchange, without any I/O. It turns entity states
// into delta-compressed snapshot packets (server to client) and client
// inputs into input packets (client to server), and back, on byte slices
// that any transport carries (QUIC and WebTransport datagrams, WebSocket
// messages, a test's netsim.Link), and it defines the control messages
// that open and close a connection.
//
// It depends on nothing but the standard library and mathgl, and defines
// its own types: [Entity] mirrors the pipeline's systems.Message field for
// field, so a client converts one into the other in a few lines.
//
// # Overview
//
// Every packet starts with a [Header]: protocol magic and version, packet
// type, a sequence number, acknowledgements of the other side's packets
// (the newest received plus a 32-bit field of the ones before it) and
// timing fields from which each end measures the round trip. [Receipts]
// keeps the receiving side of that bookkeeping.
//
// Entity states travel quantised: a [Quantizer] rounds positions and
// velocities to integer steps (1/256 unit by default) and packs rotations
// with the smallest-three scheme (2 bits + 3×10 bits by default). The
// quantised form, [Record], is a fixed-size value; a [Table] holds one
// tick's records sorted by NetID; a [History] keeps the tables of the last
// few ticks (32 by default) in a fixed ring.
//
// A snapshot shows one server tick to one client. It is either full, or a
// delta against a baseline: a tick the client has acknowledged, whose table
// both ends still hold. A record is sent for an entity only if it differs
// from its baseline record, and then only the fields that differ; an entity
// the baseline holds but the tick does not gets a despawn record. The
// [Encoder] splits a tick's records over as many packets ("parts") as
// needed, each at most Config.MaxPacket bytes (1200 by default) and each
// decodable on its own. A snapshot says whether it is complete: that its
// parts together name every entity that changed since the baseline, so
// that the entities left out are unchanged. The server also tells each
// client the newest input it has applied for it, the Ack its prediction
// reconciles against, and, when the server decides which entity the client
// controls, that entity's NetID ([SnapshotInfo.Controlled]), in every
// snapshot while the assignment holds. Every part carries the state hash
// of the table the client holds once it has all of them
// ([SnapshotInfo.Hash], [Table.Hash]): a decoder that assembles another
// state (a bug, or a packet that was not the server's) does not build on
// it ([Snapshot.Diverged]) and asks for a full snapshot.
//
// A client sends [InputPacket]s: the newest tick it has completely
// received (which the server may use as baseline from then on), a request
// for a full snapshot while its state has diverged, and its last few
// inputs with consecutive sequence numbers, repeated in every packet until
// acknowledged, each an opaque payload the game encodes. It never names
// the entity it controls: the server decides that.
//
// A connection opens with the client's [Hello] (its connect token) and
// the server's [Welcome], or a [Close] refusing it with a [Reason]; a
// Close ends it later. These control messages travel on the connection's
// reliable channel, never as datagrams.
//
// # Using it
//
// Server, per client and tick (package session does this bookkeeping):
//
//	enc.Begin(hdr, wire.SnapshotInfo{Tick: t, Delta: ok, Baseline: b, InputAck: ack, HasInputAck: true,
//		Controlled: own, HasControlled: own != 0}, packets)
//	for each entity to send, in NetID order:
//		enc.Add(&cur, baseRecordOrNil, events) // or enc.Despawn(netID)
//	packets, err = enc.Finish(complete, tableHash) // the state the client then holds
//
// Client, per packet received:
//
//	s, entities, err := dec.Decode(packet, entities[:0])
//	// entities: full states at s.Tick, with Spawn/Teleport/Despawn flags
//	// s.Done && s.Complete: every entity not named is unchanged at s.Tick
//	// s.HasInputAck: the server applied inputs up to s.InputAck
//	// s.HasControlled: the server assigned this client entity s.Controlled
//	tick, ok := dec.Acked() // into the next InputPacket.AckedTick
//	resync := dec.Diverged() // into the next InputPacket.Resync
//
// A client must know these things:
//
//   - Decode returns a packet's entities at once, whether or not the other
//     parts of its tick arrive: each part is self-contained. Only
//     acknowledgement and completeness wait for all parts ([Snapshot.Done]).
//   - A delta whose baseline the decoder does not hold fails with
//     [ErrNoBaseline]: drop it. The server keeps using the baseline the
//     client last acknowledged, and falls back to a full snapshot when it no
//     longer holds it, so the stream heals by itself. Decoder and server
//     must keep the same number of ticks (Config.History).
//   - Duplicated packets fail with [ErrDuplicate]: drop them.
//   - Feed every packet's header to [Receipts] before decoding it: a
//     sequence number far ahead of the newest ([ReceiptJump]) is not the
//     peer's stream and is dropped; [SentTimes] checks that a time echo is
//     one this end sent before its round trip is used.
//   - When a Complete tick is done, Decode also returns a Despawn for every
//     entity it had reported alive that the tick no longer holds and no
//     newer tick named. This is what makes "left out means unchanged" safe
//     for the client: an entity that died while its packets were lost, or
//     whose despawn was folded into a full snapshot, is still removed.
//   - Both ends must use the same [Quantizer]; it is not sent. Version
//     mismatches fail with [ErrVersion].
//
// # Byte layout
//
// All multi-byte integers are little-endian. Varints are unsigned LEB128,
// at most 5 bytes, minimal (no trailing zero byte). Zigzag maps a signed
// difference d to (d<<1)^(d>>31), so that small magnitudes are short.
//
// Header (23 bytes, every packet):
//
//	off size field
//	  0    2 magic "NS"
//	  2    1 version (2)
//	  3    1 type: 1 snapshot, 2 input (3-5: control messages, below)
//	  4    1 flags: bit 0 ack valid, bit 1 echo valid (other bits zero)
//	  5    2 sequence number of this packet
//	  7    2 ack: newest sequence number received from the other side
//	  9    4 ack bits: bit i set = packet ack-1-i received too
//	 13    4 sender's clock when sending, ms (wraps)
//	 17    4 echo: the newest sent time received from the other side
//	 21    2 hold: ms between receiving that packet and sending this one
//
// The receiver measures RTT = now - echo - hold on its own clock. Fields
// behind an unset flag are zero.
//
// Snapshot body (after the header):
//
//	size   field
//	4      tick
//	1      flags: bit 0 complete, bit 1 input ack present, bit 2 delta,
//	       bit 3 controlled NetID present (other bits zero)
//	2      part index
//	2      part count (1..MaxParts)
//	2      record count
//	4      state hash of the tick's table, once all parts are applied
//	4      input ack: newest input sequence applied (only with bit 1)
//	varint tick - baseline, at least 1 (only with bit 2)
//	varint controlled NetID, at least 1 (only with bit 3)
//	...    records
//
// The optional fields are tick-wide: every part of a tick carries the same
// ones (a part that disagrees starts the tick's assembly afresh). The
// controlled NetID is the entity the server assigned this client; the
// server repeats it in every snapshot while the assignment holds, and a
// snapshot without bit 3 says it assigns nothing. A NetID of 0 with bit 3
// is refused: no assignment is sent as no bit.
//
// Version 2 added the state hash, the input packet's resync bit and the
// control messages, and dropped the input packet's NetID; a peer of
// another version fails every packet with [ErrVersion].
//
// Record (the reference is the entity's record in the baseline, or, when
// the baseline does not hold it or the snapshot is full, the zero record:
// position and velocity 0, identity rotation, state and epoch 0, no
// velocity, custom fields at step 0, their Min):
//
//	varint NetID - (previous record's NetID + 1); the first record: NetID
//	varint field mask:
//	       bit 0-2 position x, y, z    bit 3 rotation
//	       bit 4-6 velocity x, y, z    bit 7 state
//	       bit 8 epoch                 bit 9 HasVelocity differs from the reference
//	       bit 10 spawn   bit 11 despawn (alone: nothing follows)   bit 12 teleport
//	       bit 13 custom fields differ (Quantizer.Fields)
//	then, for each bit set, in this order:
//	       position: varint zigzag(steps - reference steps), per axis
//	       rotation: smallest-three, ceil((2+3·RotBits)/8) bytes (4 at 10 bits):
//	                 bits 0-1 index of the largest component (x, y, z, w),
//	                 then the other three in x, y, z, w order, RotBits each,
//	                 level l stands for (l - M)/(M·√2), M = 2^(RotBits-1) - 1
//	       velocity: varint zigzag(steps - reference steps), per axis
//	       state:    varint
//	       epoch:    1 byte
//	       fields:   1 byte field mask (bit i: Fields[i] differs; nonzero, only
//	                 declared fields), then per field set varint zigzag(steps -
//	                 reference steps), the short way round for a Wrap field
//
// A field is present if and only if it differs from the reference (the
// decoder refuses one that does not); differences wrap at 32 bits, so any
// change costs at most 5 bytes. NetIDs strictly increase within a tick, so
// parts are disjoint and a NetID appears once per tick. A despawn may name
// an entity the baseline does not hold (the client may know it from a tick
// it received only in part).
//
// Input body (after the header):
//
//	size   field
//	1      flags: bit 0 acked tick present, bit 1 resync (send a full
//	       snapshot: the client's state diverged)
//	4      acked tick (only with bit 0)
//	4      sequence number of the first input
//	1      input count (0..MaxInputs)
//	...    per input: varint length (0..MaxInputSize), payload bytes
//
// Control messages (no header; on a stream, each framed by a 2-byte
// big-endian length):
//
//	"NS", version, type 3 (hello):   flags (bit 0 spectator), varint token length, token (1..MaxTokenSize)
//	"NS", version, type 4 (welcome): flags (bit 0 spectator), 4 client ID, 8 tick rate (float64)
//	"NS", version, type 5 (close):   1 reason, varint message length, message (UTF-8, at most MaxCloseMessage)
//
// # Limits and errors
//
// Everything that comes from the network is bounded by [Config]: packet
// size, parts per tick, records per packet (what fits in the packet),
// entities per tick and alive at once, ticks held and under assembly,
// inputs per packet and their size, varint lengths. Decoding any bytes
// never panics; it returns an error wrapping one of [ErrTruncated],
// [ErrMagic], [ErrVersion], [ErrType], [ErrLimit], [ErrMalformed],
// [ErrNoBaseline] or [ErrDuplicate], with the field and values at fault in
// the message, and leaves the decoder and the caller's buffers as they
// were. Encoding and decoding into buffers that are reused allocate
// nothing in steady state.
//
// # Size
//
// A moving entity costs about 10 bytes in a delta (NetID gap 1, mask 1, two
// 2-byte position deltas, a 4-byte rotation; 14 with velocity), an
// unchanged one nothing, so a snapshot's size follows what moves, not what
// exists. TestBytesPerEntity measures it on the scorecard's motion at
// scale; DESIGN.md records the figures and compares them with Quake 3's
// and Source's formats.
package wire

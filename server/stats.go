package server

// ClientStats are one client's counters since it connected, and its current
// acknowledgements. Every input the client sent lands in exactly one of
// InputsReceived, InputsDuplicate, InputsLate or InputsTooEarly; every
// input the simulation needed in exactly one of InputsApplied or
// InputsLost.
type ClientStats struct {
	// Snapshots is the number of snapshots sent; FullSnapshots those sent
	// without a baseline, Incomplete those that left a change out (by the
	// Filter or for lack of parts). FullHeld counts the Snapshot calls
	// that sent nothing: the client held no baseline and had been sent a
	// full snapshot too recently for another (see Session.Snapshot).
	Snapshots, FullSnapshots, Incomplete, FullHeld uint64
	// PacketsSent and BytesSent count the snapshot packets produced.
	PacketsSent, BytesSent uint64
	// RecordsSent counts entity records sent (despawns included);
	// Deferred counts changed entities left out. Resent counts, under a
	// budget, records whose packet was lost, so that the entity was
	// queued again as if never sent.
	RecordsSent, Deferred, Resent uint64

	// PacketsReceived and BytesReceived count what Receive was given;
	// BadPackets the packets it refused, DuplicatePackets those already
	// received (or too old to matter).
	PacketsReceived, BytesReceived, BadPackets, DuplicatePackets uint64

	// InputsReceived counts inputs buffered for the first time;
	// InputsDuplicate the redundant copies of inputs already buffered or
	// applied; InputsLate the inputs that arrived after the simulation had
	// needed them and gone on without (they were counted lost);
	// InputsTooEarly the inputs further ahead than Config.InputWindow.
	InputsReceived, InputsDuplicate, InputsLate, InputsTooEarly uint64
	// InputsApplied counts inputs NextInput handed to the simulation;
	// InputsLost those it reported missing (never arrived in time);
	// InputsStarved the NextInput calls that found nothing newer to give
	// (the client is behind or silent).
	InputsApplied, InputsLost, InputsStarved uint64

	// AckedTick is the newest snapshot tick the client acknowledged, the
	// baseline of its next delta (valid with HasAckedTick).
	AckedTick    uint32
	HasAckedTick bool
	// InputAck is the newest input sequence number applied (or declared
	// lost), sent to the client in every snapshot (valid with
	// HasInputAck).
	InputAck    uint32
	HasInputAck bool
	// NetID is the entity the client controls (0 if none): the one
	// [Session.Assign] gave it.
	NetID uint32
	// Spectator says the client watches only: it controls nothing and its
	// inputs are refused.
	Spectator bool
	// InputsRefused counts the inputs a spectator sent, refused.
	InputsRefused uint64
	// InputsThrottled counts the NextInput calls that found an input ready
	// but gave none, because the client had had its inputs for the tick
	// (SessionConfig.MaxCatchUp): what a client sending more inputs than
	// ticks pass sees.
	InputsThrottled uint64
	// InputsSkipped counts, among InputsLost, the inputs skipped without
	// a step because more than SessionConfig.MaxLostReplay in a row were
	// missing.
	InputsSkipped uint64
	// Resyncs counts the client's requests for a full snapshot (its state
	// drifted from the server's).
	Resyncs uint64
	// LateAcks counts acknowledgements of ticks sent too long ago for a
	// delta against them: Wire.History ticks or more before (but less
	// than two seconds, or History ticks if longer). The client's round
	// trip is longer than History ticks, and it gets no delta; raise
	// Wire.History (on the server and its clients) above the longest
	// round trip, in ticks, to give it deltas.
	LateAcks uint64
	// SeqJumps counts packets refused because their sequence number jumped
	// further ahead than wire.MaxSeqJump.
	SeqJumps uint64
	// DrawnClamped counts the drawn times (what the client says it drew, for
	// lag compensation) older or newer than the server allows, clamped
	// (Session.Rewind).
	DrawnClamped uint64
	// LeftUntracked counts the entities that left the client's relevant
	// set, possibly held by the client, while the list of those awaiting
	// an acknowledged despawn was full (Wire.MaxEntities of them): those
	// get no despawn of their own, and the client may keep drawing them
	// until a complete tick sweeps them.
	LeftUntracked uint64
	// RTT is the latest round-trip time measured from the client's
	// packets, in ms (valid with HasRTT): measured once the client has
	// acknowledged a tick sent less than two seconds before (or
	// Wire.History ticks, if longer), and never longer than the time
	// since the newest tick it acknowledged was sent.
	RTT    uint32
	HasRTT bool
	// Relevant is how many entities are relevant to the client now, with
	// interest management (its own and the always relevant included).
	Relevant int
}

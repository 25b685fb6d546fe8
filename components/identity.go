package components

// NetID is the server's identity for a networked entity. It is what
// snapshots and lifecycle messages name; the pipeline maps it to the arche
// entity that stands for it on this client. It has 32 bits, as the wire
// codec carries it ([github.com/netsmooth/netsmooth/wire]) and as servers
// hand ids out from a counter, so one type serves the pipeline, the
// predictor and the session without a narrowing conversion.
//
// NetID 0 is reserved: it means "no entity" (a session client that has not
// been assigned its player yet, an unset field), and no entity has it. The
// pipeline refuses a message for NetID 0 and counts it
// (systems.RejectNetID), a predictor refuses to spawn one, and servers
// never assign it.
type NetID uint32

// Remote tags an entity whose state comes only from server snapshots. Remote
// entities are drawn a little in the past, interpolated between buffered
// samples.
type Remote struct{}

// Predicted tags the locally controlled entity (or entities): it is
// simulated ahead from local inputs and reconciled with the server instead of
// being interpolated. The interpolation systems skip entities with this tag.
type Predicted struct{}

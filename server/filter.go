package server

// Filter decides whether the changed entity netID is sent to client at
// tick. A server uses it for interest management (entities a client cannot
// see) and for lower send rates (far entities every few ticks). It is
// called only for entities that differ from what the client holds, never
// for the entity the client controls (always sent) nor for despawns (always
// sent), from inside [Session.Snapshot]: it must not call the Session.
//
// An entity left out stays changed, so it is asked about again next tick,
// and a snapshot that leaves out any change is not marked complete: the
// client then cannot take "not named" for "unchanged", and keeps
// extrapolating the entities it did not hear about.
type Filter func(peer ClientID, netID uint32, tick uint32) bool

// Every returns a Filter that sends entity netID to client only every
// interval(client, netID) ticks (0 and 1 mean every tick), at ticks spread
// by NetID so that the entities of one interval do not all fall on the
// same tick. interval is typically a distance band: 1 near the client's
// entity, 2 farther, 4 far away.
func Every(interval func(peer ClientID, netID uint32) uint32) Filter {
	return func(peer ClientID, netID uint32, tick uint32) bool {
		n := interval(peer, netID)
		return n <= 1 || (tick+netID)%n == 0
	}
}

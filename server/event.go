//go:build !js

package server

import (
	"fmt"

	"github.com/netsmooth/netsmooth/transport"
	"github.com/netsmooth/netsmooth/wire"
)

// EventKind says what happened to a client.
type EventKind uint8

const (
	// Join: a client was admitted (its token verified, its place taken).
	Join EventKind = iota + 1
	// Leave: a client's connection ended: it left, was kicked, fell
	// silent (ReasonTimeout), was replaced by a newer connection of the
	// same player, or the server is shutting down.
	Leave
)

// String returns the kind's name.
func (k EventKind) String() string {
	switch k {
	case Join:
		return "join"
	case Leave:
		return "leave"
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// Event is a client joining or leaving, as [Server.Events] reports it.
type Event struct {
	Kind   EventKind
	Client ClientID
	// Info is what the server knew of the client when it joined.
	Info ClientInfo
	// Reason and Message say why a client left: the one the server
	// closed its connection with, ReasonTimeout when the connection fell
	// silent, or the client's own: ReasonLeft or ReasonProtocol as it
	// gave them, any other reason it gave as ReasonLeft, with its reason
	// and text in Message (a client cannot make its leaving look like a
	// timeout, a kick or a shutdown).
	Reason  wire.Reason
	Message string
	// Stats and Conn are a leaving client's final counters: its
	// session's and its connection's (zero for a join).
	Stats ClientStats
	Conn  transport.ConnStats
}

// MaxEvents bounds the events held for [Server.Events]: beyond it the
// oldest are dropped (and counted in Stats.EventsDropped), so a game that
// never asks for events does not grow the server's memory.
const MaxEvents = 1 << 14

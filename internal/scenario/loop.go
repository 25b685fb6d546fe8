package scenario

import (
	"time"

	"github.com/netsmooth/netsmooth/netsim"
	"github.com/netsmooth/netsmooth/systems"
)

// Instant is one frame of a [Loop] on virtual time.
type Instant struct {
	// Frame numbers the loop's frames from 0, suspended ones included.
	Frame int
	// T is the frame's virtual time in seconds, and Now the same time as
	// the links' clock.
	T   float64
	Now time.Duration
	// Dt is the length of the client's frame in seconds: the frame
	// interval, plus the pause when the frame ends a suspend (Resumed).
	Dt      float64
	Resumed bool
}

// Server is the simulated server of a [Loop]: it owns the truth.
type Server[P any] interface {
	// Serve runs every server tick due by the frame at f and appends the
	// packets they send to dst, in the order they are sent.
	Serve(f Instant, dst []P) []P
}

// Transport is the client's network code in a [Loop].
type Transport[P any] interface {
	// Arrive decodes the packets the link delivered by f and hands them
	// to the client. It runs every frame, suspended ones included.
	Arrive(f Instant, packets []P)
	// Depart runs after each client frame: it sends what the client
	// produced (a predicted player's inputs), if anything.
	Depart(f Instant)
}

// Meter looks at what the client drew after each frame it ran.
type Meter interface {
	Measure(f Instant)
}

// Loop is the driver of every scenario, benchmark and example scene: frame
// by frame on virtual time, the server runs the ticks due and sends their
// packets through the link; the client's transport receives what arrived,
// the client runs its frame and the meter measures it.
//
// A frame inside one of Suspends runs the network (the link holds its
// deliveries) but not the client; the first frame after a suspend covers
// the pause. Without a Link, packets arrive in the frame they are sent.
type Loop[P any] struct {
	// FPS is the client's frame rate.
	FPS       float64
	Link      *netsim.Link[P]
	Server    Server[P]
	Transport Transport[P]
	Client    Client
	// Meter, if set, measures every frame the client ran.
	Meter    Meter
	Suspends []netsim.Window

	frame         int
	skipped       float64
	sent, arrived []P
}

// Run runs the frames of seconds of virtual time (counted from the loop's
// start).
func (l *Loop[P]) Run(seconds float64) {
	for n := int(seconds * l.FPS); l.frame < n; {
		l.Step()
	}
}

// Step runs one frame and reports whether the client ran it (it did not
// while suspended). It allocates nothing beyond what its parts do.
func (l *Loop[P]) Step() bool {
	frameDt := 1 / l.FPS
	t := float64(l.frame) * frameDt
	f := Instant{Frame: l.frame, T: t, Now: time.Duration(t * float64(time.Second))}
	l.frame++
	l.sent = l.Server.Serve(f, l.sent[:0])
	arrived := l.sent
	if l.Link != nil {
		for _, p := range l.sent {
			l.Link.Send(f.Now, p)
		}
		l.arrived = l.Link.Deliver(f.Now, l.arrived[:0])
		arrived = l.arrived
	}
	l.Transport.Arrive(f, arrived)
	if within(l.Suspends, f.Now) {
		l.skipped += frameDt
		return false
	}
	f.Dt, f.Resumed = frameDt+l.skipped, l.skipped > 0
	l.skipped = 0
	l.Client.Frame(f.Dt)
	l.Transport.Depart(f)
	if l.Meter != nil {
		l.Meter.Measure(f)
	}
	return true
}

// within reports whether now lies in one of the windows.
func within(windows []netsim.Window, now time.Duration) bool {
	for _, w := range windows {
		if now >= w.From && now < w.To {
			return true
		}
	}
	return false
}

// Batches is the [Transport] of packets that are batches of messages: it
// hands each to Client as it arrives, and sends nothing back.
type Batches struct{ Client Client }

// Arrive implements [Transport].
func (b Batches) Arrive(_ Instant, packets [][]systems.Message) {
	for _, p := range packets {
		b.Client.Receive(p)
	}
}

// Depart implements [Transport].
func (Batches) Depart(Instant) {}

package systems

import "github.com/mlange-42/arche/ecs"

// holdFuture is how long, in seconds of frames, Receive holds a message
// whose tick lies ahead of the estimated server time before it rejects
// it (see ReceiveConfig.MaxFuture).
const holdFuture = 2.0

// maxHeld bounds the messages Receive holds for later frames: about
// 640 KB. Beyond it, future-dated messages are rejected at once.
const maxHeld = 8192

// futureHold keeps the messages Receive found future-dated but close
// enough ahead that its clock, not the server, is likely wrong: a client
// whose frames undercounted the time (a fixed step under load) draws
// behind the server, and the clock re-anchors within a second or two.
// Each is retried at the start of every frame, before the frame's new
// messages, so that arrival order is kept.
type futureHold struct {
	msgs     []heldMessage
	spare    []heldMessage // the other buffer, swapped in to retry
	elapsed  float64       // seconds of frames since the Receive started
	retrying bool          // handle is retrying a held message
	since    float64       // when the message being retried was first held
}

// heldMessage is a held message and the elapsed time it was first held at.
type heldMessage struct {
	msg   Message
	since float64
}

// refuseFuture deals with msg, whose tick lies beyond this frame's
// limit: it holds it if it lies within MaxFuture more, has been held for
// less than holdFuture and the hold has room, and rejects it otherwise.
// The clock hears of it once, when it first arrives: a held message
// retried every frame is not new evidence of where the server is.
func (r *Receive) refuseFuture(msg *Message) {
	h := &r.hold
	since := h.elapsed
	if h.retrying {
		since = h.since
	} else {
		r.arrivals.refusedFuture(msg.Tick)
	}
	if float64(msg.Tick) <= r.futureLimit+r.maxFuture && h.elapsed-since < holdFuture && len(h.msgs) < maxHeld {
		h.msgs = append(h.msgs, heldMessage{msg: *msg, since: since})
		return
	}
	r.metrics.reject(RejectFuture)
}

// retryHeld moves the frame's clock on and applies the held messages
// again, through the general path; those still ahead are held again (or
// rejected once they have waited holdFuture). Their outcomes are not told
// to the arrival log: their arrival times are long past.
func (r *Receive) retryHeld(w *ecs.World) {
	h := &r.hold
	h.elapsed += r.frame.Dt
	if len(h.msgs) == 0 {
		return
	}
	retry := h.msgs
	h.msgs, h.spare = h.spare[:0], nil
	h.retrying = true
	r.at = 0
	for i := range retry {
		h.since = retry[i].since
		r.handle(w, &retry[i].msg)
	}
	h.retrying = false
	clear(retry)
	h.spare = retry[:0]
}

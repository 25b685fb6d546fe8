// Package systems holds netsmooth's ordered per-frame systems and the world
// resources they share.
//
// # Systems, in frame order
//
//  1. [Receive]: advance the clock, drain the [Inbox], map NetIDs to
//     entities, buffer samples by tick, reject and count bad ones, move the
//     render time, apply due despawns.
//  2. [Reconcile] (predicted entities): apply authoritative states by
//     replaying unacknowledged inputs; smooth or hard-cut the difference.
//  3. [Predict] (predicted entities): run the frame's fixed prediction ticks
//     and draw between the last two. Reconcile and Predict come in pairs
//     from a [Predictor], generic over the game's state and input types.
//  4. [Interpolate]: draw remote entities at the render time (lerp, nlerp,
//     discrete state switch, epoch boundaries, extrapolation policy).
//  5. [Smooth]: decay visual corrections and draw target + correction.
//  6. [Snap]: draw the target outright on teleports and oversized
//     corrections.
//
// Every system has the arche-model shape Initialize / Update / Finalize
// taking the *ecs.World, with no dt argument: the frame's dt is in the
// [Frame] resource. So they run in netsmooth's own pipeline
// (package [github.com/netsmooth/netsmooth/ecs]) or one by one, in order,
// in an arche-model Model.
//
// # Resources
//
// The systems find their shared state as arche world resources, added by the
// pipeline: [Inbox], [Index], [Metrics], [Frame] and the
// [github.com/netsmooth/netsmooth/timeline.Clock]. A [Predictor] keeps its
// own [AuthInbox] and [InputOutbox], typed by the game's state and input.
//
// # Cost
//
// Per entity per frame, no system allocates, calls through an interface or
// looks anything up in a map. Receive touches an entity only when a message
// names it; Interpolate reads the small hot span component and goes back to
// the ring only when the render time crosses a sample; Smooth and Snap skip
// their loops entirely on frames with nothing to correct.
package systems

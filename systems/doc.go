// Package systems holds netsmooth's ordered per-frame systems and the world
// resources they share.
//
// # Systems, in frame order
//
//  1. [Receive]: drain the [Inbox], map NetIDs to entities, buffer samples
//     by tick, schedule despawns, reject and count bad messages, and record
//     the ticks the frame's messages carry.
//  2. [Timeline]: advance the [github.com/netsmooth/netsmooth/timeline.Clock]
//     by the frame's dt and the arrivals, moving the render time.
//  3. [Retire]: remove the entities whose despawn tick the render time
//     has reached.
//  4. [Reconcile] (predicted entities): apply authoritative states by
//     replaying unacknowledged inputs; smooth or hard-cut the difference.
//  5. [Predict] (predicted entities): run the frame's fixed prediction ticks
//     and draw between the last two. Reconcile and Predict come in pairs
//     from a [Predictor], generic over the game's state and input types.
//  6. [Interpolate]: draw remote entities at the render time (lerp, nlerp,
//     discrete state switch, epoch boundaries, extrapolation policy).
//  7. [Snap]: drop the correction of entities that crossed a teleport or
//     whose correction is too long to glide, so they are drawn at target.
//  8. [Smooth]: decay visual corrections and draw target + correction.
//
// Each system owns its state and decisions: systems share data only
// through components (the [components.Span] with its arrival contract,
// [components.Render] and its flags, [components.Correction]) and through
// resources made for the purpose: [Frame], and three the systems keep to
// themselves (the frame's arrivals, for Timeline; the despawns due, for
// Retire; what Snap and Smooth have to do this frame), which the first
// system that needs each adds to the world. [Metrics] is a dashboard for
// the game; no system reads it to decide anything.
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
// the ring only when the render time crosses a sample; Smooth returns at
// once on frames where nothing drawn has a correction,
// and Snap on frames where nothing drawn crossed a teleport or corrects
// farther than its distance.
//
// # More than one core
//
// Interpolate, the largest per-frame cost, can split the remote entities
// over several goroutines (InterpolateConfig.Workers, from ParallelMin
// entities), drawing exactly what one goroutine draws; Receive can store a
// frame's snapshots on several goroutines, a share of the NetIDs each
// (ReceiveConfig.Workers, from ParallelMin messages), storing exactly
// what one goroutine stores as long as OnSpawn leaves other remote
// entities alone (see ReceiveConfig.OnSpawn). Both create and remove
// entities, and make arche's queries, on the world's goroutine only; their
// other goroutines write only the components of the entities they were
// handed. The other systems run on the world's goroutine.
package systems

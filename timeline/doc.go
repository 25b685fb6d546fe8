// Package timeline keeps a game client's view of server time: it estimates
// the server's clock from snapshot arrivals and advances a render time that
// is a little in the past, smoothly, frame by frame.
//
// # Time model
//
// Server time is counted in server ticks as float64 (fractional ticks); the
// tick rate converts to seconds. Three clocks are kept apart:
//
//   - local time: seconds since the [Clock] started, the sum of frame dts;
//   - server time as seen from arrivals: the newest tick received plus the
//     local time elapsed since, estimated as local*rate + offset, with the
//     offset smoothed over arrivals (so it includes the one-way latency);
//   - render time: server time minus the interpolation delay chosen by a
//     [DelayPolicy]. Remote entities are drawn at render time.
//
// The render time advances with local frame time, scaled by a time scale
// within [1-MaxSlowDown, 1+MaxCatchUp] that pulls it toward its target (the
// way Mirror's snapshot interpolation slews its timeline). It therefore never
// moves backwards and never jumps, except when the target is further ahead
// than ResetThreshold (a return from suspend, a stall): then it jumps to the
// target and [Clock.Resets] counts it. A target further behind than that
// (arrivals suddenly much later) makes it stand still until the target
// catches up ([Clock.Holds]); it never reverses.
//
// Ticks are uint32 and must increase over a session. If, in three frames
// with arrivals in a row, every arrival is far older than the estimate (the newest tick seen
// was an absurd outlier, or the server restarted its count), the clock
// re-anchors to the arrivals: the one case where the render time moves
// backwards, counted in [Clock.Reanchors]. A server restart is better
// handled as a new session (a new pipeline).
//
// The package has no dependency on arche; the netsmooth pipeline registers a
// [Clock] as a world resource.
package timeline

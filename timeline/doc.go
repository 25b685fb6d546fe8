// Package timeline keeps a game client's view of server time: it estimates
// the server's clock from snapshot arrivals and advances a render time that
// is a little in the past, smoothly, frame by frame.
//
// # Time model
//
// Server time is counted in server ticks as float64 (fractional ticks); the
// tick rate converts to seconds. Three clocks are kept apart:
//
//   - local time: seconds since the [Clock] started, the sum of frame dts
//     (each at most an hour);
//   - server time as seen from arrivals: local*rate + offset, where the
//     offset is the upper envelope of tick - local*rate over the arrivals of
//     the last two seconds (the fastest packets; the second largest of eight
//     time buckets, so one early-stamped packet changes nothing and old fast
//     packets expire). A frame's arrivals are weighed by tick first: a tick
//     carrying far fewer messages than the stream's ticks do moves the
//     offset only once a fuller tick confirms it, so a few entities
//     stamped early cannot pull it ahead (see bulk.go). It lags the server
//     by the fastest one-way trip;
//   - render time: server time minus the interpolation delay chosen by a
//     [DelayPolicy]. Remote entities are drawn at render time.
//
// # Delay
//
// [AdaptiveDelay], the pipeline's default, buffers what the link needs: a
// high quantile of how long the newest data has had to last before newer
// data arrived ([Stats.Wait]), measured on the stream and, when a pipeline
// reports them, on a sample of each entity's own
// arrivals, with outages left out. The delay grows at once and shrinks
// slowly. [FixedDelay] is the fixed alternative.
//
// # Moving the render time
//
// The render time advances with local frame time at a time scale pulled
// toward its target in proportion to the error (faster beyond 50 ms of
// error), between 1-MaxSlowDown and 1+MaxCatchUp, with the scale itself
// changing gradually: the usual milliseconds of noise cost an invisible
// speed change, an outage's worth is caught up within a second, never by a
// jump. It never runs past the newest tick by more than MaxAhead (the
// clamp window). It jumps forward only after a frame longer than
// ResetThreshold (a suspend or stall: nothing was drawn meanwhile), on a
// new timeline, or when more than three times ResetThreshold behind; it
// stands still ([Clock.Holds]) when the target falls further behind than
// ResetThreshold, until the target catches up.
//
// # New timelines
//
// Every arrival is evidence of where the server's clock is, including
// messages the pipeline refuses.
// When arrivals far behind the estimate, or refused as far ahead of it, are
// the majority of what arrives in three frames over at least 0.2 s, with
// their ticks moving on, the clock re-anchors to them: the newest tick was
// an outlier, the server restarted its count or wrapped, or a suspend was
// hidden. A few absurd packets never move it while a sane majority
// arrives. Going back, the render time goes back with it, the one case
// where it moves backwards. [Clock.Generation] counts new timelines, so
// that the pipeline can forget ticks held from the old one.
//
// # Tick rate
//
// Every conversion between ticks and seconds uses the pipeline's tick rate
// (ecs.Config.TickRate), which must be the server's. A wrong one refuses almost nothing, yet the render
// time cannot follow the server. The clock therefore measures the rate at
// which the server's ticks arrive ([Clock.MeasuredTickRate], the median
// slope between the least delayed arrivals of consecutive two-second
// windows, confirmed by the next pair) and reports a difference of more
// than [RateTolerance]
// ([Clock.RateMismatch]). It does not adopt the measured rate: a client
// predicting its player steps it at the configured rate too, and a
// silent switch would hide the error.
//
// The package has no dependency on arche; the netsmooth pipeline registers a
// [Clock] as a world resource.
package timeline

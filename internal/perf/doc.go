// Package perf holds what netsmooth's benchmarks run: the steady scenario
// (a server sending every entity every tick, a client drawing at 60 FPS),
// the benchmark bodies, and the implementations they compare, in the same
// run:
//
//   - [Minimum]: the true lower bound, the least work per entity that
//     draws what the pipeline draws, by hand and in the layout that work
//     needs (a hot bracket, a ring head, a cold ring), with no ECS, index,
//     validation or generality.
//   - [MinimumOnArche]: the lower bound written on arche's public API,
//     every piece of its per-entity data an arche component, drawn through
//     a query: the reference of the per-frame targets.
//   - [MinimumChecked]: the lower bound with the checks a client of an
//     untrusted server must make on every snapshot (kind, finite and
//     bounded coordinates, a unit rotation or none, a tick not too far
//     ahead), as netsmooth makes them, and nothing else: the reference of
//     ingest.
//   - [Flat]: a hand-written loop over flat slices with netsmooth's own
//     data layout and maths (ring insert, bracket refresh, lerp, nlerp),
//     with none of the ECS, index or generality: it bounds the ECS and
//     index overhead, not the work.
//   - naive ([NewNaive]): the object-per-entity [scenario.DampedBuffer], in
//     the style of a TypeScript snapshot buffer: a pointer per entity in a
//     map from NetID, a slice of snapshots sorted on every push, mathgl
//     method chains; here on netsmooth's clock, so that it draws what the
//     pipeline draws.
//
// Every implementation is a [scenario.Client], and every benchmark runs the
// [scenario.Loop] that runs the scorecard's scenarios, with the server's
// packets handed straight to the client (no network). Package bench names
// the benchmarks for go test; bench/cmd/report runs the same bodies
// through testing.Benchmark and writes BENCHMARKS.md. Every case reports
// ns/entity with b.ReportMetric; per-frame cases must report 0 allocs/op.
package perf

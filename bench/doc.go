// Package bench measures netsmooth's per-frame cost over entity counts and
// compares it, in the same run, with a lower bound, the lower bound with
// the checks every snapshot needs, and three baselines:
//
//   - [Minimum]: the true lower bound, the least work per entity that
//     draws what the pipeline draws, by hand and in the layout that work
//     needs (a hot bracket, a ring head, a cold ring), with no ECS, index,
//     validation or generality; the reference of every ratio but
//     ingest's.
//   - [MinimumChecked]: the lower bound with the checks a client of an
//     untrusted server must make on every snapshot (kind, finite and
//     bounded coordinates, a unit rotation or none, a tick not too far
//     ahead), as netsmooth makes them, and nothing else: the reference
//     of ingest, since those checks alone cost the lower bound about a
//     fifth of its ingest.
//   - [MinimumOnArche]: the lower bound with its rings kept as netsmooth
//     keeps them, as arche components found from the NetID through the
//     entity: what the ECS itself costs, before any of netsmooth's work.
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
// packets handed straight to the client (no network).
//
// Run the benchmarks with
//
//	go test ./bench -bench . -benchmem
//
// or write the report, BENCHMARKS.md and a plot, with
//
//	go run ./bench/cmd/report
//
// The benchmark bodies are exported functions of this package (so the
// report command can run them through testing.Benchmark); the *_test.go
// files only name the cases. Every case reports ns/entity with
// b.ReportMetric; per-frame cases must report 0 allocs/op.
package bench

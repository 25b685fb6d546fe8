// Package scenario measures how motion looks on a game client under a given
// network: a simulated server moves entities along known paths (the ground
// truth) and sends snapshots through a [netsim.Link]; a [Client] (netsmooth's
// pipeline, or a baseline) receives them and draws every frame; the harness
// compares what was drawn with the truth at the time the client says it is
// presenting, and reports the quality as a [Result]:
//
//   - RMS and maximum error against the ground truth at the presented time;
//   - the largest per-frame jump relative to the true per-frame motion;
//   - the share of entity-frames that ran past the newest sample (underruns);
//   - mean and 99th-percentile presentation delay (true server time now
//     minus presented time);
//   - frames in which an entity moved backwards against its true direction;
//   - recovery time after a disturbance (outage, suspend).
//
// [Standard] is the fixed, seeded set of scenarios of the scorecard
// (examples/scorecard); [Baselines] the clients it compares. [RunPredicted]
// measures a predicted local player instead.
//
// [Loop] is the one driver of that loop (server, link, transport, client,
// meter), shared with the example scenes (examples/crowd, examples/duel) and
// the benchmarks (package bench), which measure the same [Client]s.
//
// Everything runs on virtual time and is deterministic for a seed.
//
// It is netsmooth's own measuring harness, internal to the module: the
// scorecard, the example scenes and the benchmarks use it; a game does
// not.
package scenario

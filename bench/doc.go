// Package bench holds netsmooth's benchmarks: the whole frame, each
// system, ingest, churn, lifecycle and prediction, from 1k to 1M entities,
// beside a hand-written lower bound, the lower bound written on arche's
// public API, and baselines (see internal/perf, which holds them). It has
// no API; run it with
//
//	go test ./bench -bench . -benchmem
//
// or write BENCHMARKS.md and its plot with
//
//	go run ./bench/cmd/report
package bench

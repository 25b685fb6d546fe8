// Package bench holds netsmooth's benchmarks over entity counts: the cost of
// a whole pipeline frame per entity, in steady state, reported as ns/entity
// with allocations (which must be zero).
//
//	go test ./bench -bench . -benchmem
//
// The package has no non-test API; this file only documents it.
package bench

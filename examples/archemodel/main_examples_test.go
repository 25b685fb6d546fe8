package main

import "os"

// Sixty frames of three remote entities, with the systems run by an
// arche-model Model.
func Example() {
	run(60, os.Stdout)
	// Output:
	// frame  30: entity 1 at (  2.03,   9.79)
	// frame  30: entity 2 at ( -7.14,   6.99)
	// frame  30: entity 3 at ( -9.75,  -2.23)
	// frame  60: entity 1 at ( -2.91,   9.56)
	// frame  60: entity 2 at ( -9.62,   2.71)
	// frame  60: entity 3 at ( -7.48,  -6.63)
	//
	// metrics after the run:
	// frames              60
	// entities            3 (spawned 3, despawned 0)
	// messages            60 accepted, 0 rejected
	// buffer occupancy    min 16, mean 16.0, max 16 (evicted 12, replaced 0)
	// underruns           0 frames; 0 extrapolated, 0 held entity-frames
	// corrections         0 (total distance 0, max 0, active 0)
	// snaps               0 (teleports 0)
	// samples ahead       min 2, mean 2.0, max 2
	// delay               target 100.0 ms, actual 100.0 ms, presentation 100.0 ms, newest age 16.7 ms
	// clock               0 resets, 0 holds, 0 clamped frames
}

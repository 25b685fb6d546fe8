package main

import "os"

// Sixty frames of three remote entities, with the systems run by an
// arche-model Model.
func Example() {
	run(60, os.Stdout)
	// Output:
	// frame  30: entity 1 at (  1.83,   9.83)
	// frame  30: entity 2 at ( -7.28,   6.85)
	// frame  30: entity 3 at ( -9.70,  -2.43)
	// frame  60: entity 1 at ( -3.12,   9.50)
	// frame  60: entity 2 at ( -9.68,   2.50)
	// frame  60: entity 3 at ( -7.34,  -6.79)
	//
	// metrics after the run:
	// frames              60
	// entities            3 (spawned 3, despawned 0)
	// messages            60 accepted, 0 rejected
	// buffer occupancy    min 16, mean 16.0, max 16 (oldest samples dropped for newer 12, replaced 0)
	// underruns           0 frames; 0 extrapolated, 0 held entity-frames
	// corrections         0 (total distance 0, max 0, active 0)
	// snaps               0 (teleports 0)
	// samples ahead       min 2, mean 2.0, max 2
	// delay               target 71.5 ms, actual 78.0 ms, presentation 78.0 ms, newest age 16.7 ms
	// clock               0 resets, 0 holds, 0 clamped frames
	// tick rate           20/s configured; the server's not measured yet
}

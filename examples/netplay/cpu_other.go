//go:build !unix

package main

import "time"

// processCPU returns false: this system has no getrusage.
func processCPU() (time.Duration, bool) { return 0, false }

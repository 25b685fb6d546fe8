package systems_test

import (
	"bytes"
	"runtime"
	"testing"
	"time"
)

// poolWorkers counts the goroutines running a worker pool's loop, in every
// pipeline of the process: a count that other tests' goroutines (the
// runtime's, a transport's) do not disturb, as runtime.NumGoroutine's is.
func poolWorkers() int {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return bytes.Count(buf[:n], []byte("systems.(*workerPool).work("))
		}
		buf = make([]byte, 2*len(buf))
	}
}

// settledPoolWorkers collects garbage until the pools of pipelines that
// earlier tests dropped have stopped (poolWorkers is the same three times
// in a row), and returns the count.
func settledPoolWorkers() int {
	prev, same := -1, 0
	for range 200 {
		runtime.GC()
		n := poolWorkers()
		if n == prev {
			if same++; same == 2 {
				return n
			}
		} else {
			prev, same = n, 0
		}
		time.Sleep(5 * time.Millisecond)
	}
	return prev
}

// waitForPoolWorkers waits until at most want pool goroutines run,
// collecting garbage meanwhile, and fails the test if they never do.
func waitForPoolWorkers(t *testing.T, what string, want int) {
	t.Helper()
	for range 200 {
		runtime.GC()
		if poolWorkers() <= want {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s: %d pool goroutines, want at most %d", what, poolWorkers(), want)
}

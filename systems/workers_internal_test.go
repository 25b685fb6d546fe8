package systems

import (
	"bytes"
	"runtime"
	"sync/atomic"
	"testing"
)

// panickyJob is a frame's work whose shares panic on the pool's worker
// goroutines, on the calling goroutine, or on neither, and count how many
// goroutines ran them.
type panickyJob struct {
	onWorker, onCaller bool
	ran                atomic.Int32
}

type (
	workerValue string
	callerValue string
)

func (j *panickyJob) runShares() {
	j.ran.Add(1)
	buf := make([]byte, 1<<12)
	worker := bytes.Contains(buf[:runtime.Stack(buf, false)], []byte("workerPool).work("))
	switch {
	case worker && j.onWorker:
		panic(workerValue("worker"))
	case !worker && j.onCaller:
		panic(callerValue("caller"))
	}
}

// runRecovering runs job on p and returns what run panicked with.
func runRecovering(p *workerPool, job sharedWork) (v any) {
	defer func() { v = recover() }()
	p.run(job)
	return nil
}

// A share that panics on a worker goroutine panics on the caller's, once
// every goroutine is done; a share that panics on the caller's goroutine
// waits for the workers, and a worker's panic of that frame goes with it:
// the next frame runs clean.
func TestWorkerPoolRaisesPanicsOnTheCaller(t *testing.T) {
	const workers = 3
	owner := new(int)
	p := newWorkerPool(owner, workers)
	defer p.stop()
	for _, tc := range []struct {
		name               string
		onWorker, onCaller bool
		want               any
	}{
		{"none", false, false, nil},
		{"on the workers", true, false, workerValue("worker")},
		{"on the caller", false, true, callerValue("caller")},
		{"on both", true, true, callerValue("caller")},
	} {
		job := &panickyJob{onWorker: tc.onWorker, onCaller: tc.onCaller}
		if got := runRecovering(p, job); got != tc.want {
			t.Errorf("%s: run panicked with %v, want %v", tc.name, got, tc.want)
		}
		if n := job.ran.Load(); n != workers+1 {
			t.Errorf("%s: run returned after %d of %d goroutines ran their shares", tc.name, n, workers+1)
		}
		clean := &panickyJob{}
		if got := runRecovering(p, clean); got != nil {
			t.Errorf("%s: the next frame panicked with %v", tc.name, got)
		}
	}
}

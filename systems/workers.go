package systems

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// sharedWork is a frame's work that a system splits over goroutines: each
// goroutine calls runShares, which takes shares of the work from a counter
// until none is left, so that a goroutine that starts late takes fewer.
type sharedWork interface{ runShares() }

// workerPool is a system's worker goroutines: each takes a frame's work
// from its channel, runs shares of it, and reports done on wg. A system
// starts its pool with the first frame it splits and stops it in Finalize,
// or, if it is dropped without that, once the system is garbage: the
// goroutines hold the pool, never the system or its world (a frame's work
// is dropped as soon as its shares are taken).
type workerPool struct {
	jobs []chan sharedWork
	wg   sync.WaitGroup
	once sync.Once
	// panicked is what the first share to panic in a frame panicked
	// with, on a worker goroutine: run panics with it on the caller's.
	panicked atomic.Pointer[workerPanic]
}

// workerPanic holds a value a worker goroutine recovered.
type workerPanic struct{ value any }

// newWorkerPool starts n worker goroutines for owner, the system that
// hands them work: they stop once owner is garbage, if stop was not
// called before.
func newWorkerPool[T any](owner *T, n int) *workerPool {
	p := &workerPool{jobs: make([]chan sharedWork, n)}
	for i := range p.jobs {
		ch := make(chan sharedWork)
		p.jobs[i] = ch
		go p.work(ch)
	}
	runtime.AddCleanup(owner, func(p *workerPool) { p.stop() }, p)
	return p
}

// work runs the shares of the frames sent on ch until it is closed.
func (p *workerPool) work(ch chan sharedWork) {
	for job := range ch {
		p.runShares(job)
		job = nil // hold nothing between frames
	}
}

// runShares runs a worker's shares of job and reports done. A panic in
// them (a game that took a component the system needs from an entity,
// say) is recovered and kept for run to raise on the caller's goroutine,
// where the game can recover it, as it could on one goroutine.
func (p *workerPool) runShares(job sharedWork) {
	defer func() {
		if v := recover(); v != nil {
			p.panicked.CompareAndSwap(nil, &workerPanic{v})
		}
		p.wg.Done()
	}()
	job.runShares()
}

// run hands job to every worker, runs shares of it on the calling
// goroutine too, and returns when every goroutine is done with it. Handing
// it over allocates nothing. If a share panicked on a worker, run panics
// with the same value (the worker's stack is lost: the panic is raised
// here); if one panics on the calling goroutine, that panic goes on once
// the workers are done, so that nothing touches the world while the game
// recovers, and a worker's panic of the same frame is dropped with it.
func (p *workerPool) run(job sharedWork) {
	p.wg.Add(len(p.jobs))
	for _, ch := range p.jobs {
		ch <- job
	}
	ran := false
	defer func() {
		if !ran { // a share panicked on this goroutine
			p.wg.Wait()
			p.panicked.Store(nil)
		}
	}()
	job.runShares()
	ran = true
	p.wg.Wait()
	if w := p.panicked.Swap(nil); w != nil {
		panic(w.value)
	}
}

// stop ends the goroutines; only the first call does anything, and a nil
// pool (none started) has nothing to stop.
func (p *workerPool) stop() {
	if p == nil {
		return
	}
	p.once.Do(func() {
		for _, ch := range p.jobs {
			close(ch)
		}
	})
}

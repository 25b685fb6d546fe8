package systems

import (
	"runtime"
	"sync"

	"github.com/mlange-42/arche/ecs"
)

// DefaultParallelMin is the default InterpolateConfig.ParallelMin: below
// this many remote entities a frame's Interpolate stays on one goroutine
// even with Workers > 1, because handing work to another core (waking it,
// and its cache missing what this core just wrote) costs about what it
// saves. Measured on a 2-core machine, the whole frame with two workers
// against one: about 1.04× at 10k entities (with ParallelMin lowered),
// 0.96× at 20k, 0.83× at 40k, 0.77× at 100k and 0.78× at 1M (medians of
// three runs; Receive, about 40% of a frame, stays on one goroutine).
const DefaultParallelMin = 20_000

// MaxWorkers bounds InterpolateConfig.Workers.
const MaxWorkers = 64

// workerPool is Interpolate's worker goroutines: each takes passes from
// its channel and reports them done on wg. They are started by the first
// frame that splits its entities and stopped by Finalize, or, if the
// pipeline is dropped without it, once the Interpolate is garbage: the
// goroutines hold the pool, never the Interpolate or its world (a job
// carries them for the length of one pass only).
type workerPool struct {
	jobs []chan interpJob
	wg   sync.WaitGroup
	once sync.Once
}

// interpJob is one worker's share of a frame: count entities from q's
// current position, drawn by s and tallied into p.
type interpJob struct {
	s     *Interpolate
	q     *ecs.Query
	p     *interpPass
	count int
}

func (s *Interpolate) startWorkers(n int) {
	pool := &workerPool{jobs: make([]chan interpJob, n)}
	for i := range pool.jobs {
		ch := make(chan interpJob)
		pool.jobs[i] = ch
		go pool.work(ch)
	}
	s.workers = pool
	runtime.AddCleanup(s, func(p *workerPool) { p.stop() }, pool)
}

// work runs the passes sent on ch until it is closed.
func (pool *workerPool) work(ch chan interpJob) {
	for job := range ch {
		job.s.pass(job.q, job.p, job.count)
		job = interpJob{} // hold nothing between frames
		pool.wg.Done()
	}
}

// stop ends the goroutines; only the first call does anything.
func (pool *workerPool) stop() {
	pool.once.Do(func() {
		for _, ch := range pool.jobs {
			close(ch)
		}
	})
}

func (s *Interpolate) stopWorkers() {
	if s.workers != nil {
		s.workers.stop()
		s.workers = nil
	}
}

// runPasses draws every remote entity, on this goroutine alone or, with
// Workers > 1 and at least ParallelMin entities, split into Workers equal
// shares, one on this goroutine and the others on the workers. The query
// bookkeeping (creating, positioning and closing the queries, which arche
// allows on the world's goroutine only) happens here; the workers only
// iterate their share. It returns the number of passes run.
func (s *Interpolate) runPasses(w *ecs.World) int {
	q := w.Query(&s.cached)
	k := s.cfg.Workers
	n := 0
	if k > 1 {
		n = q.Count()
	}
	if k <= 1 || n < max(s.cfg.ParallelMin, k) {
		s.pass(&q, &s.passes[0], -1)
		return 1
	}
	if s.workers == nil {
		s.startWorkers(k - 1)
	}
	chunk := (n + k - 1) / k
	used := 0 // workers given a share
	for j := 1; j < k && j*chunk < n; j++ {
		used = j
	}
	s.queries[0] = q
	s.workers.wg.Add(used)
	for j := 1; j <= used; j++ {
		start := j * chunk
		s.queries[j] = w.Query(&s.cached)
		s.queries[j].Step(start + 1) // at entity index start
		s.workers.jobs[j-1] <- interpJob{s: s, q: &s.queries[j], p: &s.passes[j], count: min(chunk, n-start)}
	}
	s.queries[0].Step(1)
	s.pass(&s.queries[0], &s.passes[0], chunk)
	s.workers.wg.Wait()
	for j := 0; j <= used; j++ {
		s.queries[j].Close()
		s.queries[j] = ecs.Query{} // no reference to the world between frames
	}
	return used + 1
}

// merge adds another pass's tallies to fc.
func (fc *frameCounts) merge(o *frameCounts) {
	fc.extrapolated += o.extrapolated
	fc.held += o.held
	fc.corrections += o.corrections
	fc.teleports += o.teleports
	fc.corrected += o.corrected
	fc.maxCorrSq = max(fc.maxCorrSq, o.maxCorrSq)
	fc.aheadSum += o.aheadSum
	fc.aheadN += o.aheadN
	fc.aheadMin = min(fc.aheadMin, o.aheadMin)
	fc.aheadMax = max(fc.aheadMax, o.aheadMax)
	fc.corrDist += o.corrDist
	fc.corrMax = max(fc.corrMax, o.corrMax)
}

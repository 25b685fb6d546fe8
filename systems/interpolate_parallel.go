package systems

import "github.com/mlange-42/arche/ecs"

// DefaultParallelMin is the default InterpolateConfig.ParallelMin: below
// this many remote entities a frame's Interpolate stays on one goroutine
// even with Workers > 1, because handing work to another core (waking it,
// and its cache missing what this core just wrote) costs about what it
// saves (DESIGN.md, "Interpolate on several cores", has the measurements).
const DefaultParallelMin = 30_000

// MaxWorkers bounds InterpolateConfig.Workers and ReceiveConfig.Workers.
const MaxWorkers = 64

// chunksPerWorker and maxChunks: with workers, a frame's entities are cut
// into chunksPerWorker chunks per goroutine (at most maxChunks, each an
// arche query of its own), which the goroutines take one after another
// until none is left. A goroutine that starts late (a parked worker takes
// a while to wake) or runs slower takes fewer, instead of the frame
// waiting for it.
const (
	chunksPerWorker = 8
	maxChunks       = 32
)

func (s *Interpolate) stopWorkers() {
	s.workers.stop()
	s.workers = nil
}

// runShares implements [sharedWork]: it draws chunks until none is left.
func (s *Interpolate) runShares() { s.drawChunks() }

// runPasses draws every remote entity, on this goroutine alone or, with
// Workers > 1 and at least ParallelMin entities, in chunks that this
// goroutine and the workers take in turn. The query bookkeeping (creating,
// positioning and closing a query per chunk, which arche allows on the
// world's goroutine only) happens here; the goroutines only iterate the
// chunks they take. It returns the number of passes run: chunks, each
// with its own tallies, merged in chunk order (so the sums do not depend
// on which goroutine drew what).
func (s *Interpolate) runPasses(w *ecs.World) int {
	// The queries live in the passes, not in locals: a pass keeps a
	// pointer to its query while it draws, which would move a local to
	// the heap every frame; and each is padded away from the others, since
	// every step of a query writes to it.
	s.passes[0].q = w.Query(&s.cached)
	k := s.cfg.Workers
	n := 0
	if k > 1 {
		n = s.passes[0].q.Count()
	}
	if k <= 1 || n < max(s.cfg.ParallelMin, k) {
		s.pass(&s.passes[0].q, &s.passes[0], -1)
		s.passes[0].q = ecs.Query{}
		return 1
	}
	if s.workers == nil {
		s.workers = newWorkerPool(s, k-1)
	}
	size := (n + len(s.passes) - 1) / len(s.passes)
	chunks := (n + size - 1) / size
	s.passes[0].q.Step(1)
	for j := 1; j < chunks; j++ {
		s.passes[j].q = w.Query(&s.cached)
		s.passes[j].q.Step(j*size + 1) // at entity index j*size
	}
	s.plan = chunkPlan{entities: n, size: size, chunks: chunks}
	s.next.Store(0)
	s.workers.run(s)
	for j := range chunks {
		s.passes[j].q.Close()
		s.passes[j].q = ecs.Query{} // no reference to the world between frames
	}
	return chunks
}

// chunkPlan is how a frame's entities are cut into chunks: size entities
// each (the last one fewer).
type chunkPlan struct {
	entities, size, chunks int
}

// drawChunks takes the frame's chunks not taken yet, one at a time, and
// draws them, until none is left.
func (s *Interpolate) drawChunks() {
	for {
		j := int(s.next.Add(1)) - 1
		if j >= s.plan.chunks {
			return
		}
		s.pass(&s.passes[j].q, &s.passes[j], min(s.plan.size, s.plan.entities-j*s.plan.size))
	}
}

// merge adds another pass's tallies to fc.
func (fc *frameCounts) merge(o *frameCounts) {
	fc.extrapolated += o.extrapolated
	fc.held += o.held
	fc.corrections += o.corrections
	fc.teleports += o.teleports
	fc.corrected += o.corrected
	fc.maxCorrSq = max(fc.maxCorrSq, o.maxCorrSq)
	fc.aheads.merge(&o.aheads)
	fc.corrDist += o.corrDist
	fc.corrMax = max(fc.corrMax, o.corrMax)
}

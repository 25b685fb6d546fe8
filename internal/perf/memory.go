package perf

import (
	"runtime"
	"unsafe"

	c "github.com/netsmooth/netsmooth/components"
)

// ComponentBytes is the size of the components a remote entity carries:
// NetID, Span, Render, Correction and the RingCapacity ring slot columns,
// a Sample each (Remote is a zero-size tag).
func ComponentBytes() uintptr {
	return unsafe.Sizeof(c.NetID(0)) + unsafe.Sizeof(c.Span{}) + unsafe.Sizeof(c.Render{}) +
		unsafe.Sizeof(c.Correction{}) + c.RingCapacity*unsafe.Sizeof(c.Sample{})
}

// HeapBytesPerEntity measures the heap growth of a pipeline holding n remote
// entities with full rings, per entity: components plus arche's and the
// NetID index's own bookkeeping.
func HeapBytesPerEntity(n int) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p, s := NewPipeline(n), NewStream(n)
	warmup(p, s)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(p)
	return float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
}

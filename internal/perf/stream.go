package perf

import (
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/systems"
)

// Rates of the steady scenario: a 20 Hz server sending every entity every
// tick, a 60 Hz client.
const (
	TickRate = 20
	FPS      = 60
	// FramesPerTick is how many render frames a snapshot interval lasts.
	FramesPerTick = FPS / TickRate
)

// Stream generates the server side of the steady scenario: n entities with
// NetIDs 1..n moving along straight lines with slowly turning headings,
// with position and rotation, one snapshot per entity per tick.
type Stream struct {
	// Kind is the kind of every message: Snapshot unless set, Teleport to
	// make every entity snap each tick.
	Kind systems.Kind
	// PositionOnly sends no rotation (the zero quaternion, which stands
	// for the identity): a game that never sets rotations (top-down 2D,
	// position-only), where nothing should be spent on them.
	PositionOnly bool
	n            int
	tick         uint32
	buf          []systems.Message
}

// NewStream returns a stream of n entities starting at tick 1.
func NewStream(n int) *Stream {
	return &Stream{n: n, tick: 1, buf: make([]systems.Message, n)}
}

// Tick returns the next tick's snapshots (the slice is reused by the next
// call) and advances the tick.
func (s *Stream) Tick() []systems.Message {
	t := float32(s.tick)
	heading := float64(s.tick) * 0.05
	sin, cos := math.Sincos(heading / 2)
	rot := mgl32.Quat{W: float32(cos), V: mgl32.Vec3{0, 0, float32(sin)}}
	if s.PositionOnly {
		rot = mgl32.Quat{}
	}
	for i := range s.buf {
		fi := float32(i)
		s.buf[i] = systems.Message{
			Kind:  s.Kind,
			NetID: components.NetID(i + 1),
			Tick:  s.tick,
			Pos:   mgl32.Vec3{fi + 0.5*t, 0.25 * t, fi * 0.001},
			Rot:   rot,
		}
	}
	s.tick++
	return s.buf
}

// Current returns the tick the next call to Tick will produce.
func (s *Stream) Current() uint32 { return s.tick }

// run is one benchmark's run of the steady scenario on the [scenario.Loop]
// every scenario uses: the server's packets (a Stream's ticks) handed
// straight to the client, no network.
type run struct {
	loop scenario.Loop[[]systems.Message]
	// every is how many frames apart the server sends; next appends what
	// it sends.
	every int
	next  func(dst [][]systems.Message) [][]systems.Message
	// b, while set, has its timer stopped while the server generates
	// (generating the snapshots is not timed; receiving them is).
	b *testing.B
	// track, when set, adds the time the server takes to gen instead
	// (for benchmarks that time frames one by one).
	track bool
	gen   time.Duration
}

// newRun returns a run of client at fps frames per second, receiving the
// next tick of s every `every` frames.
func newRun(client scenario.Client, s *Stream, fps float64, every int) *run {
	r := &run{every: every, next: func(dst [][]systems.Message) [][]systems.Message { return append(dst, s.Tick()) }}
	r.loop = scenario.Loop[[]systems.Message]{FPS: fps, Server: r, Transport: scenario.Batches{Client: client}, Client: client}
	return r
}

// Serve implements [scenario.Server].
func (r *run) Serve(f scenario.Instant, dst [][]systems.Message) [][]systems.Message {
	if f.Frame%r.every != 0 {
		return dst
	}
	if r.track {
		start := time.Now()
		dst = r.next(dst)
		r.gen += time.Since(start)
		return dst
	}
	if r.b == nil {
		return r.next(dst)
	}
	r.b.StopTimer()
	dst = r.next(dst)
	r.b.StartTimer()
	return dst
}

// warmup runs enough frames of the steady scenario (60 FPS, a tick every
// third frame) to fill every ring and let buffers reach their steady size,
// and returns the run to continue.
func warmup(client scenario.Client, s *Stream) *run {
	r := newRun(client, s, FPS, FramesPerTick)
	r.frames(30 * FramesPerTick)
	return r
}

// frames runs n frames.
func (r *run) frames(n int) {
	for range n {
		r.loop.Step()
	}
}

package perf

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/mlange-42/arche/generic"
	c "github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/systems"
)

// TestMinimumAgrees: the lower bound draws what the pipeline draws on the
// steady scenario, frame by frame (position and rotation, every entity),
// so the ratios against it compare the same output.
func TestMinimumAgrees(t *testing.T) {
	t.Run("turning", func(t *testing.T) { minimumAgrees(t, false) })
	t.Run("position only", func(t *testing.T) { minimumAgrees(t, true) })
}

// minimumAgrees compares the lower bound with the pipeline on the steady
// stream, or on the stream that never sets a rotation.
func minimumAgrees(t *testing.T, positionOnly bool) {
	const n = 64
	pipe, low := NewPipeline(n), NewMinimum(n)
	rp, rl := steadyRun(pipe, n, positionOnly), steadyRun(low, n, positionOnly)
	renders := generic.NewMap1[c.Render](pipe.World())
	compared := 0
	for frame := range 60 * FramesPerTick {
		rp.frames(1)
		rl.frames(1)
		for id := c.NetID(1); id <= n; id++ {
			e, ok := pipe.Pipeline().Lookup(id)
			want, got := renders.Get(e), low.Render(id)
			if !bothDrawn(t, frame, id, ok, want, &got, "the lower bound") {
				continue
			}
			if !drawnAlike(want, &got) {
				t.Fatalf("frame %d entity %d: pipeline drew %v %v, lower bound %v %v", frame, id, want.Pos, want.Rot, got.Pos, got.Rot)
			}
			if positionOnly && got.Rot != mgl32.QuatIdent() {
				t.Fatalf("frame %d entity %d: turned %v on a stream without rotations", frame, id, got.Rot)
			}
			compared++
		}
	}
	if compared < 50*FramesPerTick*n {
		t.Fatalf("compared %d entity-frames, want most of %d", compared, 60*FramesPerTick*n)
	}
}

// bothDrawn fails t if only one of the pipeline (want, ok false if it has
// no entity id) and a lower bound (got, called who) draws entity id, but
// in the first frames, where the lower bound may lag; it reports whether
// both draw it.
func bothDrawn(t *testing.T, frame int, id c.NetID, ok bool, want *c.Render, got *c.Render, who string) bool {
	t.Helper()
	if !ok || want.Flags&c.Visible == 0 {
		if got.Flags&c.Visible != 0 && frame > 10 {
			t.Fatalf("frame %d entity %d: drawn by %s only", frame, id, who)
		}
		return false
	}
	if got.Flags&c.Visible == 0 {
		t.Fatalf("frame %d entity %d: drawn by the pipeline only", frame, id)
	}
	return true
}

// drawnAlike reports whether got is drawn as want is: within 1e-4 units,
// turned within 1e-5 of the rotations' dot product (NaN never is).
func drawnAlike(want, got *c.Render) bool {
	return got.Pos.Sub(want.Pos).Len() <= 1e-4 && got.Rot.Dot(want.Rot) >= 1-1e-5
}

// TestMinimumOnArcheAgrees: the lower bound on arche draws exactly what
// the lower bound draws, frame by frame, so the two differ only in where
// the rings are kept.
func TestMinimumOnArcheAgrees(t *testing.T) {
	for _, positionOnly := range []bool{false, true} {
		const n = 64
		low, on := NewMinimum(n), NewMinimumOnArche(n)
		rl, ro := steadyRun(low, n, positionOnly), steadyRun(on, n, positionOnly)
		drawn := 0
		for frame := range 60 * FramesPerTick {
			rl.frames(1)
			ro.frames(1)
			for id := c.NetID(1); id <= n; id++ {
				if want, got := low.Render(id), on.Render(id); got != want {
					t.Fatalf("position only %v, frame %d entity %d: lower bound drew %+v, on arche %+v", positionOnly, frame, id, want, got)
				} else if got.Flags&c.Visible != 0 {
					drawn++
				}
			}
		}
		if drawn < 50*FramesPerTick*n {
			t.Fatalf("position only %v: %d entity-frames drawn, want most of %d", positionOnly, drawn, 60*FramesPerTick*n)
		}
	}
}

// steadyRun runs impl on a steady stream of n entities of its own, at the
// benchmarks' frame rate, for the tests that compare implementations
// frame by frame.
func steadyRun(impl scenario.Client, n int, positionOnly bool) *run {
	s := NewStream(n)
	s.PositionOnly = positionOnly
	return newRun(impl, s, FPS, FramesPerTick)
}

// TestMinimumCheckedAgrees: on a stream with garbage in it (NaN, infinite
// and huge coordinates, rotations off the unit sphere, rotations too
// small to normalise, unknown kinds), the checked lower bound draws what
// the pipeline draws, frame by frame, and refuses what the pipeline
// refuses; the lower bound without checks does not. So the checks are
// part of the same output, and the checked lower bound is the least work
// that gives it on such a stream. (A refused sample can leave the render
// time past an entity's newest one for a frame or two, where the pipeline
// extrapolates and the lower bounds, made for the steady stream, hold
// still: those entity-frames, and those in which the pipeline still
// smooths out the difference, are not compared; the adaptive delay covers
// only half of a sample one entity lost, so they are about half.)
func TestMinimumCheckedAgrees(t *testing.T) {
	const n = 64
	pipe, checked, unchecked := NewPipeline(n), NewMinimumChecked(n), NewMinimum(n)
	garbled := func(impl scenario.Client) *run {
		s := NewStream(n)
		r := newRun(impl, s, FPS, FramesPerTick)
		r.next = func(dst [][]systems.Message) [][]systems.Message { return append(dst, garble(s.Tick())) }
		return r
	}
	rp, rc, ru := garbled(pipe), garbled(checked), garbled(unchecked)
	renders, spans, corrs := generic.NewMap1[c.Render](pipe.World()), generic.NewMap1[c.Span](pipe.World()), generic.NewMap1[c.Correction](pipe.World())
	compared, uncheckedOff := 0, 0
	for frame := range 60 * FramesPerTick {
		rp.frames(1)
		rc.frames(1)
		ru.frames(1)
		for id := c.NetID(1); id <= n; id++ {
			e, ok := pipe.Pipeline().Lookup(id)
			want, got := renders.Get(e), checked.Render(id)
			if !bothDrawn(t, frame, id, ok, want, &got, "the checked lower bound") {
				continue
			}
			if spans.Get(e).Mode != c.SpanLerp || !corrs.Get(e).IsZero() {
				continue // extrapolated over a refused sample, or smoothing out what that drew
			}
			if !drawnAlike(want, &got) {
				t.Fatalf("frame %d entity %d: pipeline drew %v %v, checked lower bound %v %v", frame, id, want.Pos, want.Rot, got.Pos, got.Rot)
			}
			compared++
			if u := unchecked.Render(id); !drawnAlike(want, &u) {
				uncheckedOff++
			}
		}
	}
	if compared < 20*FramesPerTick*n {
		t.Fatalf("compared %d entity-frames, want at least a third of %d", compared, 60*FramesPerTick*n)
	}
	m := pipe.Pipeline().Metrics()
	refusedByPipe := m.Rejected[systems.RejectNonFinite] + m.Rejected[systems.RejectInvalid]
	if refusedByPipe == 0 || uint64(checked.Refused()) != refusedByPipe {
		t.Fatalf("the pipeline refused %d snapshots (%v), the checked lower bound %d", refusedByPipe, m.Rejected, checked.Refused())
	}
	if uncheckedOff < compared/10 {
		t.Fatalf("the lower bound without checks drew %d of %d entity-frames away from the pipeline: the garbage should show", uncheckedOff, compared)
	}
	t.Logf("%d entity-frames agree; %d snapshots refused by both; the unchecked lower bound is off in %d", compared, refusedByPipe, uncheckedOff)
}

// TestMinimumOnArcheCheckedAgrees: the checked lower bound on arche draws
// exactly what the checked lower bound draws, and refuses the same
// snapshots, on the garbled stream.
func TestMinimumOnArcheCheckedAgrees(t *testing.T) {
	const n = 64
	checked, on := NewMinimumChecked(n), NewMinimumOnArcheChecked(n)
	garbled := func(impl scenario.Client) *run {
		s := NewStream(n)
		r := newRun(impl, s, FPS, FramesPerTick)
		r.next = func(dst [][]systems.Message) [][]systems.Message { return append(dst, garble(s.Tick())) }
		return r
	}
	rc, ro := garbled(checked), garbled(on)
	drawn := 0
	for frame := range 60 * FramesPerTick {
		rc.frames(1)
		ro.frames(1)
		for id := c.NetID(1); id <= n; id++ {
			if want, got := checked.Render(id), on.Render(id); got != want {
				t.Fatalf("frame %d entity %d: checked lower bound drew %+v, on arche %+v", frame, id, want, got)
			} else if got.Flags&c.Visible != 0 {
				drawn++
			}
		}
	}
	if drawn < 50*FramesPerTick*n {
		t.Fatalf("%d entity-frames drawn, want most of %d", drawn, 60*FramesPerTick*n)
	}
	if checked.Refused() == 0 || on.Refused() != checked.Refused() {
		t.Fatalf("refused %d on arche, %d without", on.Refused(), checked.Refused())
	}
}

// garble spoils some of a tick's snapshots, in place, with the faults the
// checks exist for, each entity at most once in five ticks (so that the
// pipeline's per-entity send interval never grows into a lag the lower
// bounds do not have).
func garble(msgs []systems.Message) []systems.Message {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for i := range msgs {
		msg := &msgs[i]
		if (int(msg.NetID)+int(msg.Tick))%5 != 0 || msg.Tick < 20 {
			continue
		}
		switch (int(msg.NetID) / 5) % 8 {
		case 0:
			msg.Pos[0] = nan
		case 1:
			msg.Vel[1] = inf
		case 2:
			msg.Pos[2] = -1e12 // beyond MaxAbs
		case 3:
			msg.Rot = mgl32.Quat{W: 2 * msg.Rot.W, V: msg.Rot.V.Mul(2)} // off the unit sphere: normalised
		case 4:
			msg.Rot = mgl32.Quat{W: 1e-30, V: mgl32.Vec3{1e-30, 0, 0}} // too small to normalise
		case 5:
			msg.Rot.V[1] = nan
		case 6:
			msg.Kind = systems.Kind(200)
		}
	}
	return msgs
}

// TestMinimumCheckedStores: what the checked lower bound stores, which the
// drawings compared above cannot show (blending normalises them): every
// stored rotation is a unit quaternion, so the rotations the garbled
// stream sends off the unit sphere were normalised as the pipeline
// normalises them; and once the clock has synced, a snapshot dated far
// beyond the estimated server time, or of another kind, is refused and
// not stored.
func TestMinimumCheckedStores(t *testing.T) {
	const n = 64
	checked := NewMinimumChecked(n)
	s := NewStream(n)
	r := newRun(checked, s, FPS, FramesPerTick)
	r.next = func(dst [][]systems.Message) [][]systems.Message { return append(dst, garble(s.Tick())) }
	r.frames(30 * FramesPerTick)
	stored := 0
	for k := range checked.slots {
		for i, smp := range checked.slots[k] {
			if smp.Tick == 0 {
				continue
			}
			stored++
			if sq := smp.Rot.Dot(smp.Rot); !(sq > 0.99999 && sq < 1.00001) {
				t.Fatalf("entity %d tick %d: stored rotation %v, squared norm %v", i+1, smp.Tick, smp.Rot, sq)
			}
		}
	}
	if stored < 10*n {
		t.Fatalf("%d samples stored", stored)
	}

	refused, newest := checked.Refused(), checked.heads[0].Newest
	far := s.Current() + 1000 // 50 s ahead: beyond MaxFuture
	bad := []systems.Message{
		{Kind: systems.Snapshot, NetID: 1, Tick: far, Rot: mgl32.QuatIdent()},
		{Kind: systems.Despawn, NetID: 1, Tick: newest + 1},
	}
	checked.Receive(bad)
	checked.Frame(1.0 / FPS)
	if got := checked.Refused() - refused; got != len(bad) {
		t.Errorf("refused %d of %d: a far-future snapshot and a despawn", got, len(bad))
	}
	if h := checked.heads[0]; h.Newest != newest {
		t.Errorf("entity 1's newest sample moved from tick %d to %d", newest, h.Newest)
	}
}

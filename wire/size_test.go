package wire

import "testing"

// TestBytesPerEntity measures the wire size of the typical case documented
// in the package overview: 1000 entities on the scorecard's circles at
// 20 Hz, 1/256 unit precision, 10-bit rotations that change every tick; a
// full snapshot, and deltas 1 to 3 ticks after their baseline in which the
// entities with an even NetID did not move. Sizes are deterministic; the
// test fails if they grow past the documented figures. Run with -v to see
// them.
func TestBytesPerEntity(t *testing.T) {
	q := DefaultQuantizer()
	enc, _ := NewEncoder(Config{})
	for _, c := range []struct {
		velocity      bool
		full, perMove float64 // documented ceilings, bytes
	}{
		{false, 14, 10.5},
		{true, 18.5, 14.5},
	} {
		base := tableOf(t, q, circleWorld(1000, 100, 20, c.velocity, false))
		parts := encodeDiff(t, enc, 100, 0, nil, base)
		full := float64(totalLen(parts)) / 1000
		t.Logf("velocity %-5v full:          %6d bytes in %2d packets: %5.2f B/entity", c.velocity, totalLen(parts), len(parts), full)
		if full > c.full {
			t.Errorf("full snapshot %.2f B/entity > %.1f", full, c.full)
		}
		for _, dist := range []uint32{1, 2, 3} {
			cur := tableOf(t, q, circleWorld(1000, 100+dist, 20, c.velocity, true))
			for i := range cur.recs {
				if cur.recs[i].NetID%2 == 0 {
					cur.recs[i] = base.recs[i]
				}
			}
			parts := encodeDiff(t, enc, 100+dist, 100, base, cur)
			n := totalLen(parts)
			moved := float64(n) / 500
			t.Logf("velocity %-5v delta %d tick(s): %6d bytes in %2d packets: %5.2f B/entity, %5.2f B/changed entity",
				c.velocity, dist, n, len(parts), float64(n)/1000, moved)
			if moved > c.perMove {
				t.Errorf("delta %d: %.2f B per changed entity > %.1f", dist, moved, c.perMove)
			}
		}
	}
	// The cost of one record of a moving entity, field by field.
	b := tableOf(t, q, circleWorld(2, 100, 20, true, false))
	c := tableOf(t, q, circleWorld(2, 103, 20, true, false))
	rec := appendRecord(nil, 0, &c.recs[1], &b.recs[1], 0, q.rotationBytes(), nil)
	t.Logf("one moving entity, 3 ticks after its baseline, with velocity: %d bytes % x", len(rec), rec)
}

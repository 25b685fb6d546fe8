package scenario

import (
	"math"
	"testing"
)

// TestPathsMoveAtTheirSpeed checks every path shape against its own
// definition: each slot moves at its speed (a frame's displacement divided
// by the frame), along its direction, and zig-zags turn every 0.7 to 1 s.
func TestPathsMoveAtTheirSpeed(t *testing.T) {
	for _, p := range []Paths{Circles, VariedCircles, ZigZags, Mixed} {
		sc := Scenario{Paths: p, Seconds: 20, Seed: 3}
		for k := 0; k < 6; k++ {
			v := sc.speed(k)
			if p != Circles && sc.shape(k) == VariedCircles && (v < 3 || v > 5) {
				t.Errorf("%v slot %d: speed %v, want 3 to 5", p, k, v)
			}
			if r, _ := sc.circle(k); sc.shape(k) == VariedCircles && (r < 10 || r > 14) {
				t.Errorf("%v slot %d: radius %v, want 10 to 14", p, k, r)
			}
			const dt = 1.0 / 600
			turns, lastTurn, prevDir := 0, 0.0, sc.direction(k, 0)
			for i := 1; i < 6000; i++ {
				t0, t1 := float64(i-1)*dt, float64(i)*dt
				d := sc.truth(k, t1).Sub(sc.truth(k, t0))
				dir := sc.direction(k, t1)
				turned := dir[1]*prevDir[1] < 0 && sc.shape(k) == ZigZags
				if turned {
					if turns > 0 && (t1-lastTurn < 0.7-2*dt || t1-lastTurn > 1+2*dt) {
						t.Errorf("%v slot %d: turned after %.3f s", p, k, t1-lastTurn)
					}
					turns, lastTurn = turns+1, t1
				}
				prevDir = dir
				if turned {
					continue // the step cuts the corner
				}
				if got := float64(d.Len()) / dt; math.Abs(got-v) > 0.02*v {
					t.Fatalf("%v slot %d at %.3f s: speed %v, want %v", p, k, t1, got, v)
				}
				if along := float64(d.Dot(dir)) / float64(d.Len()); along < 0.99 {
					t.Fatalf("%v slot %d at %.3f s: moves off its direction (cos %v)", p, k, t1, along)
				}
			}
			if sc.shape(k) == ZigZags && turns < 9 {
				t.Errorf("%v slot %d: %d turns in 10 s", p, k, turns)
			}
		}
	}
}

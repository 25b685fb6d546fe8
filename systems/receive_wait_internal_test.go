package systems

import (
	"math"
	"testing"

	c "github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/internal/clockfeed"
	"github.com/netsmooth/netsmooth/timeline"
)

// TestWaitDiscountsLossAcrossWrap: the stream delivers every tick up to
// 2^32-1, and one entity, last known at 2^32-3, lost 2^32-2 and 2^32-1
// alone before its sample at tick 1 (after the tick count wrapped; the
// whole stream lost tick 0). Those two ticks count half a send interval
// each, as they do for the same gap before the wrap: a wait of 5 ticks
// becomes 4 in both cases.
func TestWaitDiscountsLossAcrossWrap(t *testing.T) {
	const top = math.MaxUint32
	for _, tc := range []struct {
		name  string
		known uint32
	}{
		{"before the wrap", top - 10},
		{"across the wrap", top - 2},
	} {
		clk, err := clockfeed.New(20, c.RingCapacity, 1e6, timeline.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		clock := clk.(*timeline.Clock)
		feed := clockfeed.Of(clock)
		feed.BeginFrame(1.0 / 20)
		// The stream: every tick up to two after the entity's last.
		for tick := tc.known - 8; tick != tc.known+3; tick++ {
			feed.ObserveN(tick, 1)
		}
		r := &Receive{clock: clock, interval: 1, serverBefore: float64(tc.known) + 5}
		got := r.wait(&c.Span{}, tc.known, tc.known+4)
		if want := 5 - 2*partialLossCover; math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: wait %v ticks, want %v (two ticks lost alone, half an interval each)", tc.name, got, want)
		}
	}
}

package netsim

import (
	"math"
	"slices"
	"testing"
	"time"
)

// lossPattern sends n packets 1ms apart through l and returns, per packet,
// whether it was lost.
func lossPattern(t *testing.T, l *Link[pkt], n int) []bool {
	t.Helper()
	lost := make([]bool, n)
	for i := range lost {
		lost[i] = true
	}
	for _, d := range sendEvery(t, l, n, ms) {
		lost[d.Msg.id] = false
	}
	return lost
}

// runStats summarises the runs of consecutive losses in a loss pattern.
type runStats struct {
	lost    int     // packets lost
	runs    int     // maximal runs of consecutive losses
	mean    float64 // mean run length
	atLeast [9]int  // atLeast[k]: runs of length >= k
	after   float64 // P(packet lost | previous packet lost)
}

func lossRuns(lost []bool) runStats {
	var s runStats
	run, pairs := 0, 0
	end := func() {
		if run > 0 {
			s.runs++
			for k := 1; k < len(s.atLeast) && k <= run; k++ {
				s.atLeast[k]++
			}
		}
		run = 0
	}
	for i, l := range lost {
		if !l {
			end()
			continue
		}
		s.lost++
		run++
		if i > 0 && lost[i-1] {
			pairs++
		}
	}
	end()
	s.mean = float64(s.lost) / float64(s.runs)
	s.after = float64(pairs) / float64(s.lost)
	return s
}

// markovTol returns 5 standard deviations of the fraction of n packets sent
// in Bad by a stationary two-state chain: the binomial variance inflated by
// (1+λ)/(1-λ), λ = 1-Enter-Exit, for the chain's correlation.
func markovTol(b Burst, n int) float64 {
	pi := b.BadFraction()
	lambda := 1 - b.Enter - b.Exit
	return 5 * math.Sqrt(pi*(1-pi)*(1+lambda)/(1-lambda)/float64(n))
}

func TestNewBurst(t *testing.T) {
	b, err := NewBurst(8, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if b.Exit != 0.125 || math.Abs(b.Enter-0.125*0.05/0.95) > 1e-15 || b.Loss != 0 {
		t.Errorf("NewBurst(8, 0.05) = %+v, want Exit 0.125, Enter %v, Loss 0", b, 0.125*0.05/0.95)
	}
	if got := b.MeanBurst(); got != 8 {
		t.Errorf("MeanBurst = %v, want 8", got)
	}
	if got := b.BadFraction(); math.Abs(got-0.05) > 1e-15 {
		t.Errorf("BadFraction = %v, want 0.05", got)
	}
	if err := (Config{Burst: b}).Validate(); err != nil {
		t.Errorf("Config with NewBurst(8, 0.05) is invalid: %v", err)
	}
	// The extreme that is still possible: single-packet bursts half the
	// time need Enter = Exit = 1, a strict alternation.
	if b, err := NewBurst(1, 0.5); err != nil || b.Enter != 1 || b.Exit != 1 {
		t.Errorf("NewBurst(1, 0.5) = %+v, %v; want Enter = Exit = 1", b, err)
	}
	if b, err := NewBurst(4, 0); err != nil || b.Enter != 0 || b.BadFraction() != 0 {
		t.Errorf("NewBurst(4, 0) = %+v, %v; want a Burst that never enters Bad", b, err)
	}
	if got := (Burst{}).BadFraction(); got != 0 {
		t.Errorf("zero Burst BadFraction = %v, want 0", got)
	}
	bad := []struct {
		mean, frac float64
		want       string
	}{
		{0.5, 0.1, "netsim: NewBurst meanBurst must be a finite number of packets >= 1, got 0.5"},
		{math.NaN(), 0.1, "netsim: NewBurst meanBurst must be a finite number of packets >= 1, got NaN"},
		{math.Inf(1), 0.1, "netsim: NewBurst meanBurst must be a finite number of packets >= 1, got +Inf"},
		{4, 1, "netsim: NewBurst badFraction must be in [0, 1), got 1"},
		{4, -0.1, "netsim: NewBurst badFraction must be in [0, 1), got -0.1"},
		{4, math.NaN(), "netsim: NewBurst badFraction must be in [0, 1), got NaN"},
		{1, 0.6, "netsim: NewBurst badFraction 0.6 is too high for meanBurst 1: at most 0.5 (meanBurst/(meanBurst+1))"},
	}
	for _, tt := range bad {
		if _, err := NewBurst(tt.mean, tt.frac); err == nil || err.Error() != tt.want {
			t.Errorf("NewBurst(%v, %v) error = %v, want %q", tt.mean, tt.frac, err, tt.want)
		}
	}
}

func TestLinkBurstLossMatchesConfiguredRateAndLength(t *testing.T) {
	const (
		n         = 200_000
		meanBurst = 8.0
		badFrac   = 0.05
	)
	b, err := NewBurst(meanBurst, badFrac)
	if err != nil {
		t.Fatal(err)
	}
	l := newLink(t, Config{Latency: 20 * ms, Burst: b}, 17)
	lost := lossPattern(t, l, n)
	s := l.Stats()
	r := lossRuns(lost)
	if s.Lost != uint64(r.lost) || s.BurstLost != s.Lost || s.OutageLost != 0 || s.QueueDropped != 0 {
		t.Fatalf("Stats = %+v, observed %d losses; want all of them BurstLost", s, r.lost)
	}

	// Long-run loss fraction: every packet sent in Bad is lost and none in
	// Good, so it is the fraction of packets sent in Bad. With bursts of 8
	// the chain is strongly correlated: 5σ is ±0.0092 here, not the ±0.0024
	// of independent draws.
	frac := float64(r.lost) / n
	if tol := markovTol(b, n); math.Abs(frac-badFrac) > tol {
		t.Errorf("loss fraction %.4f, want %.4f ± %.4f", frac, badFrac, tol)
	}

	// Mean burst length: the Bad spells are geometric with mean 8 and
	// standard deviation sqrt(1-Exit)/Exit ≈ 7.5; there are about
	// n*badFrac/8 = 1250 of them, so the standard error of their mean is
	// about 0.21. Allow 5 standard errors.
	sd := math.Sqrt(1-b.Exit) / b.Exit
	if tol := 5 * sd / math.Sqrt(float64(r.runs)); math.Abs(r.mean-meanBurst) > tol {
		t.Errorf("mean burst length %.3f over %d bursts, want %.1f ± %.2f", r.mean, r.runs, meanBurst, tol)
	}
	t.Logf("lost %d of %d (%.4f) in %d bursts of mean length %.3f", r.lost, n, frac, r.runs, r.mean)
}

func TestLinkBurstLossIsClustered(t *testing.T) {
	const n = 200_000
	b, err := NewBurst(8, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	burst := lossRuns(lossPattern(t, newLink(t, Config{Burst: b}, 23), n))
	indep := lossRuns(lossPattern(t, newLink(t, Config{Loss: 0.05}, 23), n))
	t.Logf("burst: lost %d, %d runs, mean %.2f, P(lost|prev lost) %.3f, runs >= 1..8: %v",
		burst.lost, burst.runs, burst.mean, burst.after, burst.atLeast[1:])
	t.Logf("indep: lost %d, %d runs, mean %.2f, P(lost|prev lost) %.3f, runs >= 1..8: %v",
		indep.lost, indep.runs, indep.mean, indep.after, indep.atLeast[1:])

	// Same long-run rate (each within its own 5σ of 5 %)...
	if math.Abs(float64(burst.lost)/n-0.05) > markovTol(b, n) || math.Abs(float64(indep.lost)/n-0.05) > 5*math.Sqrt(0.05*0.95/n) {
		t.Fatalf("loss rates %d and %d of %d, want both about 5%%", burst.lost, indep.lost, n)
	}
	// ...very different structure. Independent loss: a loss follows a loss
	// with probability 0.05 and runs average 1/(1-0.05) ≈ 1.05. Burst loss:
	// a loss follows a loss with probability 1-Exit = 0.875, runs average 8.
	if indep.after > 0.07 || indep.mean > 1.1 {
		t.Errorf("independent loss: P(lost|prev lost) %.3f, mean run %.2f; want about 0.05 and 1.05", indep.after, indep.mean)
	}
	if burst.after < 0.85 || burst.mean < 6 {
		t.Errorf("burst loss: P(lost|prev lost) %.3f, mean run %.2f; want about 0.875 and 8", burst.after, burst.mean)
	}
	// Long runs: with independent loss, a run of 4 or more has probability
	// 0.05^3 per run (about 1 in 8000), so expect none or one of ~9500 runs;
	// with bursts, 0.875^3 ≈ 67 % of runs are that long (5σ over ~1250
	// runs is ±0.066).
	if indep.atLeast[4] > 5 {
		t.Errorf("independent loss produced %d runs of 4 or more", indep.atLeast[4])
	}
	if frac := float64(burst.atLeast[4]) / float64(burst.runs); frac < 0.6 || frac > 0.74 {
		t.Errorf("burst loss: %.3f of runs are 4 or longer, want about 0.67", frac)
	}
	// Fewer, longer runs for the same number of losses.
	if burst.runs*4 > indep.runs {
		t.Errorf("burst loss has %d runs, independent %d; want far fewer", burst.runs, indep.runs)
	}
}

func TestLinkBurstPartialLossAndGoodStateLoss(t *testing.T) {
	// Bad loses half its packets, Good loses 2 % (Config.Loss). In the long
	// run, Bad holds Enter/(Enter+Exit) = 1/11 of packets:
	// BurstLost ≈ n/11 * 0.5 ≈ 9091, random ≈ n*10/11 * 0.02 ≈ 3636.
	const n = 200_000
	b := Burst{Enter: 0.01, Exit: 0.1, Loss: 0.5}
	l := newLink(t, Config{Loss: 0.02, Burst: b}, 29)
	sendEvery(t, l, n, ms)
	s := l.Stats()
	pi := b.BadFraction()
	wantBurst := n * pi * 0.5
	tolBurst := n * (markovTol(b, n)*0.5 + 5*math.Sqrt(pi*0.25/n))
	if diff := float64(s.BurstLost) - wantBurst; math.Abs(diff) > tolBurst {
		t.Errorf("BurstLost %d, want %.0f ± %.0f", s.BurstLost, wantBurst, tolBurst)
	}
	random := s.Lost - s.BurstLost
	wantRandom := n * (1 - pi) * 0.02
	tolRandom := n * (markovTol(b, n)*0.02 + 5*math.Sqrt(0.02*0.98/n))
	if diff := float64(random) - wantRandom; math.Abs(diff) > tolRandom {
		t.Errorf("random losses %d, want %.0f ± %.0f", random, wantRandom, tolRandom)
	}
	t.Logf("BurstLost %d (want %.0f), random %d (want %.0f)", s.BurstLost, wantBurst, random, wantRandom)
}

func TestLinkBurstZeroValueAndExtremes(t *testing.T) {
	// The zero Burst adds nothing: outcomes equal a link without the field,
	// even with the other impairments on.
	a := runScript(t, newLink(t, chaos, 5))
	withZero := chaos
	withZero.Burst = Burst{Exit: 0.5, Loss: 1} // Enter 0: never Bad
	if b := runScript(t, newLink(t, withZero, 5)); !slices.Equal(a, b) {
		t.Error("a Burst with Enter 0 changed the link's deliveries")
	}

	// Enter 1, Exit 0: Bad from the first packet on, forever.
	l := newLink(t, Config{Burst: Burst{Enter: 1}}, 1)
	sendEvery(t, l, 100, ms)
	if s := l.Stats(); s.Lost != 100 || s.BurstLost != 100 {
		t.Errorf("always-Bad link: Stats %+v, want all 100 BurstLost", s)
	}
	// Enter 1, Exit 1: alternate Bad, Good, Bad, ... starting with Bad.
	l = newLink(t, Config{Burst: Burst{Enter: 1, Exit: 1}}, 1)
	lost := lossPattern(t, l, 100)
	for i, x := range lost {
		if x != (i%2 == 0) {
			t.Fatalf("alternating chain: packet %d lost = %v", i, x)
		}
	}
	// Burst.Loss is the loss in Bad, not a default-1 knob when set: a
	// tiny value loses almost nothing.
	l = newLink(t, Config{Burst: Burst{Enter: 1, Loss: 1e-9}}, 1)
	sendEvery(t, l, 1000, ms)
	if s := l.Stats(); s.Lost != 0 {
		t.Errorf("Bad with Loss 1e-9 lost %d of 1000", s.Lost)
	}
}

func TestLinkBurstKeepsOtherStreams(t *testing.T) {
	// Turning burst loss on changes which packets are lost and nothing
	// else: every survivor has exactly the delays and copies it had
	// without it.
	base := Config{Latency: 40 * ms, Jitter: 15 * ms, Reorder: 0.1, Duplicate: 0.05, Loss: 0.05}
	bursty := base
	bursty.Burst = Burst{Enter: 0.02, Exit: 0.2}
	delays := func(cfg Config) map[int][]time.Duration {
		m := map[int][]time.Duration{}
		for _, d := range sendEvery(t, newLink(t, cfg, 31), 5000, ms) {
			m[d.Msg.id] = append(m[d.Msg.id], d.At-d.Msg.sent)
		}
		return m
	}
	all, survivors := delays(base), delays(bursty)
	if len(survivors) >= len(all) {
		t.Fatalf("burst loss lost nothing: %d vs %d", len(survivors), len(all))
	}
	// Bad loses every packet, and Good applies the same Loss draws as
	// before, so the survivors are a subset of the burst-free survivors.
	for id, d := range survivors {
		if !slices.Equal(d, all[id]) {
			t.Fatalf("id %d: delays %v with burst loss, %v without", id, d, all[id])
		}
	}
}

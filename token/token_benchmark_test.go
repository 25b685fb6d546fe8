package token

import (
	"testing"
	"time"
)

func BenchmarkIssue(b *testing.B) {
	for _, c := range []struct {
		name string
		r    Request
	}{
		{"plain", Request{ClientID: 42, Servers: []string{server}, UserData: []byte("name=Ada;team=blue")}},
		{"private", Request{ClientID: 42, Servers: []string{server}, UserData: []byte("name=Ada;team=blue"),
			PrivateData: make([]byte, 64)}},
	} {
		b.Run(c.name, func(b *testing.B) {
			is := newIssuer(b, IssuerConfig{PrivateKey: dataKey}, nil)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := is.Issue(c.r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVerify admits a fresh token every iteration (a replayed one
// would be refused), from a pool issued beforehand, with a fresh verifier
// for each round of the pool (outside the timing).
func BenchmarkVerify(b *testing.B) {
	for _, c := range []struct {
		name string
		r    Request
	}{
		{"plain", Request{UserData: []byte("name=Ada;team=blue")}},
		{"private", Request{UserData: []byte("name=Ada;team=blue"), PrivateData: make([]byte, 64)}},
	} {
		b.Run(c.name, func(b *testing.B) {
			is := newIssuer(b, IssuerConfig{PrivateKey: dataKey}, nil)
			pool := make([][]byte, 1024)
			for i := range pool {
				pool[i] = issue(b, is, c.r)
			}
			var v *Verifier
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if i%len(pool) == 0 {
					b.StopTimer()
					v = newVerifier(b, VerifierConfig{PrivateKey: dataKey})
					b.StartTimer()
				}
				if _, err := v.Verify(pool[i%len(pool)], t0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVerifyParallel admits distinct tokens from all the CPUs at once,
// through one verifier.
func BenchmarkVerifyParallel(b *testing.B) {
	is := newIssuer(b, IssuerConfig{}, nil)
	pool := make([][]byte, 1<<14)
	for i := range pool {
		pool[i] = issue(b, is, Request{})
	}
	v := newVerifier(b, VerifierConfig{ReplayCapacity: len(pool)})
	next := make(chan int, len(pool))
	for i := range pool {
		next <- i
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			var i int
			select {
			case i = <-next:
			default:
				// Pool used up: verify a used token again, which costs
				// the same checks and is refused at the end as a replay.
			}
			v.Verify(pool[i], t0)
		}
	})
}

// BenchmarkVerifyRefused measures refusals: a malformed token stops at the
// layout; one with a bad signature costs the signature check.
func BenchmarkVerifyRefused(b *testing.B) {
	is := newIssuer(b, IssuerConfig{}, nil)
	tok := issue(b, is, Request{})
	bad := append([]byte(nil), tok...)
	bad[len(bad)-1] ^= 1
	v := newVerifier(b, VerifierConfig{})
	for _, c := range []struct {
		name string
		b    []byte
	}{{"malformed", tok[:100]}, {"signature", bad}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Verify(c.b, t0.Add(time.Second)); err == nil {
					b.Fatal("accepted")
				}
			}
		})
	}
}

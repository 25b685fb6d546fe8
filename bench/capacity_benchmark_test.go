package bench

import (
	"testing"

	"github.com/netsmooth/netsmooth/internal/perf"
)

// BenchmarkCapacity is the server's capacity: its own work per tick at
// 10, 100 and 1000 clients and 1k, 10k and 50k moving entities, with
// interest management and a 32 kB/s budget per client, and the "every
// entity to every client" baseline where it fits in memory and time.
func BenchmarkCapacity(b *testing.B) {
	for _, c := range perf.CapacityCases {
		b.Run(c.Name(), func(b *testing.B) {
			if testing.Short() && !c.Interest && c.Clients*c.Entities > 1_000_000 {
				// Its warm-up alone is the longest of any benchmark:
				// -short (CI's run of every benchmark once) leaves it
				// to the report.
				b.Skip("the largest baselines are skipped with -short")
			}
			perf.BenchCapacity(b, c)
		})
	}
}

package bench

import (
	"fmt"
	"testing"

	"github.com/netsmooth/netsmooth/internal/perf"
)

// BenchmarkFields is the whole frame of the steady scenario at 100k
// entities with 0, 1, 2 and 4 custom float fields changing every tick:
// ns/entity-field is what each extra field costs.
func BenchmarkFields(b *testing.B) {
	for _, k := range perf.FieldCounts {
		b.Run(fmt.Sprintf("entities=%d/fields=%d", 100_000, k), func(b *testing.B) { perf.Fields(b, 100_000, k) })
	}
}

package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/netsmooth/netsmooth/internal/perf"
)

// fieldsN is the entity count of the custom fields measurement.
const fieldsN = 100_000

// fieldsRow is the frame with some custom fields.
type fieldsRow struct {
	Fields   int
	Frame    float64 // ns per entity
	PerField float64 // the field systems' ns per entity and field
	Allocs   int64
}

// runFields runs perf.Fields for perf.FieldCounts at fieldsN entities
// (or n, if smaller), the fastest of two runs each.
func runFields(n int, benchtime string, progress io.Writer) ([]fieldsRow, error) {
	n = min(n, fieldsN)
	if err := setBenchtime(benchtime, n); err != nil {
		return nil, err
	}
	var rows []fieldsRow
	for _, k := range perf.FieldCounts {
		fmt.Fprintf(progress, "custom fields: %d at n=%d\n", k, n)
		var best fieldsRow
		for i := range 2 {
			runtime.GC()
			r := testing.Benchmark(func(b *testing.B) { perf.Fields(b, n, k) })
			if r.N == 0 {
				return nil, fmt.Errorf("custom fields %d failed", k)
			}
			frame := r.Extra["ns/entity"]
			if i == 0 || frame < best.Frame {
				best = fieldsRow{Fields: k, Frame: frame, PerField: r.Extra["ns/entity-field"], Allocs: best.Allocs}
			}
			best.Allocs = max(best.Allocs, r.AllocsPerOp())
		}
		rows = append(rows, best)
	}
	return rows, nil
}

// writeFields writes the custom fields section.
func (r *report) writeFields(b *strings.Builder) {
	if len(r.Fields) == 0 {
		return
	}
	fmt.Fprintf(b, `## Custom fields

The whole frame of the steady scenario at %s entities with 0 to 4 custom
float fields declared (`+"`nsecs.AddField`"+`, linear, extrapolated), every
value changing every tick (`+"`perf.Fields`"+`): the frame per entity, and the
field systems' own share (buffering the values and drawing them) per
entity and field, which is what each extra float field costs. The fastest
of two runs.

`, countLabel(r.FieldsN))
	var rows [][]string
	for _, f := range r.Fields {
		per := "—"
		if f.Fields > 0 {
			per = formatNs(f.PerField)
		}
		rows = append(rows, []string{fmt.Sprint(f.Fields), formatNs(f.Frame), per, fmt.Sprint(f.Allocs)})
	}
	writeTable(b, []string{"fields", "frame ns/entity", "ns per entity and field", "allocs/op"}, rows)
	b.WriteString("\n")
}

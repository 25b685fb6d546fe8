package scenario

import (
	"fmt"
	"io"
	"math"
)

// WriteTable writes results as a markdown table, one row per client.
func WriteTable(w io.Writer, results []Result) error {
	if _, err := fmt.Fprintln(w, "| client | RMS error | max error | max jump × true motion | underrun | mean delay | p99 delay | backward frames | recovery |"); err != nil {
		return err
	}
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range results {
		_, err := fmt.Fprintf(w, "| %s | %.4f | %.3f | %.2f | %.2f%% | %.0f ms | %.0f ms | %d | %s |\n",
			r.Client, r.RMS, r.Max, r.MaxJump, 100*r.Underrun, 1000*r.MeanDelay, 1000*r.P99Delay, r.Backward, recoveryText(r.Recovery))
		if err != nil {
			return err
		}
	}
	return nil
}

func recoveryText(s float64) string {
	switch {
	case math.IsNaN(s):
		return "—"
	case math.IsInf(s, 1):
		return "never"
	}
	return fmt.Sprintf("%.2f s", s)
}

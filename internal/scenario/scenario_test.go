package scenario

import (
	"os"
	"testing"
)

func TestPrintStandard(t *testing.T) {
	if testing.Short() || os.Getenv("SCORECARD_PRINT") == "" {
		t.Skip("set SCORECARD_PRINT=1 to print the scorecard tables")
	}
	for _, sc := range Standard() {
		if sc.Seconds > 100 {
			sc.Seconds = 60
		}
		var rs []Result
		for _, f := range append([]Factory{Default()}, Baselines()...) {
			rs = append(rs, Run(sc, f))
		}
		os.Stdout.WriteString("\n### " + sc.Name + "\n\n")
		WriteTable(os.Stdout, rs)
	}
	ps := StandardPredicted()
	var rs []Result
	for _, f := range PredictedClients() {
		rs = append(rs, RunPredicted(ps, f))
	}
	os.Stdout.WriteString("\n### " + ps.Name + "\n\n")
	WriteTable(os.Stdout, rs)
}

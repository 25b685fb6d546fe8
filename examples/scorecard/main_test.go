package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/netsim"
)

func TestDescribe(t *testing.T) {
	sc := scenario.Scenario{Link: netsim.Config{Latency: 50 * time.Millisecond, Loss: 0.05,
		Outages: []netsim.Window{{From: time.Second, To: 2 * time.Second}}}, Drift: 0.01}
	got := describe(sc)
	for _, want := range []string{"20 Hz snapshots", "5% loss", "outage 1s–2s", "server clock +1%"} {
		if !strings.Contains(got, want) {
			t.Errorf("describe = %q, lacks %q", got, want)
		}
	}
}

// TestWritesScorecardAndPlots runs a shortened scorecard into a temporary
// directory and checks the markdown links the plots it wrote.
func TestWritesScorecardAndPlots(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every scenario")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "SCORECARD.md")
	if err := run(out, filepath.Join(dir, "plots"), true, &strings.Builder{}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	text := string(md)
	for _, want := range []string{"## clean 20 Hz", "## 3 s suspend", "## predicted player", "| netsmooth |", "| dead reckoning |", "## Motion under a budget", "## Lag compensation", "| 50 ± 10 ms, 5% loss |", "](plots/trail-burst-loss.png)"} {
		if !strings.Contains(text, want) {
			t.Errorf("scorecard lacks %q", want)
		}
	}
	for _, name := range []string{"trail-burst-loss.png", "drift.png", "suspend.png"} {
		if st, err := os.Stat(filepath.Join(dir, "plots", name)); err != nil || st.Size() < 1000 {
			t.Errorf("plot %s: %v", name, err)
		}
	}
}

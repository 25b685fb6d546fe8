package main

import (
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func smallScene() options {
	return options{
		entities: 300, seconds: 4, tickRate: 20, fps: 60, perPacket: 64,
		latency: 80 * time.Millisecond, jitter: 20 * time.Millisecond, loss: 0.05,
		delay: 100 * time.Millisecond, extrapolation: "coast", seed: 1,
	}
}

func TestCrowdSceneQuality(t *testing.T) {
	res, err := run(smallScene())
	if err != nil {
		t.Fatal(err)
	}
	m := &res.metrics
	if m.Entities != 300 || res.frames != 180 { // 4 s at 60 FPS, measured from 1 s
		t.Fatalf("entities %d, frames %d", m.Entities, res.frames)
	}
	if m.Received() != m.Accepted || m.Accepted == 0 {
		t.Fatalf("accepted %d of %d: a clean scene rejects nothing", m.Accepted, m.Received())
	}
	mean := res.sumErr / float64(res.entityFrames)
	// Speeds up to ~18 units/s; 5% loss and 20 ms jitter: errors stay small.
	if mean > 0.02 || res.maxErr > 2 {
		t.Fatalf("mean error %.4f, max %.4f: worse than expected", mean, res.maxErr)
	}
	if res.link.Lost == 0 || m.Extrapolated == 0 {
		t.Fatalf("lost %d, extrapolated %d: the scene did not exercise loss", res.link.Lost, m.Extrapolated)
	}
	var out strings.Builder
	res.print(&out, smallScene())
	for _, want := range []string{"mean error vs true path", "frames with an entity past its newest", "pipeline cost per entity per frame",
		"Verdict: smooth and close to the truth", "units an entity moves in a second",
		"the link's 80 ms one-way latency plus", "of entity-frames ran past the newest snapshot", "ns per entity and frame"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}

// The scene draws the same on several goroutines as on one: the same
// errors against the true paths and the same metrics.
func TestCrowdSceneWorkers(t *testing.T) {
	one, err := run(smallScene())
	if err != nil {
		t.Fatal(err)
	}
	o := smallScene()
	o.workers, o.parallelMin = 3, 1
	many, err := run(o)
	if err != nil {
		t.Fatal(err)
	}
	if one.sumErr != many.sumErr || one.maxErr != many.maxErr || one.entityFrames != many.entityFrames {
		t.Fatalf("errors: sum %v, max %v over %d entity-frames on one goroutine; %v, %v over %d on three",
			one.sumErr, one.maxErr, one.entityFrames, many.sumErr, many.maxErr, many.entityFrames)
	}
	if one.metrics != many.metrics {
		t.Fatalf("metrics differ:\n%+v\n%+v", one.metrics, many.metrics)
	}
}

func TestCrowdRejectsBadOptions(t *testing.T) {
	o := smallScene()
	o.extrapolation = "warp"
	if _, err := run(o); err == nil || !strings.Contains(err.Error(), "warp") {
		t.Fatalf("err = %v", err)
	}
	o = smallScene()
	o.entities = 0
	if _, err := run(o); err == nil {
		t.Fatal("no error for zero entities")
	}
	o = smallScene()
	o.loss = 2
	if _, err := run(o); err == nil || !strings.Contains(err.Error(), "Loss") {
		t.Fatalf("err = %v", err)
	}
}

// With -png the scene writes the trails of the entities that strayed
// furthest: nine panels, each with the true path, the drawn positions
// and the worst frame's error in its colours.
func TestCrowdTrailsPNG(t *testing.T) {
	o := smallScene()
	o.png = filepath.Join(t.TempDir(), "trails.png")
	res, err := run(o)
	if err != nil {
		t.Fatal(err)
	}
	o.trailIDs = res.worstEntities(trailEntities)
	if len(o.trailIDs) != trailEntities || res.worst[o.trailIDs[0]-1] != res.maxErr {
		t.Fatalf("trail entities %v: the first is not the one with the largest error %v", o.trailIDs, res.maxErr)
	}
	again, err := run(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := again.trails.writePNG(o.png); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(o.png)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 3*panelSize || b.Dy() != 3*panelSize {
		t.Fatalf("image %v, want nine panels of %d pixels", b, panelSize)
	}
	seen := map[color.RGBA]bool{}
	for y := 0; y < img.Bounds().Dy(); y++ {
		for x := 0; x < img.Bounds().Dx(); x++ {
			r, g, b, a := img.At(x, y).RGBA()
			seen[color.RGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: uint8(a >> 8)}] = true
		}
	}
	for name, c := range map[string]color.RGBA{"truth": truthC, "drawn": drawnC, "worst": worstC, "scale": scaleC} {
		if !seen[c] {
			t.Errorf("no %s pixels in the trails", name)
		}
	}
}

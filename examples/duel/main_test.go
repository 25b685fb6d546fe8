package main

import (
	"strings"
	"testing"
	"time"
)

func small() options {
	return options{seconds: 12, tickRate: 60, sendEvery: 3, fps: 144, remotes: 3,
		latency: 50 * time.Millisecond, jitter: 10 * time.Millisecond, loss: 0.05, redundancy: 4, seed: 1}
}

func TestDuelScene(t *testing.T) {
	res, err := run(small())
	if err != nil {
		t.Fatal(err)
	}
	if res.teleports != 1 || res.hardCuts != 1 {
		t.Fatalf("teleports %d, hard cuts %d: the teleport must hard-cut once", res.teleports, res.hardCuts)
	}
	if res.shoves == 0 || res.corrections == 0 {
		t.Fatalf("shoves %d, corrections %d: shoves must be corrected smoothly", res.shoves, res.corrections)
	}
	if res.inputOverflows != 0 {
		t.Fatalf("input overflows %d on a 5%% loss link", res.inputOverflows)
	}
	// Smoothing keeps the drawn motion within a small margin of the
	// prediction's own motion.
	if res.maxStep > res.maxTargetStep+0.1 {
		t.Fatalf("largest drawn step %.4f vs predicted %.4f", res.maxStep, res.maxTargetStep)
	}
	if res.remoteSamples == 0 || res.remoteErrMax > 0.05 {
		t.Fatalf("remote players: %d samples, max error %.4f", res.remoteSamples, res.remoteErrMax)
	}
	// The ball: predicted at the pickup, interpolated again after the
	// throw, never drawn jumping more than 1.5 times its true motion.
	if len(res.ballSwitches) != 2 || res.ballJump > 1.5 || res.ballJump == 0 {
		t.Fatalf("ball: switches at frames %v, largest step %.2fx its true motion", res.ballSwitches, res.ballJump)
	}
	var out strings.Builder
	res.print(&out, small())
	for _, want := range []string{"prediction error", "hard cuts", "visual correction p50 / p99 / max", "ball around its switches"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// A short measurement of each transport: the client in a child process
// (this test binary again) joins, acknowledges every tick, and the
// counts at the server's socket add up: bare UDP's are exactly the
// session's packets, QUIC's a little more (its headers, encryption tags
// and acknowledgements), and the server's CPU time is measured.
func TestMeasureRun(t *testing.T) {
	defer goleak.VerifyNone(t)
	m := &measureOptions{entities: 1000, seconds: 1, warmUp: 0.5, repeats: 1, handshakes: 3}
	for _, kind := range []string{kindQUIC, kindUDP} {
		r, err := measureRun(context.Background(), m, kind)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		t.Logf("%s: %+v", kind, r)
		if r.ticks != tickRate || !(r.payDown > 10_000) || !(r.payUp > 100) || r.snapshots != uint64(r.ticks) {
			t.Errorf("%s: %+v", kind, r)
		}
		switch kind {
		case kindUDP:
			if r.down != r.payDown || r.up != r.payUp {
				t.Errorf("bare UDP: socket %.0f/%.0f B/s, session %.0f/%.0f B/s: want the same", r.down, r.up, r.payDown, r.payUp)
			}
		case kindQUIC:
			// Upstream, QUIC's acknowledgements of the snapshots' datagrams
			// weigh more than the inputs: a few times the session's bytes,
			// more when a loaded machine delays and splits them.
			if !(r.down > r.payDown && r.down < 1.3*r.payDown) || !(r.up > r.payUp && r.up < 20*r.payUp) {
				t.Errorf("QUIC: socket %.0f/%.0f B/s, session %.0f/%.0f B/s", r.down, r.up, r.payDown, r.payUp)
			}
		}
		if _, ok := processCPU(); ok && !(r.cpuPerTick > 0 && r.clientCPUPerTick > 0) {
			t.Errorf("%s: CPU per tick %.3f ms (client %.3f ms)", kind, r.cpuPerTick, r.clientCPUPerTick)
		}
	}
}

// -measure prints its table, handshakes included.
func TestMeasure(t *testing.T) {
	defer goleak.VerifyNone(t)
	o, err := parse([]string{"-measure", "-measure-seconds", "0.5", "-measure-warmup", "0.3", "-measure-repeats", "1", "-measure-handshakes", "3"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(context.Background(), &o, &out); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	for _, want := range []string{"server → client at the socket (B/s)", "server CPU per tick, whole process (ms)",
		"QUIC, Dial → Welcome, with Retry (default)", "WebTransport, Dial → Welcome", "bare UDP: no handshake"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q", want)
		}
	}
}

package netsim

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestConfigValidateAcceptsGoodConfigs(t *testing.T) {
	good := []Config{
		{},
		{Latency: 80 * time.Millisecond, Jitter: 20 * time.Millisecond},
		{Loss: 1, Reorder: 1, Duplicate: 1},
		{Loss: 0.05, Reorder: 0.1, ReorderDelay: time.Millisecond, Duplicate: 0.01, MaxInFlight: 1},
		{Latency: math.MaxInt64, Jitter: math.MaxInt64, ReorderDelay: math.MaxInt64, MaxInFlight: math.MaxInt},
		{Burst: Burst{Enter: 1, Exit: 1, Loss: 1}, Bandwidth: 1, QueueBytes: 1, PacketSize: 1},
		{Burst: Burst{Enter: 0.01}, Bandwidth: math.MaxInt, QueueBytes: math.MaxInt, PacketSize: math.MaxInt},
		{
			Outages:  []Window{{From: 5, To: 5}, {From: -10, To: -1}, {From: math.MinInt64, To: math.MaxInt64}},
			Suspends: []Window{{From: 2, To: 3}, {From: 1, To: 4}},
		},
	}
	for _, c := range good {
		if err := c.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v, want nil", c, err)
		}
	}
}

func TestConfigValidateRejectsBadConfigs(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{Latency: -time.Millisecond}, "Config.Latency must not be negative, got -1ms"},
		{Config{Jitter: -1}, "Config.Jitter must not be negative, got -1ns"},
		{Config{ReorderDelay: -time.Second}, "Config.ReorderDelay must not be negative, got -1s"},
		{Config{Loss: -0.1}, "Config.Loss must be a probability in [0, 1], got -0.1"},
		{Config{Loss: 1.5}, "Config.Loss must be a probability in [0, 1], got 1.5"},
		{Config{Loss: math.NaN()}, "Config.Loss must be a probability in [0, 1], got NaN"},
		{Config{Reorder: math.Inf(1)}, "Config.Reorder must be a probability in [0, 1], got +Inf"},
		{Config{Reorder: math.NaN()}, "Config.Reorder must be a probability in [0, 1], got NaN"},
		{Config{Duplicate: 2}, "Config.Duplicate must be a probability in [0, 1], got 2"},
		{Config{Duplicate: math.Inf(-1)}, "Config.Duplicate must be a probability in [0, 1], got -Inf"},
		{Config{MaxInFlight: -3}, "Config.MaxInFlight must not be negative (0 means 65536), got -3"},
		{Config{Burst: Burst{Enter: 1.5}}, "Config.Burst.Enter must be a probability in [0, 1], got 1.5"},
		{Config{Burst: Burst{Exit: -1}}, "Config.Burst.Exit must be a probability in [0, 1], got -1"},
		{Config{Burst: Burst{Loss: math.NaN()}}, "Config.Burst.Loss must be a probability in [0, 1], got NaN"},
		{Config{Bandwidth: -1}, "Config.Bandwidth must not be negative (0 means unlimited), got -1"},
		{Config{QueueBytes: -2}, "Config.QueueBytes must not be negative (0 means 250ms at Bandwidth), got -2"},
		{Config{PacketSize: -3}, "Config.PacketSize must not be negative (0 means 1200), got -3"},
		{
			Config{Outages: []Window{{From: 0, To: 1}, {From: 2 * time.Second, To: time.Second}}},
			"Config.Outages[1] must not end before it starts, got From 2s, To 1s",
		},
		{
			Config{Suspends: []Window{{From: 1, To: 0}}},
			"Config.Suspends[0] must not end before it starts, got From 1ns, To 0s",
		},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		if err == nil {
			t.Errorf("Validate(%+v) = nil, want error containing %q", tt.cfg, tt.want)
			continue
		}
		if got := err.Error(); got != "netsim: "+tt.want {
			t.Errorf("Validate(%+v) = %q, want %q", tt.cfg, got, "netsim: "+tt.want)
		}
		if _, err := NewLink[int](tt.cfg, 1); err == nil || err.Error() != "netsim: "+tt.want {
			t.Errorf("NewLink(%+v) error = %v, want Validate's error", tt.cfg, err)
		}
	}
}

func TestConfigValidateReportsEveryProblem(t *testing.T) {
	cfg := Config{
		Latency: -1, Jitter: -1, ReorderDelay: -1,
		Loss: 2, Reorder: -1, Duplicate: math.NaN(),
		MaxInFlight: -1,
		Burst:       Burst{Enter: -1, Exit: 2, Loss: 3},
		Bandwidth:   -1, QueueBytes: -1, PacketSize: -1,
		Outages:  []Window{{From: 1, To: 0}},
		Suspends: []Window{{From: 0, To: 1}, {From: 1, To: 0}},
	}
	err := cfg.Validate()
	if err == nil {
		t.Fatal("Validate() = nil, want error")
	}
	msg := err.Error()
	fields := []string{
		"Latency", "Jitter", "ReorderDelay", "Loss", "Reorder", "Duplicate", "MaxInFlight",
		"Burst.Enter", "Burst.Exit", "Burst.Loss", "Bandwidth", "QueueBytes", "PacketSize",
		"Outages[0]", "Suspends[1]",
	}
	for _, field := range fields {
		if !strings.Contains(msg, "Config."+field+" ") {
			t.Errorf("error does not mention Config.%s:\n%s", field, msg)
		}
	}
	if n := strings.Count(msg, "\n") + 1; n != len(fields) {
		t.Errorf("error has %d lines, want %d (one per problem):\n%s", n, len(fields), msg)
	}
}

func TestConfigDefaults(t *testing.T) {
	tests := []struct {
		cfg          Config
		reorderDelay time.Duration
		maxInFlight  int
		packetSize   int
		badLoss      float64
	}{
		{Config{}, 60 * time.Millisecond, 1 << 16, 1200, 1},
		{Config{Jitter: 10 * time.Millisecond}, 80 * time.Millisecond, 1 << 16, 1200, 1},
		{Config{Jitter: 10 * time.Millisecond, ReorderDelay: 5 * time.Millisecond, MaxInFlight: 7, PacketSize: 9, Burst: Burst{Loss: 0.25}}, 5 * time.Millisecond, 7, 9, 0.25},
		{Config{Jitter: math.MaxInt64}, math.MaxInt64, 1 << 16, 1200, 1},
	}
	for _, tt := range tests {
		if got := tt.cfg.packetSize(); got != tt.packetSize {
			t.Errorf("%+v: effective PacketSize = %d, want %d", tt.cfg, got, tt.packetSize)
		}
		if got := tt.cfg.Burst.badLoss(); got != tt.badLoss {
			t.Errorf("%+v: effective Burst.Loss = %v, want %v", tt.cfg, got, tt.badLoss)
		}
		if got := tt.cfg.reorderDelay(); got != tt.reorderDelay {
			t.Errorf("%+v: effective ReorderDelay = %v, want %v", tt.cfg, got, tt.reorderDelay)
		}
		if got := tt.cfg.maxInFlight(); got != tt.maxInFlight {
			t.Errorf("%+v: effective MaxInFlight = %d, want %d", tt.cfg, got, tt.maxInFlight)
		}
	}
}

func TestAddSat(t *testing.T) {
	tests := []struct{ a, b, want time.Duration }{
		{1, 2, 3},
		{math.MaxInt64, 1, math.MaxInt64},
		{math.MaxInt64 - 1, 1, math.MaxInt64},
		{1, math.MaxInt64, math.MaxInt64},
		{math.MinInt64, math.MaxInt64, -1},
		{-5, 0, -5},
	}
	for _, tt := range tests {
		if got := addSat(tt.a, tt.b); got != tt.want {
			t.Errorf("addSat(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

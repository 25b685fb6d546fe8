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
	}
	err := cfg.Validate()
	if err == nil {
		t.Fatal("Validate() = nil, want error")
	}
	msg := err.Error()
	for _, field := range []string{"Latency", "Jitter", "ReorderDelay", "Loss", "Reorder", "Duplicate", "MaxInFlight"} {
		if !strings.Contains(msg, "Config."+field+" ") {
			t.Errorf("error does not mention Config.%s:\n%s", field, msg)
		}
	}
	if n := strings.Count(msg, "\n") + 1; n != 7 {
		t.Errorf("error has %d lines, want 7 (one per problem):\n%s", n, msg)
	}
}

func TestConfigDefaults(t *testing.T) {
	tests := []struct {
		cfg          Config
		reorderDelay time.Duration
		maxInFlight  int
	}{
		{Config{}, 60 * time.Millisecond, 1 << 16},
		{Config{Jitter: 10 * time.Millisecond}, 80 * time.Millisecond, 1 << 16},
		{Config{Jitter: 10 * time.Millisecond, ReorderDelay: 5 * time.Millisecond, MaxInFlight: 7}, 5 * time.Millisecond, 7},
		{Config{Jitter: math.MaxInt64}, math.MaxInt64, 1 << 16},
	}
	for _, tt := range tests {
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

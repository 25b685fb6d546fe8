package wire

import (
	"errors"
	"strings"
	"testing"
)

func TestConfigDefaults(t *testing.T) {
	c := DefaultConfig()
	if c.MaxPacket != 1200 || c.MaxParts != 256 || c.History != 32 || c.MaxInputs != 8 || c.MaxInputSize != 64 ||
		c.MaxEntities != 16384 || c.MaxPendingTicks != 4 {
		t.Fatalf("defaults %+v", c)
	}
	if q := c.Quantizer; q.PosStep != 1.0/256 || q.VelStep != 1.0/256 || q.RotBits != 10 || q.Fields != nil {
		t.Fatalf("quantizer defaults %+v", c.Quantizer)
	}
	if err := (Config{}).Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestConfigRejects(t *testing.T) {
	for _, c := range []struct {
		cfg   Config
		field string
	}{
		{Config{MaxPacket: 100}, "MaxPacket"},
		{Config{MaxPacket: -1}, "MaxPacket"},
		{Config{MaxParts: 70000}, "MaxParts"},
		{Config{History: 1}, "History"},
		{Config{MaxInputs: 300}, "MaxInputs"},
		{Config{MaxEntities: -5}, "MaxEntities"},
		{Config{MaxPendingTicks: 65}, "MaxPendingTicks"},
		{Config{MaxInputSize: 1000}, "MaxPacket"}, // 8 inputs of 1000 bytes do not fit
		{Config{Quantizer: Quantizer{PosStep: -1}}, "PosStep"},
		{Config{Quantizer: Quantizer{VelStep: float32(posInf())}}, "VelStep"},
		{Config{Quantizer: Quantizer{RotBits: 21}}, "RotBits"},
	} {
		err := c.cfg.Validate()
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%+v: %v, want ErrConfig naming %s", c.cfg, err, c.field)
		}
	}
	if _, err := NewEncoder(Config{History: -1}); !errors.Is(err, ErrConfig) {
		t.Errorf("NewEncoder: %v", err)
	}
	if _, err := NewDecoder(Config{History: -1}); !errors.Is(err, ErrConfig) {
		t.Errorf("NewDecoder: %v", err)
	}
}

func posInf() float64 {
	var zero float64
	return 1 / zero
}

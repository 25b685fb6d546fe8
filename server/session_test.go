package server

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/wire"
)

func TestConnect(t *testing.T) {
	s := newServer(t, SessionConfig{MaxClients: 2})
	if err := s.Connect(1); err != nil {
		t.Fatal(err)
	}
	if err := s.Connect(1); !errors.Is(err, ErrClientExists) {
		t.Errorf("twice: %v", err)
	}
	s.Connect(2)
	if err := s.Connect(3); !errors.Is(err, ErrTooManyClients) {
		t.Errorf("third: %v", err)
	}
	if !s.Disconnect(2) || s.Disconnect(2) || s.Connected(2) || !s.Connected(1) {
		t.Error("disconnect")
	}
	if _, err := s.Snapshot(9, 0, nil); !errors.Is(err, ErrUnknownClient) {
		t.Errorf("snapshot for an unknown client: %v", err)
	}
	if err := s.Receive(9, nil, 0); !errors.Is(err, ErrUnknownClient) {
		t.Errorf("receive for an unknown client: %v", err)
	}
	if _, err := s.NextInput(9, nil); !errors.Is(err, ErrUnknownClient) {
		t.Errorf("input for an unknown client: %v", err)
	}
	if _, ok := s.Stats(9); ok {
		t.Error("stats for an unknown client")
	}
}

func TestConfigRejects(t *testing.T) {
	for _, cfg := range []SessionConfig{
		{MaxClients: -1},
		{InputWindow: 4},
		{InputWindow: 5000},
		{Wire: wire.Config{History: 1}},
		{TickRate: 1.0 / 20}, // a tick's length, not a rate
		{Budget: BudgetConfig{BytesPerSecond: -1}},
		{Budget: BudgetConfig{BytesPerSecond: 10}}, // half a byte a tick: no entity would ever go
		{TickRate: 60, Budget: BudgetConfig{BytesPerSecond: 3000}},
		{Interest: &InterestConfig{Dims: 4}},
		{Interest: &InterestConfig{CellSize: -1}},
	} {
		_, err := NewSession(cfg)
		if !errors.Is(err, wire.ErrConfig) {
			t.Errorf("%+v: %v", cfg, err)
			continue
		}
		// The session's own checks name the server package; the codec's
		// (SessionConfig.Wire) name the wire.
		if cfg.Wire.History == 0 && !strings.HasPrefix(err.Error(), "server: ") {
			t.Errorf("%+v: %q, want it to start with \"server: \"", cfg, err)
		}
	}
	// The least budget whose two ticks carry a header and a record with
	// no custom field, at 20 Hz.
	least := 20 * (partHeader + wire.MaxRecordSize - wire.MaxFields*5) / 2
	if _, err := NewSession(SessionConfig{Budget: BudgetConfig{BytesPerSecond: least - 1}}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("want at least %d", least)) {
		t.Errorf("a budget of %d B/s at 20 Hz: %v, want it refused with the least it needs", least-1, err)
	}
	if _, err := NewSession(SessionConfig{Budget: BudgetConfig{BytesPerSecond: least}}); err != nil {
		t.Errorf("a budget of %d B/s at 20 Hz: %v", least, err)
	}
	c := newServer(t, SessionConfig{}).Config()
	if c.MaxClients != 64 || c.InputWindow != 64 || c.Wire.History != 32 || c.Wire.MaxPacket != 1200 {
		t.Errorf("defaults %+v", c)
	}
}

func TestTickOrder(t *testing.T) {
	s := newServer(t, SessionConfig{})
	s.Connect(1)
	if _, err := s.Snapshot(1, 0, nil); !errors.Is(err, ErrTick) {
		t.Errorf("snapshot before BeginTick: %v", err)
	}
	if err := s.BeginTick(10); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginTick(10); !errors.Is(err, ErrTick) {
		t.Errorf("same tick: %v", err)
	}
	if err := s.BeginTick(9); !errors.Is(err, ErrTick) {
		t.Errorf("earlier tick: %v", err)
	}
	if _, err := s.Snapshot(1, 0, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Snapshot(1, 0, nil); !errors.Is(err, ErrTick) {
		t.Errorf("second snapshot of a tick: %v", err)
	}
	if err := s.BeginTick(math.MaxUint32); !errors.Is(err, ErrTick) {
		t.Errorf("a tick 2^31 away: %v", err)
	}
	if err := s.BeginTick(11); err != nil || s.Tick() != 11 {
		t.Fatal(err)
	}
}

func TestSetEntity(t *testing.T) {
	s := newServer(t, SessionConfig{Wire: wire.Config{MaxEntities: 2}})
	nan := float32(math.NaN())
	if err := s.SetEntity(wire.Entity{NetID: 1, Pos: mgl32.Vec3{nan, 0, 0}}); !errors.Is(err, wire.ErrRange) {
		t.Errorf("NaN: %v", err)
	}
	if err := s.SetEntity(wire.Entity{NetID: 1, Flags: wire.Despawn}); !errors.Is(err, ErrEntity) {
		t.Errorf("despawn flag: %v", err)
	}
	for _, id := range []uint32{5, 2} {
		if err := s.SetEntity(wire.Entity{NetID: id}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetEntity(wire.Entity{NetID: 7}); !errors.Is(err, wire.ErrLimit) {
		t.Errorf("third entity: %v", err)
	}
	if err := s.SetEntity(wire.Entity{NetID: 5, State: 1}); err != nil {
		t.Errorf("updating an entity at the limit: %v", err)
	}
	if s.Len() != 2 || !s.Despawn(2) || s.Despawn(2) || s.Len() != 1 {
		t.Error("despawn")
	}
}

// A session that allows clients to acknowledge no tick measures their
// round trip from their echoes as it is; one that does not measures none
// until a tick is acknowledged (a client could otherwise claim any).
func TestNoDeltaClientRoundTrip(t *testing.T) {
	for _, allow := range []bool{false, true} {
		s := newServer(t, SessionConfig{AllowNoDelta: allow})
		if err := s.Connect(1); err != nil {
			t.Fatal(err)
		}
		c := newTestClient(t, wire.Config{})
		for tick := uint32(1); tick <= 20; tick++ {
			if err := s.BeginTick(tick); err != nil {
				t.Fatal(err)
			}
			packets, err := s.Snapshot(1, tick*50, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range packets {
				c.receive(p, tick*50+50)
			}
			// Echoes the newest packet, 100 ms after it was sent; no tick.
			h := wire.Header{Seq: c.seq, Sent: tick * 50}
			c.seq++
			c.receipts.Stamp(&h, tick*50+50)
			b, err := wire.AppendInput(nil, &h, &wire.InputPacket{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Receive(1, b, tick*50+100); err != nil {
				t.Fatal(err)
			}
		}
		st, _ := s.Stats(1)
		if st.HasRTT != allow || allow && st.RTT != 100 {
			t.Errorf("AllowNoDelta %v: RTT %d ms, measured %v; want 100 ms measured only when allowed", allow, st.RTT, st.HasRTT)
		}
	}
}

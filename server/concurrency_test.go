package server

import (
	"sync"
	"testing"

	"github.com/netsmooth/netsmooth/wire"
)

// A transport's receiving goroutine may call Receive while the tick
// goroutine runs the world and the snapshots (run with -race).
func TestConcurrentReceive(t *testing.T) {
	s := newServer(t, SessionConfig{})
	for id := range ClientID(4) {
		s.Connect(id)
	}
	var packets [4][][]byte
	for id := range 4 {
		c := newTestClient(t, wire.Config{})
		for range 200 {
			packets[id] = append(packets[id], c.input(t, 0, 8, []byte{byte(id)}))
		}
	}
	var wg sync.WaitGroup
	for id := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, p := range packets[id] {
				if err := s.Receive(ClientID(id), p, 0); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	var dst [][]byte
	for tk := uint32(1); tk <= 100; tk++ {
		if err := s.BeginTick(tk); err != nil {
			t.Fatal(err)
		}
		setWorld(t, s, 50, tk, false)
		for id := range ClientID(4) {
			s.NextInput(id, nil)
			var err error
			if dst, err = s.Snapshot(id, tk, dst[:0]); err != nil {
				t.Fatal(err)
			}
		}
	}
	wg.Wait()
	// Every copy of every input is counted once: packet k carried
	// min(k+1, 8) inputs.
	copies := uint64(0)
	for k := range 200 {
		copies += uint64(min(k+1, 8))
	}
	for id := range ClientID(4) {
		st, _ := s.Stats(id)
		if got := st.InputsReceived + st.InputsDuplicate + st.InputsLate + st.InputsTooEarly; got != copies || st.PacketsReceived != 200 {
			t.Fatalf("client %d: %d input copies counted, want %d: %+v", id, got, copies, st)
		}
	}
}

//go:build !js

package server

import "testing"

// Events waiting for a game that never asks are bounded: the oldest are
// dropped and counted.
func TestEventsBounded(t *testing.T) {
	s := &Server{}
	for i := range MaxEvents + 10 {
		s.mu.Lock()
		s.event(Event{Kind: Join, Client: ClientID(i + 1)})
		s.mu.Unlock()
	}
	evs := s.Events(nil)
	if len(evs) != MaxEvents || evs[0].Client != 11 || evs[len(evs)-1].Client != MaxEvents+10 {
		t.Fatalf("%d events, first client %d, last %d", len(evs), evs[0].Client, evs[len(evs)-1].Client)
	}
	if s.stats.EventsDropped != 10 {
		t.Fatalf("dropped %d", s.stats.EventsDropped)
	}
	if evs := s.Events(evs[:0]); len(evs) != 0 {
		t.Fatalf("%d events after draining", len(evs))
	}
}

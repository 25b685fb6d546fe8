package components

import "testing"

func TestInputHistoryPushDropWrap(t *testing.T) {
	var h InputHistory[int16]
	seq := uint32(1)
	acked := uint32(0)
	// Many rounds of push 5, acknowledge 3, so the ring wraps several times.
	for round := 0; round < 200; round++ {
		for i := 0; i < 5; i++ {
			if !h.Push(PendingInput[int16]{Seq: seq, Input: int16(seq)}, MaxPendingInputs) {
				t.Fatalf("round %d: push refused at len %d", round, h.Len())
			}
			seq++
		}
		acked += 3
		if n := h.DropThrough(acked); n != 3 {
			t.Fatalf("round %d: dropped %d, want 3", round, n)
		}
		if h.Len() > MaxPendingInputs {
			t.Fatal("overfull")
		}
		for i := 0; i < h.Len(); i++ {
			p := h.At(i)
			if p.Seq != acked+uint32(i)+1 || p.Input != int16(p.Seq) {
				t.Fatalf("round %d: slot %d holds seq %d input %d", round, i, p.Seq, p.Input)
			}
		}
		if h.Len() > MaxPendingInputs-5 {
			h.DropThrough(seq) // keep room
			acked = seq - 1
		}
	}
}

func TestInputHistoryCapacity(t *testing.T) {
	var h InputHistory[byte]
	for i := 1; i <= 4; i++ {
		if !h.Push(PendingInput[byte]{Seq: uint32(i)}, 4) {
			t.Fatalf("push %d refused", i)
		}
	}
	if h.Push(PendingInput[byte]{Seq: 5}, 4) || h.Len() != 4 {
		t.Fatalf("pushed beyond capacity: len %d", h.Len())
	}
	if h.Push(PendingInput[byte]{Seq: 5}, 1<<20); h.Len() != 5 {
		t.Fatalf("capacity above MaxPendingInputs not capped sensibly: len %d", h.Len())
	}
	if n := h.DropThrough(0); n != 0 {
		t.Fatalf("DropThrough(0) dropped %d", n)
	}
	if n := h.DropThrough(100); n != 5 || h.Len() != 0 {
		t.Fatalf("DropThrough(100) dropped %d, left %d", n, h.Len())
	}
	h.Push(PendingInput[byte]{Seq: 9}, 4)
	h.Clear()
	if h.Len() != 0 {
		t.Fatal("Clear left inputs")
	}
}

package systems_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/systems"
)

func TestInboxDrainAlternatesBuffers(t *testing.T) {
	in := systems.NewInbox(3)
	for i := 0; i < 5; i++ {
		in.Push(systems.Message{Tick: uint32(i)})
	}
	msgs, dropped := in.Drain(nil)
	if len(msgs) != 3 || dropped != 2 || in.Len() != 0 {
		t.Fatalf("drained %d, dropped %d, left %d", len(msgs), dropped, in.Len())
	}
	in.Push(systems.Message{Tick: 9})
	spare := msgs
	msgs, dropped = in.Drain(spare)
	if len(msgs) != 1 || msgs[0].Tick != 9 || dropped != 0 {
		t.Fatalf("second drain %v dropped %d", msgs, dropped)
	}
	allocs := testing.AllocsPerRun(100, func() {
		in.Push(systems.Message{})
		in.Push(systems.Message{})
		spare, _ = in.Drain(spare)
	})
	if allocs != 0 {
		t.Fatalf("steady-state push/drain allocates %v times", allocs)
	}
}

// TestInboxBoundedAndCounted: Push reports a full inbox, PushBatch queues
// what fits, and every dropped message is handed to the next Drain's count.
func TestInboxBoundedAndCounted(t *testing.T) {
	if c := systems.NewInbox(0).Capacity(); c != systems.DefaultInboxCapacity {
		t.Fatalf("NewInbox(0) holds %d, want the default %d", c, systems.DefaultInboxCapacity)
	}
	in := systems.NewInbox(4)
	if in.Capacity() != 4 {
		t.Fatalf("capacity %d, want 4", in.Capacity())
	}
	if !in.Push(systems.Message{Tick: 1}) {
		t.Fatal("Push into an empty inbox failed")
	}
	batch := make([]systems.Message, 5)
	for i := range batch {
		batch[i].Tick = uint32(2 + i)
	}
	if n := in.PushBatch(batch); n != 3 {
		t.Fatalf("PushBatch queued %d, want the 3 that fit", n)
	}
	if in.Push(systems.Message{Tick: 99}) {
		t.Fatal("Push into a full inbox succeeded")
	}
	if n := in.PushBatch(batch); n != 0 {
		t.Fatalf("PushBatch into a full inbox queued %d", n)
	}
	msgs, dropped := in.Drain(nil)
	if len(msgs) != 4 || dropped != 2+1+5 {
		t.Fatalf("drained %d, dropped %d; want 4 and 8", len(msgs), dropped)
	}
	for i, m := range msgs {
		if m.Tick != uint32(1+i) {
			t.Fatalf("message %d has tick %d: not in push order", i, m.Tick)
		}
	}
	if _, dropped := in.Drain(nil); dropped != 0 {
		t.Fatalf("the drop count was not reset: %d", dropped)
	}
}

// TestConcurrentPushesDuringFrames: transports push single messages and
// batches from several goroutines while frames run; every message is
// counted once and every entity arrives.
func TestConcurrentPushesDuringFrames(t *testing.T) {
	r := newRig(t, cfgAt(20, 2))
	const writers, perWriter = 4, 2000
	var wg sync.WaitGroup
	for wi := 0; wi < writers; wi++ {
		wg.Add(1)
		go func(wi int) {
			defer wg.Done()
			batch := make([]systems.Message, 0, 10)
			for i := 0; i < perWriter; i++ {
				m := snap(components.NetID(wi+1), uint32(i), float32(i))
				if i%2 == 0 {
					r.Pipe.Inbox().Push(m)
				} else {
					batch = append(batch, m)
					if len(batch) == cap(batch) {
						r.Pipe.Inbox().PushBatch(batch)
						batch = batch[:0]
					}
				}
			}
			r.Pipe.Inbox().PushBatch(batch)
		}(wi)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		r.Frame(1.0 / 60)
	}
	r.Frame(0)
	r.CheckCounted(writers * perWriter)
	if m := r.Pipe.Metrics(); m.Entities != writers {
		t.Fatalf("entities = %d, want %d", m.Entities, writers)
	}
}

// PushAfter queues the kept messages first, as many as fit, and the new
// ones only behind all of them: nothing overtakes a kept message. Kept
// messages that do not fit are not counted; new ones that do not fit are
// dropped and counted.
func TestInboxPushAfter(t *testing.T) {
	in := systems.NewInbox(5)
	msgs := func(ids ...components.NetID) []systems.Message {
		out := make([]systems.Message, len(ids))
		for i, id := range ids {
			out[i] = systems.Message{NetID: id}
		}
		return out
	}
	in.PushBatch(msgs(1, 2))
	// Room for 3: two kept, then one of the two new.
	if k, n := in.PushAfter(msgs(10, 11), msgs(20, 21)); k != 2 || n != 1 {
		t.Fatalf("queued %d kept and %d new, want 2 and 1", k, n)
	}
	// Full: the kept stay the caller's, the new are dropped.
	if k, n := in.PushAfter(msgs(12), msgs(22, 23)); k != 0 || n != 0 {
		t.Fatalf("queued %d kept and %d new into a full inbox", k, n)
	}
	got, dropped := in.Drain(nil)
	var ids []components.NetID
	for _, m := range got {
		ids = append(ids, m.NetID)
	}
	if want := []components.NetID{1, 2, 10, 11, 20}; !slices.Equal(ids, want) || dropped != 3 {
		t.Fatalf("drained %v with %d dropped, want %v with 3 (21, 22, 23)", ids, dropped, want)
	}
	// An empty inbox: both kept, then the new.
	if k, n := in.PushAfter(msgs(12, 13), msgs(24)); k != 2 || n != 1 {
		t.Fatalf("queued %d kept and %d new into an empty inbox, want 2 and 1", k, n)
	}
	// Room for 2: kept 3 of which 2 fit; the new wait behind the third.
	if k, n := in.PushAfter(msgs(14, 15, 16), msgs(25)); k != 2 || n != 0 {
		t.Fatalf("queued %d kept and %d new, want 2 and 0", k, n)
	}
	if _, dropped := in.Drain(nil); dropped != 1 {
		t.Fatalf("dropped %d, want 1 (25)", dropped)
	}
}

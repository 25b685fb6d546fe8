package systems_test

import (
	"testing"
	"unsafe"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/systems"
)

func TestKindNames(t *testing.T) {
	for k, want := range map[systems.Kind]string{
		systems.Snapshot: "snapshot",
		systems.Spawn:    "spawn",
		systems.Despawn:  "despawn",
		systems.Teleport: "teleport",
		systems.Kind(9):  "Kind(9)",
	} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", uint8(k), got, want)
		}
	}
}

// TestZeroMessageIsASnapshot: a transport that fills in only NetID, Tick
// and Pos sends a snapshot with no rotation.
func TestZeroMessageIsASnapshot(t *testing.T) {
	var m systems.Message
	if m.Kind != systems.Snapshot {
		t.Fatalf("the zero Kind is %v, want snapshot", m.Kind)
	}
	r := newRig(t, cfgAt(20, 0))
	r.Push(snap(1, 5, 3))
	r.Frame(0)
	if got := r.Render(1); got.Pos[0] != 3 || got.Rot != mgl32.QuatIdent() {
		t.Fatalf("drawn %+v, want x = 3 with the identity rotation", got)
	}
}

// A Message is copied into the inbox and out of it for every entity of
// every snapshot: its documented size is pinned here, so that a field
// added later shows up as the cost it is.
func TestMessageSize(t *testing.T) {
	if n := unsafe.Sizeof(systems.Message{}); n != 56 {
		t.Errorf("Message is %d bytes, want 56 (as documented)", n)
	}
}

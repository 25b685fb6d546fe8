package wire

import (
	"math/bits"
	"strings"

	"github.com/go-gl/mathgl/mgl32"
)

// Flags qualify an entity record. HasVelocity is part of an entity's
// state and kept in state tables; Spawn, Despawn and Teleport are events
// of the tick a record is sent in, never stored.
type Flags uint8

const (
	// HasVelocity says the entity's velocity is sent. Without it the
	// client estimates velocity from positions.
	HasVelocity Flags = 1 << iota
	// Spawn marks the entity's first tick of a new life.
	Spawn
	// Despawn removes the entity at the record's tick. A despawn record
	// carries nothing but the NetID.
	Despawn
	// Teleport marks a discontinuity at the record's tick: the client must
	// not interpolate into it from earlier samples.
	Teleport

	// touched marks, inside a decoder's tick under assembly, a table entry
	// that a part of this tick already named. Never on the wire, never in
	// a committed table.
	touched Flags = 1 << 7
)

// String lists the set flags, "velocity|spawn", or "0".
func (f Flags) String() string {
	var b strings.Builder
	for _, n := range [...]struct {
		f    Flags
		name string
	}{{HasVelocity, "velocity"}, {Spawn, "spawn"}, {Despawn, "despawn"}, {Teleport, "teleport"}} {
		if f&n.f != 0 {
			if b.Len() > 0 {
				b.WriteByte('|')
			}
			b.WriteString(n.name)
		}
	}
	if b.Len() == 0 {
		return "0"
	}
	return b.String()
}

// Entity is one entity's state at one tick in world units: what a server
// game hands to the encoder (through a [Quantizer]) and what a client gets
// back from the [Decoder]. Its fields mirror the pipeline's systems.Message.
type Entity struct {
	// Pos is the position in world units.
	Pos mgl32.Vec3
	// Vel is the velocity in world units per second; meaningful only with
	// the HasVelocity flag.
	Vel mgl32.Vec3
	// Rot is the rotation. The zero quaternion means the identity; any
	// other value is normalised when quantised. Decoded entities always
	// carry a unit quaternion.
	Rot mgl32.Quat
	// NetID is the server's identity of the entity.
	NetID uint32
	// State is the game's discrete state word.
	State uint16
	// Epoch is the server's lifecycle counter for the entity.
	Epoch uint8
	// Flags: HasVelocity, and the events Spawn, Despawn, Teleport.
	Flags Flags
	// Fields are the game's custom field values (a size, a health, an
	// angle), in the order of [Quantizer.Fields]; those beyond the fields
	// declared are ignored, and zero when decoded. They are part of the
	// state: a server that sets an entity sets its fields too (each must
	// be in its FieldSpec's range, zero included).
	Fields [MaxFields]float32
}

// Record is one entity's quantised state: what the wire carries and what
// state tables hold. It is a fixed-size (56-byte), pointer-free value, so a
// [Table] is one contiguous block and comparing two states is comparing two
// values. Records are made by [Quantizer.Record] and turned back into world
// units by [Quantizer.Entity].
type Record struct {
	// Rot is the rotation packed with the smallest-three scheme of the
	// Quantizer that made it (see [Quantizer.PackRotation]).
	Rot uint64
	// Pos is the position in steps of Quantizer.PosStep.
	Pos [3]int32
	// Vel is the velocity in steps of Quantizer.VelStep; zero unless Flags
	// has HasVelocity.
	Vel [3]int32
	// NetID is the server's identity of the entity.
	NetID uint32
	// State is the game's discrete state word.
	State uint16
	// Epoch is the server's lifecycle counter.
	Epoch uint8
	// Flags holds HasVelocity only; events travel beside records.
	Flags Flags
	// Fields are the custom field values in steps of their
	// [FieldSpec]s (see [FieldSpec.Quantize]); zero beyond the fields
	// declared.
	Fields [MaxFields]int32
}

// Hash returns a 64-bit hash of the record's state: NetID, position,
// velocity, rotation, state, epoch, HasVelocity and the custom fields
// (the flags that are
// events are not state and do not count). Records that differ in any of
// these hash differently but for a chance of 2^-64; a table's hash is the
// XOR of its records' ([Table.Hash]), so that it follows every change at
// the cost of the records changed.
func (r Record) Hash() uint64 {
	// Each word is mixed on its own, so that the processor mixes them side
	// by side rather than one after another; the words are told apart by
	// rotation before they are combined, and the combination is mixed
	// again, so that a table's XOR of record hashes does not cancel when
	// two records exchange a word.
	h := mix64(uint64(r.NetID) | uint64(r.State)<<32 | uint64(r.Epoch)<<48 | uint64(r.Flags&HasVelocity)<<56)
	h ^= bits.RotateLeft64(mix64(r.Rot), 13)
	h ^= bits.RotateLeft64(mix64(uint64(uint32(r.Pos[0]))|uint64(uint32(r.Pos[1]))<<32), 26)
	h ^= bits.RotateLeft64(mix64(uint64(uint32(r.Pos[2]))|uint64(uint32(r.Vel[0]))<<32), 39)
	h ^= bits.RotateLeft64(mix64(uint64(uint32(r.Vel[1]))|uint64(uint32(r.Vel[2]))<<32), 52)
	if r.Fields != ([MaxFields]int32{}) {
		// Records without fields hash as if fields did not exist.
		for i := 0; i+1 < MaxFields; i += 2 {
			h ^= bits.RotateLeft64(mix64(uint64(uint32(r.Fields[i]))|uint64(uint32(r.Fields[i+1]))<<32), 7+13*i/2)
		}
		if MaxFields%2 == 1 {
			h ^= bits.RotateLeft64(mix64(uint64(uint32(r.Fields[MaxFields-1]))), 45)
		}
	}
	return mix64(h)
}

// mix64 is SplitMix64's finaliser: every input bit affects every output
// bit.
func mix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

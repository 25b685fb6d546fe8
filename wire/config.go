package wire

import "fmt"

// Defaults of [Config] and [Quantizer]: the values a zero field stands for.
const (
	DefaultMaxPacket       = 1200
	DefaultMaxParts        = 256
	DefaultMaxEntities     = 16384
	DefaultHistory         = 32
	DefaultMaxPendingTicks = 4
	DefaultMaxInputs       = 8
	DefaultMaxInputSize    = 64
	DefaultPosStep         = 1.0 / 256
	DefaultVelStep         = 1.0 / 256
	DefaultRotBits         = 10
)

// Hard bounds of the [Config] fields, set by the byte layout (a part index
// is a uint16, an input count a byte) or by sanity (memory per table).
const (
	MinPacket       = 128
	MaxPacketLimit  = 65507 // the largest UDP payload over IPv4
	MaxPartsLimit   = 65535
	MaxEntitiesMax  = 1 << 20
	MaxHistory      = 1024
	MaxPendingLimit = 64
	MaxInputsLimit  = 255
)

// Config holds the parameters both ends of a connection must agree on (the
// [Quantizer]) and the limits each end enforces on what it sends and
// accepts. The zero value of every field means its default, so Config{} is
// a valid configuration; negative or out-of-range values are refused by
// [Config.Validate] and by every constructor.
type Config struct {
	// Quantizer sets the precision of positions, velocities and
	// rotations. Server and client must use the same one: it is not sent.
	Quantizer Quantizer

	// MaxPacket is the largest packet, in bytes, the encoder writes and the
	// decoder accepts (default 1200, an MTU-safe UDP payload; at least 128).
	// A tick's snapshot that does not fit is split into parts.
	MaxPacket int
	// MaxParts is the largest number of parts one tick's snapshot may be
	// split into (default 256, at most 65535). What does not fit is left
	// out and the snapshot is not marked complete.
	MaxParts int
	// MaxEntities bounds the entities of one tick's state table, and the
	// entities a decoder tracks as alive (default 16384). It bounds the
	// decoder's memory: (History + MaxPendingTicks) tables of MaxEntities
	// 56-byte records at most.
	MaxEntities int
	// History is how many acknowledged ticks' state tables are kept to
	// delta-encode against (default 32, between 2 and 1024). A client's
	// decoder must keep at least as many as the server's session.
	History int
	// MaxPendingTicks is how many ticks a decoder assembles at once from
	// parts that have not all arrived (default 4). A part of a newer tick
	// when all are in use abandons the oldest one.
	MaxPendingTicks int
	// MaxInputs is the most inputs one input packet may carry (default 8,
	// at most 255): the redundancy against loss.
	MaxInputs int
	// MaxInputSize is the largest encoded input, in bytes (default 64).
	// MaxInputs inputs of this size, each with a drawn record of MaxLate late
	// entities, must fit in MaxPacket.
	MaxInputSize int
	// MaxLate is the most late entities an input's Drawn may name
	// (default 6, at most 64).
	MaxLate int
}

// DefaultConfig returns the configuration with every default filled in.
func DefaultConfig() Config {
	c, _ := Config{}.normalize()
	return c
}

// Validate reports whether every field is in its allowed range (zero meaning
// the default), wrapping [ErrConfig].
func (c Config) Validate() error {
	_, err := c.normalize()
	return err
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func checkRange(field string, v, lo, hi int) error {
	if v < lo || v > hi {
		return fmt.Errorf("%w: %s = %d, want %d..%d (or 0 for the default)", ErrConfig, field, v, lo, hi)
	}
	return nil
}

// normalize returns c with defaults filled in, or an error naming the first
// field out of range.
func (c Config) normalize() (Config, error) {
	q, err := c.Quantizer.normalize()
	if err != nil {
		return c, err
	}
	c.Quantizer = q
	c.MaxPacket = orDefault(c.MaxPacket, DefaultMaxPacket)
	c.MaxParts = orDefault(c.MaxParts, DefaultMaxParts)
	c.MaxEntities = orDefault(c.MaxEntities, DefaultMaxEntities)
	c.History = orDefault(c.History, DefaultHistory)
	c.MaxPendingTicks = orDefault(c.MaxPendingTicks, DefaultMaxPendingTicks)
	c.MaxInputs = orDefault(c.MaxInputs, DefaultMaxInputs)
	c.MaxInputSize = orDefault(c.MaxInputSize, DefaultMaxInputSize)
	c.MaxLate = orDefault(c.MaxLate, DefaultMaxLate)
	for _, f := range [...]struct {
		name      string
		v, lo, hi int
	}{
		{"MaxPacket", c.MaxPacket, MinPacket, MaxPacketLimit},
		{"MaxParts", c.MaxParts, 1, MaxPartsLimit},
		{"MaxEntities", c.MaxEntities, 1, MaxEntitiesMax},
		{"History", c.History, 2, MaxHistory},
		{"MaxPendingTicks", c.MaxPendingTicks, 1, MaxPendingLimit},
		{"MaxInputs", c.MaxInputs, 1, MaxInputsLimit},
		{"MaxInputSize", c.MaxInputSize, 1, MaxPacketLimit},
		{"MaxLate", c.MaxLate, 0, MaxLateLimit},
	} {
		if err := checkRange(f.name, f.v, f.lo, f.hi); err != nil {
			return c, err
		}
	}
	if n := maxInputPacket(c.MaxInputs, c.MaxInputSize, c.MaxLate); n > c.MaxPacket {
		return c, fmt.Errorf("%w: %d inputs of %d bytes with drawn records of %d late entities need packets of %d bytes, MaxPacket is %d",
			ErrConfig, c.MaxInputs, c.MaxInputSize, c.MaxLate, n, c.MaxPacket)
	}
	return c, nil
}

// maxInputPacket is the size of the largest input packet with n inputs of
// size bytes each, each with a drawn record of maxLate late entities.
func maxInputPacket(n, size, maxLate int) int {
	return HeaderSize + inputFixedMax + n*(UvarintLen(uint32(size))+size+maxDrawnSize(maxLate))
}

// UvarintLen returns how many bytes v takes as a varint on the wire (a
// NetID gap, a record's mask, a delta): what a server counts when it
// bounds a snapshot's size before encoding it.
func UvarintLen(v uint32) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

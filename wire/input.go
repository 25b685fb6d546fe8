package wire

import (
	"encoding/binary"
	"fmt"
)

// Input body layout.
const (
	inputHasAckedTick = 1 << 0
	inputResync       = 1 << 1
	inputHasDrawn     = 1 << 2
	inputKnownFlags   = inputHasAckedTick | inputResync | inputHasDrawn
	// inputFixedMax is the largest input body before the payloads: flags 1,
	// acked tick 4, first seq 4, count 1.
	inputFixedMax = 1 + 4 + 4 + 1
)

// InputPacket is what a client sends the server every tick (or every few):
// the newest snapshot tick it completely received, which the server may
// delta-encode against from then on, and its latest inputs. Inputs carry
// consecutive sequence numbers FirstSeq, FirstSeq+1, ...; a client repeats
// its unacknowledged inputs (up to Config.MaxInputs) in every packet so that
// a lost packet costs nothing as long as a later one arrives in time.
//
// Each input is an opaque payload: the game encodes its own input type
// (typically a few bytes: buttons and axes) at most Config.MaxInputSize
// bytes long.
type InputPacket struct {
	// AckedTick is the newest snapshot tick the client has completely
	// received ([Decoder.Acked]), valid with HasAckedTick.
	AckedTick    uint32
	HasAckedTick bool
	// Resync asks the server for a full snapshot: the client assembled a
	// tick whose state differs from the server's ([Decoder.Diverged]), so
	// no delta can be trusted until a full snapshot has arrived.
	Resync bool
	// FirstSeq is the sequence number of Inputs[0].
	FirstSeq uint32
	// Inputs are the payloads, oldest first. DecodeInput makes them alias
	// the packet's bytes.
	Inputs [][]byte
	// Drawn, if not nil, holds for each input what the client drew when
	// it made it (lag compensation): one record per input.
	Drawn []Drawn

	late      []Late  // the decoded records' late entities
	drawnRoom []Drawn // Drawn's array, kept while Drawn is nil
}

func inputConfig(cfg *Config) (Config, error) {
	if cfg == nil {
		return Config{}.normalize()
	}
	return cfg.normalize()
}

// AppendInput appends the input packet p with header h (its Type is set to
// TypeInput) to dst. cfg's limits apply (nil means the defaults): at most
// MaxInputs inputs of at most MaxInputSize bytes each, else an error
// wrapping [ErrLimit] and dst unchanged.
func AppendInput(dst []byte, h *Header, p *InputPacket, cfg *Config) ([]byte, error) {
	c, err := inputConfig(cfg)
	if err != nil {
		return dst, err
	}
	if len(p.Inputs) > c.MaxInputs {
		return dst, fmt.Errorf("%w: %d inputs > MaxInputs %d", ErrLimit, len(p.Inputs), c.MaxInputs)
	}
	for i, in := range p.Inputs {
		if len(in) > c.MaxInputSize {
			return dst, fmt.Errorf("%w: input %d (seq %d) is %d bytes > MaxInputSize %d", ErrLimit, i, p.FirstSeq+uint32(i), len(in), c.MaxInputSize)
		}
	}
	if err := checkDrawn(p, c.MaxLate); err != nil {
		return dst, err
	}
	hh := *h
	hh.Type = TypeInput
	dst = AppendHeader(dst, &hh)
	var flags uint8
	if p.HasAckedTick {
		flags |= inputHasAckedTick
	}
	if p.Resync {
		flags |= inputResync
	}
	if p.Drawn != nil && len(p.Inputs) > 0 {
		flags |= inputHasDrawn
	}
	dst = append(dst, flags)
	if p.HasAckedTick {
		dst = binary.LittleEndian.AppendUint32(dst, p.AckedTick)
	}
	dst = binary.LittleEndian.AppendUint32(dst, p.FirstSeq)
	dst = append(dst, byte(len(p.Inputs)))
	for i, in := range p.Inputs {
		dst = appendUvarint(dst, uint32(len(in)))
		dst = append(dst, in...)
		if p.Drawn != nil && len(p.Inputs) > 0 {
			prev := uint32(0)
			if i > 0 {
				prev = p.Drawn[i-1].Time
			}
			dst = appendDrawn(dst, &p.Drawn[i], prev, i == 0)
		}
	}
	return dst, nil
}

// DecodeInput decodes an input packet into p, reusing p.Inputs' memory
// (payloads alias packet: copy them to keep them past the packet's buffer),
// and returns its header. cfg's limits apply (nil means the defaults):
// packet size, input count and payload size. On error p is left in an
// unspecified state.
func DecodeInput(packet []byte, p *InputPacket, cfg *Config) (Header, error) {
	c, err := inputConfig(cfg)
	if err != nil {
		return Header{}, err
	}
	if len(packet) > c.MaxPacket {
		return Header{}, fmt.Errorf("%w: input packet of %d bytes > MaxPacket %d", ErrLimit, len(packet), c.MaxPacket)
	}
	h, body, err := ParseHeader(packet)
	if err != nil {
		return h, err
	}
	if h.Type != TypeInput {
		return h, fmt.Errorf("%w: %v packet, want input", ErrType, h.Type)
	}
	r := reader{b: body}
	flags, err := r.u8("input flags")
	if err != nil {
		return h, err
	}
	if flags&^inputKnownFlags != 0 {
		return h, fmt.Errorf("%w: input flags %#02x has unknown bits", ErrMalformed, flags)
	}
	p.HasAckedTick = flags&inputHasAckedTick != 0
	p.Resync = flags&inputResync != 0
	drawn := flags&inputHasDrawn != 0
	p.AckedTick = 0
	if p.HasAckedTick {
		if p.AckedTick, err = r.u32("acked tick"); err != nil {
			return h, err
		}
	}
	if p.FirstSeq, err = r.u32("first seq"); err != nil {
		return h, err
	}
	n, err := r.u8("input count")
	if err != nil {
		return h, err
	}
	if int(n) > c.MaxInputs {
		return h, fmt.Errorf("%w: %d inputs > MaxInputs %d", ErrLimit, n, c.MaxInputs)
	}
	if drawn && n == 0 {
		return h, fmt.Errorf("%w: drawn flag on a packet without inputs", ErrMalformed)
	}
	p.Inputs = p.Inputs[:0]
	// Drawn is nil without drawn records; its array is kept for the next
	// packet that has them, so that a stream of packets with and without
	// them decodes without allocating.
	if p.Drawn != nil {
		p.drawnRoom = p.Drawn
	}
	p.Drawn, p.late = nil, p.late[:0]
	if drawn {
		p.Drawn = p.drawnRoom[:0]
	}
	if err := p.readInputs(&r, int(n), drawn, &c); err != nil {
		return h, err
	}
	if r.remaining() != 0 {
		return h, fmt.Errorf("%w: %d trailing bytes after %d inputs", ErrMalformed, r.remaining(), n)
	}
	return h, nil
}

// readInputs reads n inputs into p.Inputs, each followed by its drawn
// record if drawn (into p.Drawn, which DecodeInput prepared), within c's
// limits.
func (p *InputPacket) readInputs(r *reader, n int, drawn bool, c *Config) error {
	for i := range n {
		size, err := r.uvarint("input size", uint32(c.MaxInputSize))
		if err != nil {
			return fmt.Errorf("input %d (seq %d): %w", i, p.FirstSeq+uint32(i), err)
		}
		in, err := r.bytes("input payload", int(size))
		if err != nil {
			return fmt.Errorf("input %d (seq %d): %w", i, p.FirstSeq+uint32(i), err)
		}
		p.Inputs = append(p.Inputs, in)
		if drawn {
			var v Drawn
			prev := uint32(0)
			if i > 0 {
				prev = p.Drawn[i-1].Time
			}
			if p.late, err = readDrawn(r, &v, prev, i == 0, c.MaxLate, p.late); err != nil {
				return fmt.Errorf("input %d (seq %d): %w", i, p.FirstSeq+uint32(i), err)
			}
			p.Drawn = append(p.Drawn, v)
		}
	}
	return nil
}

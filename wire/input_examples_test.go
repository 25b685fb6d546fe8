package wire_test

import (
	"fmt"

	"github.com/netsmooth/netsmooth/wire"
)

// A client repeats its unacknowledged inputs in every packet; the payloads
// are the game's own encoding of its input type.
func ExampleAppendInput() {
	p := wire.InputPacket{
		AckedTick: 120, HasAckedTick: true, // from Decoder.Acked
		FirstSeq: 41, // inputs 41, 42, 43
		Inputs:   [][]byte{{0x01, 0x00}, {0x01, 0x7f}, {0x03, 0x7f}},
	}
	pkt, err := wire.AppendInput(nil, &wire.Header{Seq: 9, Sent: 1000}, &p, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(pkt), "bytes")

	// Server side.
	var got wire.InputPacket
	h, err := wire.DecodeInput(pkt, &got, nil)
	if err != nil {
		panic(err)
	}
	for i, in := range got.Inputs {
		fmt.Printf("packet %d: seq %d input % x\n", h.Seq, got.FirstSeq+uint32(i), in)
	}
	fmt.Println("client has tick", got.AckedTick)
	// Output:
	// 42 bytes
	// packet 9: seq 41 input 01 00
	// packet 9: seq 42 input 01 7f
	// packet 9: seq 43 input 03 7f
	// client has tick 120
}

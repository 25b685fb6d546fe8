package wire_test

import (
	"fmt"

	"github.com/netsmooth/netsmooth/wire"
)

// Each end keeps Receipts of what it received; the headers it sends then
// acknowledge the other side's packets and echo its clock, so both can
// measure the round trip without a ping.
func ExampleReceipts() {
	var client, server wire.Receipts

	// The client sends packet 1 at its local time 5000 ms.
	out := wire.Header{Type: wire.TypeInput, Seq: 1, Sent: 5000}
	client.Stamp(&out, 5000)
	pkt := wire.AppendHeader(nil, &out)

	// It reaches the server 40 ms later (by the server's own clock, which
	// reads 90040); the server answers 10 ms after that.
	in, _, err := wire.ParseHeader(pkt)
	if err != nil {
		panic(err)
	}
	server.Receive(&in, 90040)
	reply := wire.Header{Type: wire.TypeSnapshot, Seq: 1, Sent: 90050}
	server.Stamp(&reply, 90050)

	// Back at the client 35 ms later.
	client.Receive(&reply, 5085)
	rtt, _ := reply.RTT(5085)
	fmt.Println("server acks packet 1:", reply.Acks(1))
	fmt.Println("RTT:", rtt, "ms")
	// Output:
	// server acks packet 1: true
	// RTT: 75 ms
}

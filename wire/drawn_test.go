package wire

import (
	"errors"
	"slices"
	"testing"
)

// Drawn records travel with their inputs: times across a wrap, late entities,
// and a packet without drawn records stays without.
func TestDrawnRoundTrip(t *testing.T) {
	p := InputPacket{FirstSeq: 40, Inputs: [][]byte{{1}, {2}, {3}}, Drawn: []Drawn{
		{Time: DrawnTime(1000.5), Late: []Late{{NetID: 7, Behind: 512, Span: 4, Back: 2}, {NetID: 900, Behind: 1}}},
		{Time: DrawnTime(1001.5)},
		{Time: DrawnTime(1000.25), Late: []Late{{NetID: 1, Behind: 65535}}},
	}}
	b, err := AppendInput(nil, &Header{}, &p, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got InputPacket
	if _, err := DecodeInput(b, &got, nil); err != nil {
		t.Fatal(err)
	}
	if len(got.Drawn) != 3 {
		t.Fatalf("%d drawn records", len(got.Drawn))
	}
	for i := range p.Drawn {
		if got.Drawn[i].Time != p.Drawn[i].Time || !slices.Equal(got.Drawn[i].Late, p.Drawn[i].Late) {
			t.Fatalf("drawn %d: %+v, want %+v", i, got.Drawn[i], p.Drawn[i])
		}
	}
	if tick := got.Drawn[0].Tick(1003); tick != 1000.5 {
		t.Fatalf("Tick %v, want 1000.5", tick)
	}
	// Entity 7 is drawn 2 ticks behind, at 998.5, between its samples of
	// ticks 996 and 1000.
	if from := got.Drawn[0].Late[0].From(got.Drawn[0].Time); from != 996 {
		t.Fatalf("From %d, want 996", from)
	}
	// Decoding a packet without drawn records into the same struct drops them.
	b, _ = AppendInput(nil, &Header{}, &InputPacket{Inputs: [][]byte{{1}}}, nil)
	if _, err := DecodeInput(b, &got, nil); err != nil || got.Drawn != nil {
		t.Fatalf("drawn %v, %v", got.Drawn, err)
	}
}

// Drawn times wrap every 2^24 ticks; Tick finds the one near the server's.
func TestDrawnTimeWraps(t *testing.T) {
	for _, c := range []struct {
		render float64
		near   uint32
	}{{100.125, 101}, {1<<24 - 0.5, 1 << 24}, {float64(1<<24) + 3.75, 1<<24 + 5}, {5e6 + 0.5, 5e6 + 30}} {
		v := Drawn{Time: DrawnTime(c.render)}
		if got := v.Tick(c.near); got != c.render {
			t.Errorf("render %v near %d: Tick %v", c.render, c.near, got)
		}
	}
}

func TestDrawnLimits(t *testing.T) {
	late := make([]Late, 9)
	for i := range late {
		late[i].NetID = uint32(i + 1)
	}
	for name, c := range map[string]struct {
		p    InputPacket
		want error
	}{
		"count":     {InputPacket{Inputs: [][]byte{{1}, {2}}, Drawn: []Drawn{{}}}, ErrRange},
		"too many":  {InputPacket{Inputs: [][]byte{{1}}, Drawn: []Drawn{{Late: late}}}, ErrLimit},
		"unordered": {InputPacket{Inputs: [][]byte{{1}}, Drawn: []Drawn{{Late: []Late{{NetID: 5}, {NetID: 5}}}}}, ErrOrder},
		"span 1":    {InputPacket{Inputs: [][]byte{{1}}, Drawn: []Drawn{{Late: []Late{{NetID: 5, Span: 1}}}}}, ErrRange},
		"back>span": {InputPacket{Inputs: [][]byte{{1}}, Drawn: []Drawn{{Late: []Late{{NetID: 5, Span: 2, Back: 3}}}}}, ErrRange},
		"back only": {InputPacket{Inputs: [][]byte{{1}}, Drawn: []Drawn{{Late: []Late{{NetID: 5, Back: 1}}}}}, ErrRange},
	} {
		if _, err := AppendInput(nil, &Header{}, &c.p, nil); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	// A decoder with a smaller MaxLate refuses a record naming more.
	p := InputPacket{Inputs: [][]byte{{1}}, Drawn: []Drawn{{Late: late[:3]}}}
	b, _ := AppendInput(nil, &Header{}, &p, nil)
	var got InputPacket
	if _, err := DecodeInput(b, &got, &Config{MaxLate: 2}); !errors.Is(err, ErrLimit) {
		t.Fatalf("MaxLate 2: %v", err)
	}
}

// A decoder refuses a late record whose Span and Back contradict each
// other, as the encoder does.
func TestDrawnSpanDecode(t *testing.T) {
	p := InputPacket{Inputs: [][]byte{{1}}, Drawn: []Drawn{{Time: 9, Late: []Late{{NetID: 5, Behind: 3, Span: 2, Back: 2}}}}}
	b, err := AppendInput(nil, &Header{}, &p, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got InputPacket
	if _, err := DecodeInput(b, &got, nil); err != nil || got.Drawn[0].Late[0] != p.Drawn[0].Late[0] {
		t.Fatalf("%+v %v", got.Drawn, err)
	}
	b[len(b)-1] = 3 // Back 3 > Span 2
	if _, err := DecodeInput(b, &got, nil); !errors.Is(err, ErrMalformed) {
		t.Fatalf("Back > Span: %v", err)
	}
	b[len(b)-2], b[len(b)-1] = 1, 0 // Span 1, then a stray byte
	if _, err := DecodeInput(b, &got, nil); err == nil {
		t.Fatal("Span 1 accepted")
	}
}

package wire

import (
	"errors"
	"slices"
	"testing"
)

// Views travel with their inputs: times across a wrap, late entities,
// and a packet without views stays without.
func TestViewsRoundTrip(t *testing.T) {
	p := InputPacket{FirstSeq: 40, Inputs: [][]byte{{1}, {2}, {3}}, Views: []View{
		{Time: ViewTime(1000.5), Late: []Late{{NetID: 7, Behind: 512}, {NetID: 900, Behind: 1}}},
		{Time: ViewTime(1001.5)},
		{Time: ViewTime(1000.25), Late: []Late{{NetID: 1, Behind: 65535}}},
	}}
	b, err := AppendInput(nil, &Header{}, &p, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got InputPacket
	if _, err := DecodeInput(b, &got, nil); err != nil {
		t.Fatal(err)
	}
	if len(got.Views) != 3 {
		t.Fatalf("%d views", len(got.Views))
	}
	for i := range p.Views {
		if got.Views[i].Time != p.Views[i].Time || !slices.Equal(got.Views[i].Late, p.Views[i].Late) {
			t.Fatalf("view %d: %+v, want %+v", i, got.Views[i], p.Views[i])
		}
	}
	if tick := got.Views[0].Tick(1003); tick != 1000.5 {
		t.Fatalf("Tick %v, want 1000.5", tick)
	}
	// Decoding a packet without views into the same struct drops them.
	b, _ = AppendInput(nil, &Header{}, &InputPacket{Inputs: [][]byte{{1}}}, nil)
	if _, err := DecodeInput(b, &got, nil); err != nil || got.Views != nil {
		t.Fatalf("views %v, %v", got.Views, err)
	}
}

// View times wrap every 2^24 ticks; Tick finds the one near the server's.
func TestViewTimeWraps(t *testing.T) {
	for _, c := range []struct {
		render float64
		near   uint32
	}{{100.125, 101}, {1<<24 - 0.5, 1 << 24}, {float64(1<<24) + 3.75, 1<<24 + 5}, {5e6 + 0.5, 5e6 + 30}} {
		v := View{Time: ViewTime(c.render)}
		if got := v.Tick(c.near); got != c.render {
			t.Errorf("render %v near %d: Tick %v", c.render, c.near, got)
		}
	}
}

func TestViewLimits(t *testing.T) {
	late := make([]Late, 9)
	for i := range late {
		late[i].NetID = uint32(i + 1)
	}
	for name, c := range map[string]struct {
		p    InputPacket
		want error
	}{
		"count":     {InputPacket{Inputs: [][]byte{{1}, {2}}, Views: []View{{}}}, ErrRange},
		"too many":  {InputPacket{Inputs: [][]byte{{1}}, Views: []View{{Late: late}}}, ErrLimit},
		"unordered": {InputPacket{Inputs: [][]byte{{1}}, Views: []View{{Late: []Late{{NetID: 5}, {NetID: 5}}}}}, ErrOrder},
	} {
		if _, err := AppendInput(nil, &Header{}, &c.p, nil); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	// A decoder with a smaller MaxLate refuses a view naming more.
	p := InputPacket{Inputs: [][]byte{{1}}, Views: []View{{Late: late[:3]}}}
	b, _ := AppendInput(nil, &Header{}, &p, nil)
	var got InputPacket
	if _, err := DecodeInput(b, &got, &Config{MaxLate: 2}); !errors.Is(err, ErrLimit) {
		t.Fatalf("MaxLate 2: %v", err)
	}
}

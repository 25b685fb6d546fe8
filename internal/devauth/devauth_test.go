package devauth

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/netsmooth/netsmooth/token"
)

// A ticket fetched from the handler carries a token the backend's
// verifier admits once, for the address it names.
func TestTicket(t *testing.T) {
	b, err := New()
	if err != nil {
		t.Fatal(err)
	}
	h := [32]byte{1, 2, 3}
	srv := httptest.NewServer(b.Handler(func() Ticket { return Ticket{Addr: "127.0.0.1:7777", CertHash: HashString(h)} }))
	defer srv.Close()
	tk, err := Fetch(context.Background(), srv.URL+"?spectator=1")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := tk.Hash(); err != nil || got != h {
		t.Fatalf("hash %x %v", got, err)
	}
	raw, err := tk.RawToken()
	if err != nil {
		t.Fatal(err)
	}
	cfg := b.Tokens()
	cfg.Addrs = []string{"127.0.0.1:7777"}
	v, err := token.NewVerifier(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := v.Verify(raw, time.Now())
	if err != nil || !tok.Spectator || tok.ClientID == 0 {
		t.Fatalf("%+v %v", tok, err)
	}
	if _, err := v.Verify(raw, time.Now()); err == nil {
		t.Fatal("a ticket's token admitted twice")
	}
}

//go:build !js

package client

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/netsmooth/netsmooth/systems"
	"github.com/netsmooth/netsmooth/transport"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/quicvarint"
)

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// stallingH3 is a hostile HTTP/3 server: it sends the SETTINGS a
// WebTransport client needs, accepts the CONNECT request stream, writes
// head (possibly nothing) on it, and then says nothing more, while its
// QUIC stack keeps acknowledging the client's keep-alives.
func stallingH3(t *testing.T, head []byte) (addr string, hash [32]byte, stop func()) {
	ln, hash := rawListener(t, "h3", &quic.Config{EnableDatagrams: true, EnableStreamResetPartialDelivery: true})
	var mu sync.Mutex
	var conns []*quic.Conn
	go func() {
		for {
			qc, err := ln.Accept(context.Background())
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, qc)
			mu.Unlock()
			go func() {
				ctl, err := qc.OpenUniStream()
				if err != nil {
					return
				}
				var settings []byte
				for _, kv := range [][2]uint64{{0x08, 1}, {0x33, 1}, {0x2c7cf000, 1}, {0x2b603742, 1}} {
					settings = quicvarint.Append(settings, kv[0])
					settings = quicvarint.Append(settings, kv[1])
				}
				b := quicvarint.Append(nil, 0x00) // control stream
				b = quicvarint.Append(b, 0x04)    // SETTINGS
				b = quicvarint.Append(b, uint64(len(settings)))
				ctl.Write(append(b, settings...))
				st, err := qc.AcceptStream(context.Background())
				if err != nil {
					return
				}
				if len(head) > 0 {
					st.Write(head)
				}
			}()
		}
	}()
	return ln.Addr().String(), hash, func() {
		ln.Close()
		mu.Lock()
		for _, qc := range conns {
			qc.CloseWithError(0, "")
		}
		mu.Unlock()
	}
}

// DialWebTransport gives up after DialConfig.Timeout (and when ctx ends),
// with an error wrapping transport.ErrTimeout, against a server that
// never answers the CONNECT request, or answers part of it: webtransport-go
// reads the answer with no context, so without the dial's own timeout
// it would wait for as long as the server's QUIC stack lived (a HEADERS
// frame that claims 10 MB holds a 10 MB buffer meanwhile: http3's
// default, allocated before reading, which the dial's end gives back).
func TestDialWebTransportGivesUpAtItsTimeout(t *testing.T) {
	claim := quicvarint.Append(quicvarint.Append(nil, 0x01), 10<<20-64) // HEADERS of 10 MB
	for _, tc := range []struct {
		name string
		head []byte
	}{{"no answer", nil}, {"10 MB HEADERS claim", append(claim, 0, 0)}} {
		t.Run(tc.name, func(t *testing.T) {
			addr, hash, stop := stallingH3(t, tc.head)
			defer stop()
			cfg := Config{Token: []byte("tok"), Session: SessionConfig{Inbox: systems.NewInbox(0)}}
			cfg.Transport.CertHashes = [][32]byte{hash}
			cfg.Transport.Timeout = time.Second
			ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
			defer cancel()
			base := heapInUse()
			const dials = 3
			errs := make(chan error, dials)
			start := time.Now()
			for range dials {
				go func() {
					_, err := DialWebTransport(ctx, "https://"+addr+"/netsmooth", cfg)
					errs <- err
				}()
			}
			time.Sleep(500 * time.Millisecond)
			during := heapInUse()
			returned := 0
			wait := time.After(5 * time.Second)
		collect:
			for returned < dials {
				select {
				case err := <-errs:
					returned++
					t.Logf("dial returned after %v: %v", time.Since(start), err)
					if !errors.Is(err, transport.ErrTimeout) {
						t.Errorf("the dial failed with %v, want an error wrapping transport.ErrTimeout", err)
					}
				case <-wait:
					break collect
				}
			}
			t.Logf("heap in use: before %d KB, with %d dials waiting %d KB (%+d KB)", base>>10, dials, during>>10, int64(during-base)>>10)
			if returned < dials {
				t.Errorf("%d of %d DialWebTransport calls still blocked %v after start (Timeout 1 s, ctx deadline 1.5 s)",
					dials-returned, dials, time.Since(start).Round(time.Millisecond))
			}
			stop() // the server's QUIC connections close: the dials return
			for ; returned < dials; returned++ {
				<-errs
			}
		})
	}
}

//go:build js

package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	neturl "net/url"
	"sync"
	"syscall/js"
	"time"

	"github.com/netsmooth/netsmooth/wire"
)

// In a browser, DialWebTransport drives the browser's WebTransport
// (syscall/js) through the same protocol as the native one: a session at
// the URL, one bidirectional stream carrying the framed Hello one way and
// the framed Welcome the other, then datagrams. The browser runs QUIC and
// TLS; a server refusing the client closes the session with code
// codeBase+reason and its message, which the closed promise reports.

// closeWait bounds how long a failed read or dial waits for the session's
// closed promise to say why the session ended.
const closeWait = time.Second

// DialWebTransport connects to a netsmooth server's WebTransport endpoint
// at url (https://host:port/path) with the browser's WebTransport, sends
// hello and waits for the answer, as the native DialWebTransport does.
// With cfg.CertHashes the browser accepts the server's self-signed
// certificate by its hash (serverCertificateHashes); without, the
// certificate must chain to the browser's roots. It fails with an error
// wrapping errors.ErrUnsupported when the browser has no WebTransport (a
// page then falls back to a WebSocket: [Handshake]), a *CloseError with
// the server's reason when the server refused, an error wrapping
// ErrTimeout when nothing answered within cfg.Timeout, or the browser's
// error when the session could not be opened (a certificate that did not
// check out, a server not listening).
func DialWebTransport(ctx context.Context, url string, hello wire.Hello, cfg DialConfig) (Conn, wire.Welcome, error) {
	msg, err := wire.AppendHello(nil, &hello)
	if err != nil {
		return nil, wire.Welcome{}, err
	}
	ctor := js.Global().Get("WebTransport")
	if ctor.Type() != js.TypeFunction {
		return nil, wire.Welcome{}, fmt.Errorf("transport: %w: this browser has no WebTransport", errors.ErrUnsupported)
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout())
	defer cancel()
	opts := map[string]any{}
	if len(cfg.CertHashes) > 0 {
		hashes := make([]any, len(cfg.CertHashes))
		for i, h := range cfg.CertHashes {
			hashes[i] = map[string]any{"algorithm": "sha-256", "value": bytesToJS(h[:])}
		}
		opts["serverCertificateHashes"] = hashes
	}
	var wt js.Value
	if err := catchJS(func() { wt = ctor.New(url, opts) }); err != nil {
		return nil, wire.Welcome{}, fmt.Errorf("transport: connecting to %s: %w", url, err)
	}
	s := watchSession(wt)
	fail := func(err error) (Conn, wire.Welcome, error) {
		err = s.dialErr(ctx, url, err)
		s.close(wire.ReasonLeft, "")
		return nil, wire.Welcome{}, err
	}
	if _, err := await(ctx, wt.Get("ready")); err != nil {
		return fail(err)
	}
	v, err := await(ctx, wt.Call("createBidirectionalStream"))
	if err != nil {
		return fail(err)
	}
	st, err := newJSStream(v)
	if err != nil {
		return fail(err)
	}
	w, err := hail(ctx, st, msg)
	if err != nil {
		return fail(err)
	}
	c, err := newWTConn(s, url, cfg.QueueLen)
	if err != nil {
		return fail(err)
	}
	return c, w, nil
}

// wtSession is a browser WebTransport session and what its closed
// promise says once the session has ended.
type wtSession struct {
	wt    js.Value
	ended chan struct{} // closed when the closed promise has settled
	// Set before ended is closed: why the session ended, and whether the
	// closed promise resolved (a close with a code and a message, by
	// either end) rather than rejected (the connection failed).
	why    *CloseError
	closed bool
}

// watchSession starts waiting for wt's closed promise.
func watchSession(wt js.Value) *wtSession {
	s := &wtSession{wt: wt, ended: make(chan struct{})}
	go func() {
		defer close(s.ended)
		info, err := await(context.Background(), wt.Get("closed"))
		if err != nil {
			s.why = &CloseError{Reason: wire.ReasonNone, Message: err.Error(), Remote: true}
			return
		}
		s.closed = true
		s.why = &CloseError{Reason: wire.ReasonNone, Remote: true}
		if info.Type() != js.TypeObject {
			return
		}
		if code := info.Get("closeCode"); code.Type() == js.TypeNumber {
			s.why.Reason, _ = codeReason(uint64(code.Float()))
			s.why.Claimed = true // the peer's close code
		}
		if r := info.Get("reason"); r.Type() == js.TypeString {
			s.why.Message = wire.CloseText(r.String())
		}
	}()
	return s
}

// reason waits up to closeWait for the session to end and says why it
// did, or, if it has not, the error err that suggested it had.
func (s *wtSession) reason(err error) *CloseError {
	select {
	case <-s.ended:
		return s.why
	case <-time.After(closeWait):
		return &CloseError{Reason: wire.ReasonNone, Message: err.Error(), Remote: true}
	}
}

// close closes the session with reason's code and message; nothing if
// it has ended already.
func (s *wtSession) close(reason wire.Reason, message string) error {
	return catchJS(func() {
		s.wt.Call("close", map[string]any{"closeCode": int(reasonCode(reason)), "reason": message})
	})
}

// dialErr turns a failed dial into the error DialWebTransport documents:
// a server that closed the session refused the client, with the reason
// the session's close carries.
func (s *wtSession) dialErr(ctx context.Context, url string, err error) error {
	var ce *CloseError
	if errors.As(err, &ce) {
		return ce // a Close message on the control stream
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%w: %s did not answer: %w", ErrTimeout, url, err)
	}
	select {
	case <-s.ended:
		if s.closed {
			return s.why
		}
	case <-time.After(closeWait):
	}
	return fmt.Errorf("transport: connecting to %s: %w", url, err)
}

// jsCarrier is a browser WebTransport session's datagrams, as a Conn
// carries them.
type jsCarrier struct {
	s      *wtSession
	remote net.Addr
	ctx    context.Context // done when the session has ended
	in     js.Value        // the datagrams' readable stream's reader
	out    js.Value        // the datagrams' writable stream's writer

	mu  sync.Mutex // SendDatagram's: the send queue's goroutine, and Close
	buf js.Value   // a Uint8Array each packet is copied into
}

func newWTConn(s *wtSession, url string, queue int) (*datagramConn, error) {
	c := &jsCarrier{s: s, remote: urlAddr(url), buf: js.Global().Get("Uint8Array").New(wire.DefaultMaxPacket)}
	err := catchJS(func() {
		dg := s.wt.Get("datagrams")
		// Room for a tick's snapshot parts while the game is busy: the
		// browsers' default keeps a few datagrams only.
		dg.Set("incomingHighWaterMark", 256)
		c.in = dg.Get("readable").Call("getReader")
		w := dg.Get("writable")
		if w.Type() != js.TypeObject && dg.Get("createWritable").Type() == js.TypeFunction {
			w = dg.Call("createWritable")
		}
		c.out = w.Call("getWriter")
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.ctx = ctx
	go func() {
		<-s.ended
		cancel()
	}()
	return newDatagramConn(c, KindWebTransport, queue), nil
}

// SendDatagram writes one datagram.
func (c *jsCarrier) SendDatagram(b []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.buf.Get("length").Int() < len(b) {
		c.buf = js.Global().Get("Uint8Array").New(len(b))
	}
	js.CopyBytesToJS(c.buf, b)
	var p js.Value
	if err := catchJS(func() { p = c.out.Call("write", c.buf.Call("subarray", 0, len(b))) }); err != nil {
		return err
	}
	_, err := await(context.Background(), p)
	return err
}

// ReceiveDatagram reads the next datagram.
func (c *jsCarrier) ReceiveDatagram(ctx context.Context) ([]byte, error) {
	v, err := await(ctx, c.in.Call("read"))
	if err == nil && v.Get("done").Bool() {
		err = io.EOF
	}
	if err != nil {
		return nil, err
	}
	return bytesFromJS(v.Get("value")), nil
}

func (c *jsCarrier) RemoteAddr() net.Addr                    { return c.remote }
func (c *jsCarrier) Context() context.Context                { return c.ctx }
func (c *jsCarrier) closeWith(r wire.Reason, m string) error { return c.s.close(r, m) }
func (c *jsCarrier) reason(err error) *CloseError            { return c.s.reason(err) }
func (c *jsCarrier) fatal(error) bool                        { return true }

// grace is none: the server reads the session close's code and message.
func (c *jsCarrier) grace() time.Duration { return 0 }

// jsStream is a WebTransport bidirectional stream as hail uses it: its
// reads and writes wait for the browser's promises, until the deadline.
type jsStream struct {
	r, w     js.Value // the readable's reader, the writable's writer
	pending  []byte   // read, not yet returned
	eof      bool
	deadline time.Time
}

func newJSStream(v js.Value) (*jsStream, error) {
	s := &jsStream{}
	err := catchJS(func() {
		s.r = v.Get("readable").Call("getReader")
		s.w = v.Get("writable").Call("getWriter")
	})
	return s, err
}

func (s *jsStream) SetDeadline(t time.Time) error {
	s.deadline = t
	return nil
}

// wait awaits p until the deadline.
func (s *jsStream) wait(p js.Value) (js.Value, error) {
	ctx, cancel := context.WithCancel(context.Background())
	if !s.deadline.IsZero() {
		ctx, cancel = context.WithDeadline(context.Background(), s.deadline)
	}
	defer cancel()
	return await(ctx, p)
}

func (s *jsStream) Write(b []byte) (int, error) {
	var p js.Value
	if err := catchJS(func() { p = s.w.Call("write", bytesToJS(b)) }); err != nil {
		return 0, err
	}
	if _, err := s.wait(p); err != nil {
		return 0, err
	}
	return len(b), nil
}

func (s *jsStream) Read(b []byte) (int, error) {
	for len(s.pending) == 0 {
		if s.eof {
			return 0, io.EOF
		}
		v, err := s.wait(s.r.Call("read"))
		if err != nil {
			return 0, err
		}
		if v.Get("done").Bool() {
			s.eof = true
			continue
		}
		s.pending = bytesFromJS(v.Get("value"))
	}
	n := copy(b, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

// Close closes the sending side (a FIN after the data written), without
// waiting for the browser to confirm it.
func (s *jsStream) Close() error {
	return catchJS(func() { ignoreRejection(s.w.Call("close")) })
}

// await waits until promise p (or a plain value) settles, or ctx ends. A
// rejection is returned as a *jsError. The callbacks release themselves
// when p settles, even after await has returned for ctx.
func await(ctx context.Context, p js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	ch := make(chan result, 1)
	var onOK, onErr js.Func
	settle := func(r result) {
		onOK.Release()
		onErr.Release()
		ch <- r
	}
	onOK = js.FuncOf(func(_ js.Value, args []js.Value) any {
		settle(result{v: arg0(args)})
		return nil
	})
	onErr = js.FuncOf(func(_ js.Value, args []js.Value) any {
		settle(result{err: newJSError(arg0(args))})
		return nil
	})
	js.Global().Get("Promise").Call("resolve", p).Call("then", onOK, onErr)
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		return js.Undefined(), ctx.Err()
	}
}

func arg0(args []js.Value) js.Value {
	if len(args) == 0 {
		return js.Undefined()
	}
	return args[0]
}

// noop handles a rejection nobody waits for, so that the browser does
// not report it as unhandled.
var noop = js.FuncOf(func(js.Value, []js.Value) any { return nil })

func ignoreRejection(p js.Value) { p.Call("catch", noop) }

// jsError is a JavaScript exception or rejection: a WebTransportError or
// DOMException, typically.
type jsError struct{ name, message string }

func newJSError(v js.Value) *jsError {
	if v.Type() != js.TypeObject {
		return &jsError{message: v.String()}
	}
	e := &jsError{message: v.Get("message").String()}
	if n := v.Get("name"); n.Type() == js.TypeString {
		e.name = n.String()
	}
	return e
}

func (e *jsError) Error() string {
	if e.name == "" {
		return "WebTransport: " + e.message
	}
	return "WebTransport: " + e.name + ": " + e.message
}

// catchJS runs f, returning a JavaScript exception it throws as an error.
func catchJS(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			je, ok := r.(js.Error)
			if !ok {
				panic(r)
			}
			err = newJSError(je.Value)
		}
	}()
	f()
	return nil
}

func bytesToJS(b []byte) js.Value {
	v := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(v, b)
	return v
}

func bytesFromJS(v js.Value) []byte {
	b := make([]byte, v.Get("byteLength").Int())
	js.CopyBytesToGo(b, v)
	return b
}

// wtAddr is the server's address as a page knows it: the host and port
// of the session's URL (the browser does not tell the address it
// resolved).
type wtAddr string

func urlAddr(url string) net.Addr {
	u, err := neturl.Parse(url)
	if err != nil || u.Host == "" {
		return wtAddr(url)
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "443")
	}
	return wtAddr(host)
}

func (a wtAddr) Network() string { return "webtransport" }
func (a wtAddr) String() string  { return string(a) }

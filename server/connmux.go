package server

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// sniffLimit bounds what the mux reads (and keeps, to replay) of a new
// connection while it looks for the first request. A gRPC client's preface,
// SETTINGS, WINDOW_UPDATE and first HEADERS take a few hundred bytes; a
// connection that has sent more without a request goes to the HTTP server,
// whose HTTP/2 implementation discards what it does not need.
const sniffLimit = 8 << 10

// Accept errors such as running out of file descriptors are waited out,
// as net/http does: the wait starts at minAcceptDelay and doubles up to
// maxAcceptDelay while errors persist.
const (
	minAcceptDelay = 5 * time.Millisecond
	maxAcceptDelay = time.Second
)

// connMux splits one listener between the gRPC server's own HTTP/2
// transport and the HTTP server. gRPC through http.Server (grpc.Server's
// ServeHTTP) costs about 30 % more CPU per call and answers fewer calls per
// second than grpc.Server.Serve, so gRPC connections are told apart when
// they open: HTTP/2 with prior knowledge whose first request has an
// application/grpc content type. Everything else (HTTP/1.1, HTTP/2 REST)
// goes to the HTTP server.
//
// gRPC clients wait for the server's SETTINGS frame before they send a
// request, so the mux sends one while it looks. The gRPC server ignores
// the client's extra acknowledgement of it; the HTTP server would not, so
// for HTTP/2 connections it hands over, that acknowledgement is removed.
type connMux struct {
	root       net.Listener
	grpc, http *muxListener
	// sniffTimeout bounds how long a new connection may take to show what
	// it is; a client that says too little in that time is dropped.
	sniffTimeout time.Duration
	log          *slog.Logger
	closeOnce    sync.Once
	done         chan struct{}
	err          error // why accepting stopped, when not by close; set before done closes
}

func newConnMux(root net.Listener, sniffTimeout time.Duration, log *slog.Logger) *connMux {
	if log == nil {
		log = slog.Default()
	}
	m := &connMux{root: root, sniffTimeout: sniffTimeout, log: log, done: make(chan struct{})}
	m.grpc = &muxListener{mux: m, conns: make(chan net.Conn)}
	m.http = &muxListener{mux: m, conns: make(chan net.Conn)}
	return m
}

// serve accepts connections until the mux is closed or the root listener
// fails for good. Temporary errors (out of file descriptors, a connection
// reset before it was accepted) are logged and retried after a growing
// pause, so a burst of connections cannot end the process.
func (m *connMux) serve() {
	var delay time.Duration
	for {
		c, err := m.root.Accept()
		if err == nil {
			delay = 0
			go m.classify(c)
			continue
		}
		select {
		case <-m.done:
			return
		default:
		}
		if errors.Is(err, net.ErrClosed) || !temporaryAcceptError(err) {
			m.stop(err)
			return
		}
		delay = min(max(2*delay, minAcceptDelay), maxAcceptDelay)
		m.log.Warn("accepting a connection failed; retrying", "error", err.Error(), "retry_in", delay.String())
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-m.done:
			t.Stop()
			return
		}
	}
}

// temporaryAcceptError tells errors worth waiting out from a listener that
// is gone: running out of file descriptors or kernel memory, and
// connections aborted before they were accepted.
func temporaryAcceptError(err error) bool {
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM,
		syscall.ECONNABORTED, syscall.ECONNRESET, syscall.EINTR, syscall.EAGAIN, syscall.EPROTO, syscall.EPERM} {
		if errors.Is(err, errno) {
			return true
		}
	}
	var ne interface{ Temporary() bool }
	var te interface{ Timeout() bool }
	return errors.As(err, &ne) && ne.Temporary() || errors.As(err, &te) && te.Timeout()
}

// stop closes the mux because the root listener failed; both sides then
// return that error from Accept.
func (m *connMux) stop(err error) {
	m.closeOnce.Do(func() {
		m.err = err
		close(m.done)
		_ = m.root.Close()
	})
}

func (m *connMux) close() { m.stop(nil) }

func (m *connMux) classify(c net.Conn) {
	_ = c.SetDeadline(time.Now().Add(m.sniffTimeout))
	var seen bytes.Buffer
	r := io.TeeReader(&sniffReader{r: c, left: sniffLimit}, &seen)
	to, conn := m.http, net.Conn(nil)
	switch isH2, err := readPreface(r); {
	case err != nil:
		_ = c.Close()
		return
	case !isH2:
		conn = &replayConn{Conn: c, r: io.MultiReader(&seen, c), sniffed: seen.Len()}
	default:
		grpc, err := firstRequestIsGRPC(c, r)
		switch {
		case errors.Is(err, errSniffLimit) || errors.Is(err, http2.ErrFrameTooLarge):
			// No request within the limit: the HTTP server takes it from
			// here, with its own limits, and answers gRPC too if one comes.
		case err != nil:
			_ = c.Close()
			return
		case grpc:
			to, conn = m.grpc, &replayConn{Conn: c, r: io.MultiReader(&seen, c), sniffed: seen.Len()}
		}
		if conn == nil {
			conn = &replayConn{Conn: c, r: &settingsAckFilter{r: io.MultiReader(&seen, c), preface: len(http2.ClientPreface)}, sniffed: seen.Len()}
		}
	}
	_ = c.SetDeadline(time.Time{})
	select {
	case to.conns <- conn:
	case <-m.done:
		_ = c.Close()
	}
}

var errSniffLimit = errors.New("connection sent too much before its first request")

// sniffReader reads at most left bytes, then fails with errSniffLimit.
type sniffReader struct {
	r    io.Reader
	left int
}

func (s *sniffReader) Read(p []byte) (int, error) {
	if s.left <= 0 {
		return 0, errSniffLimit
	}
	n, err := s.r.Read(p[:min(len(p), s.left)])
	s.left -= n
	return n, err
}

// readPreface reads as much of the HTTP/2 client preface as the connection
// starts with; an HTTP/1 request differs at its first byte.
func readPreface(r io.Reader) (bool, error) {
	var b [len(http2.ClientPreface)]byte
	for n := 0; n < len(b); {
		k, err := r.Read(b[n:])
		n += k
		if string(b[:n]) != http2.ClientPreface[:n] {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
	return true, nil
}

// firstRequestIsGRPC sends the server's SETTINGS and reads frames up to the
// first request's headers.
func firstRequestIsGRPC(w io.Writer, r io.Reader) (bool, error) {
	fr := http2.NewFramer(w, r)
	// A frame longer than the whole budget is refused from its header,
	// before anything is allocated for its payload.
	fr.SetMaxReadFrameSize(sniffLimit)
	fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	if err := fr.WriteSettings(); err != nil {
		return false, err
	}
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return false, err
		}
		if h, ok := f.(*http2.MetaHeadersFrame); ok {
			return strings.HasPrefix(h.PseudoValue("method"), "POST") &&
				isNativeGRPC(headerValue(h, "content-type")), nil
		}
	}
}

func headerValue(h *http2.MetaHeadersFrame, name string) string {
	for _, f := range h.RegularFields() {
		if f.Name == name {
			return f.Value
		}
	}
	return ""
}

// replayConn reads what sniffing consumed before the rest of the stream.
type replayConn struct {
	net.Conn
	r       io.Reader
	sniffed int // bytes read while classifying, at most sniffLimit
}

func (c *replayConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// settingsAckFilter passes an HTTP/2 client stream through, minus the
// first empty SETTINGS acknowledgement (the one answering the mux's
// SETTINGS, which the HTTP server never sent).
type settingsAckFilter struct {
	r       io.Reader
	preface int    // preface bytes still to pass
	pending []byte // a frame header to pass
	payload int    // payload bytes of the current frame still to pass
	dropped bool
}

func (f *settingsAckFilter) Read(p []byte) (int, error) {
	for !f.dropped && f.preface == 0 && len(f.pending) == 0 && f.payload == 0 {
		var h [9]byte
		if _, err := io.ReadFull(f.r, h[:]); err != nil {
			return 0, err
		}
		length := int(h[0])<<16 | int(h[1])<<8 | int(h[2])
		if http2.FrameType(h[3]) == http2.FrameSettings && http2.Flags(h[4]).Has(http2.FlagSettingsAck) && length == 0 {
			f.dropped = true
			break
		}
		f.pending, f.payload = h[:], length
	}
	switch {
	case f.preface > 0:
		n, err := f.r.Read(p[:min(len(p), f.preface)])
		f.preface -= n
		return n, err
	case len(f.pending) > 0:
		n := copy(p, f.pending)
		f.pending = f.pending[n:]
		return n, nil
	case f.payload > 0:
		n, err := f.r.Read(p[:min(len(p), f.payload)])
		f.payload -= n
		return n, err
	}
	return f.r.Read(p)
}

// muxListener is one side of a connMux. Closing it (as a server's
// shutdown does) stops the whole mux from accepting.
type muxListener struct {
	mux   *connMux
	conns chan net.Conn
}

func (l *muxListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.mux.done:
		if l.mux.err != nil {
			return nil, l.mux.err
		}
		return nil, net.ErrClosed
	}
}

func (l *muxListener) Close() error {
	l.mux.close()
	return nil
}

func (l *muxListener) Addr() net.Addr { return l.mux.root.Addr() }

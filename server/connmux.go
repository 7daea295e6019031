package server

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// sniffTimeout bounds how long a new connection may take to show what it
// is; a client that says nothing for that long is dropped.
const sniffTimeout = 10 * time.Second

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
	closeOnce  sync.Once
	done       chan struct{}
}

func newConnMux(root net.Listener) *connMux {
	m := &connMux{root: root, done: make(chan struct{})}
	m.grpc = &muxListener{mux: m, conns: make(chan net.Conn)}
	m.http = &muxListener{mux: m, conns: make(chan net.Conn)}
	return m
}

// serve accepts connections until the root listener is closed.
func (m *connMux) serve() {
	defer m.close()
	for {
		c, err := m.root.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return
		}
		go m.classify(c)
	}
}

func (m *connMux) close() {
	m.closeOnce.Do(func() {
		close(m.done)
		_ = m.root.Close()
	})
}

func (m *connMux) classify(c net.Conn) {
	_ = c.SetReadDeadline(time.Now().Add(sniffTimeout))
	var seen bytes.Buffer
	r := io.TeeReader(c, &seen)
	to, conn := m.http, net.Conn(nil)
	switch isH2, err := readPreface(r); {
	case err != nil:
		_ = c.Close()
		return
	case !isH2:
		conn = &replayConn{Conn: c, r: io.MultiReader(&seen, c)}
	default:
		grpc, err := firstRequestIsGRPC(c, r)
		if err != nil {
			_ = c.Close()
			return
		}
		if grpc {
			to, conn = m.grpc, &replayConn{Conn: c, r: io.MultiReader(&seen, c)}
		} else {
			conn = &replayConn{Conn: c, r: &settingsAckFilter{r: io.MultiReader(&seen, c), preface: len(http2.ClientPreface)}}
		}
	}
	_ = c.SetReadDeadline(time.Time{})
	select {
	case to.conns <- conn:
	case <-m.done:
		_ = c.Close()
	}
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
	r io.Reader
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
		return nil, net.ErrClosed
	}
}

func (l *muxListener) Close() error {
	l.mux.close()
	return nil
}

func (l *muxListener) Addr() net.Addr { return l.mux.root.Addr() }

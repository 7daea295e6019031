package edge

import (
	"context"
	"encoding/binary"
	"log/slog"
	"net"
	"net/http"
	"sync"

	"golang.org/x/net/http2"
	"golang.org/x/time/rate"
)

// An HTTP/2 client may cancel any stream it opened, and a gRPC client does
// whenever a deadline passes, but a client that opens and resets streams
// as fast as it can (CVE-2023-44487, "rapid reset") makes the server start
// a handler for each and abandon it. net/http only closes such a
// connection when the handlers it had to queue pile up, which handlers
// that end quickly never do: 30,000 resets in 10 s cost 4 s of CPU and the
// connection stayed open. So each connection may end streams early at a
// sustained rate with a burst above it, and is closed past that.
const (
	earlyEndsPerSecond = 100
	earlyEndsBurst     = 1000
)

// earlyEnds counts one connection's streams that ended before their
// handler did (the client reset them, or a timeout of the server's did).
type earlyEnds struct {
	conn net.Conn
	mu   sync.Mutex
	// budget is made at the first early end: most connections never
	// have one.
	budget *rate.Limiter
	closed bool
}

type earlyEndsKey struct{}

// CountEarlyEnds is the HTTP server's ConnContext: every request on a
// connection shares its count.
func CountEarlyEnds(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, earlyEndsKey{}, &earlyEnds{conn: c})
}

// BoundEarlyEnds runs next and, on HTTP/2, charges the connection for the
// request if its stream was gone before the handler returned; a connection
// over its budget is closed.
func BoundEarlyEnds(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r)
		// The stream's context is canceled when the client resets it or the
		// connection ends; a stream that ends normally is closed only after
		// its handler returns.
		if r.ProtoMajor != 2 || r.Context().Err() == nil {
			return
		}
		if e, ok := r.Context().Value(earlyEndsKey{}).(*earlyEnds); ok && !e.spend() {
			closeResetting(log, e.conn)
		}
	})
}

func closeResetting(log *slog.Logger, c net.Conn) {
	log.Warn("closing an HTTP/2 connection that reset too many streams",
		slog.String("remote_addr", c.RemoteAddr().String()), slog.Int("burst", earlyEndsBurst), slog.Int("per_second", earlyEndsPerSecond))
	_ = c.Close()
}

// spend takes one early end from the budget and reports whether the
// connection is still within it (false once, when it is first exceeded).
func (e *earlyEnds) spend() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return true
	}
	if e.budget == nil {
		e.budget = rate.NewLimiter(earlyEndsPerSecond, earlyEndsBurst)
	}
	if e.budget.Allow() {
		return true
	}
	e.closed = true
	return false
}

// resetBudgetListener hands gRPC's own transport (--grpc-addr) connections
// that count the streams ended early against the same budget: grpc-go has
// no bound of its own on resets. A stream ends early when its client
// resets it (RST_STREAM) or when the server resets it for a stream error
// the client provoked (a zero WINDOW_UPDATE, DATA past the window, on a
// closed stream...): the latter cost the server as much and were not
// counted, so a client could end 100,000 streams in 8 s that way on a
// connection never closed. The server's RST_STREAM with NO_ERROR is not
// an early end: it is how an answered call tells its client to stop
// sending (RFC 9113 section 8.1).
type resetBudgetListener struct {
	net.Listener
	log *slog.Logger
}

func (l resetBudgetListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	rc := &resetCountingConn{Conn: c, log: l.log, in: frameScanner{preface: len(http2.ClientPreface)}}
	rc.ends.conn = c
	return rc, nil
}

// resetCountingConn reads both directions of an HTTP/2 connection as they
// pass, frame headers (and RST_STREAM's error code) only, without
// changing a byte. Only the gRPC transport's reader goroutine calls Read,
// so in needs no lock; its writes come from one goroutine at a time, but
// out is locked all the same.
type resetCountingConn struct {
	net.Conn
	log   *slog.Logger
	ends  earlyEnds
	in    frameScanner
	outMu sync.Mutex
	out   frameScanner
}

func (c *resetCountingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.in.scan(p[:n], func(http2.ErrCode) { c.spend() })
	return n, err
}

func (c *resetCountingConn) Write(p []byte) (int, error) {
	c.outMu.Lock()
	c.out.scan(p, func(code http2.ErrCode) {
		if code != http2.ErrCodeNo {
			c.spend()
		}
	})
	c.outMu.Unlock()
	return c.Conn.Write(p)
}

func (c *resetCountingConn) spend() {
	if !c.ends.spend() {
		closeResetting(c.log, c.Conn)
	}
}

// frameScanner follows one direction of an HTTP/2 connection and reports
// each RST_STREAM frame's error code.
type frameScanner struct {
	preface int     // connection preface bytes still to pass
	header  [9]byte // the frame header being read
	have    int     // bytes of it read so far
	skip    int     // payload bytes of the current frame still to pass
	rst     bool    // the current frame is an RST_STREAM: its code is read
	code    [4]byte
	codeLen int
}

func (f *frameScanner) scan(b []byte, reset func(http2.ErrCode)) {
	for len(b) > 0 {
		switch {
		case f.preface > 0:
			k := min(len(b), f.preface)
			f.preface -= k
			b = b[k:]
		case f.rst:
			k := copy(f.code[f.codeLen:], b)
			f.codeLen += k
			f.skip -= k
			b = b[k:]
			if f.codeLen == len(f.code) {
				f.rst = false
				reset(http2.ErrCode(binary.BigEndian.Uint32(f.code[:])))
			}
		case f.skip > 0:
			k := min(len(b), f.skip)
			f.skip -= k
			b = b[k:]
		default:
			k := copy(f.header[f.have:], b)
			f.have += k
			b = b[k:]
			if f.have < len(f.header) {
				return
			}
			f.have = 0
			f.skip = int(f.header[0])<<16 | int(f.header[1])<<8 | int(f.header[2])
			if http2.FrameType(f.header[3]) == http2.FrameRSTStream {
				if f.skip != len(f.code) {
					// Malformed: the peer's connection error, which
					// ends the connection anyway.
					reset(http2.ErrCodeFrameSize)
					continue
				}
				f.rst, f.codeLen = true, 0
			}
		}
	}
}

// ResetBudgetListener is ln with every connection's early stream ends
// counted against the budget of early ends, for the gRPC port, whose
// transport is not net/http's (see resetCountingConn).
func ResetBudgetListener(ln net.Listener, log *slog.Logger) net.Listener {
	return resetBudgetListener{Listener: ln, log: log}
}

package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
)

// One port, three kinds of client: gRPC lands on the gRPC server's own
// transport, HTTP/1.1 and HTTP/2 (prior knowledge) REST on the HTTP server.
func TestConnMuxRoutesByFirstRequest(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := newConnMux(ln, 10*time.Second, nil)
	go m.serve()

	// The gRPC side has only the health service; the HTTP side answers
	// everything with "http", so a gRPC call that reached it would fail.
	g := grpc.NewServer()
	healthpb.RegisterHealthServer(g, health.NewServer())
	go func() { _ = g.Serve(m.grpc) }()
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	var conns atomic.Int32
	h := &http.Server{Protocols: protocols, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "http "+r.Proto)
	}), ConnState: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}}
	go func() { _ = h.Serve(m.http) }()
	t.Cleanup(func() {
		_ = h.Close()
		g.Stop()
	})

	// A client that connects and says nothing holds up no one else.
	silent, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cc, err := grpc.NewClient("passthrough:///"+ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	for i := 0; i < 3; i++ {
		resp, err := healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{})
		if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("gRPC health check %d: %v %v", i, resp, err)
		}
	}

	for _, tc := range []struct {
		name  string
		proto func(*http.Protocols)
		want  string
	}{
		{"HTTP/1.1", func(p *http.Protocols) { p.SetHTTP1(true) }, "http HTTP/1.1"},
		{"HTTP/2 prior knowledge", func(p *http.Protocols) { p.SetUnencryptedHTTP2(true) }, "http HTTP/2.0"},
	} {
		p := new(http.Protocols)
		tc.proto(p)
		client := &http.Client{Transport: &http.Transport{Protocols: p}, Timeout: 10 * time.Second}
		// Several requests on one connection: the HTTP/2 one must survive
		// the SETTINGS acknowledgement the mux removed (the client would
		// quietly retry on a new connection if the server hung up).
		conns.Store(0)
		for i := 0; i < 3; i++ {
			resp, err := client.Get("http://" + ln.Addr().String() + "/v1/creators")
			if err != nil {
				t.Fatalf("%s request %d: %v", tc.name, i, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(body) != tc.want {
				t.Fatalf("%s request %d: got %q, want %q", tc.name, i, body, tc.want)
			}
		}
		client.CloseIdleConnections()
		if n := conns.Load(); n != 1 {
			t.Fatalf("%s: 3 requests took %d connections, want 1", tc.name, n)
		}
	}
}

// Closing either side (as a server's shutdown does) stops the mux.
func TestConnMuxCloseStopsAccepting(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := newConnMux(ln, 10*time.Second, nil)
	served := make(chan struct{})
	go func() { m.serve(); close(served) }()
	_ = m.http.Close()
	select {
	case <-served:
	case <-time.After(5 * time.Second):
		t.Fatal("mux still accepting after its HTTP side closed")
	}
	if _, err := m.grpc.Accept(); err == nil {
		t.Fatal("gRPC side accepted after close")
	}
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		t.Fatal("port still open after close")
	}
}

// flakyListener fails its first Accept calls as a process out of file
// descriptors does, then accepts normally.
type flakyListener struct {
	net.Listener
	failures atomic.Int32
	calls    atomic.Int32
}

func (l *flakyListener) Accept() (net.Conn, error) {
	l.calls.Add(1)
	if l.failures.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// Running out of file descriptors is waited out: the mux keeps accepting
// once descriptors are free again instead of closing the port.
func TestConnMuxRetriesTemporaryAcceptErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fl := &flakyListener{Listener: ln}
	fl.failures.Store(4)
	m := newConnMux(fl, 10*time.Second, slog.New(slog.DiscardHandler))
	served := make(chan struct{})
	go func() { m.serve(); close(served) }()
	h := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	})}
	go func() { _ = h.Serve(m.http) }()
	t.Cleanup(func() { _ = h.Close(); <-served })

	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatalf("request after EMFILE: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "ok" {
		t.Fatalf("got %q", body)
	}
	if n := fl.calls.Load(); n < 5 {
		t.Fatalf("Accept called %d times, want the 4 failures and then a connection", n)
	}
}

// A listener that fails for good stops the mux, and both sides report why.
func TestConnMuxStopsOnPermanentAcceptError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	broken := errors.New("listener broken")
	m := newConnMux(failingListener{ln, broken}, 10*time.Second, nil)
	m.serve() // returns at once
	if _, err := m.http.Accept(); !errors.Is(err, broken) {
		t.Fatalf("HTTP side: %v, want %v", err, broken)
	}
	if _, err := m.grpc.Accept(); !errors.Is(err, broken) {
		t.Fatalf("gRPC side: %v, want %v", err, broken)
	}
}

type failingListener struct {
	net.Listener
	err error
}

func (l failingListener) Accept() (net.Conn, error) { return nil, l.err }

// A client that sends frames of an unknown type instead of a request is
// not buffered without limit: past sniffLimit bytes its connection goes to
// the HTTP side, having kept at most sniffLimit bytes to replay.
func TestConnMuxBoundsWhatItBuffers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		frame int // payload bytes of each unknown frame
	}{
		{"small frames", 1 << 10},
		{"one huge frame", 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			m := newConnMux(ln, 10*time.Second, nil)
			go m.serve()
			t.Cleanup(m.close)

			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			// Read (and drop) what the mux sends, so its SETTINGS never block.
			go func() { _, _ = io.Copy(io.Discard, c) }()
			// About 1 MiB of unknown frames, then a request: without a
			// bound, all of it would be buffered before the request.
			go func() {
				fr := http2.NewFramer(c, nil)
				if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
					return
				}
				payload := make([]byte, tc.frame)
				for i := 0; i < (1<<20)/tc.frame+8; i++ {
					if err := fr.WriteRawFrame(0xf0, 0, 0, payload); err != nil {
						return
					}
				}
				var hb bytes.Buffer
				enc := hpack.NewEncoder(&hb)
				for _, f := range []hpack.HeaderField{{Name: ":method", Value: "GET"}, {Name: ":scheme", Value: "http"},
					{Name: ":path", Value: "/"}, {Name: ":authority", Value: "x"}} {
					_ = enc.WriteField(f)
				}
				_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: hb.Bytes(), EndStream: true, EndHeaders: true})
			}()

			got := make(chan net.Conn, 1)
			go func() {
				if conn, err := m.http.Accept(); err == nil {
					got <- conn
				}
			}()
			select {
			case conn := <-got:
				defer conn.Close()
				rc, ok := conn.(*replayConn)
				if !ok {
					t.Fatalf("HTTP side got a %T", conn)
				}
				if rc.sniffed > sniffLimit {
					t.Fatalf("classifying buffered %d bytes, limit %d", rc.sniffed, sniffLimit)
				}
				// What was buffered is replayed first: the preface, then
				// the frames as sent (the mux's SETTINGS ACK filter sees
				// no ACK among them).
				head := make([]byte, len(http2.ClientPreface))
				if _, err := io.ReadFull(conn, head); err != nil || string(head) != http2.ClientPreface {
					t.Fatalf("replayed %q, %v", head, err)
				}
			case <-time.After(time.Minute):
				t.Fatal("connection not handed over")
			}
		})
	}
}

// A gRPC call whose first headers do not fit the classification budget is
// still answered: the HTTP side serves it through grpc.Server.ServeHTTP, as
// Server.Handler does.
func TestConnMuxLargeFirstHeadersStillServed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := newConnMux(ln, 10*time.Second, nil)
	go m.serve()
	g := grpc.NewServer()
	healthpb.RegisterHealthServer(g, health.NewServer())
	go func() { _ = g.Serve(m.grpc) }()
	protocols := new(http.Protocols)
	protocols.SetUnencryptedHTTP2(true)
	var viaHTTP atomic.Int32
	h := &http.Server{Protocols: protocols, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		viaHTTP.Add(1)
		g.ServeHTTP(w, r)
	})}
	go func() { _ = h.Serve(m.http) }()
	t.Cleanup(func() { _ = h.Close(); g.Stop() })

	cc, err := grpc.NewClient("passthrough:///"+ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ctx = metadata.AppendToOutgoingContext(ctx, "x-large", strings.Repeat("a", 2*sniffLimit))
	resp, err := healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health check with large metadata: %v %v", resp, err)
	}
	if viaHTTP.Load() != 1 {
		t.Fatalf("the call was not served by the HTTP side")
	}
}

// A connection that does not show its first request within the
// classification deadline is closed, whether it says nothing, stops inside
// the HTTP/2 preface or after it.
func TestConnMuxDropsSlowClassification(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := newConnMux(ln, 100*time.Millisecond, nil)
	go m.serve()
	t.Cleanup(m.close)
	for _, send := range []string{"", http2.ClientPreface, http2.ClientPreface[:10]} {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(c, send); err != nil {
			t.Fatal(err)
		}
		// The mux may send its SETTINGS first; then the connection ends.
		if _, err := io.Copy(io.Discard, c); err != nil {
			t.Fatalf("after %q: %v", send, err)
		}
		c.Close()
	}
}

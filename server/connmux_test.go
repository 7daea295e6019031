package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// One port, three kinds of client: gRPC lands on the gRPC server's own
// transport, HTTP/1.1 and HTTP/2 (prior knowledge) REST on the HTTP server.
func TestConnMuxRoutesByFirstRequest(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := newConnMux(ln)
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
	m := newConnMux(ln)
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

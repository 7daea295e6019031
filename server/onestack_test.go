package server_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"

	"golang.org/x/net/http2"

	"github.com/creativeops/creativeops/internal/testserver"
)

// REST and native gRPC share one HTTP/2 connection on the API port, in
// either order, as a proxy's pooled upstream connection carries them: each
// request is routed by what it is, not by how its connection began.
func TestRESTAndGRPCShareAConnection(t *testing.T) {
	s := testserver.Start(t, testserver.Options{})
	var dials atomic.Int32
	tr := &http2.Transport{AllowHTTP: true, DialTLSContext: func(ctx context.Context, network, addr string, _ *tls.Config) (net.Conn, error) {
		dials.Add(1)
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}

	grpcCheck := func() {
		t.Helper()
		// An empty HealthCheckRequest: no compression, length 0.
		req, _ := http.NewRequest("POST", s.URL+"/grpc.health.v1.Health/Check", bytes.NewReader([]byte{0, 0, 0, 0, 0}))
		req.Header.Set("Content-Type", "application/grpc")
		req.Header.Set("TE", "trailers")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Trailer.Get("Grpc-Status") != "0" || len(body) < 5 {
			t.Fatalf("gRPC health check: %d, grpc-status %q, %d bytes", resp.StatusCode, resp.Trailer.Get("Grpc-Status"), len(body))
		}
	}
	rest := func() {
		t.Helper()
		resp, err := client.Get(s.URL + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.ProtoMajor != 2 {
			t.Fatalf("GET /healthz: %s %d %s", resp.Proto, resp.StatusCode, body)
		}
	}
	grpcCheck()
	rest()
	grpcCheck()
	if n := dials.Load(); n != 1 {
		t.Fatalf("gRPC, REST and gRPC took %d connections, want 1", n)
	}
}

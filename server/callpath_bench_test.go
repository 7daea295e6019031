package server_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/internal/testserver"
)

// BenchmarkGetCreatorCall measures one authenticated GetCreator, the
// cheapest read, through each way a call reaches the interceptor chain:
// a real gRPC client on gRPC's own port, and REST through the HTTP
// handler (request id, admission, the gateway's routing and metadata,
// metrics, the response's JSON) without the network. Both include the
// SQLite read; allocs/op is steady on a noisy machine and guards the
// chain's per-call costs, cpu-ns/op (the process's CPU, client and server
// alike) is steadier than ns/op.
//
//	go test -run '^$' -bench GetCreatorCall -benchtime 2000x ./server/
func BenchmarkGetCreatorCall(b *testing.B) {
	s := testserver.Start(b, testserver.Options{NoWorkers: true})
	r := s.Do(b, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "Nova Reyes", "email": "nova@example.com", "vertical": "music"})
	id := r.JSON["id"].(string)

	b.Run("grpc", func(b *testing.B) {
		// gRPC's own transport (--grpc-addr): the API port's net/http
		// HTTP/2 would outweigh the chain.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		go func() { _ = s.ServeGRPC(ln) }()
		cc, err := grpc.NewClient("passthrough:///"+ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cc.Close() })
		client := creativeopsv1.NewCreatorsServiceClient(cc)
		ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+s.AdminKey)
		req := &creativeopsv1.GetCreatorRequest{Id: id}
		if _, err := client.GetCreator(ctx, req); err != nil { // warm the connection and the key cache
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		cpu := cpuTime()
		for range b.N {
			if _, err := client.GetCreator(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
	})

	b.Run("rest", func(b *testing.B) {
		h := s.Handler()
		// The headers an HTTP client sends: the edge reads, forwards or
		// skips each.
		req := httptest.NewRequest("GET", "/v1/creators/"+id, nil)
		req.Header.Set("Authorization", "Bearer "+s.AdminKey)
		req.Header.Set("User-Agent", "creativeops-bench/1")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("Accept-Encoding", "gzip")
		h.ServeHTTP(httptest.NewRecorder(), req) // the key cache
		b.ReportAllocs()
		b.ResetTimer()
		cpu := cpuTime()
		for range b.N {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				b.Fatalf("status %d: %s", w.Code, w.Body)
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
	})
}

// cpuTime is the CPU time the process has used (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

package server_test

import (
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/creativeops/creativeops/internal/testserver"
)

// BenchmarkRESTRead measures the REST edge around the cheapest read: one
// authenticated GET /v1/creators/{id} through the server's HTTP handler
// (request id, admission, the gateway's routing and metadata, metrics,
// the response's JSON) without the network, with the headers an HTTP
// client sends. The SQLite read and the interceptor chain are included;
// allocs/op is steady on a noisy machine and guards the edge's
// per-request allocations, cpu-ns/op (the process's CPU) is steadier
// than ns/op.
//
//	go test -run '^$' -bench RESTRead -benchtime 5000x ./server/
func BenchmarkRESTRead(b *testing.B) {
	s := testserver.Start(b, testserver.Options{NoWorkers: true})
	r := s.Do(b, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "Nova Reyes", "email": "nova@example.com", "vertical": "music"})
	id := r.JSON["id"].(string)
	h := s.Handler()
	req := httptest.NewRequest("GET", "/v1/creators/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+s.AdminKey)
	req.Header.Set("User-Agent", "creativeops-bench/1")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Accept-Encoding", "gzip")
	h.ServeHTTP(httptest.NewRecorder(), req) // the key cache
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	for range b.N {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
	b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
}

// processCPU is the CPU time the process has used (user and system).
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
